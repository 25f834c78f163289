/*
 * symtab_elf internals: an opened candidate file (perf's struct symsrc) and the readers of its
 * symbols, shared by symtab_elf.c (which file) and symtab_elf_syms.c (which symbols).
 */
#ifndef SYMTAB_SYMTAB_ELF_INTERNAL_H
#define SYMTAB_SYMTAB_ELF_INTERNAL_H

#include <gelf.h>

#include "symtab/symtab_internal.h"

struct symsrc {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symshdr, dynshdr;
	size_t dynsym_idx;
};

/*
 * perf's dso__load_sym for a user dso: .symtab of syms_ss (else its .dynsym), addresses put
 * into map__map_ip()'s space by runtime_ss's program headers, then perf's fixups. Returns the
 * number of symbols, or -1 (symbols added before a failure stay, unfixed, as in perf).
 */
int symtab_elf_load_syms(struct sym_builder *b, struct symsrc *syms_ss, struct symsrc *runtime_ss);
/* perf 6.1's dso__synthesize_plt_symbols on ss: the number of "NAME@plt" symbols added. */
int symtab_elf_synthesize_plt(struct sym_builder *b, struct symsrc *ss);

#endif
