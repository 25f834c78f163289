/*
 * Fuzz target: the symbol index reader (symcache_map_image) and lookups in what it maps.
 * The checksum is resealed over each input, so inputs reach the structural checks that keep
 * lookups inside the image; an input whose checksum is already right stays as it is.
 */
#include <string.h>

#include "symtab/symcache.h"
#include "symtab/symtab.h"
#include "tests/fuzz/fuzz.h"

static u64 input_u64(const uint8_t *data, size_t size, size_t i)
{
	u64 v = 0;

	if (size)
		memcpy(&v, data + (i * 8) % size, MIN((size_t)8, size - (i * 8) % size));
	return v;
}

/* A name is in the pool and ends there, or (out of it, in a damaged body) reads as "". */
static void check_name(const struct symtab *st, const struct symbol *s)
{
	const char *name = symbol__name(st, s);

	if (s->name < st->names_len ? name != st->names + s->name ||
				      strlen(name) >= st->names_len - s->name : name[0] != '\0')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_map_bounds bounds;
	struct symtab st;
	const char *why;
	void *image;

	/* the reader maps files, page aligned; malloc's blocks are 16-aligned (the structs
	   need 8) and of exactly size bytes, so that ASan sees a read past the end */
	image = malloc(size ? size : 1);
	if (!image)
		return 0;
	memcpy(image, data, size);
	symcache_seal_image(image, size);
	if (symcache_map_image(image, size, &st, &bounds, &why))
		goto out;
	for (size_t i = 0; i < st.nr; i++) {
		const struct symbol *s = &st.syms[i];

		check_name(&st, s);
		(void)symtab__symbol_end(&st, s);
	}
	/* addresses from the input (which holds the symbols' starts and the ranges'), and
	   around each symbol's start and end */
	for (size_t i = 0; i < 256 && i < size / 8 + 8; i++) {
		u64 addr = input_u64(data, size, i), lo, hi;
		const struct symbol *s = symtab__find_span(&st, addr, &lo, &hi);

		if (!s)
			continue;
		if (s < st.syms || s >= st.syms + st.nr)
			abort();
		check_name(&st, s);
		(void)symtab__symbol_end(&st, s);
	}
	for (size_t i = 0; i < st.nr && i < 64; i++) {
		u64 end = symtab__symbol_end(&st, &st.syms[i]);

		(void)symtab__find(&st, st.syms[i].start);
		(void)symtab__find(&st, end - 1);
		(void)symtab__find(&st, end);
	}
out:
	free(image);
	return 0;
}
