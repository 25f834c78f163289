/* stree: the static S+-tree index over a sorted key array; see stree.h. */
#include "lib/containers/stree.h"

#include <stdlib.h>

#include "lib/xalloc.h"

#define LINE_BYTES 64
#define NODE_BYTES (STREE_FANOUT * sizeof(u64))
/* levels above the keys for any size_t count of keys: 16^16 = 2^64 */
#define MAX_LEVELS 16

/*
 * Where the levels above nr keys lie in t->levels: level l (1 the lowest) starts at off[l - 1]
 * and off[depth] is their total size. Returns depth, 0 when the keys fit in one node.
 */
static size_t stree_layout(size_t nr, size_t off[MAX_LEVELS + 1])
{
	size_t depth = 0, count = nr;

	off[0] = 0;
	while (count > STREE_FANOUT) {
		count = (count + STREE_FANOUT - 1) / STREE_FANOUT;
		off[depth + 1] = off[depth] + ALIGN_UP(count, (size_t)STREE_FANOUT);
		depth++;
	}
	return depth;
}

void stree_exit(struct stree *t)
{
	free(t->levels);
	*t = (struct stree){ 0 };
}

void stree_keys_grow(u64 **keys, size_t *alloc, size_t need)
{
	/* grow_array's sizes are powers of two from 16: whole nodes */
	grow_array_aligned((void **)keys, alloc, need, sizeof(**keys), LINE_BYTES);
}

/* Fill a level's last node from count on with keys above any x. */
static void pad_node(u64 *level, size_t count)
{
	for (size_t i = count; i < ALIGN_UP(count, (size_t)STREE_FANOUT); i++)
		level[i] = UINT64_MAX;
}

void stree_build(struct stree *t, u64 *keys, size_t nr)
{
	size_t off[MAX_LEVELS + 1], depth = stree_layout(nr, off), count = nr;
	const u64 *below = keys;

	/* just the size needed: a build follows every change (no copy), and there are many */
	if (off[depth] > t->alloc) {
		free(t->levels);
		t->levels = xaligned_alloc(LINE_BYTES, off[depth] * sizeof(u64));
		t->alloc = off[depth];
	}
	pad_node(keys, nr);
	for (size_t l = 1; l <= depth; l++) {
		u64 *level = t->levels + off[l - 1];

		count = (count + STREE_FANOUT - 1) / STREE_FANOUT;
		for (size_t i = 0; i < count; i++)
			level[i] = below[i * STREE_FANOUT];
		pad_node(level, count);
		below = level;
	}
	t->nr = nr;
}

/* How many keys of a node are <= x: branch-free, the node is two lines. */
static inline size_t node_rank(const u64 *node, u64 x)
{
	size_t rank = 0;

#pragma GCC unroll 16
	for (size_t i = 0; i < STREE_FANOUT; i++)
		rank += node[i] <= x;
	return rank;
}

size_t stree_find(const struct stree *t, const u64 *keys, u64 x)
{
	size_t off[MAX_LEVELS + 1], depth, node = 0, rank;

	if (!t->nr)
		return SIZE_MAX;
	if (x == UINT64_MAX)	/* the padding is not above it */
		return t->nr - 1;
	/*
	 * From the root down: below the root a node's first key is the one chosen above it, at
	 * or below x, so the rank is at least 1 there.
	 */
	for (depth = stree_layout(t->nr, off); depth; depth--) {
		rank = node_rank(t->levels + off[depth - 1] + node * STREE_FANOUT, x);
		if (!rank)
			return SIZE_MAX;
		node = node * STREE_FANOUT + rank - 1;
	}
	rank = node_rank(keys + node * STREE_FANOUT, x);
	return rank ? node * STREE_FANOUT + rank - 1 : SIZE_MAX;
}

static inline void prefetch_node(const u64 *node)
{
	__builtin_prefetch(node);
	__builtin_prefetch((const u8 *)node + LINE_BYTES);
}

/* Every line of [p, p + size). */
static void prefetch_range(const void *p, size_t size)
{
	for (uintptr_t line = (uintptr_t)p & ~(uintptr_t)(LINE_BYTES - 1);
	     line < (uintptr_t)p + size; line += LINE_BYTES)
		__builtin_prefetch((const void *)line);
}

size_t stree_prefetch(const struct stree *t, const u64 *keys, u64 x, size_t step,
		      const void *values, size_t value_size)
{
	size_t off[MAX_LEVELS + 1], depth, level, node = 0, rank;
	const u64 *line;

	_Static_assert(NODE_BYTES == 2 * LINE_BYTES, "a node is two lines");
	if (!t->nr || x == UINT64_MAX)
		return 0;
	depth = stree_layout(t->nr, off);
	if (step > depth)
		return depth + 1;
	for (level = depth; level; level--) {
		line = t->levels + off[level - 1] + node * STREE_FANOUT;
		if (step == depth - level) {
			prefetch_node(line);
			return depth + 1;
		}
		rank = node_rank(line, x);
		if (!rank)
			return depth + 1;
		node = node * STREE_FANOUT + rank - 1;
	}
	prefetch_node(keys + node * STREE_FANOUT);
	if (values)
		prefetch_range((const u8 *)values + node * STREE_FANOUT * value_size,
			       MIN(STREE_FANOUT, t->nr - node * STREE_FANOUT) * value_size);
	return depth + 1;
}
