/*
 * flamegraph_tree: the stacks of a flame graph merged into a tree as samples come (one node
 * per distinct path of frame names from the root; no sample is kept), and its folded form
 * (stackcollapse-perf.pl's "a;b;c N" lines). Names are interned once. One writer, no locks.
 */
#ifndef ANALYZER_FLAMEGRAPH_TREE_H
#define ANALYZER_FLAMEGRAPH_TREE_H

#include <stdio.h>

#include "lib/compiler.h"

#define FLAME_ROOT 0	/* the node of every stack's start: "all" */
#define FLAME_NONE ((u32)-1)

struct flame_node {
	u32 name;	/* its id: flame_tree__name_str() */
	u32 parent;	/* FLAME_NONE for the root */
	/* after flame_tree__finish: children in name order (strcmp), FLAME_NONE ends */
	u32 first_child, next_sibling;
	u64 self;	/* samples whose stack ends here */
	u64 total;	/* self and the children's totals: after flame_tree__finish */
};

struct flame_tree;

struct flame_tree *flame_tree__new(void);
void flame_tree__delete(struct flame_tree *tree);

/* The id of a name (len bytes; may hold any byte but NUL), the same for the same bytes. */
u32 flame_tree__name(struct flame_tree *tree, const char *name, size_t len);
const char *flame_tree__name_str(const struct flame_tree *tree, u32 id);

/* The child of node called name (an id): found, or added. O(1) expected. */
u32 flame_tree__child(struct flame_tree *tree, u32 node, u32 name);
/* count more samples whose stack ends at node. */
void flame_tree__add(struct flame_tree *tree, u32 node, u64 count);

/* Totals and ordered children, once every stack is in (adding more afterwards: again). */
void flame_tree__finish(struct flame_tree *tree);
const struct flame_node *flame_tree__node(const struct flame_tree *tree, u32 id);
size_t flame_tree__nr_nodes(const struct flame_tree *tree);

/*
 * The folded stacks: one line per path with samples ending there, "name;name;... count", the
 * root left out, sorted bytewise (as stackcollapse-perf.pl's sort); paths that read the same
 * (a name with a ';') are one line. Calls flame_tree__finish. Returns 0, or -1 on a write
 * error (errno set).
 */
int flame_tree__fprintf_folded(struct flame_tree *tree, FILE *out);

#endif
