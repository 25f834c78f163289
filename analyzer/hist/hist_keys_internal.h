/*
 * The sort keys' comparisons, hashes and equality (perf's se_cmp, se_sort, se_collapse)
 * and the names' ranks, static inline: the index's lookups, the cumulation, the replay and
 * the output order call them in their hot loops, and a call across files (no LTO) would
 * stay a call. Private to analyzer/hist/ (make check-layers); compares, changes nothing.
 */
#ifndef ANALYZER_HIST_HIST_KEYS_INTERNAL_H
#define ANALYZER_HIST_HIST_KEYS_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "analyzer/hist/hist.h"
#include "readers/decode/data_src.h"
#include "lib/xalloc.h"
#include "lib/containers/xxhash_inline.h"

static inline const char *dso_name(const struct hist_entry *he)
{
	return he->dso ? he->dso->short_name : NULL;
}

/*
 * The comm and dso names of entries as ranks under strcmp, for the output's ordering, which
 * compares them some n log n times in each of its trees: names are interned (a name is one
 * pointer), so they are sorted once and each entry's compared as two numbers. NULL where the
 * comparisons are by the names themselves.
 */
struct name_ranks {
	const struct hist_entry *base;	/* the entries the ranks are of, by index */
	u32 *comm, *dso;	/* 1 + the name's place among the distinct names (dso 0: none);
				   NULL when no key compares them */
};

static inline s64 cmp_null(const void *l, const void *r)
{
	if (!l && !r)
		return 0;
	return !l ? -1 : 1;
}

static inline u64 sym_end(const struct symbol *s)
{
	return s->start + s->size;
}

/*
 * Two names compared by their ranks, 0 for none: cmp_null's order, then right's name against
 * left's (perf's dso and symbol keys compare (right, left)).
 */
static inline s64 rank_cmp(u32 left, u32 right)
{
	if (!left || !right)
		return left == right ? 0 : !left ? -1 : 1;
	return (s64)right - left;
}

static inline s64 dso_cmp(const struct hist_entry *left, const struct hist_entry *right,
			  const struct name_ranks *rk)
{
	const char *l, *r;

	if (rk && rk->dso)	/* the names not read */
		return rank_cmp(rk->dso[left - rk->base], rk->dso[right - rk->base]);
	l = dso_name(right);	/* perf passes (right, left) */
	r = dso_name(left);
	if (!l || !r)
		return cmp_null(r, l);
	return l == r ? 0 : strcmp(l, r);	/* interned: the same name is the same pointer */
}

/* perf's _sort__sym_cmp, of symbols of any two dsos */
static inline s64 sym_ptr_cmp(const struct symbol *l, const struct symtab *lt,
			      const struct symbol *r, const struct symtab *rt)
{
	if (!l || !r)
		return cmp_null(l, r);
	if (l == r)
		return 0;
	/* an inlined function's symbol is its caller's range under another name */
	if (lt->inlined || rt->inlined) {
		int cmp = strcmp(symbol__name(lt, l), symbol__name(rt, r));

		if (cmp)
			return cmp;
		if (l->start <= sym_end(r) && sym_end(l) >= r->start)
			return 0;
	}
	if (l->start != r->start)
		return (s64)(r->start - l->start);
	return (s64)(sym_end(r) - sym_end(l));
}

/* by_dso: the dsos first, unless both are unresolved (struct sort_list's sym_by_dso) */
static inline s64 sym_cmp(const struct hist_entry *left, const struct hist_entry *right,
			  const struct name_ranks *rk, bool by_dso)
{
	s64 ret;

	if (!left->sym && !right->sym)
		return (s64)(right->ip - left->ip);
	ret = by_dso ? dso_cmp(left, right, rk) : 0;
	if (ret)
		return ret;
	return sym_ptr_cmp(left->sym, left->symtab, right->sym, right->symtab);
}

static inline s64 size_cmp(s64 size_l, s64 size_r)
{
	return size_l < size_r ? -1 : size_l == size_r ? 0 : 1;
}

static inline s64 sym_size(const struct hist_entry *he)
{
	return he->sym ? he->sym->size : 0;
}

/*
 * Without a dso, an entry had no map: its map_size is 0, or the union's other members (the
 * extra of the keys that read one, a branch, a memory access; see struct hist_entry).
 */
static inline s64 map_size(const struct hist_entry *he)
{
	if (he->map)
		return (s64)(he->map->end - he->map->start);
	return he->dso ? (s64)he->map_size : 0;
}

/*
 * The srcline and srcfile keys: by dso and address until hists__resolve_srclines found the
 * entries' texts (finer: those entries are then merged), then by the texts (perf 6.1's cmp,
 * collapse and sort alike).
 */
static inline s64 src_cmp(enum sort_key key, const struct hist_entry *left,
			  const struct hist_entry *right)
{
	if (left->extra && left->extra->line && right->extra && right->extra->line) {
		const char *l = key == SORT_SRCLINE ? left->extra->line : left->extra->file;
		const char *r = key == SORT_SRCLINE ? right->extra->line : right->extra->file;

		return l == r ? 0 : strcmp(r, l);	/* interned */
	}
	if (left->ip != right->ip)
		return (s64)(right->ip - left->ip);
	return left->dso == right->dso ? 0 : (uintptr_t)left->dso < (uintptr_t)right->dso ? -1 : 1;
}

static inline u64 src_hash(enum sort_key key, const struct hist_entry *he, u64 *v)
{
	if (he->extra && he->extra->line) {
		v[0] = (u64)(uintptr_t)(key == SORT_SRCLINE ? he->extra->line : he->extra->file);
		return 1;
	}
	v[0] = he->ip;
	v[1] = (u64)(uintptr_t)he->dso;
	return 2;
}

/* The sample's address (perf's map__unmap_ip of the entry's), for the addr key. */
static inline u64 entry_addr(const struct hist_entry *he)
{
	return he->map ? he->ip + map__base(he->map) : he->ip;
}

static const struct hist_extra no_extra;

/* An entry's hist_extra (zeros for one made without: see sort_list__has_extra). */
static inline const struct hist_extra *entry_extra(const struct hist_entry *he)
{
	return he->extra ? he->extra : &no_extra;
}

/* A hist_extra key's value, as its comparison and hash take it. */
static inline u64 extra_value(enum sort_key key, const struct hist_entry *he)
{
	const struct hist_extra *x = entry_extra(he);

	switch (key) {
	case SORT_LOCAL_WEIGHT:
	case SORT_WEIGHT:
		return x->weight;
	case SORT_TRANSACTION:
		return x->transaction;
	case SORT_CODE_PAGE_SIZE:
		return x->code_page_size;
	case SORT_LOCAL_INS_LAT:
	case SORT_INS_LAT:
		return x->ins_lat;
	default:
		return x->p_stage_cyc;
	}
}

/* perf's _sort__dso_cmp(l, r) of two dsos (the branch keys pass (left, right)) */
static inline s64 dso_ptr_cmp(const struct dso *l, const struct dso *r)
{
	if (!l || !r)
		return cmp_null(r, l);
	return l->short_name == r->short_name ? 0 : strcmp(l->short_name, r->short_name);
}

/*
 * perf's branch keys (sort__dso_from_cmp...), of the entries' first branches (struct
 * hist_branch). mispredict, in_tx and abort say only equal or not (0 or 1): see
 * lookups_can_fail.
 */
static inline s64 branch_key_cmp(enum sort_key key, const struct hist_entry *left,
				 const struct hist_entry *right)
{
	const struct hist_branch *l = left->branch, *r = right->branch;
	s64 ret;

	switch (key) {
	case SORT_DSO_FROM:
		return dso_ptr_cmp(l->from_dso, r->from_dso);
	case SORT_DSO_TO:
		return dso_ptr_cmp(l->to_dso, r->to_dso);
	case SORT_SYM_FROM:
		if (!l->from_sym && !r->from_sym)
			return (s64)(r->from - l->from);
		return sym_ptr_cmp(l->from_sym, l->from_symtab, r->from_sym, r->from_symtab);
	case SORT_SYM_TO:
		if (!l->to_sym && !r->to_sym)
			return (s64)(r->to - l->to);
		return sym_ptr_cmp(l->to_sym, l->to_symtab, r->to_sym, r->to_symtab);
	case SORT_ADDR_FROM:
		ret = dso_ptr_cmp(l->from_dso, r->from_dso);
		return ret ? ret : (s64)(r->from - l->from);
	case SORT_ADDR_TO:
		ret = dso_ptr_cmp(l->to_dso, r->to_dso);
		return ret ? ret : (s64)(r->to - l->to);
	case SORT_MISPREDICT:
		return BRANCH_MISPRED(l->flags) != BRANCH_MISPRED(r->flags) ||
		       BRANCH_PREDICTED(l->flags) != BRANCH_PREDICTED(r->flags);
	case SORT_IN_TX:
		return BRANCH_IN_TX(l->flags) != BRANCH_IN_TX(r->flags);
	case SORT_ABORT:
		return BRANCH_ABORT(l->flags) != BRANCH_ABORT(r->flags);
	case SORT_CYCLES:	/* (left - right), as ints */
		return (int)BRANCH_CYCLES(l->flags) - (int)BRANCH_CYCLES(r->flags);
	default:
		return 0;
	}
}

/* The words of a branch key's hash: equal under branch_key_cmp, equal words. */
static inline size_t branch_key_hash(enum sort_key key, const struct hist_entry *he, u64 *v)
{
	const struct hist_branch *b = he->branch;
	bool from = key == SORT_DSO_FROM || key == SORT_SYM_FROM || key == SORT_ADDR_FROM;
	const struct symbol *sym = from ? b->from_sym : b->to_sym;
	const struct symtab *symtab = from ? b->from_symtab : b->to_symtab;
	const struct dso *dso = from ? b->from_dso : b->to_dso;

	switch (key) {
	case SORT_DSO_FROM:
	case SORT_DSO_TO:
		v[0] = (u64)(uintptr_t)(dso ? dso->short_name : NULL);
		return 1;
	case SORT_SYM_FROM:
	case SORT_SYM_TO:
		if (sym && symtab->inlined) {
			const char *name = symbol__name(symtab, sym);

			v[0] = XXH3_64bits(name, strlen(name));
			return 1;
		}
		v[0] = sym ? sym->start : from ? b->from : b->to;
		v[1] = sym ? sym_end(sym) : 0;
		return 2;
	case SORT_ADDR_FROM:
	case SORT_ADDR_TO:
		v[0] = (u64)(uintptr_t)(dso ? dso->short_name : NULL);
		v[1] = from ? b->from : b->to;
		return 2;
	case SORT_CYCLES:
		v[0] = BRANCH_CYCLES(b->flags);
		return 1;
	default:	/* mispredict, in_tx, abort: found through perf's tree */
		return 0;
	}
}

/* A memory key's value: what perf compares as (s64)(right - left) */
static inline u64 mem_key_value(enum sort_key key, const struct hist_mem *m)
{
	switch (key) {
	case SORT_SYM_DADDR:
		return m->daddr;
	case SORT_SYM_IADDR:
		return m->iaddr;
	case SORT_LOCKED:
		return DS_LOCK(m->data_src);
	case SORT_TLB:
		return DS_DTLB(m->data_src);
	case SORT_MEM:
		return DS_LVL(m->data_src);
	case SORT_SNOOP:
		return DS_SNOOP(m->data_src);
	case SORT_BLOCKED:
		return DS_BLK(m->data_src);
	case SORT_PHYS_DADDR:
		return m->phys_addr;
	case SORT_DATA_PAGE_SIZE:
		return m->data_page_size;
	default:
		return 0;
	}
}

/* perf's memory keys (sort__daddr_cmp...), of the entries' first samples (struct hist_mem) */
static inline s64 mem_key_cmp(enum sort_key key, const struct hist_entry *left,
			      const struct hist_entry *right)
{
	if (key == SORT_DSO_DADDR)
		return dso_ptr_cmp(left->mem->daddr_dso, right->mem->daddr_dso);
	return (s64)(mem_key_value(key, right->mem) - mem_key_value(key, left->mem));
}

static inline u64 mem_key_hash(enum sort_key key, const struct hist_entry *he)
{
	const struct dso *dso = he->mem->daddr_dso;

	if (key == SORT_DSO_DADDR)
		return (u64)(uintptr_t)(dso ? dso->short_name : NULL);
	return mem_key_value(key, he->mem);
}

/* perf's se_cmp (also its se_collapse for these keys). */
static inline s64 key_cmp(const struct sort_list *sort, enum sort_key key,
			  const struct hist_entry *left, const struct hist_entry *right,
			  const struct name_ranks *rk)
{
	switch (key) {
	case SORT_PID:
		return (s64)right->thread->tid - left->thread->tid;
	case SORT_COMM: {
		const char *l, *r;

		if (rk && rk->comm)
			return (s64)rk->comm[right - rk->base] - rk->comm[left - rk->base];
		l = comm__str(right->comm);
		r = comm__str(left->comm);
		return l == r ? 0 : strcmp(l, r);	/* interned */
	}
	case SORT_DSO:
		return dso_cmp(left, right, rk);
	case SORT_SYM:
	case SORT_IPC_NULL:
		return sym_cmp(left, right, rk, sort->sym_by_dso);
	case SORT_PARENT:
		if (!left->parent || !right->parent)
			return cmp_null(left->parent, right->parent);
		return strcmp(right->parent, left->parent);
	case SORT_CPU:
		return (s64)right->cpu - left->cpu;
	case SORT_SOCKET:
		return (s64)right->socket - left->socket;
	case SORT_SYM_SIZE:
		return size_cmp(sym_size(right), sym_size(left));
	case SORT_DSO_SIZE:
		return size_cmp(map_size(right), map_size(left));
	case SORT_SRCLINE:
	case SORT_SRCFILE:
		return src_cmp(key, left, right);
	case SORT_ADDR:
		return (s64)(entry_addr(right) - entry_addr(left));
	case SORT_CODE_PAGE_SIZE:
		return (s64)(extra_value(key, right) - extra_value(key, left));
	case SORT_LOCAL_WEIGHT:
	case SORT_WEIGHT:
	case SORT_TRANSACTION:
	case SORT_LOCAL_INS_LAT:
	case SORT_INS_LAT:
	case SORT_LOCAL_P_STAGE_CYC:
	case SORT_P_STAGE_CYC:
		return (s64)(extra_value(key, left) - extra_value(key, right));
	case SORT_DSO_FROM ... SORT_ADDR_TO:
		return branch_key_cmp(key, left, right);
	case SORT_SYM_DADDR ... SORT_BLOCKED:
		return mem_key_cmp(key, left, right);
	default:
		return 0;
	}
}

/* The comm's string as the keys see it. */
static inline const char *comm_name(const struct hist_entry *he)
{
	return comm__str(he->comm);
}

/* The hash of he's keys, 32 bits (as an entry keeps it). */
static inline u64 entry_hash(const struct sort_list *sort, const struct hist_entry *he)
{
	u64 v[4 * MAX_SORT_KEYS], h;
	size_t n = 0;

	for (int i = 0; i < sort->nr; i++) {
		switch (sort->keys[i]) {
		case SORT_PID:
			v[n++] = (u64)he->thread->tid;
			break;
		case SORT_COMM:
			v[n++] = (u64)(uintptr_t)comm_name(he);
			break;
		case SORT_DSO:
			v[n++] = (u64)(uintptr_t)dso_name(he);
			break;
		case SORT_SYM:
		case SORT_IPC_NULL:
			if (he->sym && he->symtab->inlined) {	/* equal by name: see sym_cmp */
				const char *name = symbol__name(he->symtab, he->sym);

				v[n++] = (u64)(uintptr_t)dso_name(he);
				v[n++] = XXH3_64bits(name, strlen(name));
			} else if (he->sym) {
				v[n++] = (u64)(uintptr_t)dso_name(he);
				v[n++] = he->sym->start;
				v[n++] = sym_end(he->sym);
			} else {
				v[n++] = he->ip;
			}
			break;
		case SORT_PARENT:
			v[n++] = (u64)(uintptr_t)he->parent;
			break;
		case SORT_CPU:
			v[n++] = (u64)he->cpu;
			break;
		case SORT_SOCKET:
			v[n++] = (u64)he->socket;
			break;
		case SORT_SYM_SIZE:
			v[n++] = (u64)sym_size(he);
			break;
		case SORT_DSO_SIZE:
			v[n++] = (u64)map_size(he);
			break;
		case SORT_SRCLINE:
		case SORT_SRCFILE:
			n += src_hash(sort->keys[i], he, v + n);
			break;
		case SORT_ADDR:
			v[n++] = entry_addr(he);
			break;
		case SORT_LOCAL_WEIGHT:
		case SORT_WEIGHT:
		case SORT_TRANSACTION:
		case SORT_CODE_PAGE_SIZE:
		case SORT_LOCAL_INS_LAT:
		case SORT_INS_LAT:
		case SORT_LOCAL_P_STAGE_CYC:
		case SORT_P_STAGE_CYC:
			v[n++] = extra_value(sort->keys[i], he);
			break;
		case SORT_DSO_FROM ... SORT_ADDR_TO:
			n += branch_key_hash(sort->keys[i], he, v + n);
			break;
		case SORT_SYM_DADDR ... SORT_BLOCKED:
			v[n++] = mem_key_hash(sort->keys[i], he);
			break;
		default:
			break;
		}
	}
	h = XXH3_64bits(v, n * sizeof(u64));
	return (u32)(h ^ h >> 32);	/* what an entry keeps (struct hist_entry's hash) */
}

/* key_cmp(...) == 0, cheaper: comm and dso names are interned, so equal means same pointer. */
static inline bool key_equal(enum sort_key key, const struct hist_entry *a,
			     const struct hist_entry *b)
{
	switch (key) {
	case SORT_COMM:	/* the same comm or dso is the same name: no need to read it */
		return a->comm == b->comm || comm_name(a) == comm_name(b);
	case SORT_DSO:
		return a->dso == b->dso || dso_name(a) == dso_name(b);
	case SORT_SYM:
	case SORT_IPC_NULL:
		if (!a->sym || !b->sym)
			return !a->sym && !b->sym && a->ip == b->ip;
		if (a->symtab->inlined || b->symtab->inlined)
			return sym_cmp(a, b, NULL, true) == 0;	/* the dso key, if any, agrees */
		return (a->dso == b->dso || dso_name(a) == dso_name(b)) &&
		       (a->sym == b->sym ||
			(a->sym->start == b->sym->start && a->sym->size == b->sym->size));
	default:
		return key_cmp(NULL, key, a, b, NULL) == 0;	/* not the symbol's: no sort needed */
	}
}

static inline bool entry_equal(const struct sort_list *sort, const struct hist_entry *a,
			       const struct hist_entry *b)
{
	for (int i = 0; i < sort->nr; i++)
		if (!key_equal(sort->keys[i], a, b))
			return false;
	return true;
}

static inline int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Names (interned: one name is mostly one pointer) ranked under strcmp: name_set_add each,
 * name_set_rank once, then name_set_rank_of any of them (see struct name_ranks).
 */
struct name_set {
	struct hashmap ids;	/* name -> 1 until ranked, then its rank */
	const char **names;	/* the distinct pointers */
	size_t nr, alloc;
	const char *last;	/* the last added or asked */
	u32 last_rank;
};

static inline void name_set_init(struct name_set *set)
{
	*set = (struct name_set){ 0 };
	hashmap_init(&set->ids);
}

static inline void name_set_exit(struct name_set *set)
{
	hashmap_exit(&set->ids);
	free(set->names);
}

static inline void name_set_add(struct name_set *set, const char *s)
{
	if (s && s != set->last && !hashmap_insert(&set->ids, (u64)(uintptr_t)s, (void *)1)) {
		ARRAY_GROW(set->names, set->alloc, set->nr + 1);
		set->names[set->nr++] = s;
	}
	set->last = s;
}

static inline void name_set_rank(struct name_set *set)
{
	u32 rank = 0;

	if (set->nr)	/* names is NULL when none was added */
		qsort(set->names, set->nr, sizeof(*set->names), by_name);
	for (size_t i = 0; i < set->nr; i++) {
		if (!i || strcmp(set->names[i - 1], set->names[i]))
			rank++;
		hashmap_insert(&set->ids, (u64)(uintptr_t)set->names[i], (void *)(uintptr_t)rank);
	}
	set->last = NULL;
	set->last_rank = 0;
}

/* The rank of an added name, 0 for none. */
static inline u32 name_set_rank_of(struct name_set *set, const char *s)
{
	if (s != set->last)
		set->last_rank = s ? (u32)(uintptr_t)hashmap_find(&set->ids, (u64)(uintptr_t)s) : 0;
	set->last = s;
	return set->last_rank;
}

/*
 * perf's hist_entry__cmp(node, item) (and __collapse, the same for these keys): item goes
 * left when < 0; 0: the same keys.
 */
static inline int entries_cmp(const struct sort_list *sort, const struct hist_entry *node,
			      const struct hist_entry *item, const struct name_ranks *rk)
{
	for (int i = 0; i < sort->nr; i++) {
		s64 d = key_cmp(sort, sort->keys[i], node, item, rk);

		if (d)
			return d < 0 ? -1 : 1;
	}
	return 0;
}

#endif
