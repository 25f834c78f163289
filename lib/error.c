/* Thread-local last-error text; see error.h. */
#include "lib/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char last_error[512];

void error_set(const char *fmt, ...)
{
	char buf[sizeof(last_error)];	/* the arguments may include error_get()'s text */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(last_error, buf, sizeof(buf));
}

const char *error_get(void)
{
	return last_error[0] ? last_error : "unknown error";
}
