/*
 * symtab internals: the builder that replays perf's symbol rb-tree while a table loads.
 * perf keeps a dso's symbols in a red-black tree and symbols__find walks it; with overlapping
 * symbols the answer depends on the tree's shape, so the builder performs the same inserts
 * and erases (lib/containers/rbtree.c's algorithm) and derives the lookup index from the final tree.
 * Only the files of symtab/ include this.
 */
#ifndef SYMTAB_SYMTAB_INTERNAL_H
#define SYMTAB_SYMTAB_INTERNAL_H

#include "symtab/symcache.h"
#include "symtab/symtab.h"

/* No node: the links are 30 bits, a builder holds fewer than a billion symbols */
#define SYM_NIL ((1u << 30) - 1)

/* elf.h values, repeated so the builder does not depend on elf.h */
#define SYM_BIND_LOCAL 0
#define SYM_BIND_GLOBAL 1
#define SYM_BIND_WEAK 2
#define SYM_OBJECT 0x80	/* or'ed into builder_add's binding: a data symbol */

/*
 * A node, 32 bytes: a kernel's 120k symbols are 4 MB of them while the table builds. The
 * in-order neighbours are the tree's (builder_next walks it); builder_finish reuses parent
 * for the node's index in the final table.
 */
struct bsym {
	u64 start, end;	/* end is exclusive; end == start for a size-0 symbol */
	u32 name;	/* offset into the table's pool */
	u32 left : 30, binding : 2;
	u32 right : 30, object : 1, red : 1;
	u32 parent;
};

struct sym_builder {
	struct symtab *st;
	struct bsym *v;
	size_t nr, alloc;
	u32 root;
	u32 first, last;	/* in-order first and last nodes, SYM_NIL when empty */
	size_t live;
};

void builder_init(struct sym_builder *b, struct symtab *st);
void builder_exit(struct sym_builder *b);
/*
 * Room for nr symbols and names_bytes of names, from what the source says of its size: the
 * arrays then grow without being copied (a large table's doublings copied tens of MB into
 * fresh pages). Memory reserved and not used is never touched, so costs no RSS.
 */
void builder_reserve(struct sym_builder *b, size_t nr, size_t names_bytes);
/* perf's symbol__new + symbols__insert: end = len ? start + len : start. */
u32 builder_add(struct sym_builder *b, u64 start, u64 len, u8 binding, const char *name,
		size_t name_len);
u32 builder_first(const struct sym_builder *b);
u32 builder_next(const struct sym_builder *b, u32 n);
void builder_erase(struct sym_builder *b, u32 n);
const char *builder_name(const struct sym_builder *b, u32 n);
/* perf's symbols__fixup_end(symbols, is_kallsyms) and symbols__fixup_duplicate(). */
void builder_fixup_end(struct sym_builder *b, bool is_kallsyms);
void builder_fixup_duplicate(struct sym_builder *b);
/* Moves the tree into st (sorted array + lookup index when needed); frees the builder. */
void builder_finish(struct sym_builder *b);

/* What symtab__save writes: a table's key and probes, and the kernel's bounds. */
struct symtab_pending {
	struct symcache *cache;
	struct symcache_key key;
	struct kernel_map_bounds bounds;
	bool has_bounds;
};

/* Leave key (moved, k is left empty) for symtab__save to write st's index with. */
void symtab_defer_save(struct symtab *st, struct symcache *cache, struct symcache_key *k,
		       const struct kernel_map_bounds *bounds);

/* Pool helpers. */
u32 symtab_pool_add(struct symtab *st, const char *s, size_t len);
void symtab_reset(struct symtab *st);

/* File helpers shared by the loaders. */

#endif
