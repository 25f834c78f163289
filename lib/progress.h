/*
 * progress: one line on stderr, updated in place, saying what a long run is doing: the phase,
 * the share of its work done and the time left. It appears only when stderr is a terminal and
 * the run has lasted PROGRESS_DELAY_MS; a thread of its own redraws it, so the workers only
 * add to a counter (progress_add: one relaxed atomic add, callers batch it per megabyte).
 *
 * When stdout is the same terminal, stdout is fully buffered from progress_init on and the
 * line is cleared for good by progress_done(), which the command calls before its output:
 * the output is never mixed with the line. Process-wide: one line per process.
 * Thread safe: progress_add from any thread; the rest from the command's thread.
 */
#ifndef LIB_PROGRESS_H
#define LIB_PROGRESS_H

#include <stdbool.h>

#include "lib/compiler.h"

#define PROGRESS_DELAY_MS 500

extern u64 progress_counter;	/* the current phase's work done; see progress_add */

/*
 * Whether a line may be shown: stderr is a terminal and !disabled. streams_output: the
 * command writes its output while it works (script); when stdout is the terminal too, no
 * line is shown at all. who prefixes the line ("analyze report").
 * ANALYZE_PROGRESS_DELAY_MS overrides the delay (the tests draw at once).
 */
void progress_init(const char *who, bool disabled, bool streams_output);
/* A new phase: its name and the work it will do, 0 when unknown (only the time is shown). */
void progress_phase(const char *phase, u64 total);

static inline void progress_add(u64 n)
{
	__atomic_fetch_add(&progress_counter, n, __ATOMIC_RELAXED);
}

/* Clears the line for good: the output starts. Safe to call more than once. */
void progress_done(void);
/*
 * The command starts writing its output: the line goes on as "writing" while stdout is a
 * regular file, else (a terminal, or a pipe to a pager that draws on one) it is cleared.
 */
void progress_output_starts(void);

#endif
