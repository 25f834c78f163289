/* Fuzz target: the ELF symbol loader (symbol tables, dynamic symbols, build-id notes). */
#include "symtab/symtab.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "",
					   .debug_dir = "/nonexistent" };
	struct symtab st;

	symtab__init(&st);
	symtab__load_dso(&st, &cfg, DSO_KIND_USER, fuzz_input_file(NULL, 0, data, size), NULL,
			 0);
	for (size_t i = 0; i < 64 && i < size; i++)	/* look up a few addresses */
		symtab__find(&st, (u64)data[i] << (i % 24));
	symtab__exit(&st);
	return 0;
}
