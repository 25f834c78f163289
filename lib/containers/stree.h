/*
 * stree: a static search index over a sorted array of u64 keys, answering "the last key at or
 * below x" (an S+-tree). The keys' own array is the bottom level, read a node of 16 keys (two
 * 64-byte lines) at a time; each level above holds every 16th key of the level below, up to a
 * root of at most 16 keys. A search reads one node per level, about log16(n) + 1 of them where
 * a binary search reads about log2(n) - 2 lines, each a cache miss when the array is cold (a
 * process's maps looked up by a sample of a random process); a node's two lines are fetched
 * together (stree_prefetch asks for both). The levels above cost 8/15 bytes per key.
 *
 * Built in O(n) over the keys as they are: after any change to them the index is stale and
 * the owner clears it (stree_clear) or builds it again. The keys array must be grown with
 * stree_keys_grow (line-aligned, room to pad its last node). Not thread safe.
 */
#ifndef LIB_STREE_H
#define LIB_STREE_H

#include "lib/compiler.h"

#define STREE_FANOUT 16	/* keys per node: two 64-byte lines */

struct stree {
	u64 *levels;	/* the levels above the keys, lowest first, each padded to whole nodes */
	size_t alloc;	/* u64s in levels (just what the last larger build needed) */
	size_t nr;	/* keys indexed; 0: no index (stree_find answers nothing) */
};

void stree_exit(struct stree *t);
/* Grow *keys (line-aligned, *alloc a multiple of STREE_FANOUT) to hold need keys. */
void stree_keys_grow(u64 **keys, size_t *alloc, size_t need);
/* Index keys[0, nr), sorted; their last node is padded with UINT64_MAX. Reads every line. */
void stree_build(struct stree *t, u64 *keys, size_t nr);
/* Forget the index, keeping its memory for the next build. */
static inline void stree_clear(struct stree *t)
{
	t->nr = 0;
}
/* The position of the last of the indexed keys that is <= x; SIZE_MAX if there is none. */
size_t stree_find(const struct stree *t, const u64 *keys, u64 x);
/*
 * Prefetch the node that step `step` of a search for x reads (0: the root; the last step reads
 * the keys), reading the nodes of the steps before it, which calls for the earlier steps a
 * while before should have brought in. values (or NULL) is an array parallel to the keys of
 * value_size entries: at the last step, the entries of the keys' node are prefetched too.
 * Returns how many nodes a search reads: steps from there on prefetch nothing. Changes
 * nothing.
 */
size_t stree_prefetch(const struct stree *t, const u64 *keys, u64 x, size_t step,
		      const void *values, size_t value_size);

#endif
