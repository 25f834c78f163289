/* Open-addressing u64 -> pointer map; see hashmap.h. */
#include "lib/containers/hashmap.h"

#include <stdlib.h>
#include "lib/containers/xxhash_inline.h"

#include "lib/xalloc.h"

enum { SLOT_EMPTY, SLOT_USED, SLOT_TOMB };

struct hashmap_slot {
	u64 key;
	void *value;
	u8 state;
};

u64 hash_u64(u64 key)
{
	return XXH3_64bits(&key, sizeof(key));
}

void hashmap_init(struct hashmap *map)
{
	map->slots = NULL;
	map->cap = map->count = map->tombs = 0;
}

void hashmap_exit(struct hashmap *map)
{
	free(map->slots);
	hashmap_init(map);
}

static struct hashmap_slot *probe(const struct hashmap *map, u64 key, bool for_insert)
{
	size_t mask = map->cap - 1, i = hash_u64(key) & mask;
	struct hashmap_slot *tomb = NULL;

	for (;;) {
		struct hashmap_slot *s = &map->slots[i];

		if (s->state == SLOT_EMPTY)
			return for_insert && tomb ? tomb : (for_insert ? s : NULL);
		if (s->state == SLOT_TOMB) {
			if (!tomb)
				tomb = s;
		} else if (s->key == key) {
			return s;
		}
		i = (i + 1) & mask;
	}
}

static void rehash(struct hashmap *map, size_t cap)
{
	struct hashmap_slot *old = map->slots;
	size_t old_cap = map->cap;

	map->slots = xcalloc_populated(cap, sizeof(*map->slots));
	map->cap = cap;
	map->count = map->tombs = 0;
	for (size_t i = 0; i < old_cap; i++) {
		if (old[i].state == SLOT_USED) {
			struct hashmap_slot *s = probe(map, old[i].key, true);
			*s = old[i];
			map->count++;
		}
	}
	free(old);
}

void *hashmap_find(const struct hashmap *map, u64 key)
{
	struct hashmap_slot *s;

	if (!map->count)
		return NULL;
	s = probe(map, key, false);
	return s && s->state == SLOT_USED ? s->value : NULL;
}

void *hashmap_insert(struct hashmap *map, u64 key, void *value)
{
	struct hashmap_slot *s;
	void *prev;

	if ((map->count + map->tombs + 1) * 2 > map->cap)
		rehash(map, map->cap ? (map->count * 4 > map->cap ? map->cap * 2 : map->cap) : 16);
	s = probe(map, key, true);
	if (s->state == SLOT_USED) {
		prev = s->value;
		s->value = value;
		return prev;
	}
	if (s->state == SLOT_TOMB)
		map->tombs--;
	s->state = SLOT_USED;
	s->key = key;
	s->value = value;
	map->count++;
	return NULL;
}

void *hashmap_remove(struct hashmap *map, u64 key)
{
	struct hashmap_slot *s;

	if (!map->count)
		return NULL;
	s = probe(map, key, false);
	if (!s || s->state != SLOT_USED)
		return NULL;
	s->state = SLOT_TOMB;
	map->count--;
	map->tombs++;
	return s->value;
}

bool hashmap_next(const struct hashmap *map, size_t *iter, u64 *key, void **value)
{
	for (size_t i = *iter; i < map->cap; i++) {
		if (map->slots[i].state == SLOT_USED) {
			if (key)
				*key = map->slots[i].key;
			if (value)
				*value = map->slots[i].value;
			*iter = i + 1;
			return true;
		}
	}
	*iter = map->cap;
	return false;
}
