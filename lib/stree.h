/*
 * stree: a static search index over a sorted array of u64 keys, answering "the last key at or
 * below x" (an S+-tree). The keys' own array is the bottom level, read a 64-byte line (8 keys)
 * at a time; each level above holds every 8th key of the level below, up to a root of at most
 * 8 keys. A search reads one line per level, about log8(n) + 1 lines where a binary search
 * reads about log2(n) - 2, each a cache miss when the array is cold (a process's maps looked
 * up by a sample of a random process). The levels above cost 8/7 bytes per key.
 *
 * Built in O(n) over the keys as they are: after any change to them the index is stale and
 * the owner clears it (stree_clear) or builds it again. The keys array must be grown with
 * stree_keys_grow (line-aligned, room to pad its last line). Not thread safe.
 */
#ifndef LIB_STREE_H
#define LIB_STREE_H

#include "lib/compiler.h"

#define STREE_FANOUT 8	/* keys per node: one 64-byte line */

struct stree {
	u64 *levels;	/* the levels above the keys, lowest first, each padded to whole nodes */
	size_t alloc;	/* u64s in levels */
	size_t nr;	/* keys indexed; 0: no index (stree_find answers nothing) */
};

void stree_exit(struct stree *t);
/* Grow *keys (line-aligned, *alloc a multiple of STREE_FANOUT) to hold need keys. */
void stree_keys_grow(u64 **keys, size_t *alloc, size_t need);
/* Index keys[0, nr), sorted; their last line is padded with UINT64_MAX. O(nr / 8) lines read. */
void stree_build(struct stree *t, u64 *keys, size_t nr);
/* Forget the index, keeping its memory for the next build. */
static inline void stree_clear(struct stree *t)
{
	t->nr = 0;
}
/* The position of the last of the indexed keys that is <= x; SIZE_MAX if there is none. */
size_t stree_find(const struct stree *t, const u64 *keys, u64 x);
/*
 * Prefetch the line that step `step` of a search for x reads (0: the root; the last step reads
 * the keys), reading the lines of the steps before it, which calls for the earlier steps a
 * while before should have brought in. Returns how many lines a search reads: steps from there
 * on prefetch nothing. Changes nothing.
 */
size_t stree_prefetch(const struct stree *t, const u64 *keys, u64 x, size_t step);

#endif
