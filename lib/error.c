/* Thread-local last-error text; see error.h. */
#include "lib/error.h"

#include <stdarg.h>
#include <stdio.h>

static __thread char last_error[512];

void error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

const char *error_get(void)
{
	return last_error[0] ? last_error : "unknown error";
}
