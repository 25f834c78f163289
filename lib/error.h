/*
 * error: the last error of the calling thread, as one line of text. Lower layers record what
 * went wrong (file, byte offset, what) and return -1 or NULL; the command front end prints it.
 */
#ifndef LIB_ERROR_H
#define LIB_ERROR_H

__attribute__((format(printf, 1, 2))) void error_set(const char *fmt, ...);
const char *error_get(void);

#endif
