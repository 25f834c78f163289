/* maps as a lazily sorted array of map pointers; see map.h. */
#include "machine/map.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "machine/dso.h"

struct map *map__new(u64 start, u64 end, u64 pgoff, struct dso *dso)
{
	struct map *map = xzalloc(sizeof(*map));

	refcount_init(&map->ref, "map");
	map->start = start;
	map->end = end;
	map->pgoff = pgoff;
	map->dso = dso__get(dso);
	return map;
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
		free(map);
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

struct maps *maps__new(void)
{
	struct maps *maps = xzalloc(sizeof(*maps));

	refcount_init(&maps->ref, "maps");
	maps->sorted = maps->disjoint = true;
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

static void maps__sort(struct maps *maps)
{
	if (!maps->sorted) {
		if (maps->nr > 1)
			qsort(maps->arr, maps->nr, sizeof(*maps->arr), map_cmp);
		maps->sorted = maps->disjoint = true;
		for (size_t i = 1; i < maps->nr; i++)
			maps->disjoint &= maps->arr[i - 1]->end <= maps->arr[i]->start;
		maps->last = NULL;
	}
}

static void maps__append(struct maps *maps, struct map *map)
{
	ARRAY_GROW(maps->arr, maps->alloc, maps->nr + 1);
	if (maps->nr && maps->arr[maps->nr - 1]->start > map->start)
		maps->sorted = false;
	else if (maps->nr && maps->arr[maps->nr - 1]->end > map->start)
		maps->disjoint = false;
	maps->arr[maps->nr++] = map;
	maps->last = NULL;
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

	maps->last = NULL;	/* it may go */
	for (size_t i = 0; i < n; i++) {
		struct map *old = maps->arr[i];

		if (old->end <= map->start || old->start >= map->end) {
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
		map__put(old);
	}
	maps->nr = keep;
	for (size_t i = 0; i < nr_extra; i++)
		maps__append(maps, extra[i]);
	free(extra);
}

void maps__insert(struct maps *maps, struct map *map)
{
	maps__sort(maps);
	/* Fast path: no overlap with the last map and appended in order. */
	if (maps->nr) {
		size_t lo = 0, hi = maps->nr;

		/* first map whose end > map->start */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (maps->arr[mid]->end <= map->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < maps->nr && maps->arr[lo]->start < map->end)
			maps__fixup_overlaps(maps, map);
	}
	maps__append(maps, map__get(map));
}

struct map *maps__find(struct maps *maps, u64 ip)
{
	size_t lo = 0, hi;

	maps__sort(maps);
	/* samples come in runs in one map; with overlaps, the search decides which map */
	if (maps->last && ip >= maps->last->start && ip < maps->last->end)
		return maps->last;
	hi = maps->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct map *m = maps->arr[mid];

		if (ip < m->start) {
			hi = mid;
		} else if (ip >= m->end) {
			lo = mid + 1;
		} else {
			if (maps->disjoint)
				maps->last = m;
			return m;
		}
	}
	return NULL;
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
