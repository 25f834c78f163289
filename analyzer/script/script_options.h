/*
 * script_options: `analyze script`'s command line, perf script 6.1's options: what they set in
 * struct script, and the rest (struct script_cmd) that the run is given. Not for use outside
 * analyzer/script/.
 */
#ifndef ANALYZER_SCRIPT_OPTIONS_H
#define ANALYZER_SCRIPT_OPTIONS_H

#include "analyzer/output/dump.h"
#include "analyzer/script/script_internal.h"
#include "machine/dso.h"
#include "symtab/symtab.h"

/* The side-band records the --show-*-events options print (bits 1 << type). */
#define BIT_OF(type) (1ull << (type))
#define SHOW_TASK (BIT_OF(PERF_RECORD_COMM) | BIT_OF(PERF_RECORD_FORK) | BIT_OF(PERF_RECORD_EXIT))
#define SHOW_MMAP (BIT_OF(PERF_RECORD_MMAP) | BIT_OF(PERF_RECORD_MMAP2))
#define SHOW_SWITCH (BIT_OF(PERF_RECORD_SWITCH) | BIT_OF(PERF_RECORD_SWITCH_CPU_WIDE))

/* The command line's values struct script does not hold, and what the run is given. */
struct script_cmd {
	const char *input, *jobs, *symfs, *kallsyms, *comms, *pids, *tids, *cpus, *time_str,
		*max_stack, *dlfilter, *dsos, *symbols, *stop_bt,
		*graph_function, *switch_on, *switch_off;
	bool ns, reltime, deltatime, header, header_only, show_info, per_event_dump,
	     hide_callgraph, dump_raw, show_inline, progress, list_dlfilters, stitch_lbr,
	     full_source_path;
	bool task_events, mmap_events, switch_events, lost_events, namespace_events,
	     cgroup_events, round_events;	/* --show-*-events */
	const char **dlargv;	/* --dlarg, each in turn */
	int dlargc;
	int addr_range;
	int nr_jobs;
	struct dump dump;
	struct symsrc_config symsrc;
	struct workqueue *wq;
	struct dso_loader loader;
	char *symfs_cache;
	bool bad_time;
};

/* The options, each -F in turn editing perf's defaults: 0, or the exit status. */
int script_parse_options(struct script *s, struct script_cmd *c, int argc, const char **argv);
/* What the options set in struct script: 0, or the exit status (a bad cpu list). */
int script_apply_options(struct script *s, const struct script_cmd *c);

#endif
