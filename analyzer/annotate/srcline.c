/*
 * srcline: objdump -l's lines from libdw (see srcline.h). bfd's find_nearest_line gives the
 * innermost function containing the address (an inlined subroutine's name is its origin's)
 * and the line table's row for it; show_line prints the function when it changes and the
 * line when it or its discriminator changes, and after a new function always.
 */
#include "analyzer/annotate/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

/* A .symtab symbol bfd may name code by (see elf_function). */
struct elf_func {
	u64 start, end;
	u32 section;
	const char *name;
};

struct srcline {
	Elf *elf;	/* the caller's */
	Dwarf *dbg;	/* NULL: no DWARF, the function lines come from .symtab */
	struct elf_func *funcs;	/* .symtab's, by address, once needed */
	size_t nr_funcs;
	bool funcs_read;
	char *prev_func;
	int prev_line;
	unsigned int prev_disc;
	char func_buf[1024];
	char file_buf[4096];
};

struct srcline *srcline__new(Elf *elf)
{
	struct srcline *s;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->elf = elf;
	s->dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	srcline__reset(s);
	return s;
}

void srcline__delete(struct srcline *s)
{
	if (!s)
		return;
	if (s->dbg)
		dwarf_end(s->dbg);
	free(s->funcs);
	free(s->prev_func);
	free(s);
}

void srcline__reset(struct srcline *s)
{
	free(s->prev_func);
	s->prev_func = NULL;
	s->prev_line = -1;
	s->prev_disc = 0;
}

static int elf_func_cmp(const void *pa, const void *pb)
{
	const struct elf_func *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * The candidates of _bfd_elf_maybe_function_sym in .symtab, by address: not data, not a
 * section or file; a size of 0 counts as 1; annobin's hidden local labels left out. objdump
 * gives bfd its .symtab only: a file without one names nothing so. Read once.
 */
static void read_elf_funcs(struct srcline *s)
{
	size_t alloc = 0;

	s->funcs_read = true;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(s->elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			int type;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if (type == STT_OBJECT || type == STT_TLS || type == STT_SECTION ||
			    type == STT_FILE || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE)
				continue;
			if (!sym.st_size && GELF_ST_BIND(sym.st_info) == STB_LOCAL &&
			    type == STT_NOTYPE && GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN)
				continue;
			ARRAY_GROW(s->funcs, alloc, s->nr_funcs + 1);
			s->funcs[s->nr_funcs++] = (struct elf_func){
				sym.st_value, sym.st_value + (sym.st_size ? sym.st_size : 1),
				sym.st_shndx, elf_strptr(s->elf, sh.sh_link, sym.st_name) };
		}
	}
	if (s->nr_funcs)
		qsort(s->funcs, s->nr_funcs, sizeof(*s->funcs), elf_func_cmp);
}

/*
 * bfd's _bfd_elf_find_function, for an address without a DWARF function: of the symbols of
 * its section at or before it, the one starting last, if it holds it
 */
static const char *elf_function(struct srcline *s, u64 addr)
{
	size_t lo = 0, hi;
	u32 sec = 0;

	if (!s->funcs_read)
		read_elf_funcs(s);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(s->elf, scn));) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS &&
		    addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size) {
			sec = (u32)elf_ndxscn(scn);
			break;
		}
	}
	hi = s->nr_funcs;
	while (lo < hi) {	/* the first symbol starting after addr */
		size_t mid = (lo + hi) / 2;

		if (s->funcs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct elf_func *f = &s->funcs[i];

		if (f->section != sec)
			continue;
		return addr < f->end ? f->name : NULL;
	}
	return NULL;
}

/* The name of the innermost function at addr in cu, or NULL. */
static const char *innermost_function(Dwarf_Die *cu, u64 addr)
{
	Dwarf_Die *scopes = NULL;
	const char *name = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);

	for (int i = 0; i < n && !name; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute attr;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		if (dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr))
			name = dwarf_formstring(&attr);
	}
	free(scopes);
	return name;
}

/*
 * A line for addr in a unit whose ranges do not hold it (top-level asm, crt1's _start): bfd
 * reads every unit's line table; the first unit with a row for addr, in cu.
 */
static Dwarf_Line *line_outside_units(struct srcline *s, u64 addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(s->dbg, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Line *row;
		Dwarf_Addr row_addr;

		if (dwarf_offdie(s->dbg, off + hsize, cu) && (row = dwarf_getsrc_die(cu, addr)) &&
		    !dwarf_lineaddr(row, &row_addr) && row_addr <= addr)
			return row;
		off = next;
	}
	return NULL;
}

void srcline__at(struct srcline *s, u64 addr, const char **func, const char **file,
		 unsigned int *line, unsigned int *discriminator)
{
	Dwarf_Die cu;
	Dwarf_Line *row = NULL;
	const char *name = NULL, *src = NULL;
	int lineno = 0;
	unsigned int disc = 0;

	*func = NULL;
	*file = NULL;
	*line = 0;
	*discriminator = 0;
	if (s->dbg && dwarf_addrdie(s->dbg, addr, &cu)) {
		name = innermost_function(&cu, addr);
		row = dwarf_getsrc_die(&cu, addr);
	} else if (s->dbg) {
		row = line_outside_units(s, addr, &cu);
	}
	if (!name)
		name = elf_function(s, addr);
	if (row) {
		src = dwarf_linesrc(row, NULL, NULL);
		if (dwarf_lineno(row, &lineno))
			lineno = 0;
		if (dwarf_linediscriminator(row, &disc))
			disc = 0;
	}
	if (name && *name && (!s->prev_func || strcmp(name, s->prev_func))) {
		snprintf(s->func_buf, sizeof(s->func_buf), "%s()", name);
		*func = s->func_buf;
		s->prev_line = -1;
	}
	if (lineno > 0 && (lineno != s->prev_line || disc != s->prev_disc)) {
		*file = src ? src : "???";
		if (src && src[0] != '/') {	/* bfd joins it to the unit's directory */
			Dwarf_Attribute attr;
			const char *dir = dwarf_attr(&cu, DW_AT_comp_dir, &attr) ?
						  dwarf_formstring(&attr) : NULL;

			if (dir) {
				snprintf(s->file_buf, sizeof(s->file_buf), "%s/%s", dir, src);
				*file = s->file_buf;
			}
		}
		*line = (unsigned int)lineno;
		*discriminator = disc;
	}
	if (name && *name && (!s->prev_func || strcmp(name, s->prev_func))) {
		free(s->prev_func);
		s->prev_func = xstrdup(name);
	}
	if (lineno > 0)
		s->prev_line = lineno;
	s->prev_disc = disc;
}
