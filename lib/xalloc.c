/* Checked allocation helpers: abort with a clear message on out-of-memory. */
#include "lib/xalloc.h"

#include <malloc.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/compiler.h"

void xalloc_failed(size_t size)
{
	if (size)
		fprintf(stderr, "analyze: out of memory allocating %zu bytes\n", size);
	else
		fprintf(stderr, "analyze: out of memory\n");
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		xalloc_failed(size);
	return p;
}

/* the whole pages of [p, p + size) faulted in, writable */
static void populate(void *p, size_t size)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t lo = ALIGN_UP((uintptr_t)p, 4096), hi = ((uintptr_t)p + size) & ~(uintptr_t)4095;

	if (hi > lo)	/* an older kernel's refusal is harmless */
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)size;
#endif
}

void *xrealloc_shrink(void *ptr, size_t old_size, size_t size)
{
	/* past the new end, room for the header glibc writes there for the freed rest */
	uintptr_t lo = ALIGN_UP((uintptr_t)ptr + size + 64, 4096),
		  hi = ((uintptr_t)ptr + old_size) & ~(uintptr_t)4095;

	if (ptr && size < old_size && hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
	return xrealloc(ptr, size);
}

void *xmalloc_populated(size_t size)
{
	void *p = xmalloc(size);

	populate(p, size);
	return p;
}

void *xcalloc_populated(size_t nmemb, size_t size)
{
	void *p = xcalloc(nmemb, size);	/* a fresh mapping is not written again */

	populate(p, (nmemb ? nmemb : 1) * (size ? size : 1));
	return p;
}

void *xzalloc(size_t size)
{
	return xcalloc(1, size);
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		xalloc_failed(nmemb * size);
	return p;
}

void *xaligned_alloc(size_t align, size_t size)
{
	size_t bytes = ALIGN_UP(size ? size : 1, align);
	void *p = aligned_alloc(align, bytes);

	if (!p)
		xalloc_failed(bytes);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		xalloc_failed(size);
	return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > (size_t)-1 / size)
		xalloc_failed((size_t)-1);
	return xrealloc(ptr, nmemb * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		xalloc_failed(0);
	return s;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* the size of an array that, moved by its growth, leaves enough behind to trim the heaps */
#define TRIM_AFTER_BYTES (512u << 10)

/* The size an array of alloc elements grows to for need (doubling, from 16). */
static size_t grown_size(size_t alloc, size_t need)
{
	size_t n = alloc ? alloc : 16;

	while (n < need)
		n *= 2;
	return n;
}

/*
 * A large array that moved left its old pages resident: glibc keeps freed memory inside its
 * heaps (and analyze sets a high trim threshold), so they would count in the peak RSS to the
 * end. Hand them back; this happens a logarithmic number of times per array.
 */
static void trim_after_move(size_t old_bytes)
{
	if (old_bytes >= TRIM_AFTER_BYTES)
		malloc_trim(0);
}

void grow_array(void **arr, size_t *alloc, size_t need, size_t elem)
{
	size_t n;

	if (need <= *alloc)
		return;
	void *old = *arr;
	size_t old_bytes = *alloc * elem;

	n = grown_size(*alloc, need);
	*arr = xreallocarray(*arr, n, elem);
	*alloc = n;
	if (*arr != old)
		trim_after_move(old_bytes);
}

void grow_array_aligned(void **arr, size_t *alloc, size_t need, size_t elem, size_t align)
{
	size_t n;
	void *p;

	if (need <= *alloc)
		return;
	n = grown_size(*alloc, need);
	if (n > (size_t)-1 / elem)
		xalloc_failed((size_t)-1);
	p = xaligned_alloc(align, n * elem);
	if (*alloc)
		memcpy(p, *arr, *alloc * elem);
	free(*arr);
	*arr = p;
	trim_after_move(*alloc * elem);
	*alloc = n;
}

void grow_array_zeroed(void **arr, size_t *alloc, size_t need, size_t elem)
{
	size_t old = *alloc;

	grow_array(arr, alloc, need, elem);
	if (*alloc > old)
		memset((char *)*arr + old * elem, 0, (*alloc - old) * elem);
}
