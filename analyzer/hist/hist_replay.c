/*
 * perf's first tree (entries_in) replayed for the children view's entries of addresses
 * without a map, whose comparisons wrap: their counts, and the collapsed tree's order
 * (hists->in_order). Runs beside the cumulation, on its own thread when it may, reading only
 * what the cumulation published (struct replay_feed); writes the wrapping entries and its own.
 */
#include "analyzer/hist/hist_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/busy.h"
#include "lib/containers/rbtree.h"
#include "lib/xalloc.h"

/*
 * perf finds a sample's entries in its first tree (entries_in) by hist_entry__cmp, which
 * compares two addresses without a map by their difference as a signed number: around the
 * address space's halfway point (garbage frames of a frame-pointer chain) that order is not
 * transitive, so once rotations have moved such an entry, a later lookup of it can end at a
 * leaf and make a second entry with the same keys, with that sample's thread and level; the
 * collapse then merges them in the tree's order, the one walked first absorbing the other
 * (and keeping its own thread, level and callchain depth). Every other key is found where
 * it is: its comparisons with the unmapped ones are decided by comm or dso, consistently.
 *
 * So the samples that reached an entry without a map are kept (hists->wraps), and perf's
 * tree is rebuilt (struct replay): the other entries inserted when their first sample came,
 * those samples' lookups made in turn, each one found or inserted as perf's would be; then
 * the collapse. The entries without a map get their periods and depths again, from the
 * lookups that found them. hists->in_order is what perf's output tree is fed, in order.
 */

/*
 * What the replay's comparisons read of an entry, 16 bytes: its comm's and dso's names as
 * ranks (see struct name_ranks) and its symbol's start, or its address without one. A
 * lookup compares with a node at every level of the tree; the node's entry, symbol, comm and
 * dso are four cache lines, its key (kept in the tree's node, by its links) none more. Made
 * when the keys are comm, dso and symbol only, and no symbol is inlined (those compare by
 * name).
 */
struct replay_key {
	u32 comm;
	u32 dso : 31;
	u32 has_sym : 1;
	u64 at;
};

static struct hist_entry *replay_entry(const struct replay *r, u32 id)
{
	return id >= r->extra_base ? &r->extra[id - r->extra_base] : &r->hists->entries[id];
}

static struct replay_key *replay_key(const struct replay *r, u32 e)
{
	return rbtree__payload(&r->tree, e);
}

/* key_cmp for the keys replay_keyed allows, from the entries' keys */
static s64 replay_key_cmp(const struct replay *r, enum sort_key key, u32 left, u32 right)
{
	const struct replay_key *l = replay_key(r, left), *k = replay_key(r, right);
	s64 ret;

	switch (key) {
	case SORT_COMM:
		return (s64)k->comm - l->comm;
	case SORT_DSO:
		return rank_cmp(l->dso, k->dso);
	default:	/* SORT_SYM, SORT_IPC_NULL: sym_cmp */
		if (!l->has_sym && !k->has_sym)
			return (s64)(k->at - l->at);
		ret = r->hists->sort->sym_by_dso ? rank_cmp(l->dso, k->dso) : 0;
		if (ret)
			return ret;
		if (!l->has_sym || !k->has_sym)
			return !l->has_sym ? -1 : 1;
		if (l->at != k->at)
			return (s64)(k->at - l->at);
		/* the same start: the same symbol, or told apart by their ends */
		return key_cmp(r->hists->sort, key, replay_entry(r, left), replay_entry(r, right),
			       NULL);
	}
}

/* a key's comm and dso as one number, in rank_cmp's order (no dso: after every other) */
static u64 replay_group(const struct replay_key *k)
{
	return (u64)k->comm << 32 | (k->dso ? k->dso : 1u << 31);
}

/*
 * replay_dir for perf's default keys, the comparisons of a lookup and of the collapse, most
 * of the replay's time: its comm and dso in one comparison, then replay_key_cmp's symbol.
 */
static int replay_dir_plain(const struct replay *r, u32 item, u32 node)
{
	const struct replay_key *l = replay_key(r, node), *k = replay_key(r, item);
	u64 lg = replay_group(l), kg = replay_group(k);
	s64 d;

	if (lg != kg)
		return kg > lg ? 1 : -1;
	if (!l->has_sym && !k->has_sym) {
		d = (s64)(k->at - l->at);
		return d ? (d < 0 ? -1 : 1) : 0;
	}
	if (!l->has_sym || !k->has_sym)
		return !l->has_sym ? -1 : 1;
	if (l->at != k->at)
		return (s64)(k->at - l->at) < 0 ? -1 : 1;
	d = key_cmp(r->hists->sort, SORT_SYM, replay_entry(r, node), replay_entry(r, item), NULL);
	return d ? (d < 0 ? -1 : 1) : 0;
}

/* find_dir, from the keys */
static int replay_dir(void *arg, u32 item, u32 node)
{
	const struct replay *r = arg;
	const struct sort_list *sort = r->hists->sort;

	if (r->plain)
		return replay_dir_plain(r, item, node);
	if (!r->keyed)
		return entries_cmp(sort, replay_entry(r, node), replay_entry(r, item), NULL);
	for (int i = 0; i < sort->nr; i++) {
		s64 d = replay_key_cmp(r, sort->keys[i], node, item);

		if (d)
			return d < 0 ? -1 : 1;
	}
	return 0;
}

/*
 * Whether the sort keys allow the keys of struct replay_key, before the cumulation: no entry
 * of the run has an inlined symbol, and no frame is one's (callchains__inline).
 */
static bool replay_keyed(const struct hists *hists, const struct callchains *chains)
{
	for (int i = 0; i < hists->sort->nr; i++)
		if (hists->sort->keys[i] != SORT_COMM && hists->sort->keys[i] != SORT_DSO &&
		    hists->sort->keys[i] != SORT_SYM && hists->sort->keys[i] != SORT_IPC_NULL)
			return false;
	for (size_t e = 0; e < hists->nr; e++)
		if (hists->entries[e].sym && hists->entries[e].symtab->inlined)
			return false;
	for (u32 id = 0, nr = callchains__nr_frames(chains); id < nr; id++)
		if (callchains__frame(chains, id)->inl)
			return false;
	return true;
}

/*
 * The replay's empty tree, with the entries' keys when it may: then every comm and dso name
 * an entry can have (the run's entries', the pairs', the frames') ranked.
 */
static void replay_tree(struct replay *r)
{
	const struct hists *hists = r->hists;
	const struct callchains *chains = r->cc->chains;

	r->keyed = replay_keyed(hists, chains);
	if (!r->keyed) {
		rbtree__init(&r->tree, hists->nr);
		return;
	}
	rbtree__init_payload(&r->tree, hists->nr, sizeof(struct replay_key));
	r->plain = hists->sort->nr == 3 && hists->sort->keys[0] == SORT_COMM &&
		   hists->sort->keys[1] == SORT_DSO && hists->sort->keys[2] == SORT_SYM &&
		   !hists->sort->sym_by_dso;
	name_set_init(&r->comms);
	name_set_init(&r->dsos);
	for (size_t e = 0; e < hists->nr; e++) {
		name_set_add(&r->comms, comm_name(&hists->entries[e]));
		name_set_add(&r->dsos, dso_name(&hists->entries[e]));
	}
	for (size_t i = 0; i < hists->nr_pairs; i++)
		name_set_add(&r->comms, comm__str(hists->pairs[i].comm));
	for (u32 id = 0, nr = callchains__nr_frames(chains); id < nr; id++) {
		const struct dso *dso = callchains__frame(chains, id)->dso;

		name_set_add(&r->dsos, dso ? dso->short_name : NULL);
	}
	name_set_rank(&r->comms);
	name_set_rank(&r->dsos);
}

/* Item id (an entry, final) into the tree: RBTREE_NONE, or the node equal to it. */
static u32 replay_insert(struct replay *r, u32 id)
{
	rbtree__reserve(&r->tree, (size_t)id + 1);
	if (r->keyed) {
		const struct hist_entry *he = replay_entry(r, id);

		*replay_key(r, id) = (struct replay_key){
			.comm = name_set_rank_of(&r->comms, comm_name(he)),
			.dso = name_set_rank_of(&r->dsos, dso_name(he)) & 0x7fffffff,
			.has_sym = !!he->sym, .at = he->sym ? he->sym->start : he->ip };
	}
	return rbtree__insert(&r->tree, id, replay_dir, r);
}

/* Until the cumulation has made every entry first reached before sample (and its pairs'). */
static void replay_wait(struct replay *r, u64 sample)
{
	while (r->frontier <= sample) {
		u64 f = atomic_load_explicit(&r->feed->frontier, memory_order_acquire);

		if (f <= sample) {
			sched_yield();
			continue;
		}
		r->frontier = f;
		r->nr_log = atomic_load_explicit(&r->feed->published, memory_order_acquire);
	}
}

/* The other entries whose first sample came before (first, pos) go in. */
static void replay_inserts_upto(struct replay *r, u64 first, u32 pos)
{
	for (; r->next_insert < r->nr_log; r->next_insert++) {
		u32 e = r->feed->log[r->next_insert];
		const struct hist_entry *he = &r->hists->entries[e];

		if (he->first > first || (he->first == first && he->first_pos >= pos))
			return;
		replay_insert(r, e);
		r->version++;
	}
}

/*
 * A new entry like the wrapping entry e, made by sample w if its lookup at pos fails (its
 * thread's reference is taken by replay_finish).
 */
static void replay_extra(struct replay *r, const struct hist_wrap_sample *w, u32 e, u32 pos,
			 char level, bool filtered)
{
	const struct hist_entry *like = &r->hists->entries[e];
	struct hist_entry *he;

	ARRAY_GROW(r->extra, r->extra_alloc, r->nr_extra + 1);
	he = &r->extra[r->nr_extra];
	hist_entry__clear(he);	/* what the cumulation writes of e is not read */
	he->thread = r->hists->wrap_threads[w->thread].thread;
	he->comm = like->comm;
	he->dso = like->dso;
	he->sym = like->sym;
	he->symtab = like->symtab;
	he->parent = like->parent;
	he->ip = like->ip;
	he->map_size = like->map_size;
	he->cpu = like->cpu;
	he->socket = like->socket;
	he->hash = like->hash;
	he->level = level;
	he->filtered = filtered;
	he->first = w->sample;
	he->first_pos = pos;
}

/* One lookup of the wrapping entry e by sample w at pos: found, or a new entry inserted. */
static void replay_lookup(struct replay *r, const struct hist_wrap_sample *w, u32 e, u32 pos,
			  char level, bool filtered, u32 depth)
{
	struct hist_entry *he;
	u32 item = e, node;

	replay_inserts_upto(r, w->sample, pos);
	if (e >= r->found_alloc) {
		ARRAY_GROW_ZEROED(r->placed, r->placed_alloc, (size_t)e + 1);
		ARRAY_GROW_ZEROED(r->seen, r->seen_alloc, (size_t)e + 1);
		ARRAY_GROW(r->found, r->found_alloc, (size_t)e + 1);
	}
	if (r->seen[e] == r->version + 1) {	/* the tree is as it was then */
		node = r->found[e];
		goto count;
	}
	/*
	 * Placed at its first lookup, which is at the first sample and place that reached it:
	 * where its entry has them already, and its level.
	 */
	if (r->placed[e]) {	/* a new entry like e, made by this sample, if not found */
		item = r->extra_base + (u32)r->nr_extra;
		replay_extra(r, w, e, pos, level, filtered);
	}
	node = replay_insert(r, item);
	if (node == RBTREE_NONE) {
		node = item;
		if (item == e)
			r->placed[e] = true;
		else
			r->nr_extra++;
		r->version++;
	} else {
		r->seen[e] = r->version + 1;
		r->found[e] = node;
	}
count:
	he = replay_entry(r, node);
	if (!pos) {
		he->period += w->period;
		he->nr_events++;
	}
	he->period_acc += w->period;
	he->max_depth = MAX(he->max_depth, depth);
}

/* Every wrapping sample's lookups, in the order they came; then the tree in order. */
static void replay_run(struct replay *r)
{
	const struct hists *hists = r->hists;
	const u32 *made = r->made, *made_at = r->made_at;
	uintptr_t released = 0;

	for (size_t i = 0; i < hists->nr_wraps; i++) {
		const struct hist_wrap_sample *w = &hists->wraps[i];
		const struct chain_count *p;
		size_t m;
		u32 self, len;
		char level;
		bool filtered;

		replay_wait(r, w->sample);
		p = w->chainless ? NULL : &r->counts[w->ref];
		m = p ? made_at[w->ref] : 0;
		self = p ? made[m] : final_entry(hists, w->ref);
		level = p ? p->level : hists->entries[self].level;
		filtered = p ? p->filtered : hists->entries[self].filtered;
		len = p ? callchains__len(r->cc->chains, p->chain) : 0;
		/* the pairs of the samples to come, then their entries (a hint) */
		if (i + 16 < hists->nr_wraps && !w[16].chainless) {
			__builtin_prefetch(&r->counts[w[16].ref]);
			__builtin_prefetch(&made_at[w[16].ref]);
		}
		if (i + 8 < hists->nr_wraps && !w[8].chainless)
			__builtin_prefetch(&made[made_at[w[8].ref]]);

		if (entry_wraps(&hists->entries[self]))
			replay_lookup(r, w, self, 0, level, filtered, len);
		for (u32 k = 0; k < len; k++) {
			u32 e = made[m + 1 + k];

			if (e != NO_ENTRY && entry_wraps(&hists->entries[e]))
				replay_lookup(r, w, e, 1 + k, r->levels[m + 1 + k], filtered, len - k);
		}
		if (i % 4096 == 4095)	/* the samples are read once */
			release_read((uintptr_t)hists->wraps, (uintptr_t)&hists->wraps[i + 1],
				     &released);
	}
	replay_wait(r, UINT64_MAX - 1);
	replay_inserts_upto(r, UINT64_MAX, UINT32_MAX);
	r->order = xmalloc_populated((r->version ? r->version : 1) * sizeof(*r->order));	/* inserts */
	r->nr_order = rbtree__walk(&r->tree, r->order);
}

static void *replay_thread(void *arg)
{
	replay_run(arg);
	busy__thread_end("replay");
	return NULL;
}

/*
 * Whether the entries can have room for nr_max up front (the replay reads them on its own
 * thread while the cumulation adds to them, so they may not move): the memory is only
 * reserved, but an allocation beyond half the machine's may fail.
 */
static bool replay_room(size_t nr_max)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	return nr_max < UINT32_MAX / 2 && pages > 0 && page > 0 &&
	       nr_max <= (u64)pages * (u64)page / 2 / sizeof(struct hist_entry);
}

/*
 * Before the cumulation: the replay of perf's first tree set up, and started on its own
 * thread when keyed (else replay_finish runs it). made and levels: each pair's entries and
 * their levels, as cumulate_pair will make them; made_at: where each pair's are; nr_max: how
 * many entries there can be.
 */
void replay_start(struct replay *r, struct hists *hists, const struct hists_callchain *cc,
		  struct replay_feed *feed, const u32 *made, const char *levels,
		  const u32 *made_at, size_t nr_max)
{
	*r = (struct replay){ .hists = hists, .cc = cc, .made = made, .levels = levels,
			      .made_at = made_at, .feed = feed,
			      .counts = (const struct chain_count *)hists->pairs };
	/* the wrapping entries of the run are counted again */
	for (size_t e = 0; e < hists->nr; e++) {
		struct hist_entry *he = &hists->entries[e];

		if (entry_wraps(he)) {
			he->period = he->period_acc = he->nr_events = 0;
			he->max_depth = 0;
		}
	}
	replay_tree(r);
	if (!r->keyed || cc->one_thread || !replay_room(nr_max))
		return;
	ARRAY_GROW(hists->entries, hists->alloc, nr_max);
	ARRAY_GROW(feed->log, feed->alloc, nr_max);
	r->extra_base = (u32)nr_max;
	r->threaded = !pthread_create(&r->thread, NULL, replay_thread, r);
}

/*
 * After the cumulation: the replay done (here when not on its thread), its entries after
 * the cumulation's, and perf's collapse: hists->in_order.
 */
void replay_finish(struct replay *r)
{
	struct hists *hists = r->hists;
	size_t nr = hists->nr;

	if (r->threaded) {
		pthread_join(r->thread, NULL);
	} else {
		r->extra_base = (u32)nr;
		replay_run(r);
	}
	ARRAY_GROW(hists->entries, hists->alloc, nr + r->nr_extra);
	rbtree__reserve(&r->tree, nr + r->nr_extra);
	for (size_t i = 0; i < r->nr_extra; i++) {
		hists->entries[nr + i] = r->extra[i];
		thread__get(hists->entries[nr + i].thread);
		if (r->keyed)
			*replay_key(r, (u32)(nr + i)) = *replay_key(r, r->extra_base + (u32)i);
	}
	for (size_t i = 0; i < r->nr_order; i++)
		if (r->order[i] >= r->extra_base)
			r->order[i] = (u32)nr + (r->order[i] - r->extra_base);
	hists->nr += r->nr_extra;
	r->extra_base = UINT32_MAX;
	/* perf collapses only then */
	if (sort_list__has(hists->sort, SORT_COMM))
		r->nr_order = replay_collapse(hists, &r->tree, r->order, r->nr_order, replay_dir, r);
	hists->in_order = r->order;
	hists->nr_in_order = r->nr_order;
	rbtree__exit(&r->tree);
	if (r->keyed) {
		name_set_exit(&r->comms);
		name_set_exit(&r->dsos);
	}
	free(r->extra);
	free(r->placed);
	free(r->seen);
	free(r->found);
}
