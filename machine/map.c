/* maps as an array of map pointers, sorted but for a short tail of recent inserts; see map.h. */
#include "machine/map.h"

#include <stdlib.h>
#include <string.h>

#include "lib/containers/slab.h"
#include "lib/xalloc.h"
#include "machine/dso.h"

/* Maps are the most numerous objects: a slab, not a malloc each (single writer). */
_Static_assert(DSO_MAX_INOS <= UINT16_MAX, "struct map keeps an inode index in 16 bits");

static struct slab map_slab = SLAB_INIT(struct map);

const struct maps_observer *maps_observer;

struct map *map__new(u64 start, u64 end, u64 pgoff, struct dso *dso)
{
	struct map *map = slab_zalloc(&map_slab);

	refcount_init(&map->ref, "map");
	map->start = start;
	map->end = end;
	map->pgoff = pgoff;
	map->dso = dso__get(dso);
	return map;
}

size_t map__nr_live(void)
{
	return map_slab.live;
}

struct map *map__get(struct map *map)
{
	if (map)
		refcount_get(&map->ref);
	return map;
}

void map__put(struct map *map)
{
	if (map && refcount_put(&map->ref)) {
		dso__put(map->dso);
		slab_free(&map_slab, map);
	}
}

static struct map *map__clone(const struct map *map)
{
	struct map *copy = map__new(map->start, map->end, map->pgoff, map->dso);

	copy->identity = map->identity;
	copy->prot = map->prot;
	copy->shared = map->shared;
	copy->ino_index = map->ino_index;
	return copy;
}

_Static_assert(offsetof(struct maps, lookups) + sizeof(u32) <= 64,
	       "a lookup's fields of struct maps take 64 bytes");

struct maps *maps__new(void)
{
	struct maps *maps = xzalloc(sizeof(*maps));

	refcount_init(&maps->ref, "maps");
	maps->disjoint = true;
	return maps;
}

struct maps *maps__get(struct maps *maps)
{
	if (maps)
		refcount_get(&maps->ref);
	return maps;
}

void maps__put(struct maps *maps)
{
	if (maps && refcount_put(&maps->ref)) {
		for (size_t i = 0; i < maps->nr; i++)
			map__put(maps->arr[i]);
		free(maps->arr);
		free(maps->starts);
		stree_exit(&maps->index);
		free(maps);
	}
}

static int map_cmp(const void *a, const void *b)
{
	const struct map *x = *(struct map *const *)a, *y = *(struct map *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* The maps changed: no last answer, no index; the next lookup searches. */
static void maps__forget_lookups(struct maps *maps)
{
	maps->last = NULL;
	maps->last_start = maps->last_end = 0;
	stree_clear(&maps->index);
	maps->lookups = 0;
}

/*
 * Merge the unsorted tail into the sorted part: O(t log t) to sort the tail, then a merge
 * from the back that moves only what lies above the tail's lowest start (inserts tend to be
 * near the top or the bottom of an address space), through a copy of the tail alone.
 * qsort's ties keep no order, but maps of one start never coexist (an insert trims what it
 * overlaps).
 */
static void maps__sort(struct maps *maps)
{
	size_t n = maps->nr, s = maps->nr_sorted, t = n - s, i, j, k, moved = s;
	struct map *stack_tail[256], **tail;

	if (s == n)
		return;
	qsort(maps->arr + s, t, sizeof(*maps->arr), map_cmp);
	if (s && maps->arr[s - 1]->start > maps->arr[s]->start) {
		tail = t <= ARRAY_SIZE(stack_tail) ? stack_tail : xmalloc(t * sizeof(*tail));
		memcpy(tail, maps->arr + s, t * sizeof(*tail));
		/* i, j: one past the next sorted and tail map to place; k: one past the slot */
		for (i = s, j = t, k = n; j;) {
			if (i && maps->arr[i - 1]->start > tail[j - 1]->start)
				maps->arr[--k] = maps->arr[--i];
			else
				maps->arr[--k] = tail[--j];
		}
		moved = i;	/* below i nothing moved */
		if (tail != stack_tail)
			free(tail);
	}
	for (i = moved; i < n; i++)
		maps->starts[i] = maps->arr[i]->start;
	/* disjoint tells of the sorted part: only the pairs from the first moved map can change */
	if (!maps->disjoint || !s)
		moved = 0;
	maps->nr_sorted = n;
	maps->disjoint = true;
	for (i = MAX(moved, (size_t)1); i < n; i++)
		maps->disjoint &= maps->arr[i - 1]->end <= maps->arr[i]->start;
	maps__forget_lookups(maps);
}

void maps__changed(struct maps *maps)
{
	maps->nr_sorted = 0;
	maps__forget_lookups(maps);
}

/* Inserts past this many in the tail are merged in: lookups scan the tail (sqrt(n) bound). */
static size_t tail_max(const struct maps *maps)
{
	size_t t = 64;

	while (t * t < maps->nr)
		t *= 2;
	return t;
}

static void maps__append(struct maps *maps, struct map *map)
{
	if (maps->nr == maps->alloc) {
		size_t alloc = maps->alloc;

		ARRAY_GROW(maps->arr, maps->alloc, maps->nr + 1);
		stree_keys_grow(&maps->starts, &alloc, maps->alloc);
	}
	if (maps->nr_sorted == maps->nr &&
	    (!maps->nr || maps->arr[maps->nr - 1]->start <= map->start)) {
		if (maps->nr && maps->arr[maps->nr - 1]->end > map->start)
			maps->disjoint = false;
		maps->starts[maps->nr_sorted++] = map->start;	/* in order: the sorted part grows */
	}
	maps->arr[maps->nr++] = map;
	if (maps_observer)
		maps_observer->add(maps_observer->data, maps, map);
	maps__forget_lookups(maps);
	if (maps->nr - maps->nr_sorted > tail_max(maps))
		maps__sort(maps);
}

/*
 * Remove the parts of existing maps that [map->start, map->end) covers, keeping what sticks
 * out before and after as new maps (pgoff of the tail adjusted), as perf does.
 */
static void maps__fixup_overlaps(struct maps *maps, const struct map *map)
{
	size_t n = maps->nr, keep = 0;
	struct map **extra = NULL;
	size_t nr_extra = 0, alloc_extra = 0;

	maps__forget_lookups(maps);	/* it may go */
	for (size_t i = 0; i < n; i++) {
		struct map *old = maps->arr[i];

		if (old->end <= map->start || old->start >= map->end) {
			maps->starts[keep] = old->start;
			maps->arr[keep++] = old;
			continue;
		}
		if (old->start < map->start) {
			struct map *before = map__clone(old);

			before->end = map->start;
			ARRAY_GROW(extra, alloc_extra, nr_extra + 1);
			extra[nr_extra++] = before;
		}
		if (old->end > map->end) {
			struct map *after = map__clone(old);

			after->start = map->end;
			after->pgoff += map->end - old->start;
			ARRAY_GROW(extra, alloc_extra, nr_extra + 1);
			extra[nr_extra++] = after;
		}
		if (maps_observer)
			maps_observer->remove(maps_observer->data, maps, old);
		map__put(old);
	}
	maps->nr = maps->nr_sorted = keep;	/* sorted before, and still in order */
	for (size_t i = 0; i < nr_extra; i++)
		maps__append(maps, extra[i]);
	free(extra);
}

/* Whether [start, end) overlaps a map (the sorted part searched, the tail scanned). */
static bool maps__overlaps(const struct maps *maps, u64 start, u64 end)
{
	size_t lo = 0, hi = maps->nr_sorted;

	/* the first sorted map whose end > start; with overlaps among them, scan them all */
	if (!maps->disjoint)
		hi = lo;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (maps->arr[mid]->end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < maps->nr; i++) {
		const struct map *m = maps->arr[i];

		if (i < maps->nr_sorted && maps->disjoint && m->start >= end) {
			i = maps->nr_sorted - 1;	/* none further in the sorted part */
			continue;
		}
		if (m->start < end && m->end > start)
			return true;
	}
	return false;
}

void maps__insert(struct maps *maps, struct map *map)
{
	if (maps->nr && maps__overlaps(maps, map->start, map->end)) {
		maps__sort(maps);
		maps__fixup_overlaps(maps, map);
	}
	maps__append(maps, map__get(map));
}

/* Below this many maps a binary search reads few enough lines: no index. */
#define MAPS_INDEX_MIN 128

/*
 * The position of the last sorted map starting at or below ip, if any (maps disjoint, so
 * the only one that can hold ip), or SIZE_MAX. Reads only.
 */
static size_t maps__position(const struct maps *maps, u64 ip)
{
	const u64 *base = maps->starts;
	size_t n = maps->nr;

	if (n >= MAPS_INDEX_MIN && maps->index.nr)	/* nr first: the index is a line on */
		return stree_find(&maps->index, maps->starts, ip);
	/*
	 * Branch-free halving, prefetching both places the next step may look at: at thousands
	 * of maps a process, every step is a cache miss otherwise waited for one after another.
	 */
	if (!n || base[0] > ip)
		return SIZE_MAX;
	while (n > 1) {
		size_t half = n / 2;

		__builtin_prefetch(&base[half / 2]);
		__builtin_prefetch(&base[half + half / 2]);
		base = base[half] <= ip ? base + half : base;
		n -= half;
	}
	return (size_t)(base - maps->starts);
}

/* maps__position, indexing the maps first once lookups since the last change pay for it. */
static size_t maps__search(struct maps *maps, u64 ip)
{
	/*
	 * Building reads every line of starts, in order (a line a few ns); a lookup through the
	 * index saves several misses (some hundred ns), more once prefetched (maps__prefetch
	 * only works on an index): it pays from n / 128 lookups since the last change.
	 */
	if (maps->nr >= MAPS_INDEX_MIN && !maps->index.nr && ++maps->lookups >= maps->nr / 128)
		stree_build(&maps->index, maps->starts, maps->nr);
	return maps__position(maps, ip);
}

struct map *maps__find(struct maps *maps, u64 ip)
{
	size_t lo = 0, hi, i;

	maps__sort(maps);
	/* samples come in runs in one map; with overlaps, the search decides which map */
	if (ip - maps->last_start < maps->last_end - maps->last_start)
		return maps->last;
	hi = maps->nr;
	if (maps->disjoint) {
		struct map *m;

		i = maps__search(maps, ip);
		if (i == SIZE_MAX)
			return NULL;
		m = maps->arr[i];
		if (ip >= m->end)
			return NULL;
		maps->last = m;
		maps->last_start = m->start;
		maps->last_end = m->end;
		return m;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct map *m = maps->arr[mid];

		if (ip < m->start)
			hi = mid;
		else if (ip >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

void maps__prefetch(const struct maps *maps, u64 ip, size_t step)
{
	size_t nodes, i;
	const struct map *m;

	/* only what a lookup reads without changing maps first */
	if (!maps->nr || maps->nr_sorted != maps->nr || !maps->disjoint)
		return;
	if (maps->nr >= MAPS_INDEX_MIN && maps->index.nr) {
		/* with the keys' node, its maps' pointers */
		nodes = stree_prefetch(&maps->index, maps->starts, ip, step, maps->arr,
				       sizeof(*maps->arr));
	} else if (maps->nr <= STREE_FANOUT) {	/* starts and arr: a node each, two lines */
		nodes = 1;
		if (!step) {
			__builtin_prefetch(maps->starts);
			__builtin_prefetch(maps->starts + STREE_FANOUT / 2);
			__builtin_prefetch(maps->arr);
			__builtin_prefetch(maps->arr + STREE_FANOUT / 2);
		}
	} else {
		return;	/* not indexed yet: the binary search prefetches its own way */
	}
	if (step != nodes)
		return;
	i = maps__position(maps, ip);
	if (i == SIZE_MAX)
		return;
	/* a map may straddle two lines */
	m = maps->arr[i];
	__builtin_prefetch(m);
	__builtin_prefetch((const char *)m + sizeof(*m) - 1);
}

struct maps *maps__clone(struct maps *src)
{
	struct maps *maps = maps__new();

	maps__sort(src);
	for (size_t i = 0; i < src->nr; i++)
		maps__append(maps, map__clone(src->arr[i]));
	return maps;
}

int maps__for_each_map(struct maps *maps, int (*fn)(struct map *map, void *data), void *data)
{
	int ret = 0;

	maps__sort(maps);
	for (size_t i = 0; i < maps->nr && !ret; i++)
		ret = fn(maps->arr[i], data);
	return ret;
}
