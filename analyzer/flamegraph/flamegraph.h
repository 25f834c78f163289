/*
 * flamegraph: `analyze flamegraph`, a flame graph of a recording's samples without extra
 * scripts: the stacks `perf script | stackcollapse-perf.pl` would give (the comm, then the
 * frames caller first, each sample counted once), merged into a tree as the samples come,
 * written as one self-contained SVG (flamegraph_svg.h) or, with --folded, as the sorted
 * folded stacks. A sample without a callchain is its comm and its ip's frame.
 */
#ifndef ANALYZER_FLAMEGRAPH_H
#define ANALYZER_FLAMEGRAPH_H

#include <stdbool.h>

#include "lib/compiler.h"

/*
 * The names stackcollapse-perf.pl makes of a frame perf script prints as `SYM (DSO)` (SYM:
 * the symbol's name or "[unknown]", DSO: the dso's long name or "[unknown]"), caller first,
 * in a new string, separated by ';' (no name holds one), *nr of them: SYM split at "->" (the
 * names after the first get "_[i]"), "[unknown]" in a known dso named after the dso's file
 * ("[libc.so.6]"), then tidied: ';' made ':', everything from the first '(' on left out
 * (but for "(anonymous namespace)" and Go's ".(*T)." method names), quotes taken out; for
 * the comm "java" a leading 'L' of a name with a '/' too. None for a SYM starting with '('.
 */
char *flamegraph_frame_names(const char *sym, const char *dso, bool java, u32 *nr);

#endif
