/*
 * symtab_elf: ELF helpers that symtab/ shares with the rest of the tree (machine/'s unwinder
 * and inline-frame reader open the same files). Reads through libelf only; no state.
 */
#ifndef SYMTAB_SYMTAB_ELF_H
#define SYMTAB_SYMTAB_ELF_H

#include <gelf.h>
#include <stddef.h>

/*
 * perf's elf_section_by_name (symbol-elf.c): the first section called name, its header in
 * *shp and, if idx is not NULL, its index (counting from 1) in *idx; NULL if there is none or
 * the section headers cannot be read. ehdr is elf's ELF header, or NULL to read it here. As
 * perf, the section names are found through ehdr->e_shstrndx.
 */
Elf_Scn *symtab_elf_section_by_name(Elf *elf, const GElf_Ehdr *ehdr, GElf_Shdr *shp,
				    const char *name, size_t *idx);

#endif
