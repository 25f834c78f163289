/*
 * rbtree: a red-black tree of item numbers (0..n-1) that takes the shape the Linux kernel's
 * lib/containers/rbtree.c gives the same inserts: descend from the root by a caller's comparison, link
 * the new leaf, rebalance as rb_insert_color does. Its use is to reproduce the order perf
 * walks its own trees in when perf's comparison is not transitive (then the in-order walk
 * depends on the tree's shape, not on the comparison alone). O(log n) an insert while the
 * comparison is consistent; arrays of n u32s, no per-insert allocation. Not thread safe.
 */
#ifndef LIB_RBTREE_H
#define LIB_RBTREE_H

#include <stddef.h>
#include <stdint.h>

#define RBTREE_NONE UINT32_MAX

struct rbtree {
	uint32_t *link;	/* stride a node: left, right, parent, then a payload's room */
	uint8_t *red;
	uint32_t root;	/* of the tree rbtree__insert and rbtree__walk use */
	size_t cap;
	size_t stride;	/* u32s a node: 3, or with a payload 4 + its own */
};

/*
 * Where item goes against node: < 0 to node's left, > 0 to its right, 0: equal (not
 * inserted). ctx is the caller's.
 */
typedef int (*rbtree_dir_fn)(void *ctx, uint32_t item, uint32_t node);

/* An empty tree for items 0..n-1. */
void rbtree__init(struct rbtree *t, size_t n);
/*
 * The same, each node with room for a payload of size bytes next to its links (8-aligned),
 * which rbtree__payload gives: what a comparison reads of a node then sits in the cache line
 * of its links, one miss a level where an array of its own would be a second.
 */
void rbtree__init_payload(struct rbtree *t, size_t n, size_t size);
static inline void *rbtree__payload(const struct rbtree *t, uint32_t node)
{
	return &t->link[node * t->stride + 4];
}
void rbtree__exit(struct rbtree *t);
/* Room for items 0..n-1 (what was inserted stays). */
void rbtree__reserve(struct rbtree *t, size_t n);

/* Insert item: RBTREE_NONE, or the node dir found equal to it (item is then not in the tree). */
uint32_t rbtree__insert(struct rbtree *t, uint32_t item, rbtree_dir_fn dir, void *ctx);

/* The items in order (leftmost first) into out; returns how many. */
size_t rbtree__walk(const struct rbtree *t, uint32_t *out);

/*
 * The same for one of several trees sharing the arrays (a forest: each item in one tree at
 * most), whose root the caller keeps (RBTREE_NONE: empty).
 */
uint32_t rbtree__insert_at(struct rbtree *t, uint32_t *root, uint32_t item, rbtree_dir_fn dir,
			   void *ctx);
size_t rbtree__walk_at(const struct rbtree *t, uint32_t root, uint32_t *out);

#endif
