/*
 * srcline: what `objdump -l` prints before an instruction (objdump.c show_line): the
 * function's name line `NAME():` when the innermost function (inlined ones included) changes,
 * the `FILE:LINE` (with ` (discriminator N)`) line when the line changes, read from the DWARF
 * of the file with libdw. perf consumes the FILE:LINE lines (they number what follows) and
 * shows the others. One file's state; not thread safe.
 */
#ifndef ANALYZER_ANNOTATE_SRCLINE_H
#define ANALYZER_ANNOTATE_SRCLINE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"

struct srcline;

/* Over the caller's Elf (kept until srcline__delete); NULL when it is no ELF file. */
struct srcline *srcline__new(Elf *elf);
void srcline__delete(struct srcline *s);
/* Forget what was printed last: objdump starts afresh with every run. */
void srcline__reset(struct srcline *s);

/*
 * The lines objdump -l prints before the instruction at addr (its address in the file):
 * *func set to the function line's text ("name()") or NULL, *file to FILE and *line to LINE
 * of the FILE:LINE line (0: none), *discriminator to its discriminator (0: none).
 */
void srcline__at(struct srcline *s, u64 addr, const char **func, const char **file,
		 unsigned int *line, unsigned int *discriminator);

#endif
