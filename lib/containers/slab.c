/* Fixed-size object pools; see slab.h. */
#include "lib/containers/slab.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

#define SLAB_CHUNK_BYTES (64 * 1024)

#if defined(__SANITIZE_ADDRESS__)
#define SLAB_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_MALLOC 1
#endif
#endif

struct slab_chunk {
	struct slab_chunk *next;
	_Alignas(16) unsigned char mem[SLAB_CHUNK_BYTES - 16];
};

#ifndef SLAB_MALLOC
static size_t slab_stride(const struct slab *slab)
{
	return (slab->size + 7) & ~(size_t)7;
}
#endif

void *slab_zalloc(struct slab *slab)
{
#ifdef SLAB_MALLOC
	slab->live++;
	return xzalloc(slab->size);
#else
	void *obj;

	if (slab->free) {
		obj = slab->free;
		memcpy(&slab->free, obj, sizeof(void *));
	} else {
		if (!slab->chunks || slab->used + slab_stride(slab) > sizeof(slab->chunks->mem)) {
			struct slab_chunk *c = xmalloc_populated(sizeof(*c));

			c->next = slab->chunks;
			slab->chunks = c;
			slab->used = 0;
		}
		obj = slab->chunks->mem + slab->used;
		slab->used += slab_stride(slab);
	}
	slab->live++;
	return memset(obj, 0, slab->size);
#endif
}

void slab_free(struct slab *slab, void *obj)
{
	if (!obj)
		return;
	slab->live--;
#ifdef SLAB_MALLOC
	free(obj);
#else
	memcpy(obj, &slab->free, sizeof(void *));
	slab->free = obj;
	if (slab->live)
		return;
	while (slab->chunks) {	/* the last one: give the memory back */
		struct slab_chunk *next = slab->chunks->next;

		free(slab->chunks);
		slab->chunks = next;
	}
	slab->free = NULL;
	slab->used = 0;
#endif
}
