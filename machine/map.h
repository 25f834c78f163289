/*
 * map: one mapping [start, end) of a dso into an address space, and maps: the mappings of one
 * process (shared by its threads), an array sorted but for a short tail of recent inserts
 * (O(log n + tail) per insert, merged in by lookups), with perf's overlap semantics: a new
 * mapping over old ranges trims or splits the old ones (perf's maps__fixup_overlappings).
 * Refcounted; single writer.
 */
#ifndef MACHINE_MAP_H
#define MACHINE_MAP_H

#include "lib/compiler.h"
#include "lib/refcount.h"
#include "lib/containers/stree.h"

struct dso;

/* 40 bytes (a slab object): there are millions. */
struct map {
	struct refcount ref;
	u16 ino_index;	/* the file's inode: dso__ino(dso, ino_index) (at most DSO_MAX_INOS) */
	u8 prot;	/* PROT_* as recorded (MMAP: PROT_EXEC unless a data mapping) */
	u8 identity : 1;	/* kernel maps: addresses are dso addresses */
	u8 shared : 1;	/* MAP_SHARED as recorded */
	u64 start, end, pgoff;
	struct dso *dso;
};

/*
 * A lookup's fields first, in 64 bytes: one that hits the last answer or searches a maps too
 * small to index reads no further (at 100k processes each maps is a cache miss).
 */
struct maps {
	u64 last_start, last_end;	/* the last answer's range (empty without one) */
	struct map *last;	/* the last lookup's answer, when disjoint; not a reference */
	size_t nr;
	size_t nr_sorted;	/* arr[0, nr_sorted) is in address order; the rest, a short
				   unsorted tail of recent inserts, is merged in by lookups */
	struct map **arr;
	/*
	 * starts[i] == arr[i]->start for i < nr_sorted: lookups binary-search this array and
	 * touch one map, not one per step (at a million maps, each one a cache miss).
	 */
	u64 *starts;
	bool disjoint;	/* no two maps overlap (known once sorted) */
	u32 lookups;	/* since the last change: whether to build the index */
	/*
	 * An index over starts once it is worth it (MAPS_INDEX_MIN maps and more): a search
	 * reads one node (two lines fetched together) per level of it, a binary search one line
	 * per step (at 1000 maps a process, 3 nodes instead of 10 lines, most of them cache
	 * misses), and maps__prefetch can fetch them ahead. Built by a lookup when enough have
	 * come since the last change (lookups) to pay for it; any change clears it.
	 */
	struct stree index;
	size_t alloc;
	struct refcount ref;
};

struct map *map__new(u64 start, u64 end, u64 pgoff, struct dso *dso);
/* How many maps exist (of every maps): whether the model still fits in the caches. */
size_t map__nr_live(void);
struct map *map__get(struct map *map);
void map__put(struct map *map);
/* The address in the dso's symbol space (perf's map__map_ip). */
static inline u64 map__map_ip(const struct map *map, u64 ip)
{
	return map->identity ? ip : ip - map->start + map->pgoff;
}

/*
 * The address the map's dso is loaded at: start - pgoff (perf's map__unmap_ip(map, 0)), 0 for
 * identity maps or none.
 */
static inline u64 map__base(const struct map *map)
{
	return map && !map->identity ? map->start - map->pgoff : 0;
}

struct maps *maps__new(void);
struct maps *maps__get(struct maps *maps);
void maps__put(struct maps *maps);
/* Insert, trimming or splitting overlapped maps first. Takes its own reference. */
void maps__insert(struct maps *maps, struct map *map);
/*
 * The map containing ip, or NULL. Borrowed: valid until the next change of maps. Whoever
 * changes a map's bounds in place calls maps__changed().
 */
struct map *maps__find(struct maps *maps, u64 ip);
void maps__changed(struct maps *maps);
/*
 * Prefetch what maps__find(maps, ip) will read, in steps a few deliveries apart (0, 1, ...):
 * the index's nodes one a step, the last with the map pointers beside its keys, then the map;
 * each step reads what the steps before fetched. Only a maps that a lookup reads as it is
 * (sorted, indexed or small) is prefetched. Changes nothing.
 */
void maps__prefetch(const struct maps *maps, u64 ip, size_t step);
/* A new maps holding references to every map of src (perf's maps__clone on fork). */
struct maps *maps__clone(struct maps *src);
/*
 * Call fn on every map in address order (perf's maps__for_each_entry), for listings; stops at
 * and returns fn's first non-zero return. fn must not change maps.
 */
int maps__for_each_map(struct maps *maps, int (*fn)(struct map *map, void *data), void *data);

/*
 * Told of every map that enters or leaves any maps, while set (machine/history.h logs so).
 * Set and read only by the one thread that changes the model.
 */
struct maps_observer {
	void (*add)(void *data, struct maps *maps, struct map *map);
	void (*remove)(void *data, struct maps *maps, struct map *map);
	void *data;
};
extern const struct maps_observer *maps_observer;

#endif
