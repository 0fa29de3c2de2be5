// The function is static inline in include/minimal_prefetch.h; SwiftPM needs one source file.
#include "minimal_prefetch.h"
