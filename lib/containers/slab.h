/*
 * slab: fixed-size objects carved from 64 KB chunks, freed objects reused first. For the
 * model's many small objects (threads, maps): no allocator header or size rounding per
 * object, and memory freed by churn comes back to the same kind of object. The chunks go
 * back to the system when the last object is freed, so a slab can be a static. Objects are
 * 8-byte aligned. Under AddressSanitizer every object is its own malloc, so use after free
 * and overruns are still caught. Not thread safe: one slab, one thread at a time.
 */
#ifndef LIB_SLAB_H
#define LIB_SLAB_H

#include <stddef.h>

struct slab_chunk;

struct slab {
	size_t size;	/* of an object, at least a pointer's */
	void *free;	/* freed objects, linked through their first bytes */
	struct slab_chunk *chunks;
	size_t used;	/* bytes carved from chunks->mem */
	size_t live;	/* objects allocated and not freed */
};

#define SLAB_INIT(type) { .size = sizeof(type) < sizeof(void *) ? sizeof(void *) : sizeof(type) }

/* A zeroed object. */
void *slab_zalloc(struct slab *slab);
void slab_free(struct slab *slab, void *obj);

#endif
