/*
 * labels: the symbols objdump names addresses by (`<sym+off>` after a branch target or a
 * RIP-relative comment, the `ADDR <sym>:` line where a symbol starts): its sorted
 * symbol list (objdump.c compare_symbols, remove_useless_symbols) of one ELF file, .symtab's
 * or, without one, .dynsym's with versions, the PLT's `name@plt` entries and the GOT slots
 * named by their dynamic relocations' symbols. Read once a
 * file; not thread safe.
 */
#ifndef ANALYZER_ANNOTATE_LABELS_H
#define ANALYZER_ANNOTATE_LABELS_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"

struct label {
	u64 addr;
	const char *name;
	u32 section;	/* ELF section index, 0 for synthetic and absolute ones */
	bool synthetic;	/* a PLT entry's name@plt */
};

/* A dynamic relocation's symbol: names are offsets into the pool. */
struct reloc_label {
	u64 addr;
	s64 addend;
	u64 value;	/* its symbol's */
	size_t name;	/* with its version */
	size_t plain;
	bool abs, undef;	/* its symbol's section: none (or absolute), undefined */
};

struct labels {
	struct label *v;
	size_t nr;
	struct reloc_label *relocs;	/* by address */
	size_t nr_relocs;
	char *pool;
};

/* Read the ELF file's symbols (the caller's Elf): 0, or -1 (no ELF file; labels empty). */
int labels__load(struct labels *l, Elf *elf);
void labels__exit(struct labels *l);
/*
 * objdump's find_symbol_for_address: the label objdump names addr by (the last one at or
 * before it, the first of equal addresses, one of section sec preferred), or NULL.
 */
const struct label *labels__find(const struct labels *l, u64 addr, u32 sec);
/* "sym" or "sym+0xoff" of addr into buf (objdump's objdump_print_addr_with_sym). */
void labels__format(const struct labels *l, u64 addr, u32 sec, char *buf, size_t size);
/*
 * The name of the `ADDR <sym>:` line objdump starts a disassembly with (its require_sec):
 * a label of section sec only, before addr or else after it; without any, the section's
 * name (sec_name, at sec_addr) and the offset.
 */
void labels__format_in(const struct labels *l, u64 addr, u32 sec, const char *sec_name,
		       u64 sec_addr, char *buf, size_t size);
/* Whether a label starts at addr (objdump prints `ADDR <sym>:` there): its name or NULL. */
const char *labels__at(const struct labels *l, u64 addr, u32 sec);

#endif
