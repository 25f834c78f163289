/*
 * script_dlfilter: `analyze script --dlfilter FILE [--dlarg ARG]...` and --list-dlfilters, perf
 * 6.1's C filters (perf-dlfilter(1), perf_dlfilter.h here): the shared object is loaded and
 * called for each sample in delivery order, on the reading thread. Not for use outside
 * analyzer/script/.
 */
#ifndef ANALYZER_SCRIPT_DLFILTER_H
#define ANALYZER_SCRIPT_DLFILTER_H

#include "analyzer/script/script_internal.h"

struct dlfilter;

/*
 * Load FILE (a bare name is looked for as perf looks: ./FILE, PERF_EXEC_PATH/dlfilters, the
 * dynamic linker's paths) with its --dlarg values (copied); NULL after perf's message.
 */
struct dlfilter *dlfilter__new(const char *file, int argc, const char *const *argv);
/* The filter's start(): 0, or its negative error (the run does not begin). */
int dlfilter__start(struct dlfilter *d, struct script *s);
/*
 * A sample: filter_event_early's answer (early) or filter_event's, each 0 when the filter has
 * none: 0 keeps it, 1 leaves it out, a negative error ends the run. t: its thread, or NULL
 * to have it found when the filter asks.
 */
int dlfilter__filter(struct dlfilter *d, struct script *s, const struct event_ctx *ctx,
		     struct thread *t, bool early);
/* stop(), then the object is unloaded; NULL is a no-op. */
void dlfilter__delete(struct dlfilter *d, struct script *s);
/* --list-dlfilters: perf's list of the filters in . and PERF_EXEC_PATH/dlfilters. */
void dlfilter__list(void);

#endif
