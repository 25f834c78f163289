/*
 * The output order: perf's three rb-trees (entries_in, entries_collapsed, the output tree)
 * built from the same inserts, the names compared as ranks. Orders the entries shown; merges,
 * counts and prints nothing.
 */
#include "analyzer/hist/hist_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/containers/rbtree.h"
#include "lib/xalloc.h"

/*
 * v[0, n) sorted, stably, by before (a strict order): a bottom-up merge sort of 4-byte
 * items between v and a buffer, the comparison reading whatever it keys them by. glibc's
 * qsort moves the elements themselves, and the output order sorts tens of thousands.
 */
static void sort_u32(u32 *v, size_t n, bool (*before)(const void *ctx, u32 a, u32 b),
		     const void *ctx)
{
	u32 *buf, *src = v, *dst, *swap;
	size_t sorted = 1;

	/* in order already (the fold of a parallel run places entries by first sample) */
	while (sorted < n && !before(ctx, v[sorted], v[sorted - 1]))
		sorted++;
	if (sorted >= n)
		return;
	buf = dst = xmalloc(n * sizeof(*buf));
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = MIN(lo + width, n), hi = MIN(lo + 2 * width, n);
			size_t a = lo, b = mid, at = lo;

			while (a < mid && b < hi)
				dst[at++] = before(ctx, src[b], src[a]) ? src[b++] : src[a++];
			while (a < mid)
				dst[at++] = src[a++];
			while (b < hi)
				dst[at++] = src[b++];
		}
		swap = src, src = dst, dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(buf);
}

/* perf's se_sort ?: se_cmp, used for the output order. */
static s64 key_sort(const struct sort_list *sort, enum sort_key key, const struct hist_entry *a,
		    const struct hist_entry *b, const struct name_ranks *rk)
{
	if (key == SORT_SYM) {
		if (!a->sym || !b->sym)
			return cmp_null(a->sym, b->sym);
		return strcmp(symbol__name(b->symtab, b->sym), symbol__name(a->symtab, a->sym));
	}
	return key_cmp(sort, key, a, b, rk);
}

/*
 * ranks[e] for every entry: see struct name_ranks. Merged entries get ranks too,
 * which no comparison reads: the entries are read in the order they sit in memory (a large
 * report's hundred MB), and the next entry's name is mostly the one before's.
 */
static u32 *rank_names(const struct hists *hists,
		       const char *(*name)(const struct hist_entry *))
{
	size_t nr = hists->nr;
	u32 *ranks = xcalloc(nr ? nr : 1, sizeof(*ranks));
	struct name_set set;

	name_set_init(&set);
	for (size_t i = 0; i < nr; i++)
		name_set_add(&set, name(&hists->entries[i]));
	name_set_rank(&set);
	for (size_t i = 0; i < nr; i++)
		ranks[i] = name_set_rank_of(&set, name(&hists->entries[i]));
	name_set_exit(&set);
	return ranks;
}

/* by the sample that first reached an entry, then where in that sample */
static bool first_before(const void *ctx, u32 ia, u32 ib)
{
	const struct hist_entry *a = (const struct hist_entry *)ctx + ia;
	const struct hist_entry *b = (const struct hist_entry *)ctx + ib;

	if (a->first != b->first)
		return a->first < b->first;
	if (a->first_pos != b->first_pos)
		return a->first_pos < b->first_pos;
	return ia < ib;
}

/* ---- ordering ---- */

/*
 * perf orders entries through three rb-trees: entries_in (each entry inserted when a sample
 * first reaches it, by hist_entry__cmp), entries_collapsed (entries_in walked in order, by
 * hist_entry__collapse; only when a key needs collapsing: comm) and the output tree
 * (entries_collapsed walked in order, by hist_entry__sort). Two of the comparisons are not
 * transitive: unresolved addresses compare by their difference as a signed number (which
 * wraps when they are more than 2^63 apart), and in the children view entries of one thread
 * with equal Children compare by their callchains' depth, entries of two threads go on to
 * Self and the keys. The order then depends on the trees' shapes, so analyze builds the same
 * trees from the same inserts (lib/containers/rbtree). Elided keys (--comms, --dsos, --symbols of one
 * name) take no part in the output order (perf_hpp__should_skip), but do in the others.
 */
/*
 * What the output order's comparisons read of an entry (entry_sort), 40 bytes: the Children
 * and Self periods, the thread and depth, and the names of its comm, dso and symbol as ranks
 * (0: none). Most comparisons of a large report are between entries of equal periods, which
 * go on to the names: a symbol's is compared with strcmp, two cache misses away, its rank
 * with a subtraction. Made when the shown keys are comm, dso and symbol only.
 */
struct out_key {
	u64 acc, period;
	const struct thread *thread;
	u32 depth;
	u32 comm, dso, sym;
};

struct order_ctx {
	const struct sort_list *sort;
	const struct hist_entry *entries;
	const struct name_ranks *ranks;
	const struct out_key *keys;	/* by entry, or NULL */
	const struct field_list *by;	/* -F's order (entry_sort_by), or NULL */
	bool cumulate, depth, caller;
};

/* entries_cmp, for entries all distinct here: one equal under perf's keys goes after */
static int order_in(void *arg, u32 item, u32 node)
{
	const struct order_ctx *c = arg;

	int d = entries_cmp(c->sort, &c->entries[node], &c->entries[item], c->ranks);

	return d ? d : 1;
}

/* perf's hpp__sort_acc: "put caller above callee when they have equal period" */
static s64 acc_sort(const struct order_ctx *c, const struct hist_entry *a,
		    const struct hist_entry *b)
{
	if (a->period_acc != b->period_acc)
		return a->period_acc > b->period_acc ? 1 : -1;
	if (c->depth && a->thread == b->thread && a->max_depth != b->max_depth) {
		s64 d = (s64)b->max_depth - a->max_depth;

		return c->caller ? -d : d;
	}
	return 0;
}

static s64 u64_sort(u64 a, u64 b)
{
	return a == b ? 0 : a > b ? 1 : -1;
}

/* entry_sort by the fields of an order of -F's (perf's sort list walked) */
static s64 entry_sort_by(const struct order_ctx *c, const struct hist_entry *a,
			 const struct hist_entry *b)
{
	for (int i = 0; i < c->by->nr; i++) {
		int id = c->by->ids[i];
		s64 d;

		if (id == HPP_OVERHEAD_CHILDREN)
			d = c->cumulate ? acc_sort(c, a, b) : 0;
		else if (id == HPP_OVERHEAD || id == HPP_PERIOD)
			d = u64_sort(a->period, b->period);
		else if (id == HPP_SAMPLE)
			d = u64_sort(a->nr_events, b->nr_events);
		else if (sort_list__elided(c->sort, id))
			d = 0;
		else
			d = key_sort(c->sort, id, a, b, c->ranks);
		if (d)
			return d;
	}
	return 0;
}

/* perf's hist_entry__sort(a, b): > 0 puts a first */
static s64 entry_sort(const struct order_ctx *c, const struct hist_entry *a,
		      const struct hist_entry *b)
{
	if (c->by)
		return entry_sort_by(c, a, b);
	if (c->cumulate) {
		s64 d = acc_sort(c, a, b);

		if (d)
			return d;
	}
	if (a->period != b->period)
		return a->period > b->period ? 1 : -1;
	for (int i = 0; i < c->sort->nr; i++) {
		s64 d;

		if (c->sort->elide[i])
			continue;
		d = key_sort(c->sort, c->sort->keys[i], a, b, c->ranks);
		if (d)
			return d;
	}
	return 0;
}

/* entry_sort, from the keys */
static s64 key_entry_sort(const struct order_ctx *c, const struct out_key *a,
			  const struct out_key *b)
{
	if (c->cumulate) {
		if (a->acc != b->acc)
			return a->acc > b->acc ? 1 : -1;
		if (c->depth && a->thread == b->thread && a->depth != b->depth) {
			s64 d = (s64)b->depth - a->depth;

			return c->caller ? -d : d;
		}
	}
	if (a->period != b->period)
		return a->period > b->period ? 1 : -1;
	for (int i = 0; i < c->sort->nr; i++) {
		enum sort_key key = c->sort->keys[i];
		s64 d;

		if (c->sort->elide[i])
			continue;
		/* key_sort's symbol names and key_cmp's comm and dso, with left a and right b */
		if (key == SORT_COMM)
			d = (s64)b->comm - a->comm;
		else
			d = key == SORT_SYM ? rank_cmp(a->sym, b->sym) : rank_cmp(a->dso, b->dso);
		if (d)
			return d;
	}
	return 0;
}

static int order_out(void *arg, u32 item, u32 node)
{
	const struct order_ctx *c = arg;

	if (c->keys)
		return key_entry_sort(c, &c->keys[item], &c->keys[node]) > 0 ? -1 : 1;

	return entry_sort(c, &c->entries[item], &c->entries[node]) > 0 ? -1 : 1;
}

/* Feed order[0, nr) through an empty tree ordered by dir; order becomes its in-order walk. */
static void order_through(struct rbtree *t, u32 *order, size_t nr, rbtree_dir_fn dir,
			  struct order_ctx *c)
{
	t->root = RBTREE_NONE;
	for (size_t i = 0; i < nr; i++)
		rbtree__insert(t, order[i], dir, c);
	rbtree__walk(t, order);
}

static const char *sym_name(const struct hist_entry *he)
{
	return he->sym ? symbol__name(he->symtab, he->sym) : NULL;
}

/*
 * The output order's keys of the entries (struct out_key; the merged ones' are not read,
 * and the entries are read in the order they sit in memory), or NULL.
 */
static struct out_key *out_keys(const struct hists *hists, const struct name_ranks *ranks)
{
	const struct sort_list *sort = hists->sort;
	struct out_key *keys;
	u32 *sym = NULL;

	for (int i = 0; i < sort->nr; i++)
		if (!sort->elide[i] && sort->keys[i] != SORT_COMM && sort->keys[i] != SORT_DSO &&
		    sort->keys[i] != SORT_SYM)
			return NULL;
	if (sort_list__has(sort, SORT_SYM))
		sym = rank_names(hists, sym_name);
	keys = xmalloc_populated((hists->nr ? hists->nr : 1) * sizeof(*keys));
	for (size_t e = 0; e < hists->nr; e++) {
		const struct hist_entry *he = &hists->entries[e];

		keys[e] = (struct out_key){
			.acc = he->period_acc, .period = he->period, .thread = he->thread,
			.depth = he->max_depth, .comm = ranks->comm ? ranks->comm[e] : 0,
			.dso = ranks->dso ? ranks->dso[e] : 0, .sym = sym ? sym[e] : 0 };
	}
	free(sym);
	return keys;
}

/*
 * The fast way to perf's trees, when their comparisons are a total order: a tree's in-order
 * walk is then its items sorted, the ties (going right) in the order they were inserted, so
 * a sort with the place in that order as the last key gives it. Taken when the keys are
 * comm, dso and symbol, each symbol key after a dso key (so symbols are compared within one
 * dso's name), no symbol is an inlined one (compared by overlap), and within each dso name
 * the unresolved addresses, and the symbols' starts and ends, lie less than 2^63 apart (their
 * differences, compared as signed numbers, do not wrap).
 */
struct in_key {
	u32 comm, dso;	/* ranks: comm ascending, dso ascending with none last */
	u32 null_sym;	/* unresolved after resolved */
	u32 pos;	/* the place in the insertion order */
	u64 a, b;	/* resolved: start, end; unresolved: the address, 0 */
};

static bool in_key_before(const void *ctx, u32 a, u32 b)
{
	const struct in_key *x = (const struct in_key *)ctx + a, *y = (const struct in_key *)ctx + b;

	if (x->comm != y->comm)
		return x->comm < y->comm;
	if (x->dso != y->dso)
		return x->dso < y->dso;
	if (x->null_sym != y->null_sym)
		return x->null_sym < y->null_sym;
	if (x->a != y->a)
		return x->a < y->a;
	if (x->b != y->b)
		return x->b < y->b;
	return x->pos < y->pos;
}

/*
 * The sort keys the fast way takes, in in_key's order: comm, dso, symbol, each at most once,
 * a symbol only after a dso.
 */
static bool fast_keys(const struct sort_list *sort)
{
	static const enum sort_key seq[] = { SORT_COMM, SORT_DSO, SORT_SYM };
	size_t at = 0;
	bool dso = false;

	for (int i = 0; i < sort->nr; i++) {
		while (at < ARRAY_SIZE(seq) && seq[at] != sort->keys[i])
			at++;
		if (at == ARRAY_SIZE(seq) || (sort->keys[i] == SORT_SYM && !dso))
			return false;
		dso |= sort->keys[i] == SORT_DSO;
		at++;
	}
	return true;
}

/* Ranges of values by dso rank: false once one spans 2^63 or more. */
struct spans {
	u64 *lo, *hi;
};

static bool span_add(struct spans *sp, u32 group, u64 v)
{
	sp->lo[group] = MIN(sp->lo[group], v);
	sp->hi[group] = MAX(sp->hi[group], v);
	return sp->hi[group] - sp->lo[group] < (1ull << 63);
}

/*
 * order[0, nr) (in insertion order) into perf's first tree's order, the fast way; false,
 * order untouched, when it may not be taken.
 */
static bool fast_in_order(const struct hists *hists, const struct name_ranks *rk, u32 *order,
			  size_t nr)
{
	const bool has_comm = rk->comm, has_sym = sort_list__has(hists->sort, SORT_SYM);
	struct in_key *keys;
	struct spans sp[3];
	u32 groups = 1;
	bool ok = true;

	if (!fast_keys(hists->sort))
		return false;
	for (size_t i = 0; rk->dso && i < nr; i++)
		groups = MAX(groups, rk->dso[order[i]] + 1);
	for (int k = 0; k < 3; k++) {
		sp[k].lo = xmalloc(groups * sizeof(u64));
		sp[k].hi = xcalloc(groups, sizeof(u64));
		memset(sp[k].lo, 0xff, groups * sizeof(u64));
	}
	keys = xmalloc((nr ? nr : 1) * sizeof(*keys));
	for (size_t i = 0; ok && i < nr; i++) {
		const struct hist_entry *he = &hists->entries[order[i]];
		u32 dso = rk->dso ? rk->dso[order[i]] : 0;
		struct in_key *k = &keys[i];

		*k = (struct in_key){ .comm = has_comm ? rk->comm[order[i]] : 0,
				      .dso = dso ? dso : UINT32_MAX, .pos = (u32)i };
		if (!has_sym)
			continue;
		if (!he->sym) {
			k->null_sym = 1;
			k->a = he->ip;
			ok = span_add(&sp[0], dso, he->ip);
		} else if (he->symtab->inlined) {
			ok = false;
		} else {
			k->a = he->sym->start;
			k->b = sym_end(he->sym);
			ok = span_add(&sp[1], dso, k->a) && span_add(&sp[2], dso, k->b);
		}
	}
	if (ok) {
		u32 *by = xmalloc((nr ? nr : 1) * sizeof(*by));

		for (size_t i = 0; i < nr; i++)
			by[i] = (u32)i;
		sort_u32(by, nr, in_key_before, keys);
		for (size_t i = 0; i < nr; i++)
			by[i] = order[by[i]];
		memcpy(order, by, nr * sizeof(*order));
		free(by);
	}
	for (int k = 0; k < 3; k++) {
		free(sp[k].lo);
		free(sp[k].hi);
	}
	free(keys);
	return ok;
}

/* The output tree's fast way: a before b in its order (positions in the insertion order). */
struct out_sort {
	const struct order_ctx *c;
	const u32 *order;
};

static bool out_before(const void *ctx, u32 a, u32 b)
{
	const struct out_sort *o = ctx;
	s64 d = key_entry_sort(o->c, &o->c->keys[o->order[a]], &o->c->keys[o->order[b]]);

	return d ? d > 0 : a < b;
}

/*
 * The output tree's order the fast way: its comparison (key_entry_sort) is a total order
 * when the children's depth rule is not in it.
 */
static void fast_out_order(const struct order_ctx *c, u32 *order, size_t nr)
{
	u32 *by = xmalloc((nr ? nr : 1) * sizeof(*by));
	struct out_sort o = { c, order };

	for (size_t i = 0; i < nr; i++)
		by[i] = (u32)i;
	sort_u32(by, nr, out_before, &o);
	for (size_t i = 0; i < nr; i++)
		by[i] = order[by[i]];
	memcpy(order, by, nr * sizeof(*order));
	free(by);
}

/* The entries (not merged) in perf's output order, into order: how many. */
size_t output_order(struct hists *hists, const struct hists_print_opts *opts,
		    const struct field_list *by, u32 *order)
{
	struct order_ctx c = {
		.sort = hists->sort,
		.by = by,
		.entries = hists->entries,
		.cumulate = hists->cumulate,
		.depth = opts->callchain && opts->callchain->use_callchain && hists->has_callchain,
		.caller = opts->callchain && opts->callchain->param->order == CC_ORDER_CALLER,
	};
	struct name_ranks ranks = { .base = hists->entries };
	struct rbtree t = { .link = NULL };
	size_t nr = 0;

	hists->in_sorted = false;

	if (hists->in_order) {	/* perf's first trees rebuilt already (replay_finish) */
		nr = hists->nr_in_order;
		memcpy(order, hists->in_order, nr * sizeof(*order));
	} else {
		for (size_t i = 0; i < hists->nr; i++)
			if (!hists->entries[i].merged)
				order[nr++] = (u32)i;
	}
	if (sort_list__has(hists->sort, SORT_COMM))
		ranks.comm = rank_names(hists, comm_name);
	if (sort_list__has(hists->sort, SORT_DSO) || sort_list__has(hists->sort, SORT_SYM) ||
	    sort_list__has(hists->sort, SORT_IPC_NULL))
		ranks.dso = rank_names(hists, dso_name);
	c.ranks = &ranks;
	if (!hists->in_order) {
		sort_u32(order, nr, first_before, hists->entries);
		hists->in_sorted = !hists->order_by_trees && fast_in_order(hists, &ranks, order, nr);
		if (!hists->in_sorted) {
			rbtree__init(&t, hists->nr);
			order_through(&t, order, nr, order_in, &c);
			if (sort_list__has(hists->sort, SORT_COMM))
				order_through(&t, order, nr, order_in, &c);
		}
	}
	/* the names' ranks go into the keys, and with them what is left of the entries' */
	c.keys = by ? NULL : out_keys(hists, &ranks);
	free(ranks.comm);
	free(ranks.dso);
	ranks = (struct name_ranks){ .base = hists->entries };
	hists->out_sorted = c.keys && !c.cumulate && !hists->order_by_trees;
	if (hists->out_sorted) {
		fast_out_order(&c, order, nr);
	} else {
		if (!t.link)	/* made after the ranks went, in their memory */
			rbtree__init(&t, hists->nr);
		order_through(&t, order, nr, order_out, &c);
	}
	rbtree__exit(&t);
	free((void *)c.keys);
	return nr;
}
