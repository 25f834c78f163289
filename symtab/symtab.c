/*
 * symtab core: the string pool, the builder that replays perf's symbol rb-tree (inserts,
 * erases, symbols__fixup_end, symbols__fixup_duplicate) and the compact table it produces,
 * looked up with perf's symbols__find semantics. No file access here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>

#include "lib/xalloc.h"
#include "lib/containers/xxhash_inline.h"
#include "symtab/symcache.h"
#include "symtab/symtab_internal.h"

void symtab__init(struct symtab *st)
{
	memset(st, 0, sizeof(*st));
}

void symtab_defer_save(struct symtab *st, struct symcache *cache, struct symcache_key *k,
		       const struct kernel_map_bounds *bounds)
{
	struct symtab_pending *p = xzalloc(sizeof(*p));

	p->cache = cache;
	p->key = *k;
	memset(k, 0, sizeof(*k));
	if (bounds) {
		p->bounds = *bounds;
		p->has_bounds = true;
	}
	st->pending = p;
}

static void pending_free(struct symtab *st)
{
	if (st->pending) {
		symcache_key__exit(&st->pending->key);
		free(st->pending);
		st->pending = NULL;
	}
}

void symtab__save(struct symtab *st)
{
	struct symtab_pending *p = st->pending;

	if (!p)
		return;
	symcache__store(p->cache, &p->key, st, p->has_bounds ? &p->bounds : NULL);
	pending_free(st);
}

void symtab__exit(struct symtab *st)
{
	pending_free(st);
	if (st->map) {
		munmap(st->map, st->map_size);
		memset(st, 0, sizeof(*st));
		return;
	}
	free(st->syms);
	free(st->names);
	free(st->ranges);
	free(st->big_ends);
	memset(st, 0, sizeof(*st));
}

size_t symtab__append(struct symtab *st, u64 start, u32 size, const char *name)
{
	/* capacity: the power of two at or above nr, doubled when nr reaches it */
	if (!(st->nr & (st->nr - 1)))
		st->syms = xrealloc(st->syms, (st->nr ? 2 * st->nr : 1) * sizeof(*st->syms));
	st->syms[st->nr] = (struct symbol){ .start = start, .size = size,
					    .name = symtab_pool_add(st, name, strlen(name)) };
	return st->nr++;
}

void symtab_reset(struct symtab *st)
{
	symtab__exit(st);
}

u32 symtab_pool_add(struct symtab *st, const char *s, size_t len)
{
	size_t off;

	if (!st->names_len) {
		ARRAY_GROW(st->names, st->names_alloc, 1);
		st->names[0] = '\0';
		st->names_len = 1;
	}
	if (!len)
		return 0;
	/* Pool offsets are u32: a pool past 4 GiB cannot come from sane input. */
	if (st->names_len + len + 1 > UINT32_MAX)
		return 0;
	ARRAY_GROW(st->names, st->names_alloc, st->names_len + len + 1);
	off = st->names_len;
	memcpy(st->names + off, s, len);
	st->names[off + len] = '\0';
	st->names_len += len + 1;
	return (u32)off;
}

/*
 * Directories known to exist or not, so that the candidate files of many dsos under a
 * directory that is not there (a recording from another machine) cost one stat, not one
 * each: direct-mapped by a hash of the path, a collision forgets the older entry. Guarded
 * by dir_cache_lock (symbol tables load on several workers).
 */
#define DIR_CACHE_SLOTS 256

static struct {
	char *path;
	bool exists;
} dir_cache[DIR_CACHE_SLOTS];
static pthread_mutex_t dir_cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* What the cache knows of the directory [dir, dir + len): 1 there, 0 not there, -1 nothing. */
static int dir_cached(const char *dir, size_t len, size_t slot)
{
	int known = -1;

	pthread_mutex_lock(&dir_cache_lock);
	if (dir_cache[slot].path && !strncmp(dir_cache[slot].path, dir, len) &&
	    !dir_cache[slot].path[len])
		known = dir_cache[slot].exists;
	pthread_mutex_unlock(&dir_cache_lock);
	return known;
}

static void dir_learn(const char *dir, size_t len, size_t slot)
{
	char *copy = xstrndup(dir, len);
	struct stat sb;
	bool exists = stat(copy, &sb) == 0 && S_ISDIR(sb.st_mode);

	pthread_mutex_lock(&dir_cache_lock);
	free(dir_cache[slot].path);
	dir_cache[slot].path = copy;
	dir_cache[slot].exists = exists;
	pthread_mutex_unlock(&dir_cache_lock);
}

bool symtab_is_regular_file(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash && slash != path ? (size_t)(slash - path) : 0, slot = 0;
	struct stat sb;
	int known = -1;

	symcache_probe_file(path);
	if (len) {
		slot = XXH3_64bits(path, len) % DIR_CACHE_SLOTS;
		known = dir_cached(path, len, slot);
		if (known == 0)
			return false;
	}
	if (stat(path, &sb) == 0)
		return S_ISREG(sb.st_mode);
	if (len && known < 0 && errno == ENOENT)
		dir_learn(path, len, slot);
	return false;
}

void symtab_join_symfs(char *buf, size_t size, const char *symfs, const char *path)
{
	/* perf's path__join(symfs, path): a '/' between them when symfs is set */
	if (symfs && symfs[0])
		snprintf(buf, size, "%s/%s", symfs, path);
	else
		snprintf(buf, size, "%s", path);
}

/* ---- the builder: a red-black tree on indices, same algorithm as the kernel's rbtree ---- */

void builder_init(struct sym_builder *b, struct symtab *st)
{
	memset(b, 0, sizeof(*b));
	b->st = st;
	b->root = b->first = b->last = SYM_NIL;
}

void builder_reserve(struct sym_builder *b, size_t nr, size_t names_bytes)
{
	struct symtab *st = b->st;

	ARRAY_GROW(b->v, b->alloc, MIN(nr, (size_t)SYM_NIL - 1));
	ARRAY_GROW(st->names, st->names_alloc, MIN(st->names_len + names_bytes, (size_t)UINT32_MAX));
}

void builder_exit(struct sym_builder *b)
{
	free(b->v);
	b->v = NULL;
	b->nr = b->alloc = b->live = 0;
	b->root = b->first = b->last = SYM_NIL;
}

const char *builder_name(const struct sym_builder *b, u32 n)
{
	return b->st->names + b->v[n].name;
}

static bool is_red(const struct sym_builder *b, u32 n)
{
	return n != SYM_NIL && b->v[n].red;
}

static void replace_child(struct sym_builder *b, u32 old, u32 new, u32 parent)
{
	if (parent == SYM_NIL)
		b->root = new;
	else if (b->v[parent].left == old)
		b->v[parent].left = new;
	else
		b->v[parent].right = new;
}

static void rotate_left(struct sym_builder *b, u32 x)
{
	u32 y = b->v[x].right;

	b->v[x].right = b->v[y].left;
	if (b->v[y].left != SYM_NIL)
		b->v[b->v[y].left].parent = x;
	b->v[y].parent = b->v[x].parent;
	replace_child(b, x, y, b->v[x].parent);
	b->v[y].left = x;
	b->v[x].parent = y;
}

static void rotate_right(struct sym_builder *b, u32 x)
{
	u32 y = b->v[x].left;

	b->v[x].left = b->v[y].right;
	if (b->v[y].right != SYM_NIL)
		b->v[b->v[y].right].parent = x;
	b->v[y].parent = b->v[x].parent;
	replace_child(b, x, y, b->v[x].parent);
	b->v[y].right = x;
	b->v[x].parent = y;
}

static void insert_fixup(struct sym_builder *b, u32 z)
{
	while (is_red(b, b->v[z].parent)) {
		u32 p = b->v[z].parent, g = b->v[p].parent, u;

		if (p == b->v[g].left) {
			u = b->v[g].right;
			if (is_red(b, u)) {
				b->v[p].red = b->v[u].red = 0;
				b->v[g].red = 1;
				z = g;
				continue;
			}
			if (z == b->v[p].right) {
				z = p;
				rotate_left(b, z);
				p = b->v[z].parent;
			}
			b->v[p].red = 0;
			b->v[g].red = 1;
			rotate_right(b, g);
		} else {
			u = b->v[g].left;
			if (is_red(b, u)) {
				b->v[p].red = b->v[u].red = 0;
				b->v[g].red = 1;
				z = g;
				continue;
			}
			if (z == b->v[p].left) {
				z = p;
				rotate_right(b, z);
				p = b->v[z].parent;
			}
			b->v[p].red = 0;
			b->v[g].red = 1;
			rotate_left(b, g);
		}
	}
	b->v[b->root].red = 0;
}

u32 builder_add(struct sym_builder *b, u64 start, u64 len, u8 binding, const char *name,
		size_t name_len)
{
	u32 n, p = SYM_NIL, cur = b->root;
	bool left = false;

	if (b->nr >= SYM_NIL - 1)
		return SYM_NIL;
	ARRAY_GROW(b->v, b->alloc, b->nr + 1);
	n = (u32)b->nr++;
	b->v[n] = (struct bsym){
		.start = start,
		.end = len ? start + len : start,
		.name = symtab_pool_add(b->st, name, name_len),
		.left = SYM_NIL,
		.right = SYM_NIL,
		.binding = binding & 3,
		.object = !!(binding & SYM_OBJECT),
		.red = 1,
	};
	/*
	 * perf's __symbols__insert: smaller starts go left, equal ones right. A start at or
	 * past the largest one (tables come mostly sorted) would walk right to the last node.
	 */
	if (b->last != SYM_NIL && start >= b->v[b->last].start)
		p = b->last;
	else
		while (cur != SYM_NIL) {
			p = cur;
			left = start < b->v[cur].start;
			cur = left ? b->v[cur].left : b->v[cur].right;
		}
	/* the in-order ends: equal starts go right, after the ones there */
	if (b->first == SYM_NIL || start < b->v[b->first].start)
		b->first = n;
	if (b->last == SYM_NIL || start >= b->v[b->last].start)
		b->last = n;
	b->v[n].parent = p;
	if (p == SYM_NIL)
		b->root = n;
	else if (left)
		b->v[p].left = n;
	else
		b->v[p].right = n;
	insert_fixup(b, n);
	b->live++;
	return n;
}

static u32 leftmost(const struct sym_builder *b, u32 n)
{
	while (b->v[n].left != SYM_NIL)
		n = b->v[n].left;
	return n;
}

u32 builder_first(const struct sym_builder *b)
{
	return b->first;
}

static u32 rightmost(const struct sym_builder *b, u32 n)
{
	while (b->v[n].right != SYM_NIL)
		n = b->v[n].right;
	return n;
}

/* The in-order successor: amortized O(1) over a whole walk. */
u32 builder_next(const struct sym_builder *b, u32 n)
{
	u32 p;

	if (b->v[n].right != SYM_NIL)
		return leftmost(b, b->v[n].right);
	while ((p = b->v[n].parent) != SYM_NIL && b->v[p].right == n)
		n = p;
	return p;
}

static u32 builder_prev(const struct sym_builder *b, u32 n)
{
	u32 p;

	if (b->v[n].left != SYM_NIL)
		return rightmost(b, b->v[n].left);
	while ((p = b->v[n].parent) != SYM_NIL && b->v[p].left == n)
		n = p;
	return p;
}

static void erase_fixup(struct sym_builder *b, u32 x, u32 xp)
{
	while (x != b->root && !is_red(b, x)) {
		u32 w;

		if (x != b->v[xp].right) {
			w = b->v[xp].right;
			if (is_red(b, w)) {
				b->v[w].red = 0;
				b->v[xp].red = 1;
				rotate_left(b, xp);
				w = b->v[xp].right;
			}
			if (!is_red(b, b->v[w].left) && !is_red(b, b->v[w].right)) {
				b->v[w].red = 1;
				x = xp;
				xp = b->v[x].parent;
				continue;
			}
			if (!is_red(b, b->v[w].right)) {
				b->v[b->v[w].left].red = 0;
				b->v[w].red = 1;
				rotate_right(b, w);
				w = b->v[xp].right;
			}
			b->v[w].red = b->v[xp].red;
			b->v[xp].red = 0;
			b->v[b->v[w].right].red = 0;
			rotate_left(b, xp);
		} else {
			w = b->v[xp].left;
			if (is_red(b, w)) {
				b->v[w].red = 0;
				b->v[xp].red = 1;
				rotate_right(b, xp);
				w = b->v[xp].left;
			}
			if (!is_red(b, b->v[w].left) && !is_red(b, b->v[w].right)) {
				b->v[w].red = 1;
				x = xp;
				xp = b->v[x].parent;
				continue;
			}
			if (!is_red(b, b->v[w].left)) {
				b->v[b->v[w].right].red = 0;
				b->v[w].red = 1;
				rotate_left(b, w);
				w = b->v[xp].left;
			}
			b->v[w].red = b->v[xp].red;
			b->v[xp].red = 0;
			b->v[b->v[w].left].red = 0;
			rotate_right(b, xp);
		}
		x = b->root;
		break;
	}
	if (x != SYM_NIL)
		b->v[x].red = 0;
}

/* Transplant v into u's place (CLRS). */
static void transplant(struct sym_builder *b, u32 u, u32 v)
{
	replace_child(b, u, v, b->v[u].parent);
	if (v != SYM_NIL)
		b->v[v].parent = b->v[u].parent;
}

void builder_erase(struct sym_builder *b, u32 z)
{
	u32 y = z, x, xp;
	bool y_was_red = b->v[z].red;

	if (z == b->first)
		b->first = builder_next(b, z);
	if (z == b->last)
		b->last = builder_prev(b, z);
	if (b->v[z].left == SYM_NIL) {
		x = b->v[z].right;
		xp = b->v[z].parent;
		transplant(b, z, x);
	} else if (b->v[z].right == SYM_NIL) {
		x = b->v[z].left;
		xp = b->v[z].parent;
		transplant(b, z, x);
	} else {
		y = leftmost(b, b->v[z].right);
		y_was_red = b->v[y].red;
		x = b->v[y].right;
		if (b->v[y].parent == z) {
			xp = y;
		} else {
			xp = b->v[y].parent;
			transplant(b, y, x);
			b->v[y].right = b->v[z].right;
			b->v[b->v[y].right].parent = y;
		}
		transplant(b, z, y);
		b->v[y].left = b->v[z].left;
		b->v[b->v[y].left].parent = y;
		b->v[y].red = b->v[z].red;
	}
	if (!y_was_red && xp != SYM_NIL)
		erase_fixup(b, x, xp);
	else if (x != SYM_NIL)
		b->v[x].red = 0;
	b->v[z].left = b->v[z].right = b->v[z].parent = SYM_NIL;
	b->live--;
}

/* ---- perf's fixups ---- */

void builder_fixup_end(struct sym_builder *b, bool is_kallsyms)
{
	u32 prev, curr = builder_first(b), n;

	if (curr == SYM_NIL)
		return;
	for (n = builder_next(b, curr); n != SYM_NIL; n = builder_next(b, n)) {
		struct bsym *p;

		prev = curr;
		curr = n;
		p = &b->v[prev];
		if (p->end != p->start)
			continue;
		/* A kernel symbol followed by a module symbol (or the other way round) ends at
		 * the next page instead of spanning the gap between the two areas. */
		if (is_kallsyms && (!strchr(builder_name(b, prev), '[') !=
				    !strchr(builder_name(b, curr), '[')))
			p->end = ALIGN_UP(p->end + 4096, 4096);
		else
			p->end = b->v[curr].start;
	}
	if (b->v[curr].end == b->v[curr].start)
		b->v[curr].end = ALIGN_UP(b->v[curr].start, 4096) + 4096;
}

static size_t prefix_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: true to keep a (the earlier one), false to keep b. */
static bool choose_first(const struct sym_builder *b, u32 ia, u32 ib)
{
	const struct bsym *a = &b->v[ia], *c = &b->v[ib];
	s64 sa = (s64)(a->end - a->start), sb = (s64)(c->end - c->start);
	size_t ua, ub, la, lb;

	if (sb == 0 && sa > 0)
		return true;
	if (sa == 0 && sb > 0)
		return false;
	if ((c->binding == SYM_BIND_WEAK) != (a->binding == SYM_BIND_WEAK))
		return c->binding == SYM_BIND_WEAK;
	if ((a->binding == SYM_BIND_GLOBAL) != (c->binding == SYM_BIND_GLOBAL))
		return a->binding == SYM_BIND_GLOBAL;
	ua = prefix_underscores(builder_name(b, ia));
	ub = prefix_underscores(builder_name(b, ib));
	if (ua != ub)
		return ub > ua;
	la = strlen(builder_name(b, ia));
	lb = strlen(builder_name(b, ib));
	return la >= lb;
}

void builder_fixup_duplicate(struct sym_builder *b)
{
	u32 nd = builder_first(b), curr, next;

	while (nd != SYM_NIL) {
		curr = nd;
again:
		nd = builder_next(b, curr);
		if (nd == SYM_NIL)
			break;
		next = nd;
		if (b->v[curr].start != b->v[next].start)
			continue;
		if (choose_first(b, curr, next)) {
			builder_erase(b, next);
			goto again;
		}
		nd = builder_next(b, curr);
		builder_erase(b, curr);
	}
}

/* ---- finishing: sorted compact array plus, when needed, the exact lookup index ---- */

static u32 tree_walk(const struct sym_builder *b, u64 ip)
{
	u32 n = b->root;

	/* perf's symbols__find: end is exclusive, a size-0 symbol matches its start only. */
	while (n != SYM_NIL) {
		const struct bsym *s = &b->v[n];

		if (ip < s->start)
			n = s->left;
		else if (ip > s->end || (ip == s->end && ip != s->start))
			n = s->right;
		else
			return n;
	}
	return SYM_NIL;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The addresses where perf's answer may change: every symbol's start and end and the next
 * address after each, in increasing order, each once. The starts come sorted (the tree's
 * order); only the ends are sorted here, so the array is a quarter of all the bounds.
 */
struct bound_iter {
	const struct sym_builder *b;
	u32 node;		/* the next start's symbol */
	u64 *ends;
	size_t nr_ends, end_i;
	u64 pending[2];		/* a start's or an end's next address, still to come */
	u8 pending_from;	/* which of them are live: bit 0 start+1, bit 1 end+1 */
	bool have_last;
	u64 last;
};

static bool bound_next(struct bound_iter *it, u64 *out)
{
	for (;;) {
		u64 cand = UINT64_MAX;
		int from = -1;

		if (it->node != SYM_NIL && it->b->v[it->node].start <= cand)
			cand = it->b->v[it->node].start, from = 0;
		if ((it->pending_from & 1) && it->pending[0] <= cand)
			cand = it->pending[0], from = 1;
		if (it->end_i < it->nr_ends && it->ends[it->end_i] <= cand)
			cand = it->ends[it->end_i], from = 2;
		if ((it->pending_from & 2) && it->pending[1] <= cand)
			cand = it->pending[1], from = 3;
		if (from < 0)
			return false;
		switch (from) {
		case 0:
			it->node = builder_next(it->b, it->node);
			/* start+1 of this start waits until the ones before it are out */
			if (cand + 1 && !(it->pending_from & 1)) {
				it->pending[0] = cand + 1;
				it->pending_from |= 1;
			}
			break;
		case 1:
			it->pending_from &= (u8)~1;
			break;
		case 2:
			it->end_i++;
			if (cand + 1 && !(it->pending_from & 2)) {
				it->pending[1] = cand + 1;
				it->pending_from |= 2;
			}
			break;
		default:
			it->pending_from &= (u8)~2;
			break;
		}
		if (it->have_last && cand == it->last)
			continue;
		it->have_last = true;
		it->last = cand;
		*out = cand;
		return true;
	}
}

static void build_ranges(struct sym_builder *b, const u32 *final_of)
{
	struct symtab *st = b->st;
	struct bound_iter it = { .b = b, .node = builder_first(b) };
	size_t nr = 0, alloc = 0;
	struct symtab_range *r = NULL;
	u64 at;

	it.ends = xmalloc((b->live + 1) * sizeof(*it.ends));
	for (u32 n = builder_first(b); n != SYM_NIL; n = builder_next(b, n))
		it.ends[it.nr_ends++] = b->v[n].end;
	qsort(it.ends, it.nr_ends, sizeof(*it.ends), cmp_u64);
	/* address 0 first: below the first symbol there is none */
	it.have_last = true;
	it.last = 0;
	at = 0;
	do {
		u32 hit = tree_walk(b, at);
		u32 sym = hit == SYM_NIL ? UINT32_MAX : final_of[hit];

		if (nr && r[nr - 1].sym == sym)
			continue;
		ARRAY_GROW(r, alloc, nr + 1);
		r[nr].start = at;
		r[nr].sym = sym;
		nr++;
	} while (bound_next(&it, &at));
	free(it.ends);
	st->ranges = r;
	st->nr_ranges = nr;
}

/* n's fields as the final table's symbol; its exact end goes to big_ends if its size is not */
static struct symbol final_symbol(struct symtab *st, const struct bsym *s, size_t i,
				  size_t *big_alloc)
{
	u64 size = s->end - s->start;

	if (size >= UINT32_MAX) {
		ARRAY_GROW(st->big_ends, *big_alloc, st->nr_big_ends + 1);
		st->big_ends[st->nr_big_ends].sym = (u32)i;
		st->big_ends[st->nr_big_ends++].end = s->end;
	}
	return (struct symbol){ .start = s->start,
				.size = size >= UINT32_MAX ? UINT32_MAX : (u32)size,
				.name = s->name, .object = s->object };
}

/*
 * The nodes put in their final order (rank[n]: n's place; the erased ones after the live),
 * then each turned into its symbol where it lies: a symbol is half a node, so the i-th
 * symbol only covers nodes already read. The table is the nodes' own memory, not a second
 * array beside them (the kernel's: 2 MB less at the build's peak).
 */
static struct symbol *symbols_in_place(struct sym_builder *b, u32 *rank)
{
	struct symtab *st = b->st;
	size_t live = b->live, next_erased = live, big_alloc = 0;
	struct symbol *syms;

	for (size_t n = 0; n < b->nr; n++)
		if (rank[n] == UINT32_MAX)
			rank[n] = (u32)next_erased++;
	for (size_t n = 0; n < b->nr; n++)
		while (rank[n] != n) {
			u32 to = rank[n];
			struct bsym tmp = b->v[to];

			b->v[to] = b->v[n];
			b->v[n] = tmp;
			rank[n] = rank[to];
			rank[to] = to;
		}
	syms = (struct symbol *)b->v;
	for (size_t i = 0; i < live; i++) {
		struct bsym s = b->v[i];

		syms[i] = final_symbol(st, &s, i, &big_alloc);
	}
	syms = xrealloc_shrink(syms, b->alloc * sizeof(*b->v), live * sizeof(*syms));
	b->v = NULL;
	b->alloc = 0;
	return syms;
}

void builder_finish(struct sym_builder *b)
{
	struct symtab *st = b->st;
	u32 *final_of = NULL;
	bool complex = false;
	u64 max_end = 0;
	size_t i = 0, big_alloc = 0;

	free(st->syms);
	free(st->ranges);
	free(st->big_ends);
	st->syms = NULL;
	st->ranges = NULL;
	st->big_ends = NULL;
	st->nr = st->nr_ranges = st->nr_big_ends = 0;
	if (!st->names_len)
		symtab_pool_add(st, "", 0);
	if (!b->live)
		goto out;
	final_of = xmalloc(b->nr * sizeof(*final_of));
	memset(final_of, 0xff, b->nr * sizeof(*final_of));
	for (u32 n = builder_first(b); n != SYM_NIL; n = builder_next(b, n), i++) {
		const struct bsym *s = &b->v[n];
		u64 size = s->end - s->start;
		/* a size-0 symbol matches one address */
		u64 eff_end = size ? s->end : s->start + 1;

		final_of[n] = (u32)i;
		if (s->end < s->start || size >= UINT32_MAX || eff_end == 0 ||
		    (i && s->start < max_end))
			complex = true;
		if (eff_end > max_end)
			max_end = eff_end;
	}
	st->nr = i;
	if (!complex) {
		st->syms = symbols_in_place(b, final_of);
		goto out;
	}
	/* overlaps: the lookup ranges walk the tree, which must stay whole */
	st->syms = xmalloc(st->nr * sizeof(*st->syms));
	for (u32 n = builder_first(b); n != SYM_NIL; n = builder_next(b, n))
		st->syms[final_of[n]] = final_symbol(st, &b->v[n], final_of[n], &big_alloc);
	build_ranges(b, final_of);
out:
	free(final_of);
	builder_exit(b);
}

u64 symtab__symbol_end(const struct symtab *st, const struct symbol *s)
{
	size_t lo = 0, hi = st->nr_big_ends, idx = (size_t)(s - st->syms);

	if (s->size != UINT32_MAX)
		return s->start + s->size;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->big_ends[mid].sym < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < st->nr_big_ends && st->big_ends[lo].sym == idx)
		return st->big_ends[lo].end;
	return s->start + s->size;
}

const struct symbol *symtab__find_span(const struct symtab *st, u64 addr, u64 *span_lo,
				       u64 *span_hi)
{
	size_t lo = 0, hi;

	*span_lo = *span_hi = addr;	/* (empty) where it is not narrowed down below */
	if (!st)
		return NULL;
	if (st->ranges) {
		hi = st->nr_ranges;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (st->ranges[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		*span_lo = lo ? st->ranges[lo - 1].start : 0;
		*span_hi = lo < st->nr_ranges ? st->ranges[lo].start : UINT64_MAX;
		if (addr >= *span_hi)	/* the last address of all: no span holds it */
			*span_lo = *span_hi = addr;
		/* a range naming no symbol, or (in a damaged index) one out of bounds */
		if (!lo || st->ranges[lo - 1].sym >= st->nr)
			return NULL;
		return &st->syms[st->ranges[lo - 1].sym];
	}
	hi = st->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {	/* before the first symbol */
		*span_lo = 0;
		*span_hi = st->nr ? st->syms[0].start : UINT64_MAX;
		return NULL;
	}
	{
		const struct symbol *s = &st->syms[lo - 1];

		if (addr == s->start || addr - s->start < s->size) {
			u64 end = s->size ? s->start + s->size : s->start + 1;

			if (s->size == UINT32_MAX)
				end = UINT64_MAX;
			if (lo < st->nr && st->syms[lo].start < end)
				end = st->syms[lo].start;
			*span_lo = s->start;
			*span_hi = end > s->start ? end : s->start + 1;
			return s;
		}
		/* past its end: the gap before the next symbol finds none (s stays the one
		 * found for all of it) */
		if (s->size != UINT32_MAX) {
			u64 gap_lo = s->start + (s->size ? s->size : 1);
			u64 gap_hi = lo < st->nr ? st->syms[lo].start : UINT64_MAX;

			if (gap_lo <= addr && addr < gap_hi) {
				*span_lo = gap_lo;
				*span_hi = gap_hi;
			}
		}
	}
	return NULL;
}

const struct symbol *symtab__find(const struct symtab *st, u64 addr)
{
	u64 lo, hi;

	return symtab__find_span(st, addr, &lo, &hi);
}
