/*
 * script_internal: what the pieces of `analyze script` share. script.c owns the run (the
 * records as they come), script_options.c the command line; script_fields.c -F and the
 * fields' checks against the events; script_print.c the lines (and --per-event-dump's files).
 * Not for use outside analyzer/script/.
 */
#ifndef ANALYZER_SCRIPT_INTERNAL_H
#define ANALYZER_SCRIPT_INTERNAL_H

#include "analyzer/script/script.h"

#include "analyzer/cli/cpu_list.h"
#include "analyzer/cli/evswitch.h"
#include "analyzer/cli/name_list.h"
#include "analyzer/cli/symbol_filter.h"
#include "analyzer/cli/time_filter.h"
#include "analyzer/hist/aggregate.h"
#include "analyzer/hist/sample_frames.h"
#include "analyzer/itrace/itrace.h"
#include "analyzer/output/trace_fields.h"
#include "analyzer/passes/passes.h"
#include "lib/containers/hashmap.h"
#include "lib/outbuf.h"
#include "machine/inline.h"
#include "machine/machine.h"
#include "machine/unwind.h"
#include "readers/session.h"


/*
 * What making lines writes: the output and what it keeps from line to line. The run's own,
 * and one per worker of a parallel run (script_parallel.c), each with its own output.
 */
struct script_printer {
	_Alignas(64) struct script *s;	/* the options, read only; a line of its own: workers
					   print side by side */
	struct pass_worker *worker;	/* a parallel run's: symbols through its cache, or NULL */
	struct outbuf out;
	u64 time_sec;	/* the whole seconds of the last time printed, */
	char time_prefix[32];	/* their text: padding, digits and the point */
	size_t time_prefix_len;	/* (0: none yet) */
	/* the text print_start made last before the time (comm, tids, cpu), and what it was
	 * made of: lines come in runs of one thread */
	struct {
		const struct evsel *evsel;
		const char *comm;
		u32 pid, tid, cpu;
		size_t len;	/* 0: none */
		char text[80];
	} start;
	u64 initial_time, previous_time;	/* --reltime's first line's time, --deltatime's
						   last line's (0: none yet) */
	int callindent_spacing;	/* perf's static spacing of callindent */
	int data_src_width;	/* perf's static maxlen of data_src__fprintf */
};

/* --per-event-dump: an event's file, its lines and how many */
struct event_dump {
	struct outbuf out;
	char *path;
	u64 samples;
};

struct script {
	struct event_consumer consumer;
	struct perf_session session;
	struct machine machine;
	struct script_fields f;
	bool checked;	/* the fields were checked against the events' sample_types */
	bool use_callchain;	/* perf's symbol_conf.use_callchain */
	bool no_callchain;	/* -G */
	u32 max_stack;		/* --max-stack: frames shown a sample */
	bool ns;
	bool reltime, deltatime;	/* times since the first line, since the line before */
	u64 show_events;	/* side-band records printed: bits 1 << type (--show-*-events) */
	bool show_round_events;	/* FINISHED_ROUND too, every record in file order (unordered) */
	bool print_features;	/* --header on a pipe: its features as their records come */
	bool show_info;		/* -I: every feature, in full */
	bool check_failed;	/* a pipe's events lack a field -F asked for */
	int name_width;
	struct name_list comms, pids, tids;
	struct name_list stop_bt;	/* --stop-bt: functions callchains end at */
	/* --graph-function: the functions, and each thread (by tid) in one since the call
	   depth (value: depth << 1 | 1; none: not in one) */
	struct name_list graph_functions;
	struct hashmap graph_in;
	struct evswitch evswitch;	/* --switch-on, --switch-off */
	/* -d: samples only checked for their order (perf's debug_mode), nothing printed */
	bool debug_mode;
	u64 last_time, nr_misordered;
	struct symbol_filter symbols;	/* --dsos, -S: the sample's ip resolved on this thread */
	struct cpu_list cpus;	/* -C */
	/*
	 * With workers, samples' lines are made on the aggregator, in order (pipelined); what
	 * this thread prints itself waits for them first (script_sync).
	 */
	bool pipelined;
	struct aggregate agg;
	bool stop;	/* the aggregator saw the output go away (atomic) */
	bool tty;	/* stdout is a terminal: each line goes out as it is made */
	struct time_filter time;	/* --time: samples only (perf filters no side band) */
	struct trace_fields *tf;	/* tracepoints' fields, once the tracing data is read */
	bool trace_failed;	/* the tracing data did not load: error_get() says why */
	struct unwinder *unwinder;	/* --call-graph dwarf samples' user frames, or NULL */
	/* AUX-area traces: the decoder, once AUXTRACE_INFO came (--itrace, itrace.h) */
	struct itrace_opts itrace_opts;
	struct itrace *itrace;
	struct itrace_consumer itrace_consumer;
	int pad_dso;		/* --call-trace: dso names padded to 50 (pad_output_len_dso) */
	u32 nr_itrace_errors;
	bool itrace_refused;
	u64 skip_samples;	/* printed already, by a parallel run given up (script_parallel.c) */
	bool dump;	/* -D */	/* the decoder's event lacks a field -F asked for */
	struct inlines *inlines;	/* frames' inlined functions (used where lines are made) */
	struct inlines *lines;		/* -F srcline: where source lines come from (inlines, or
					   its own with --no-inline) */
	struct dlfilter *dlfilter;	/* --dlfilter (script_dlfilter.h), or NULL */
	bool dlfilter_failed;	/* it returned an error: the run ends, perf's status 255 */
	struct event_dump *event_dumps;	/* --per-event-dump: by evsel index, or NULL */
	void *big_line;		/* a line made here too big for process_sample's own room */
	size_t big_line_size;
	/*
	 * What making a line writes, last and on cache lines of its own: with workers it is the
	 * aggregator's, and the reading thread reads the fields above for every sample (a line
	 * shared with these moves between the cores at every line made).
	 */
	_Alignas(64) struct script_printer pr;
};

/* A branch of a sample's branch stack, both ends resolved to their maps (perf's _fb lookups). */
struct line_branch {
	u64 from, to, flags;	/* flags: perf_branch_entry's bits after from and to */
	struct sample_frame from_at, to_at;	/* dso (NULL: no map) and address in it */
	u64 from_off, to_off;	/* perf's map__map_ip of them (brstackoff) */
};

/*
 * A sample's line as the reading thread resolved it, with the model as it is at the sample
 * (comm, maps); the symbols and the text come later, on the aggregator when there is one.
 * It holds no references: comms are interned, dsos live as long as the machine.
 */
struct line_item {
	struct evsel *evsel;
	const char *comm;
	struct dso *dso;	/* the ip's, or NULL */
	u64 addr;		/* the ip in its map */
	u64 ip, time, period;
	u32 pid, tid, cpu;
	u32 flags;		/* AUX-trace samples' branch kind */
	u8 insn_len;		/* and instruction (Intel PT's) */
	u8 insn[16];
	u32 call_depth;		/* and the calls open then (-F callindent) */
	char synth[48];		/* a synthesized event's data as text (-F synth) */
	u32 nr_frames;		/* of frames[], when callchain */
	u32 first_unwound;	/* frames[] from this one on were unwound (dwarf): perf 6.1
				   looks for inlined functions in those only (unwind_entry) */
	bool callchain;		/* the ip field is the sample's callchain */
	u64 sample_addr;	/* the sample's addr field, */
	struct dso *addr_dso;	/* its dso and address in it (page faults: addr_location) */
	u64 addr_in_dso;
	const void *raw_data;	/* a tracepoint's fields: only while the record is at hand */
	u32 raw_size;		/* (lines with them are made on the reading thread) */
	u16 misc;		/* the record's (-F misc) */
	u16 ins_lat;		/* a WEIGHT_STRUCT's second word */
	u64 weight, data_src, phys_addr, data_page_size, code_page_size;
	u32 nr_branches;	/* line_branch entries after frames[] (line_item_branches) */
	struct sample_frame frames[];
};

static inline struct line_branch *line_item_branches(const struct line_item *item)
{
	return (struct line_branch *)(item->frames + item->nr_frames);
}

/* perf's is_bts_event: branches with a period of 1, as the BTS decoder makes them */
static inline bool is_bts_event(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE &&
	       attr->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && attr->sample_period == 1;
}

/* perf's sample_addr_correlates_sym: addr is a page fault's address, or a branch's target */
static inline bool addr_correlates_sym(const struct perf_event_attr *attr)
{
	if (is_bts_event(attr))
		return true;
	return attr->type == PERF_TYPE_SOFTWARE && (attr->config == PERF_COUNT_SW_PAGE_FAULTS ||
						    attr->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
						    attr->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* perf_sample__fprintf_bts: " => addr" when -F asks for addr, or by default when it has one */
static inline bool bts_shows_addr(const struct script *s, const struct perf_event_attr *attr)
{
	int t = script_output_type(attr->type);

	return (s->f.fields[t] & SF_ADDR) ||
	       ((attr->sample_type & PERF_SAMPLE_ADDR) && !s->f.user_set[t]);
}

/* --comms, --pid, --tid: perf's thread__is_filtered */
static inline bool script_thread_filtered(const struct script *s, const struct thread *t)
{
	return (s->comms.nr && !name_list__has(&s->comms, thread__comm_str(t))) ||
	       (s->pids.nr && !int_list__has(&s->pids, t->pid)) ||
	       (s->tids.nr && !int_list__has(&s->tids, t->tid));
}

/* Before this thread writes: every line handed on is out. */
static inline void script_sync(struct script *s)
{
	if (s->pipelined)
		aggregate__drain(&s->agg);
}


/*
 * script_parallel.c: the samples' lines of a file made on every worker: 0 done (or the
 * output went away); 1 not such a run (nothing done); 2 given up, skip_samples of them
 * written (the model must be built again, the streaming path print the rest).
 */
int script__run_parallel(struct script *s, struct workqueue *wq);

/* script_fields.c: perf_session__check_output_opt, and its evsel__check_attr for the first
 * event of a type; the name column's width */
int script_check_fields(struct script *s);
int script_check_type(struct script *s, int t, struct evsel *evsel);
void script_widen_name(struct script *s, struct evsel *evsel);

/*
 * script_hw_fields.c: branch stacks and memory samples' fields. On the reading thread: the
 * sample's memory fields into item, its branches resolved (item->nr_branches of them, room
 * for them after the frames); where the line is made: the branches (-F brstack, brstacksym,
 * brstackoff), the fields printed before the ip (data_src, weight, ins_lat) and after the
 * instruction (phys_addr, page sizes).
 */
void script_item_memory(struct line_item *item, const struct perf_event_attr *attr,
			const struct perf_sample *sample);
void script_resolve_branches(struct script *s, struct thread *t, const struct perf_sample *sample,
			     struct line_item *item);
void script_print_branches(struct script_printer *pr, const struct line_item *item, u32 fields);
void script_print_mem_early(struct script_printer *pr, const struct line_item *item, u32 fields);
void script_print_mem_late(struct script_printer *pr, const struct line_item *item, u32 fields);

/* script_print.c: a sample's line (and frames), a side-band record's, an AUX-trace error's */
void script_print_line(struct script_printer *pr, const struct line_item *item);
/* al's symbol (al->dso, al->addr set) through the printer's caches */
void script_resolve_symbol(struct script_printer *pr, struct addr_location *al);
/*
 * --per-event-dump: perf's INPUT.EVENT.dump for each event of the file, its samples' lines
 * written there: 0, or -1 when one does not open (said on stderr). Closing says what was
 * written, on stdout.
 */
int script_event_dumps__open(struct script *s, const char *input);
void script_event_dumps__close(struct script *s);
void script_print_sideband(struct script *s, struct event_ctx *ctx, s32 pid, s32 tid, u64 time);
void script_print_auxtrace_error(struct script *s, u32 type, const struct itrace_error *e,
				 u64 time, bool fmt);

#endif
