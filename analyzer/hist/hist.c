/*
 * Histogram entries: the index, samples added, perf's collapse, and the children view's
 * cumulation, which makes its callers' entries through the same index and prefetches (so
 * the two share their hot helpers in one file); after perf 6.1's hist.c. The keys, the
 * output order, the first-tree replay and printing are the other hist_*.c files'.
 */
#include "analyzer/hist/hist_internal.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/containers/xxhash_inline.h"

#include "lib/containers/rbtree.h"
#include "lib/xalloc.h"

void hists__init(struct hists *hists, const struct sort_list *sort)
{
	memset(hists, 0, sizeof(*hists));
	hists->sort = sort;
	if (sort->mem)
		hists->extra_slab = (struct slab)SLAB_INIT(struct hist_mem);
	else
		hists->extra_slab = (struct slab)SLAB_INIT(struct hist_branch);
}

void hists__exit(struct hists *hists)
{
	for (size_t i = 0; i < hists->nr; i++) {
		thread__put(hists->entries[i].thread);
		map__put(hists->entries[i].map);
		if (hists->sort->branch || hists->sort->mem)
			slab_free(&hists->extra_slab, (void *)hists->entries[i].branch);
	}
	for (size_t i = 0; hists->pairs && i < hists->nr_pairs; i++)
		if (hists->pairs[i].owns_thread)
			thread__put(hists->pairs[i].thread);
	for (size_t i = 0; i < hists->nr_wrap_threads; i++)
		if (hists->wrap_threads[i].owns)
			thread__put(hists->wrap_threads[i].thread);
	free(hists->wrap_threads);
	hashmap_exit(&hists->wrap_thread_ids);
	free(hists->wraps);
	free(hists->in_order);
	rbtree__exit(&hists->entries_in);
	free(hists->entries);
	free(hists->merged_into);
	hashmap_exit(&hists->object_maps);
	free(hists->omaps);
	free(hists->index.slots);
	free(hists->pairs);
	free(hists->counts);
	free(hists->pair_index.slots);
	free(hists->contribs);
}

/* Entry e is folded into entry into. */
static void merge_into(struct hists *hists, u32 e, u32 into)
{
	ARRAY_GROW(hists->merged_into, hists->merged_into_alloc, hists->nr);
	hists->entries[e].merged = true;
	hists->merged_into[e] = into;
}

/* The map entry e (of a data symbol) names its symbol by, if it has one yet. */
const struct object_map *object_map(const struct hists *hists, u32 e)
{
	uintptr_t i = (uintptr_t)hashmap_find(&hists->object_maps, e);

	return i ? &hists->omaps[i - 1] : NULL;
}

/*
 * Entry e's map is base's, if e is of a data symbol (the others need none) and the sample
 * numbered last is no earlier than its map's.
 */
static void object_map_set(struct hists *hists, u32 e, u64 base, u64 last)
{
	uintptr_t i;

	if (!hists->entries[e].sym || !hists->entries[e].sym->object)
		return;
	i = (uintptr_t)hashmap_find(&hists->object_maps, e);

	if (!i) {
		ARRAY_GROW(hists->omaps, hists->omaps_alloc, hists->nr_omaps + 1);
		hists->omaps[hists->nr_omaps++] = (struct object_map){ .base = base, .last = last };
		hashmap_insert(&hists->object_maps, e, (void *)(uintptr_t)hists->nr_omaps);
	} else if (last >= hists->omaps[i - 1].last) {
		hists->omaps[i - 1] = (struct object_map){ .base = base, .last = last };
	}
}

/*
 * The entry index: open addressing over entry numbers (+1, 0 is empty), probed by the bits
 * of the entries' key hashes, which are good hashes already. Grows at half full.
 */
static void index_grow_to(struct entry_index *x, const struct hist_entry *entries, size_t nr,
			  size_t room)
{
	size_t cap = x->cap ? x->cap * 2 : 1024;

	while (cap < 2 * (room + 1))	/* an index let go of (hists__fprintf) comes back whole */
		cap *= 2;

	free(x->slots);
	x->slots = xcalloc_populated(cap, sizeof(*x->slots));
	x->cap = cap;
	for (size_t i = 0; i < nr; i++) {
		size_t j = entries[i].hash & (cap - 1);

		if (entries[i].merged)
			continue;
		while (x->slots[j])
			j = (j + 1) & (cap - 1);
		x->slots[j] = (u32)(i + 1);
	}
}

/* x made again for entries[0, nr), with room for nr + 1 more before it grows. */
static void index_grow(struct entry_index *x, const struct hist_entry *entries, size_t nr)
{
	index_grow_to(x, entries, nr, nr);
}

/* The entry equal to proto (with hash), or NULL; *slot is where it would go. */
static struct hist_entry *index_find(const struct entry_index *x, struct hist_entry *entries,
				     const struct sort_list *sort, const struct hist_entry *proto,
				     u64 hash, size_t *slot)
{
	size_t j = hash & (x->cap - 1);

	for (; x->slots[j]; j = (j + 1) & (x->cap - 1)) {
		struct hist_entry *he = &entries[x->slots[j] - 1];

		if (he->hash == hash && entry_equal(sort, he, proto)) {
			*slot = j;
			return he;
		}
	}
	*slot = j;
	return NULL;
}

static void entry_merge(struct hist_entry *he, struct hist_entry *proto)
{
	he->period += proto->period;
	he->period_acc += proto->period_acc;
	he->nr_events++;
	/* perf refreshes the map of an entry whose mapping was replaced (references swap) */
	if (he->map != proto->map) {
		struct map *old = he->map;

		he->map = proto->map;
		he->dso = proto->dso;
		proto->map = old;
	}
}

/*
 * The pairs index: open addressing over pair numbers (+1), as the entry index. A sample's
 * chain is counted once per entry, chain and filter state. A pair is hashed by its entry's
 * hash rather than its number, which a sample's own hash foretells: hists__prefetch fetches
 * its slot and pair ahead.
 */
static u64 pair_hash(u64 entry_hash, u32 chain, bool filtered)
{
	u64 key[2] = { entry_hash, (u64)chain << 1 | filtered };

	return XXH3_64bits(key, sizeof(key));
}

static u32 pair_add(struct hists *hists, u32 entry, u32 chain, struct hist_entry *proto)
{
	bool filtered = proto->filtered;
	u64 period = proto->period;
	struct entry_index *x = &hists->pair_index;
	u64 hash = pair_hash(hists->entries[entry].hash, chain, filtered);
	struct chain_pair *p;
	size_t j;

	if (2 * (hists->nr_pairs + 1) > x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 1024;

		free(x->slots);
		x->slots = xcalloc_populated(cap, sizeof(*x->slots));
		x->cap = cap;
		for (size_t i = 0; i < hists->nr_pairs; i++) {
			p = &hists->pairs[i];
			j = pair_hash(hists->entries[p->entry].hash, p->chain, p->filtered) &
			    (cap - 1);
			while (x->slots[j])
				j = (j + 1) & (cap - 1);
			x->slots[j] = (u32)(i + 1);
		}
	}
	for (j = hash & (x->cap - 1); x->slots[j]; j = (j + 1) & (x->cap - 1)) {
		p = &hists->pairs[x->slots[j] - 1];
		if (p->entry == entry && p->chain == chain && p->filtered == filtered) {
			p->period += period;
			p->count++;
			p->last = hists->nr_samples;
			return x->slots[j] - 1;
		}
	}
	ARRAY_GROW(hists->pairs, hists->pairs_alloc, hists->nr_pairs + 1);
	p = &hists->pairs[hists->nr_pairs];
	*p = (struct chain_pair){ .entry = entry, .chain = chain, .count = 1, .filtered = filtered,
				  .period = period, .first = hists->nr_samples,
				  .last = hists->nr_samples, .level = proto->level,
				  .thread = hists->entries[entry].thread, .comm = proto->comm };
	/* the sample's thread: the entry's (borrowed), or the reference the sample holds */
	if (proto->thread && proto->thread != p->thread) {
		p->thread = proto->thread;
		p->owns_thread = true;
		proto->thread = NULL;
	}
	x->slots[j] = (u32)++hists->nr_pairs;
	return (u32)hists->nr_pairs - 1;
}

static int find_dir(void *arg, u32 item, u32 node);

/*
 * With a symbol key and no dso key (--sort sym, sym,pid...), perf's comparison of entries is
 * not transitive: two unresolved addresses compare by address alone, one of them with a
 * resolved symbol by dso first. perf's lookups in its first tree (entries_in) then sometimes
 * end at a leaf though an equal entry is in the tree, and make a second one (one line of the
 * output becomes two, which ones depending on the tree's shape). Outside the children view
 * (whose entries come from the run's chains afterwards: not emulated, the README says so),
 * the entries are then found as perf finds them: through the same tree, built by the same
 * inserts (lib/containers/rbtree), instead of the hash index.
 */
bool lookups_can_fail(const struct sort_list *sort)
{
	/* perf's mispredict, in_tx and abort compare as 0 or 1, never < 0: the same */
	if (sort_list__has(sort, SORT_MISPREDICT) || sort_list__has(sort, SORT_IN_TX) ||
	    sort_list__has(sort, SORT_ABORT))
		return true;
	return sort->sym_by_dso &&
	       (sort_list__has(sort, SORT_SYM) || sort_list__has(sort, SORT_IPC_NULL));
}

/*
 * The entry equal to proto, or a new one made of it (taking its references, with nothing
 * counted yet: *created): its index.
 */
static size_t entry_findnew(struct hists *hists, struct hist_entry *proto, bool *created)
{
	struct hist_entry *he;
	size_t slot = 0;
	u64 hash = proto->hash ? proto->hash : entry_hash(hists->sort, proto);

	if (hists->tree_mode) {
		u32 found;

		/* perf's lookup: proto, in the next entry's place, walked down from the root */
		ARRAY_GROW(hists->entries, hists->alloc, hists->nr + 1);
		hists->entries[hists->nr] = *proto;
		rbtree__reserve(&hists->entries_in, hists->nr + 1);
		found = rbtree__insert(&hists->entries_in, (u32)hists->nr, find_dir, hists);
		*created = found == RBTREE_NONE;
		if (!*created)
			return found;
	} else {
		if (2 * (hists->nr + 1) > hists->index.cap)
			index_grow(&hists->index, hists->entries, hists->nr);
		he = index_find(&hists->index, hists->entries, hists->sort, proto, hash, &slot);
		*created = !he;
		if (he)
			return (size_t)(he - hists->entries);
		ARRAY_GROW(hists->entries, hists->alloc, hists->nr + 1);
	}
	he = &hists->entries[hists->nr];
	*he = *proto;
	he->hash = hash;
	he->nr_events = 0;
	he->period = 0;
	he->period_acc = 0;
	he->first = UINT64_MAX;
	he->first_pos = 0;
	proto->thread = NULL;	/* the entry took both references */
	proto->map = NULL;
	if (hists->sort->branch) {	/* proto's is the caller's: the entry keeps a copy */
		struct hist_branch *b = slab_zalloc(&hists->extra_slab);

		*b = *proto->branch;
		he->branch = b;
	} else if (hists->sort->mem) {
		struct hist_mem *m = slab_zalloc(&hists->extra_slab);

		*m = *proto->mem;
		he->mem = m;
	}
	if (!hists->tree_mode)
		hists->index.slots[slot] = (u32)(hists->nr + 1);
	return hists->nr++;
}

/*
 * The index of a wrapping sample's thread: each kept once, with the sample's own reference if
 * nothing took it, else borrowed (its entry or pair holds one until the run is over).
 */
static u32 wrap_thread(struct hists *hists, struct thread *thread, struct hist_entry *proto)
{
	void *v = hashmap_find(&hists->wrap_thread_ids, (u64)(uintptr_t)thread);
	struct hist_wrap_thread *t;

	if (v)
		return (u32)((uintptr_t)v - 1);
	ARRAY_GROW(hists->wrap_threads, hists->wrap_threads_alloc, hists->nr_wrap_threads + 1);
	t = &hists->wrap_threads[hists->nr_wrap_threads++];
	t->thread = thread;
	t->owns = thread && proto->thread == thread;
	if (t->owns)
		proto->thread = NULL;
	hashmap_insert(&hists->wrap_thread_ids, (u64)(uintptr_t)thread,
		       (void *)(uintptr_t)hists->nr_wrap_threads);
	return (u32)hists->nr_wrap_threads - 1;
}

void hists__add(struct hists *hists, struct hist_entry *proto, u32 chain, u64 map_base)
{
	struct thread *thread = proto->thread;
	u64 sample_period = proto->period;
	/* in the children view, entries of addresses without a map: see struct replay */
	bool wraps = hists->cumulate && (entry_wraps(proto) ||
					 (chain != CC_NO_CHAIN && proto->unmapped_chain));
	u32 pair = UINT32_MAX;
	size_t i;

	if (!hists->nr_samples && lookups_can_fail(hists->sort) && !hists->cumulate) {
		hists->tree_mode = true;
		rbtree__init(&hists->entries_in, 0);
	}
	hists->nr_samples++;
	hists->nr_sample_events++;
	hists->total_period += proto->period;
	if (!proto->filtered)
		hists->nr_non_filtered_samples++;
	if (hists->cumulate)
		proto->period_acc = proto->period;
	/*
	 * consecutive samples often land in the same entry (not through perf's tree: equal keys
	 * need not take the same path down it)
	 */
	if (hists->last && !hists->tree_mode &&
	    (!proto->hash || hists->entries[hists->last - 1].hash == proto->hash) &&
	    entry_equal(hists->sort, &hists->entries[hists->last - 1], proto)) {
		i = hists->last - 1;
		entry_merge(&hists->entries[i], proto);
	} else {
		u64 period = proto->period, period_acc = proto->period_acc;
		bool created;

		i = entry_findnew(hists, proto, &created);
		if (created) {
			hists->entries[i].period = period;
			hists->entries[i].period_acc = period_acc;
			hists->entries[i].nr_events = 1;
			hists->entries[i].first = hists->nr_samples;
		} else {
			entry_merge(&hists->entries[i], proto);
		}
		hists->last = i + 1;
	}
	object_map_set(hists, (u32)i, map_base, hists->nr_samples);	/* the sample's map now */
	if (chain != CC_NO_CHAIN)
		pair = pair_add(hists, (u32)i, chain, proto);
	if (wraps && (hists->nr_samples > UINT32_MAX || sample_period > UINT32_MAX ||
		      hists->nr_pairs >= 1u << 31 || hists->nr >= 1u << 31)) {
		hists->wraps_off = true;
		free(hists->wraps);
		hists->wraps = NULL;
		hists->nr_wraps = hists->wraps_alloc = 0;
	}
	if (wraps && !hists->wraps_off) {
		ARRAY_GROW(hists->wraps, hists->wraps_alloc, hists->nr_wraps + 1);
		hists->wraps[hists->nr_wraps++] = (struct hist_wrap_sample){
			.sample = (u32)hists->nr_samples, .period = (u32)sample_period,
			.ref = pair != UINT32_MAX ? pair : (u32)i, .chainless = pair == UINT32_MAX,
			.thread = wrap_thread(hists, thread, proto) };
	}
}

u32 hists__merge(struct hists *hists, struct hist_entry *he, u64 order, bool *created)
{
	struct hist_entry proto = *he;	/* its hash is hists__hash's of the same keys */
	size_t i;

	i = entry_findnew(hists, &proto, created);
	if (*created) {
		hists->entries[i].period = he->period;
		hists->entries[i].period_acc = he->period_acc;
		hists->entries[i].nr_events = he->nr_events;
		hists->entries[i].first = order;
	} else {
		hists->entries[i].period += he->period;
		hists->entries[i].period_acc += he->period_acc;
		hists->entries[i].nr_events += he->nr_events;
	}
	return (u32)i;
}

void hists__reserve(struct hists *hists, size_t nr)
{
	ARRAY_GROW(hists->entries, hists->alloc, nr);
	if (!hists->tree_mode && !hists->index_stale && 2 * (nr + 1) > hists->index.cap)
		index_grow_to(&hists->index, hists->entries, hists->nr, nr);
}

struct hist_entry *hists__append_n(struct hists *hists, size_t n)
{
	ARRAY_GROW(hists->entries, hists->alloc, hists->nr + n);
	hists->nr += n;
	hists->index_stale = true;
	return &hists->entries[hists->nr - n];
}

void hists__append(struct hists *hists, const struct hist_entry *he, u64 order)
{
	ARRAY_GROW(hists->entries, hists->alloc, hists->nr + 1);
	hists->entries[hists->nr] = *he;
	hists->entries[hists->nr++].first = order;
	hists->index_stale = true;
}

void hists__merge_done(struct hists *hists)
{
	if (hists->index_stale) {	/* appended to: the index made again, of every entry */
		free(hists->index.slots);
		hists->index = (struct entry_index){ 0 };
		index_grow(&hists->index, hists->entries, hists->nr);
		hists->index_stale = false;
	}
	for (size_t i = 0; i < hists->nr; i++)
		object_map_set(hists, (u32)i, map__base(hists->entries[i].map), 1);
	hists->last = 0;
}

u64 hists__hash(const struct hists *hists, const struct hist_entry *proto)
{
	return entry_hash(hists->sort, proto);
}

void hists__prefetch(const struct hists *hists, u64 hash, u32 chain, bool filtered, int stage)
{
	const struct hist_entry *he;
	size_t j;
	u32 slot;

	/* the sample's chain's pair: its slot, then the pair */
	if (chain != CC_NO_CHAIN && hists->pair_index.cap) {
		j = pair_hash(hash, chain, filtered) & (hists->pair_index.cap - 1);
		if (stage == 0) {
			__builtin_prefetch(&hists->pair_index.slots[j]);
		} else {
			slot = hists->pair_index.slots[j];
			if (slot && slot <= hists->nr_pairs)
				__builtin_prefetch(&hists->pairs[slot - 1]);
		}
	}
	if (!hists->index.cap)
		return;
	j = hash & (hists->index.cap - 1);
	if (stage == 0) {
		__builtin_prefetch(&hists->index.slots[j]);
		return;
	}
	slot = hists->index.slots[j];
	if (!slot || slot > hists->nr)
		return;
	/* the first probe's entry: its hash and keys, then the counts hists__add writes */
	he = &hists->entries[slot - 1];
	for (uintptr_t line = (uintptr_t)he & ~(uintptr_t)63; line < (uintptr_t)(he + 1); line += 64)
		__builtin_prefetch((const void *)line);
}

/*
 * perf's final collapse (hists__collapse_resort): comms renamed after their entries were made
 * (the first COMM of a thread overrides its ":tid" placeholder) can make two entries equal;
 * they are merged, the earlier one absorbing the later. The same merges the entries of
 * addresses that hists__resolve_srclines found one source line (or file) for.
 */
void hists__collapse(struct hists *hists)
{
	struct entry_index x = { 0 };

	if (hists->collapsed)
		return;
	hists->collapsed = true;
	if (hists->tree_mode) {	/* perf's first tree as built, and its collapse */
		hists->in_order = xmalloc_populated((hists->nr ? hists->nr : 1) * sizeof(*hists->in_order));
		hists->nr_in_order = rbtree__walk(&hists->entries_in, hists->in_order);
		if (sort_list__has(hists->sort, SORT_COMM))
			hists->nr_in_order = replay_collapse(hists, &hists->entries_in,
							     hists->in_order, hists->nr_in_order,
							     find_dir, hists);
		return;
	}
	if (!sort_list__has(hists->sort, SORT_COMM) && !hists->srclines)
		return;
	/* the index by the old hashes goes first: not both at once (a MB at 128k entries) */
	free(hists->index.slots);
	hists->index = (struct entry_index){ 0 };
	for (size_t i = 0; i < hists->nr; i++)
		hists->entries[i].hash = entry_hash(hists->sort, &hists->entries[i]);
	for (size_t i = 0; i < hists->nr; i++) {
		struct hist_entry *he = &hists->entries[i], *first;
		size_t slot;

		if (2 * (i + 1) > x.cap)
			index_grow(&x, hists->entries, i);
		first = index_find(&x, hists->entries, hists->sort, he, he->hash, &slot);
		if (first) {
			first->period += he->period;
			first->period_acc += he->period_acc;
			first->nr_events += he->nr_events;
			merge_into(hists, (u32)i, (u32)(first - hists->entries));
		} else {
			x.slots[slot] = (u32)(i + 1);
		}
	}
	/* the index of what is left, by the hashes of the final comms */
	hists->index = x;
	hists->last = 0;
}

/*
 * The whole pages of [lo, hi), memory read for the last time, given back as an array is
 * read through (its memory reads as zero after). *from: where the last call stopped.
 */
void release_read(uintptr_t lo, uintptr_t hi, uintptr_t *from)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	lo = (MAX(lo, *from) + page - 1) & ~(page - 1);
	hi &= ~(page - 1);
	if (hi > lo && !madvise((void *)lo, hi - lo, MADV_DONTNEED))
		*from = hi;
}

/*
 * The heap's free pages given back, when much was freed and what comes is large: arrays from
 * 2 MB on a large input are mappings of their own (main.c), which take fresh pages while
 * the heap keeps the freed ones resident (the busy recording's report: 5 MB of 40 before
 * its output order).
 */
void release_free(void)
{
	malloc_trim(0);
}

static void feed_log(struct replay_feed *f, const struct hists *hists, u32 e)
{
	if (entry_wraps(&hists->entries[e]))
		return;
	ARRAY_GROW(f->log, f->alloc, f->nr + 1);
	f->log[f->nr++] = e;
}

/* The run's entries first reached at sample upto or before (and by no pair earlier). */
void feed_run(struct replay_feed *f, const struct hists *hists, u64 upto)
{
	for (; f->next_run < f->nr_run; f->next_run++) {
		const struct hist_entry *he = &hists->entries[f->next_run];

		if (he->merged || f->fed[f->next_run])
			continue;
		if (he->first > upto)
			return;
		feed_log(f, hists, (u32)f->next_run);
	}
}

/* Everything first reached before sample frontier is logged: the replay may go that far. */
void feed_publish(struct replay_feed *f, u64 frontier)
{
	atomic_store_explicit(&f->published, f->nr, memory_order_release);
	atomic_store_explicit(&f->frontier, frontier, memory_order_release);
}

/*
 * perf's entry keeps the thread, comm and filter state of the first sample that reached it
 * (a frame's entry is filtered as the sample is, by the sample's dso and symbol: perf's
 * fill_callchain_info keeps al->filtered): if the pair's first sample came before the entry's
 * first, the entry takes them (and a frame's level). pos: where in the sample
 * (perf adds a sample's own entry, then its frames' in chain order), which orders the
 * entries as perf first inserted them.
 */
static void claim(struct hists *hists, struct replay_feed *feed, u32 e, const struct chain_pair *p,
		  u32 pos, u64 ip, char level)
{
	struct hist_entry *he = &hists->entries[e];

	if (p->first > he->first || (p->first == he->first && pos >= he->first_pos))
		return;
	he->first_pos = pos;
	if (pos) {	/* made by a frame: perf's entry has the frame's address and level */
		he->ip = ip;
		he->level = level;
	}
	if (p->first == he->first)
		return;
	he->first = p->first;
	if (feed) {	/* the first pair to reach it: its first sample is final */
		if (e < feed->nr_run)
			feed->fed[e] = true;
		feed_log(feed, hists, e);
	}
	if (he->thread != p->thread) {
		thread__put(he->thread);
		he->thread = thread__get(p->thread);
	}
	he->comm = p->comm;
	he->filtered = p->filtered;
}

/* The next frame: its pair and id (w->frame is then 1 for a pair's first); false past all. */
static bool frame_walk_next(const struct hists *hists, const struct callchains *chains,
			    struct frame_walk *w, const struct chain_pair **pair, u32 *id)
{
	for (; w->pair < hists->nr_pairs; w->pair++, w->frame = 0) {
		const struct chain_pair *p = &hists->pairs[w->pair];

		if (w->frame < callchains__len(chains, p->chain)) {
			*pair = p;
			*id = callchains__frame_ids(chains, p->chain)[w->frame++];
			return true;
		}
	}
	return false;
}

/* The frame and symbol of the frame CUMULATE_AHEAD frames after the next proto's, fetched. */
static void cumulate_fetch(struct cumulate *c)
{
	const struct chain_pair *p;
	u32 id;

	while (c->fetched < c->made + CUMULATE_AHEAD &&
	       frame_walk_next(c->hists, c->cc->chains, &c->fetch, &p, &id)) {
		if (c->fetch.frame == 1)	/* the pair's own entry: cumulate_make reads it */
			__builtin_prefetch(&c->hists->entries[p->entry].parent);
		callchains__prefetch_sym(c->cc->chains, id);
		c->fetched++;
	}
}

/*
 * The next frame's proto (an entry of the pair's thread, comm, cpu and parent): false when
 * every frame has one.
 */
static bool cumulate_make(struct cumulate *c)
{
	struct hists *hists = c->hists;
	const struct hists_callchain *cc = c->cc;
	const struct chain_pair *p;
	const struct hist_entry *self;
	const struct cc_frame *f;
	struct hist_entry *proto;
	u32 id;

	cumulate_fetch(c);
	if (!frame_walk_next(hists, cc->chains, &c->make, &p, &id))
		return false;
	if (c->make.frame == 1)
		c->level = p->level;
	self = &hists->entries[p->entry];
	f = callchains__frame(cc->chains, id);
	proto = &c->ring[c->made++ % CUMULATE_RING];
	hist_entry__clear(proto);
	proto->thread = p->thread;
	proto->comm = p->comm;
	proto->dso = f->dso;
	proto->parent = self->parent;
	proto->ip = f->ip;
	proto->cpu = self->cpu;
	proto->socket = self->socket;
	proto->filtered = p->filtered;
	proto->map_size = f->map_size;
	proto->sym = callchains__sym(cc->chains, cc->machine, id, &proto->symtab);
	/* perf's fill_callchain_info keeps the level of a frame without a map */
	if (f->level)
		c->level = f->level;
	proto->level = c->level;
	proto->hash = entry_hash(hists->sort, proto);
	hists__prefetch(hists, proto->hash, CC_NO_CHAIN, false, 0);
	return true;
}

/* The proto of the next frame in pair order, made ahead; the ones to come fetched. */
static struct hist_entry *cumulate_take(struct cumulate *c)
{
	size_t half = c->taken + CUMULATE_AHEAD / 2;

	while (c->made < c->taken + 1 + CUMULATE_AHEAD && cumulate_make(c))
		;
	if (half < c->made)
		hists__prefetch(c->hists, c->ring[half % CUMULATE_RING].hash, CC_NO_CHAIN, false, 1);
	return &c->ring[c->taken++ % CUMULATE_RING];
}

/*
 * perf's iter_add_next_cumulative_entry for each frame of a pair's chain: an entry per
 * frame (of the sample's thread, comm, cpu and parent), unless one of the entries made for
 * this chain already is equal to it (recursion), with the chain from that frame on.
 * made[0] is the entry the pair is in, made[1 + i] the entry of frame i, or NO_ENTRY, and
 * levels[1 + i] (levels not NULL) the level of frame i's entry (perf's fill_callchain_info
 * keeps the one before for a frame without a map). The pairs are taken in order, and c's
 * protos with them.
 */
void cumulate_pair(struct cumulate *c, const struct chain_pair *p, u32 *made,
		   char *levels)
{
	struct hists *hists = c->hists;
	const struct hists_callchain *cc = c->cc;
	u32 len = callchains__len(cc->chains, p->chain);
	const u32 *ids = callchains__frame_ids(cc->chains, p->chain);

	made[0] = final_entry(hists, p->entry);
	claim(hists, c->feed, made[0], p, 0, 0, 0);
	for (u32 i = 0; i < len; i++) {
		const struct cc_frame *f = callchains__frame(cc->chains, ids[i]);
		struct hist_entry proto = *cumulate_take(c);
		bool dup = false, created;
		size_t x;

		made[1 + i] = NO_ENTRY;
		if (levels)
			levels[1 + i] = proto.level;
		/* equal entries have equal hashes (the index goes by that) */
		for (size_t k = 0; k <= i && !dup; k++)
			dup = made[k] != NO_ENTRY && hists->entries[made[k]].hash == proto.hash &&
			      entry_equal(hists->sort, &hists->entries[made[k]], &proto);
		if (dup)
			continue;
		thread__get(proto.thread);
		x = entry_findnew(hists, &proto, &created);
		if (!created)
			thread__put(proto.thread);
		claim(hists, c->feed, (u32)x, p, 1 + i, f->ip, proto.level);
		/* a wrapping entry's counts are the replay's (on its thread) */
		if (!c->feed || !entry_wraps(&hists->entries[x]))
			hists->entries[x].period_acc += p->period;
		object_map_set(hists, (u32)x, f->ip - f->addr, p->last);	/* perf's takes the latest */
		made[1 + i] = (u32)x;
	}
}

static int find_dir(void *arg, u32 item, u32 node)
{
	const struct hists *hists = arg;

	return entries_cmp(hists->sort, &hists->entries[node], &hists->entries[item], NULL);
}

/*
 * perf's collapse: the entries in the first tree's order, each merged into one found equal.
 * order becomes what is left, in the collapsed tree's order: how many.
 */
size_t replay_collapse(struct hists *hists, struct rbtree *t, u32 *order, size_t nr,
		       rbtree_dir_fn dir, void *ctx)
{
	t->root = RBTREE_NONE;
	for (size_t i = 0; i < nr; i++) {
		u32 found = rbtree__insert(t, order[i], dir, ctx);
		struct hist_entry *he = &hists->entries[order[i]], *into;

		if (found == RBTREE_NONE)
			continue;
		into = &hists->entries[found];
		into->period += he->period;
		into->period_acc += he->period_acc;
		into->nr_events += he->nr_events;
		if (!into->contrib_nr) {	/* the call graph goes with the entry (one has it) */
			into->contrib_first = he->contrib_first;
			into->contrib_nr = he->contrib_nr;
		}
		merge_into(hists, order[i], found);
	}
	return rbtree__walk(t, order);
}
