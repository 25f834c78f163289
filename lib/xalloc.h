/*
 * Allocation that cannot fail silently: out of memory ends the process with a message.
 * Sizes taken from input must be bounded by the caller before they get here.
 */
#ifndef LIB_XALLOC_H
#define LIB_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
/*
 * xmalloc for memory about to be written whole: its pages are faulted in by one call rather
 * than one fault each as they are first written (on a VM a fault can cost 10-15 us, a page
 * populated in a batch a third of that). Only worth it from a few pages up.
 */
void *xmalloc_populated(size_t size);
void *xzalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
/*
 * xcalloc for memory read before it is written (hash indexes, caches): zeroed by writing,
 * its pages populated. calloc's fresh pages are the shared zero page until written, and the
 * first write after a read copies it and flushes the TLB of every CPU the process runs on,
 * an interrupt to each of its other threads (on a VM a trap to the hypervisor besides).
 */
void *xcalloc_populated(size_t nmemb, size_t size);
/* size bytes (rounded up to a multiple of align, a power of two) aligned to align */
void *xaligned_alloc(size_t align, size_t size);
void *xrealloc(void *ptr, size_t size);
/*
 * realloc to a smaller size, from old_size: the whole pages past the new end given back to
 * the kernel first. A shrunk heap block's tail is freed memory that glibc keeps resident
 * (analyze sets a high trim threshold); a large table compacted in place leaves megabytes.
 */
void *xrealloc_shrink(void *ptr, size_t old_size, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* sprintf into a string of its own */
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...);

/* What the others do when memory runs out: say so (size: what was asked, 0 unknown), exit 1. */
__attribute__((noreturn)) void xalloc_failed(size_t size);

/* Grow *arr (of *alloc elements of elem bytes) so it holds at least need elements. */
void grow_array(void **arr, size_t *alloc, size_t need, size_t elem);
/* grow_array when it has to: the check inline (most calls find room, a few per sample) */
static inline void grow_array_if(void **arr, size_t *alloc, size_t need, size_t elem)
{
	if (need > *alloc)
		grow_array(arr, alloc, need, elem);
}
#define ARRAY_GROW(arr, alloc, need) \
	grow_array_if((void **)&(arr), &(alloc), (need), sizeof(*(arr)))
/* grow_array into memory aligned to align (a power of two); copies rather than reallocs */
void grow_array_aligned(void **arr, size_t *alloc, size_t need, size_t elem, size_t align);
/* grow_array, the new elements zeroed */
void grow_array_zeroed(void **arr, size_t *alloc, size_t need, size_t elem);
static inline void grow_array_zeroed_if(void **arr, size_t *alloc, size_t need, size_t elem)
{
	if (need > *alloc)
		grow_array_zeroed(arr, alloc, need, elem);
}
#define ARRAY_GROW_ZEROED(arr, alloc, need) \
	grow_array_zeroed_if((void **)&(arr), &(alloc), (need), sizeof(*(arr)))

#endif
