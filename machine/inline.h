/*
 * inline: the functions inlined at a callchain frame's pc, as perf 6.1 adds them to its
 * callchains (machine.c append_inlines: the records `addr2line -f -i` prints for the pc,
 * srcline.c), read here from the DWARF of the dso's file with libdw. perf shows such a frame
 * as one line a record, innermost first: a record named as the frame's symbol is the frame
 * itself, another is that name "(inlined)". Per-dso state is kept for the run; not thread
 * safe (one thread looks frames up at a time).
 */
#ifndef MACHINE_INLINE_H
#define MACHINE_INLINE_H

#include "lib/compiler.h"

struct dso;
struct inlines;
struct symsrc_config;

struct inlines *inlines__new(const struct symsrc_config *cfg);
void inlines__delete(struct inlines *inlines);
/* Srclines' files with their directories (perf's --full-source-path); before any lookup. */
void inlines__set_full_path(struct inlines *inlines, bool full);

/*
 * The records for the pc at addr (map-relative, as callchain frames keep it) in dso, whose
 * symbol is sym_name: their number, with *names pointing at that many names and, when lines
 * is not NULL, *lines at their srclines ("FILE:LINE" or NULL: the pc's line for the first,
 * then the call sites; valid as long as inlines), or 0 when perf shows the frame as it is
 * (no .debug_line, no DWARF for the pc).
 */
size_t inlines__find(struct inlines *inlines, struct dso *dso, u64 addr, const char *sym_name,
		     const char *const **names, const char *const **lines);

/*
 * perf's srcline of a frame (srcline.c get_srcline, without inlines): "FILE:LINE" of the pc
 * at addr (map-relative) in dso, the line table's row for it in the file perf gives
 * addr2line, FILE without its directories; false when perf gets none (a kernel or
 * anonymous dso, no .debug_line, no row for the pc).
 */
bool inlines__srcline(struct inlines *inlines, struct dso *dso, u64 addr, char *buf,
		      size_t size);

#endif
