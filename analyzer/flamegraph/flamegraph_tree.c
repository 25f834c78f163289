/*
 * flamegraph_tree: stacks merged into a tree of named nodes (see flamegraph_tree.h). Nodes
 * live in one array, a child always after its parent; a node's children are found by one
 * hash of (parent, name id). Nothing here knows about perf.
 */
#include "analyzer/flamegraph/flamegraph_tree.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/containers/hashmap.h"
#include "lib/containers/strpool.h"
#include "lib/xalloc.h"

struct flame_tree {
	struct flame_node *nodes;
	size_t nr_nodes, alloc_nodes;
	struct hashmap children;	/* parent << 32 | name -> node + 1 */
	struct strpool pool;
	const char **names;	/* by id: interned */
	size_t nr_names, alloc_names;
	struct hashmap name_ids;	/* interned pointer -> id + 1 */
};

static u32 add_node(struct flame_tree *tree, u32 parent, u32 name)
{
	struct flame_node *n;

	ARRAY_GROW(tree->nodes, tree->alloc_nodes, tree->nr_nodes + 1);
	n = &tree->nodes[tree->nr_nodes];
	*n = (struct flame_node){ .name = name, .parent = parent, .first_child = FLAME_NONE,
				  .next_sibling = FLAME_NONE };
	return (u32)tree->nr_nodes++;
}

struct flame_tree *flame_tree__new(void)
{
	struct flame_tree *tree = xzalloc(sizeof(*tree));

	hashmap_init(&tree->children);
	hashmap_init(&tree->name_ids);
	strpool_init(&tree->pool);
	add_node(tree, FLAME_NONE, flame_tree__name(tree, "all", 3));
	return tree;
}

void flame_tree__delete(struct flame_tree *tree)
{
	if (!tree)
		return;
	hashmap_exit(&tree->children);
	hashmap_exit(&tree->name_ids);
	strpool_exit(&tree->pool);
	free(tree->names);
	free(tree->nodes);
	free(tree);
}

u32 flame_tree__name(struct flame_tree *tree, const char *name, size_t len)
{
	const char *s = strpool_intern_len(&tree->pool, name, len);
	void *id = hashmap_find(&tree->name_ids, (u64)(uintptr_t)s);

	if (id)
		return (u32)((uintptr_t)id - 1);
	ARRAY_GROW(tree->names, tree->alloc_names, tree->nr_names + 1);
	tree->names[tree->nr_names] = s;
	hashmap_insert(&tree->name_ids, (u64)(uintptr_t)s, (void *)(uintptr_t)(tree->nr_names + 1));
	return (u32)tree->nr_names++;
}

const char *flame_tree__name_str(const struct flame_tree *tree, u32 id)
{
	return tree->names[id];
}

u32 flame_tree__child(struct flame_tree *tree, u32 node, u32 name)
{
	u64 key = (u64)node << 32 | name;
	void *child = hashmap_find(&tree->children, key);
	u32 id;

	if (child)
		return (u32)((uintptr_t)child - 1);
	id = add_node(tree, node, name);
	hashmap_insert(&tree->children, key, (void *)(uintptr_t)(id + 1));
	return id;
}

void flame_tree__add(struct flame_tree *tree, u32 node, u64 count)
{
	tree->nodes[node].self += count;
}

const struct flame_node *flame_tree__node(const struct flame_tree *tree, u32 id)
{
	return &tree->nodes[id];
}

size_t flame_tree__nr_nodes(const struct flame_tree *tree)
{
	return tree->nr_nodes;
}

/* children of one parent together, each parent's in name order */
static int cmp_siblings(const void *a, const void *b, void *data)
{
	const struct flame_tree *tree = data;
	const struct flame_node *x = &tree->nodes[*(const u32 *)a];
	const struct flame_node *y = &tree->nodes[*(const u32 *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(tree->names[x->name], tree->names[y->name]);
}

void flame_tree__finish(struct flame_tree *tree)
{
	size_t nr = tree->nr_nodes;
	u32 *order = xcalloc(nr, sizeof(*order));

	for (size_t i = 0; i < nr; i++) {
		tree->nodes[i].total = tree->nodes[i].self;
		tree->nodes[i].first_child = tree->nodes[i].next_sibling = FLAME_NONE;
	}
	/* a child comes after its parent: one pass from the end adds every subtree up */
	for (size_t i = nr; i-- > 1;)
		tree->nodes[tree->nodes[i].parent].total += tree->nodes[i].total;
	for (size_t i = 0; i < nr - 1; i++)
		order[i] = (u32)(i + 1);
	if (nr > 1)
		qsort_r(order, nr - 1, sizeof(*order), cmp_siblings, tree);
	/* linked from the last: each list ends up in order */
	for (size_t i = nr - 1; i-- > 0;) {
		struct flame_node *n = &tree->nodes[order[i]];

		n->next_sibling = tree->nodes[n->parent].first_child;
		tree->nodes[n->parent].first_child = order[i];
	}
	free(order);
}

/* A folded line: its path in the text buffer, and its count. */
struct folded_line {
	size_t offset, len;
	u64 count;
};

struct folded {
	char *path;	/* the path of the node being visited */
	size_t alloc_path;
	char *text;	/* the paths of the lines, one after the other */
	size_t len, alloc;
	struct folded_line *lines;
	size_t nr, alloc_lines;
};

/* Depth first, with the node's path (path_len bytes; none for the root): its line, if any. */
static void collect(const struct flame_tree *tree, u32 id, struct folded *f, size_t path_len,
		    bool has_path)
{
	const struct flame_node *n = &tree->nodes[id];

	/* the root's own samples (none but from a caller's mistake) have no path: left out */
	if (n->self && has_path) {
		ARRAY_GROW(f->text, f->alloc, f->len + path_len + 1);
		memcpy(f->text + f->len, f->path, path_len);
		ARRAY_GROW(f->lines, f->alloc_lines, f->nr + 1);
		f->lines[f->nr++] = (struct folded_line){ f->len, path_len, n->self };
		f->len += path_len;
	}
	for (u32 c = n->first_child; c != FLAME_NONE; c = tree->nodes[c].next_sibling) {
		const char *name = tree->names[tree->nodes[c].name];
		size_t len = strlen(name), at = path_len;

		ARRAY_GROW(f->path, f->alloc_path, path_len + 1 + len);
		if (has_path)
			f->path[at++] = ';';
		memcpy(f->path + at, name, len);
		collect(tree, c, f, at + len, true);
	}
}

static int cmp_lines(const void *a, const void *b, void *data)
{
	const struct folded_line *x = a, *y = b;
	const char *text = data;
	int c = memcmp(text + x->offset, text + y->offset, MIN(x->len, y->len));

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

int flame_tree__fprintf_folded(struct flame_tree *tree, FILE *out)
{
	struct folded f = { 0 };
	int ret = 0;

	flame_tree__finish(tree);
	collect(tree, FLAME_ROOT, &f, 0, false);
	if (f.nr)
		qsort_r(f.lines, f.nr, sizeof(*f.lines), cmp_lines, f.text);
	for (size_t i = 0; i < f.nr; i++) {
		u64 count = f.lines[i].count;

		/* the same text from two paths: one line, as stackcollapse-perf.pl's hash keys */
		while (i + 1 < f.nr && cmp_lines(&f.lines[i], &f.lines[i + 1], f.text) == 0)
			count += f.lines[++i].count;
		fwrite(f.text + f.lines[i].offset, 1, f.lines[i].len, out);
		fprintf(out, " %llu\n", (unsigned long long)count);
	}
	if (fflush(out) || ferror(out))
		ret = -1;
	if (ret && !errno)
		errno = EIO;
	free(f.path);
	free(f.text);
	free(f.lines);
	return ret;
}
