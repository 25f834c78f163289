/*
 * hashmap: open-addressing map from u64 keys to pointers (linear probing, power-of-two table,
 * grows at 50% load). Keys are hashed with xxhash. O(1) expected find/insert/remove.
 * Not thread safe: one writer, no concurrent readers.
 */
#ifndef LIB_HASHMAP_H
#define LIB_HASHMAP_H

#include "lib/compiler.h"

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap;	/* power of two, or 0 */
	size_t count;
	size_t tombs;
};

void hashmap_init(struct hashmap *map);
void hashmap_exit(struct hashmap *map);
/* Returns the value or NULL. */
void *hashmap_find(const struct hashmap *map, u64 key);
/* Inserts or replaces; returns the previous value or NULL. */
void *hashmap_insert(struct hashmap *map, u64 key, void *value);
/* Removes; returns the removed value or NULL. */
void *hashmap_remove(struct hashmap *map, u64 key);

/* Iterate: for (size_t i = 0; hashmap_next(map, &i, &key, &val);) */
bool hashmap_next(const struct hashmap *map, size_t *iter, u64 *key, void **value);

u64 hash_u64(u64 key);

#endif
