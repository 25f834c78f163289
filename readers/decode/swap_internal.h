/*
 * swap_internal: the in-place swapping cursor shared by swap.c (headers, attrs, records) and
 * swap_feature.c (feature sections). Not part of readers/decode/swap.h: only those two include it.
 * Every accessor is bounds-checked; the helpers are inline because they run per field.
 */
#ifndef READERS_SWAP_INTERNAL_H
#define READERS_SWAP_INTERNAL_H

#include <string.h>

#include "readers/decode/swap.h"

/*
 * A cursor over [base + pos, base + end). Each accessor swaps one field and returns its value
 * in native order: read after swapping when the input is foreign (to_native), before
 * swapping when the input is native. A failed bounds check sets bad and swaps nothing.
 */
struct cursor {
	u8 *base;
	size_t pos, end;
	bool to_native;
	bool bad;
};

static inline bool cur_has(struct cursor *c, size_t n)
{
	if (c->bad || c->pos > c->end || n > c->end - c->pos) {
		c->bad = true;
		return false;
	}
	return true;
}

/*
 * cur_u16, cur_u32, cur_u64: one field of that width, swapped in place. cur_u16s, cur_u32s,
 * cur_u64s: n consecutive such fields; n comes from input, so the room is checked before
 * anything is touched.
 */
#define CURSOR_FIELD(bits)                                                                   \
	static inline u##bits cur_u##bits(struct cursor *c)                                  \
	{                                                                                    \
		u##bits raw, swapped;                                                        \
                                                                                             \
		if (!cur_has(c, sizeof(raw)))                                                \
			return 0;                                                            \
		memcpy(&raw, c->base + c->pos, sizeof(raw));                                 \
		swapped = __builtin_bswap##bits(raw);                                        \
		memcpy(c->base + c->pos, &swapped, sizeof(raw));                             \
		c->pos += sizeof(raw);                                                       \
		return c->to_native ? swapped : raw;                                         \
	}                                                                                    \
                                                                                             \
	static inline void cur_u##bits##s(struct cursor *c, u64 n)                           \
	{                                                                                    \
		if (n > (c->end - MIN(c->pos, c->end)) / sizeof(u##bits)) {                  \
			c->bad = true;                                                       \
			return;                                                              \
		}                                                                            \
		while (n-- && !c->bad)                                                       \
			cur_u##bits(c);                                                      \
	}

CURSOR_FIELD(16)
CURSOR_FIELD(32)
CURSOR_FIELD(64)

#undef CURSOR_FIELD

static inline void cur_skip(struct cursor *c, u64 n)
{
	if (n > (u64)SIZE_MAX || !cur_has(c, (size_t)n))
		return;
	c->pos += (size_t)n;
}

/* Every whole u64 word up to the end (perf's mem_bswap_64 over a remainder). */
static inline void cur_rest_u64(struct cursor *c)
{
	if (c->bad || c->pos > c->end)
		return;
	cur_u64s(c, (c->end - c->pos) / 8);
}

#endif
