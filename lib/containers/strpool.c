/* String interning in chunked arenas; see strpool.h. */
#include "lib/containers/strpool.h"

#include <stdlib.h>
#include <string.h>
#include "lib/containers/xxhash_inline.h"

#include "lib/xalloc.h"

#define CHUNK_SIZE (64 * 1024)

struct strpool_chunk {
	struct strpool_chunk *next;
	size_t used, size;
	char data[];
};

void strpool_init(struct strpool *pool)
{
	memset(pool, 0, sizeof(*pool));
}

void strpool_exit(struct strpool *pool)
{
	struct strpool_chunk *c = pool->chunks;

	while (c) {
		struct strpool_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(pool->table);
	memset(pool, 0, sizeof(*pool));
}

static char *arena_alloc(struct strpool *pool, size_t len)
{
	struct strpool_chunk *c = pool->chunks;

	if (!c || c->size - c->used < len) {
		size_t size = len > CHUNK_SIZE / 4 ? len : CHUNK_SIZE;

		c = xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		/* A big string gets a chunk of its own behind the current one. */
		if (size != CHUNK_SIZE && pool->chunks) {
			c->next = pool->chunks->next;
			pool->chunks->next = c;
		} else {
			c->next = pool->chunks;
			pool->chunks = c;
		}
	}
	c->used += len;
	return c->data + c->used - len;
}

static void grow(struct strpool *pool)
{
	size_t cap = pool->cap ? pool->cap * 2 : 256;
	const char **table = xcalloc_populated(cap, sizeof(*table));

	for (size_t i = 0; i < pool->cap; i++) {
		const char *s = pool->table[i];
		size_t j;

		if (!s)
			continue;
		j = XXH3_64bits(s, strlen(s)) & (cap - 1);
		while (table[j])
			j = (j + 1) & (cap - 1);
		table[j] = s;
	}
	free(pool->table);
	pool->table = table;
	pool->cap = cap;
}

const char *strpool_intern_len(struct strpool *pool, const char *s, size_t len)
{
	size_t i;
	char *copy;

	if ((pool->count + 1) * 4 > pool->cap * 3)
		grow(pool);
	i = XXH3_64bits(s, len) & (pool->cap - 1);
	while (pool->table[i]) {
		const char *t = pool->table[i];

		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return t;
		i = (i + 1) & (pool->cap - 1);
	}
	copy = arena_alloc(pool, len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	pool->table[i] = copy;
	pool->count++;
	return copy;
}

const char *strpool_store(struct strpool *pool, const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(arena_alloc(pool, len), s, len);
}

const char *strpool_intern(struct strpool *pool, const char *s)
{
	return strpool_intern_len(pool, s, strlen(s));
}
