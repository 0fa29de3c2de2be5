// The functions are static inline in include/prefetch.h; SwiftPM needs one source file.
#include "prefetch.h"
