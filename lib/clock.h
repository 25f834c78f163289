/* clock: a clock's time in nanoseconds, the one form the timers here need. */
#ifndef LIB_CLOCK_H
#define LIB_CLOCK_H

#include <time.h>

#include "lib/compiler.h"

static inline u64 clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

#endif
