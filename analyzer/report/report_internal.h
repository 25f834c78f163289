/*
 * report_internal: what the report's front end (report.c: options, run, output) and its
 * event processing (report_events.c: records into the model, samples into histograms) share.
 * Private to analyzer/report/.
 */
#ifndef ANALYZER_REPORT_INTERNAL_H
#define ANALYZER_REPORT_INTERNAL_H

#include <regex.h>

#include "analyzer/hist/aggregate.h"
#include "analyzer/hist/callchain.h"
#include "analyzer/hist/hist.h"
#include "analyzer/itrace/itrace.h"
#include "analyzer/cli/cpu_list.h"
#include "analyzer/cli/name_list.h"
#include "analyzer/cli/evswitch.h"
#include "analyzer/cli/time_filter.h"
#include "analyzer/output/dump.h"
#include "lib/containers/hashmap.h"
#include "machine/machine.h"
#include "readers/session.h"

/* perf's branch_type_stat: the branch types of branch mode's entries */
struct branch_stats {
	u64 counts[16], new_counts[16];	/* by type; by new_type (type PERF_BR_EXTEND_ABI) */
	u64 cond_fwd, cond_bwd, cross_4k, cross_2m;
};

struct report {
	struct event_consumer consumer;
	struct perf_session session;
	struct machine machine;
	struct aggregate agg;
	u64 nr_held;	/* samples delivered while the aggregator holds (a check every 1024) */
	struct sort_list sort;
	struct field_list fields;	/* -F's (popts.fields points here when given) */
	struct hists *hists;	/* one per evsel */
	size_t nr_hists;
	int *sockets;	/* from CPU_TOPOLOGY, read at the first sample (pipes bring it late) */
	int nr_cpus;
	bool sockets_read;
	struct name_list comms, dsos, symbols;
	struct name_list pids, tids;
	/* --time and -C: samples outside them are dropped, as perf's process_sample_event */
	struct time_filter time;
	const char *time_str;
	struct cpu_list cpus;
	struct evswitch evswitch;	/* --switch-on, --switch-off: between the two, as perf */
	int socket_filter;	/* --socket-filter's socket, or -1 */
	bool stats_mode;
	bool stats_tool;	/* --stats itself, not -D: perf's stats_setup tool */
	bool print_features;	/* pipe mode with --header: features as their records arrive */
	bool header_only;	/* pipe mode with --header-only: nothing but those */
	bool show_info;
	bool need_parent;
	bool exclude_other;	/* -x: samples without a parent are filtered */
	bool hide_unresolved;	/* -U: samples without a symbol are dropped */
	bool skip_empty;	/* no events without samples, no record types not seen */
	regex_t parent_regex;	/* -p's pattern, or perf's default */
	double percent_limit;
	struct callchains *chains;	/* NULL: callchains are not looked at */
	struct callchain_param cc_param;
	u32 max_stack;
	/*
	 * Versions of what resolving a callchain reads, so that a chain seen before in the same
	 * state is not resolved again: each process's maps (by the maps' address: a version
	 * taken from maps_version at each change) and the kernel's.
	 */
	struct hashmap maps_versions;
	u64 maps_version, kernel_version;
	/*
	 * The comms of threads whose names were set (final: a name set is not changed but by
	 * a new comm), by their interned strings, each in a cache line of its own: entries
	 * keep these rather than the thread's own, which shares a line with the reference
	 * count the reading thread keeps changing while the aggregator compares the names.
	 */
	struct hashmap final_comms;
	const char *last_final_str;
	const struct comm *last_final;
	struct unwinder *unwinder;	/* user frames of dwarf samples, when callchains are used */
	struct inlines *inlines;	/* and the functions inlined there */
	struct hist_extras *extras;	/* the entries' extras, when a key reads them */
	bool sample_values;	/* and the samples' values go into them */
	/* AUX-area traces: decoded samples go to one more histogram, after the events' */
	struct itrace_opts itrace_opts;
	struct itrace *itrace;
	struct itrace_consumer itrace_consumer;
	size_t aux_hists;	/* a file (not a pipe or directory): hists[nr_evsels + i] are the
				   decoder's, one per synthesized event */
	bool no_decode;	/* --stats, -D: perf counts the records, decodes nothing */
	/* the run's pieces the front end sets up and takes down */
	struct symsrc_config symsrc;
	char *symfs_cache;
	struct workqueue *wq;
	struct dso_loader loader;
	struct dump dump;
	struct hists_callchain hcc;
	struct hists_print_opts popts;
	int nr_jobs;
	bool has_callchain, use_callchain;
	struct branch_stats branch_stats;	/* branch mode (sort.branch) */
};

/* The consumer of the session's records (report.consumer). */
int report_deliver(struct event_consumer *consumer, struct event_ctx *ctx);
void report_prefetch(struct event_consumer *consumer, const struct perf_event_header *ev,
		     const struct evsel *evsel, int stage);
/* The aggregator's callbacks (aggregate.h): a sample finished, put back, looked ahead at. */
void finish_sample(void *data, void *p);
void put_sample(void *data, void *p);
void ahead_sample(void *data, void *p, int stage);
/* Everything that waited for the kernel's symbols gets them (after the last record too). */
void settle_kernel(struct report *rep);
void final_comms__exit(struct report *rep);
/* perf's thread__is_filtered, and the --dsos and --symbols filters of a sample's address */
bool thread_filtered(struct report *rep, const struct thread *t);
bool symbol_filtered(struct report *rep, const struct addr_location *al);
/* The comm object entries keep for a thread named str (see final_comms). */
const struct comm *final_comm(struct report *rep, const char *str);
/*
 * The flat report of a file, its samples resolved on every worker (report_parallel.c): 0
 * done, every sample in the histograms; 1 not such a run (nothing done); 2 given up, when
 * it cannot answer as the streaming path would (the model must be built again).
 */
int report__run_parallel(struct report *rep);

/* The options as given, where they do not go into struct report directly. */
struct report_args {
	const char *input, *sort_str, *comms, *dsos, *symbols, *pids, *tids, *symfs;
	const char *kallsyms, *max_stack, *parent, *jobs, *fields, *cpus, *prefix, *prefix_strip;
	const char *switch_on, *switch_off;
	bool stdio, show_nr, quiet, header, header_only, show_info, stats, children, inverted;
	bool show_inline, dump_raw, progress, threads, full_source_path, tasks, mmaps;
	const char *pretty;
	int branch_stack;	/* -b: 2 and more; --no-branch-stack: 0; neither: 1 */
	bool stitch_lbr, mem_mode;
};

/*
 * report_modes.c: branch mode, taken when the file has branch stacks (or -b), and memory
 * mode (--mem-mode): the sort keys checked against the mode, its default order (-1 to go
 * on, or the status to exit with); a sample's branches, or the sample by its weight, into
 * the histogram (on the reading thread, t its thread); branch mode's statistics.
 */
int report__setup_modes(struct report *rep, const struct report_args *a);
int report_branch_sample(struct report *rep, struct event_ctx *ctx, struct thread *t);
int report_mem_sample(struct report *rep, struct event_ctx *ctx, struct thread *t);
/* --stitch-lbr: not done with LBR call graphs (true, said so); else perf's warning */
bool report__stitch_lbr_unsupported(const struct report *rep, const struct report_args *a);
void branch_stats__count(struct branch_stats *st, const struct hist_branch *b);
void branch_stats__fprintf(const struct branch_stats *st, FILE *fp);

/* report_options.c: the command line into rep and a. -1 to go on, or the status to exit with. */
int report__parse(struct report *rep, struct report_args *a, int argc, const char **argv);

#endif
