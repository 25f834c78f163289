/*
 * rbtree: see rbtree.h. The rebalancing is the textbook insertion (recolour while the uncle is
 * red, else one or two rotations), which is what the kernel's rb_insert_color does, so equal
 * insert sequences make equal shapes.
 */
#include "lib/containers/rbtree.h"

#include <stdbool.h>
#include <stdlib.h>

#include "lib/xalloc.h"

#define LINK(t, x, i) ((t)->link[(t)->stride * (size_t)(x) + (i)])	/* 0 left, 1 right */
#define LEFT(t, x) LINK(t, x, 0)
#define RIGHT(t, x) LINK(t, x, 1)
#define PARENT(t, x) LINK(t, x, 2)

static void init_stride(struct rbtree *t, size_t n, size_t stride)
{
	t->cap = n;
	t->stride = stride;
	t->link = xreallocarray(NULL, n ? n : 1, stride * sizeof(*t->link));
	t->red = xcalloc(n ? n : 1, sizeof(*t->red));
	t->root = RBTREE_NONE;
}

void rbtree__init(struct rbtree *t, size_t n)
{
	init_stride(t, n, 3);
}

void rbtree__init_payload(struct rbtree *t, size_t n, size_t size)
{
	/* the payload at u32 4 of an even stride: 8-aligned, as malloc's memory is */
	init_stride(t, n, 4 + (size + 7) / 8 * 2);
}

void rbtree__reserve(struct rbtree *t, size_t n)
{
	if (n <= t->cap)
		return;
	n = n < 2 * t->cap ? 2 * t->cap : n;
	t->link = xreallocarray(t->link, n, t->stride * sizeof(*t->link));
	t->red = xrealloc(t->red, n * sizeof(*t->red));
	t->cap = n;
}

void rbtree__exit(struct rbtree *t)
{
	free(t->link);
	free(t->red);
	t->link = NULL;
	t->red = NULL;
	t->cap = 0;
	t->root = RBTREE_NONE;
}

/* Put y where x was under x's parent. */
static void replace_child(struct rbtree *t, uint32_t *root, uint32_t x, uint32_t y)
{
	uint32_t p = PARENT(t, x);

	PARENT(t, y) = p;
	if (p == RBTREE_NONE)
		*root = y;
	else if (LEFT(t, p) == x)
		LEFT(t, p) = y;
	else
		RIGHT(t, p) = y;
}

/* Rotate at x: side 0 (left) lifts its right child, side 1 (right) its left child. */
static void rotate(struct rbtree *t, uint32_t *root, uint32_t x, int side)
{
	uint32_t y = LINK(t, x, !side), inner = LINK(t, y, side);

	LINK(t, x, !side) = inner;
	if (inner != RBTREE_NONE)
		PARENT(t, inner) = x;
	replace_child(t, root, x, y);
	LINK(t, y, side) = x;
	PARENT(t, x) = y;
}

static void insert_color(struct rbtree *t, uint32_t *root, uint32_t z)
{
	while (PARENT(t, z) != RBTREE_NONE && t->red[PARENT(t, z)]) {
		uint32_t p = PARENT(t, z), g = PARENT(t, p);	/* p is red: not the root */
		bool left = p == LEFT(t, g);
		uint32_t u = left ? RIGHT(t, g) : LEFT(t, g);

		if (u != RBTREE_NONE && t->red[u]) {
			t->red[p] = t->red[u] = 0;
			t->red[g] = 1;
			z = g;
			continue;
		}
		if (left && z == RIGHT(t, p)) {
			rotate(t, root, p, 0);
			p = z;
		} else if (!left && z == LEFT(t, p)) {
			rotate(t, root, p, 1);
			p = z;
		}
		t->red[p] = 0;
		t->red[g] = 1;
		if (left)
			rotate(t, root, g, 1);
		else
			rotate(t, root, g, 0);
		break;
	}
	t->red[*root] = 0;
}

uint32_t rbtree__insert(struct rbtree *t, uint32_t item, rbtree_dir_fn dir, void *ctx)
{
	return rbtree__insert_at(t, &t->root, item, dir, ctx);
}

uint32_t rbtree__insert_at(struct rbtree *t, uint32_t *root, uint32_t item, rbtree_dir_fn dir,
			   void *ctx)
{
	uint32_t parent = RBTREE_NONE, node = *root;
	int d = 0;

	while (node != RBTREE_NONE) {
		d = dir(ctx, item, node);
		if (!d)
			return node;
		parent = node;
		node = d < 0 ? LEFT(t, node) : RIGHT(t, node);
	}
	LEFT(t, item) = RIGHT(t, item) = RBTREE_NONE;
	PARENT(t, item) = parent;
	t->red[item] = 1;
	if (parent == RBTREE_NONE)
		*root = item;
	else if (d < 0)
		LEFT(t, parent) = item;
	else
		RIGHT(t, parent) = item;
	insert_color(t, root, item);
	return RBTREE_NONE;
}

size_t rbtree__walk(const struct rbtree *t, uint32_t *out)
{
	return rbtree__walk_at(t, t->root, out);
}

/*
 * In order, with a stack (a red-black tree of fewer than 2^32 nodes is at most 64 high): a
 * node's right child is fetched as the node goes on the stack, so that it is in once the
 * node's left subtree (most often small) has been walked; the nodes of a large tree are
 * scattered, and a walk by the parent links waits for each of them.
 */
size_t rbtree__walk_at(const struct rbtree *t, uint32_t root, uint32_t *out)
{
	uint32_t stack[64], x = root;
	size_t n = 0, sp = 0;

	for (;;) {
		while (x != RBTREE_NONE) {
			uint32_t r = RIGHT(t, x);

			if (r != RBTREE_NONE)
				__builtin_prefetch(&LEFT(t, r));
			stack[sp++] = x;
			x = LEFT(t, x);
		}
		if (!sp)
			return n;
		x = stack[--sp];
		out[n++] = x;
		x = RIGHT(t, x);
	}
}
