/* bytes: a growable byte string (see bytes.h). */
#include "lib/bytes.h"

#include <string.h>

#include "lib/xalloc.h"

#define NAME_ALIGN 64	/* perf strings: u32 len, then the string padded with NULs to 64 */

void bytes_put(struct bytes *b, const void *data, size_t len)
{
	if (!len)
		return;
	ARRAY_GROW(b->data, b->alloc, b->len + len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

void bytes_put_u32(struct bytes *b, u32 v)
{
	bytes_put(b, &v, sizeof(v));
}

void bytes_put_u64(struct bytes *b, u64 v)
{
	bytes_put(b, &v, sizeof(v));
}

void bytes_put_string(struct bytes *b, const char *str)
{
	static const u8 zeros[NAME_ALIGN];
	size_t olen = strlen(str) + 1, len = ALIGN_UP(olen, NAME_ALIGN);

	bytes_put_u32(b, (u32)len);
	bytes_put(b, str, olen);
	bytes_put(b, zeros, len - olen);
}
