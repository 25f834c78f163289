/*
 * bytes: a growable byte string, for building perf.data sections (feature sections, the
 * header of a recording) before they are written in one piece. Integers go in native order.
 */
#ifndef LIB_BYTES_H
#define LIB_BYTES_H

#include <stddef.h>

#include "lib/compiler.h"

struct bytes {
	u8 *data;	/* owned: free() it */
	size_t len, alloc;
};

void bytes_put(struct bytes *b, const void *data, size_t len);
void bytes_put_u32(struct bytes *b, u32 v);
void bytes_put_u64(struct bytes *b, u64 v);
/* perf's do_write_string: a u32 length (with the NUL, rounded up to 64), the string, NULs. */
void bytes_put_string(struct bytes *b, const char *str);

#endif
