#ifndef CWB_JEMALLOC_CONFIG_H
#define CWB_JEMALLOC_CONFIG_H
// The options compiled into the process for jemalloc (see config.c).
const char *cwb_jemalloc_config(void);
#endif
