/*
 * busy: where a run's time went, for the benchmarks. With ANALYZE_BUSY set, the run prints to
 * stderr at exit its wall time, each thread's CPU time and the time of named serial stages;
 * bench/scaling.sh projects the speed-up at more workers from them. Off, every call is a test of
 * one flag. Thread safe: busy__thread_end and busy__stage from any thread.
 */
#ifndef LIB_BUSY_H
#define LIB_BUSY_H

#include <stdbool.h>

#include "lib/compiler.h"

/* A stage that runs on one thread at a time, wherever it runs. */
enum busy_stage {
	BUSY_AGGREGATE,	/* the histograms' aggregator (analyzer/hist/aggregate.c) */
	/* report's parallel run (analyzer/report/report_parallel.c): the samples resolved on
	 * every worker, its wall time and all threads' CPU time in it */
	BUSY_PARALLEL_WALL,
	BUSY_PARALLEL_CPU,
	BUSY_FOLD,	/* and its partial histograms folded into one (serial, per worker) */
	BUSY_NR_STAGES
};

/* From main, before anything else runs: reads ANALYZE_BUSY, prints at exit when set. */
void busy__init(void);
/* The calling thread's CPU time in ns (0 when off). */
u64 busy__thread_ns(void);
/* A thread about to end: its CPU time goes to the report under name. */
void busy__thread_end(const char *name);
/* ns more of stage. */
void busy__stage(enum busy_stage stage, u64 ns);
/* Which way the run went ("busy: path " note, the last one given), for the benchmarks. */
void busy__path(const char *note);

#endif
