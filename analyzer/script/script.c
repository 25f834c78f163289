/*
 * script: `analyze script`, perf script 6.1's default per-event output. Reads the session in
 * perf's delivery order and keeps the machine model current; each sample's comm and maps are
 * resolved on the reading thread as it comes, its symbols and text on the aggregator (or
 * here: see struct script), written through lib/outbuf, nothing allocated per event.
 * Tracepoint fields are formatted by trace_fields (libtraceevent), on the reading thread.
 * This file: the run (the records as they come) and the end; the command line is
 * script_options.c's.
 */
#include "analyzer/commands.h"
#include "analyzer/script/script_options.h"
#include "analyzer/script/script_dlfilter.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/output/dump.h"
#include "analyzer/output/header.h"
#include "readers/decode/evsel_name.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/session_warn.h"
#include "lib/error.h"
#include "lib/progress.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"

#define OUTPUT_BUFFER (64 << 10)	/* stays in the core's cache between writes */
#define LINE_SLOT_MAX (8 << 10)	/* the largest line handed to the aggregator */

/* The aggregator's work: a line. */
static void finish_line(void *data, void *item)
{
	struct script *s = data;

	script_print_line(&s->pr, item);
}

/*
 * perf's process_sample_event drops a sample outside the time ranges, then one of a cpu -C
 * leaves out, before it resolves anything (its thread is not even made).
 */
static bool script_keeps_sample(struct event_consumer *consumer, const struct event_ctx *ctx)
{
	struct script *s = container_of(consumer, struct script, consumer);
	u32 cpu = ctx->sample.cpu;

	return !time_filter__skip(&s->time, ctx->sample.time) &&
	       cpu_list__has(&s->cpus, cpu);
}

/* --dlfilter leaves the sample out (early: before any filtering); its error ends the run. */
static bool dlfilter_drops(struct script *s, struct event_ctx *ctx, struct thread *t, bool early)
{
	int ret;

	if (!s->dlfilter)
		return false;
	ret = dlfilter__filter(s->dlfilter, s, ctx, t, early);
	s->dlfilter_failed = ret < 0;
	return ret != 0;
}

/* --dsos, -S: the sample's ip, its map and symbol, as perf's machine__resolve tests them */
static bool symbol_filtered(struct script *s, struct thread *t, const struct perf_sample *sample)
{
	struct addr_location al;

	if (!symbol_filter__active(&s->symbols))
		return false;
	machine__resolve_map(&s->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
			     sample->ip, &al);
	al.dso = al.map ? al.map->dso : NULL;
	if (s->symbols.by_symbol)
		machine__resolve_symbol(&s->machine, &al);
	return symbol_filter__skips(&s->symbols, &al, sample->ip);
}

/* perf's resolve_branch_sym: the function a call goes to or a return leaves, or NULL */
static const char *branch_symbol(struct script *s, struct thread *t, const struct evsel *evsel,
				 const struct perf_sample *sample)
{
	u8 cpumode = sample->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct addr_location al;

	if (sample->flags & (IP_FLAG_CALL | IP_FLAG_TRACE_BEGIN)) {
		if (!addr_correlates_sym(&evsel->attr))
			return NULL;
		machine__resolve_map(&s->machine, t, cpumode, sample->addr, &al);
	} else if (sample->flags & (IP_FLAG_RETURN | IP_FLAG_TRACE_END)) {
		machine__resolve_map(&s->machine, t, cpumode, sample->ip, &al);
	} else {
		return NULL;
	}
	machine__resolve_symbol(&s->machine, &al);
	return al.sym ? symbol__name(al.symtab, al.sym) : NULL;
}

/*
 * --graph-function: perf's show_event. A call into (or return from) one of the functions
 * starts its thread's stretch, the thread's samples deeper than that are shown, and the next
 * at that depth or above ends it, unshown.
 */
static bool graph_shows(struct script *s, struct thread *t, const struct evsel *evsel,
			const struct perf_sample *sample)
{
	uintptr_t in;
	const char *name;

	if (!s->graph_functions.nr)
		return true;
	in = (uintptr_t)hashmap_find(&s->graph_in, (u64)(u32)t->tid);
	if (in) {
		if (sample->call_depth <= in >> 1)
			hashmap_remove(&s->graph_in, (u64)(u32)t->tid);
		return sample->call_depth > in >> 1;
	}
	name = branch_symbol(s, t, evsel, sample);
	if (!name || !name_list__has(&s->graph_functions, name))
		return false;
	hashmap_insert(&s->graph_in, (u64)(u32)t->tid,
		       (void *)(((uintptr_t)sample->call_depth << 1) | 1));
	return true;
}

/* -d: the sample's time against the one before (perf's debug_mode), in --time's ranges */
static void check_order(struct script *s, const struct event_ctx *ctx)
{
	u64 time = ctx->sample.time;

	if (time_filter__skip(&s->time, time))
		return;
	if (time < s->last_time) {
		fprintf(stderr, "Samples misordered, previous: %" PRIu64 " this: %" PRIu64 "\n",
			s->last_time, time);
		s->nr_misordered++;
	}
	s->last_time = time;
}

static int process_sample(struct script *s, struct event_ctx *ctx)
{
	const struct perf_sample *sample = &ctx->sample;
	struct evsel *evsel = ctx->evsel;
	bool callchain;
	const u64 *chain = NULL;
	u64 user_at = SAMPLE_FRAMES_NO_USER_AT;
	u32 nr_frames = 0;
	union {	/* a line made here, when it is printed here: a chain and an unwound one */
		struct line_item item;
		u8 bytes[sizeof(struct line_item) + 2 * SAMPLE_MAX_STACK * sizeof(struct sample_frame)];
	} local;
	struct line_item *item;
	bool here;	/* the line is made on this thread */
	struct thread *t;
	u32 fields = s->f.fields[script_output_type(evsel->attr.type)];
	u32 nr_branches = 0;
	size_t size;

	if (!s->checked && script_check_fields(s)) {
		s->check_failed = true;
		return 1;
	}
	/*
	 * an AUX-trace decoder's event with call chains (--itrace=g, its evsels follow the
	 * file's): perf's process_attr for it turns call chains on from then on, -G or not
	 */
	if ((evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    evsel->idx >= (int)s->session.nr_evsels)
		s->use_callchain = true;
	if (dlfilter_drops(s, ctx, NULL, true))
		return s->dlfilter_failed;
	if (s->debug_mode) {
		check_order(s, ctx);
		return 0;
	}
	callchain = s->use_callchain && (evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    sample->callchain;
	if (!script_keeps_sample(&s->consumer, ctx))
		return 0;
	t = machine__findnew_thread(&s->machine, (s32)sample->pid, (s32)sample->tid);
	if (script_thread_filtered(s, t) || symbol_filtered(s, t, sample) ||
	    !graph_shows(s, t, evsel, sample) || evswitch__discard(&s->evswitch, evsel) ||
	    dlfilter_drops(s, ctx, t, false)) {
		thread__put(t);
		return s->dlfilter_failed;
	}
	/* perf resolves the frames only to print them (with the ip) */
	callchain &= !!(s->f.fields[script_output_type(evsel->attr.type)] & SF_IP);
	if (callchain) {
		chain = sample_frames__chain(&s->unwinder, &s->session, &s->machine, t, sample,
					     s->max_stack, &nr_frames, &user_at);
		callchain = chain != NULL;
	}
	if ((fields & (SF_BRSTACK | SF_BRSTACKSYM | SF_BRSTACKOFF)) && sample->branch_stack)
		nr_branches = (u32)sample->branch_stack[0];
	size = sizeof(*item) + nr_frames * sizeof(struct sample_frame) +
	       nr_branches * sizeof(struct line_branch);
	/*
	 * a tracepoint's fields are read from the record, which is not kept; a line with a long
	 * branch stack (up to 2730 entries) would not fit the aggregator's batches
	 */
	here = !s->pipelined || evsel->attr.type == PERF_TYPE_TRACEPOINT || size > LINE_SLOT_MAX;
	if (!here) {
		item = aggregate__slot(&s->agg, size);
	} else if (size <= sizeof(local)) {
		item = &local.item;
	} else {	/* a long branch stack: room kept from sample to sample */
		if (size > s->big_line_size) {
			s->big_line = xrealloc(s->big_line, size);
			s->big_line_size = size;
		}
		item = s->big_line;
	}
	item->evsel = evsel;
	item->comm = thread__comm_str(t);
	item->ip = sample->ip;
	item->time = sample->time;
	item->period = sample->period;
	item->pid = sample->pid;
	item->tid = sample->tid;
	item->cpu = sample->cpu;
	item->flags = sample->flags;
	item->call_depth = sample->call_depth;
	item->synth[0] = '\0';
	if (sample->synth)
		snprintf(item->synth, sizeof(item->synth), "%s", sample->synth);
	item->insn_len = sample->insn && sample->insn_len <= sizeof(item->insn) ? sample->insn_len : 0;
	if (item->insn_len)
		memcpy(item->insn, sample->insn, item->insn_len);
	item->callchain = callchain;
	item->nr_frames = nr_frames;
	item->first_unwound = nr_frames;
	if (callchain && user_at != SAMPLE_FRAMES_NO_USER_AT)	/* the kernel's frames come first */
		item->first_unwound = nr_frames - sample_frames__count_unwound_user(chain, user_at);
	item->dso = NULL;
	item->addr = sample->ip;
	item->raw_data = sample->raw_data;
	item->raw_size = sample->raw_size;
	item->sample_addr = sample->addr;
	item->addr_dso = NULL;
	item->addr_in_dso = sample->addr;
	script_item_memory(item, &evsel->attr, sample);
	if (evsel->idx >= (int)s->session.nr_evsels)
		item->misc = 0;	/* perf's AUX decoders leave their samples' misc unset */
	if (((s->f.fields[script_output_type(evsel->attr.type)] & (SF_ADDR | SF_CALLINDENT)) ||
	     (is_bts_event(&evsel->attr) && bts_shows_addr(s, &evsel->attr))) &&
	    addr_correlates_sym(&evsel->attr)) {	/* perf's thread__resolve */
		struct addr_location al;

		machine__resolve_map(&s->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				     sample->addr, &al);
		item->addr_dso = al.map ? al.map->dso : NULL;
		item->addr_in_dso = al.addr;
	}
	if (callchain) {
		sample_frames__resolve(&s->machine, t, chain, user_at, item->frames, nr_frames);
	} else if (s->f.fields[script_output_type(evsel->attr.type)] & (SF_IP | SF_CALLINDENT)) {
		struct addr_location al;

		machine__resolve_map(&s->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				     sample->ip, &al);
		item->dso = al.map ? al.map->dso : NULL;
		item->addr = al.addr;
	}
	item->nr_branches = nr_branches;
	if (nr_branches)
		script_resolve_branches(s, t, sample, item);
	thread__put(t);
	if (s->skip_samples) {	/* a parallel run printed it */
		s->skip_samples--;
		return 0;
	}
	if (!here) {
		aggregate__commit(&s->agg);
		return __atomic_load_n(&s->stop, __ATOMIC_RELAXED) ? 1 : 0;
	}
	script_sync(s);
	script_print_line(&s->pr, item);
	if (s->tty)
		outbuf_flush(&s->pr.out);
	return s->pr.out.error ? 1 : 0;	/* the output went away: stop */
}

/* the records whose task is the sample's (sample_id_all), not one of their own */
#define SAMPLE_TASK (SHOW_SWITCH | BIT_OF(PERF_RECORD_LOST) | BIT_OF(PERF_RECORD_CGROUP))

static int process_sideband(struct script *s, struct event_ctx *ctx)
{
	const struct perf_event_header *ev = ctx->event;
	const struct perf_record_fork *f = (const void *)ev;
	/* pid, tid as in comm's: mmap's, namespaces' */
	const struct perf_record_comm *c = (const void *)ev;
	bool show = ev->type < 64 && (s->show_events & BIT_OF(ev->type));

	if (show && !s->checked && script_check_fields(s)) {
		s->check_failed = true;
		return 1;
	}
	/* perf prints an exit before the model forgets anything */
	if (show && ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(*f))
		script_print_sideband(s, ctx, (s32)f->pid, (s32)f->tid, f->time);
	if (machine__process_event(&s->machine, ev, ctx->sample.time)) {
		error_set("%s: offset %#llx: %s", s->session.path,
			  (unsigned long long)ctx->file_offset, error_get());
		return -1;
	}
	if (!show || ev->type == PERF_RECORD_EXIT)
		return 0;
	if (ev->type == PERF_RECORD_FORK)
		script_print_sideband(s, ctx, (s32)f->pid, (s32)f->tid, f->time);
	else if (SAMPLE_TASK & BIT_OF(ev->type))
		script_print_sideband(s, ctx, (s32)ctx->sample.pid, (s32)ctx->sample.tid, 0);
	else
		script_print_sideband(s, ctx, (s32)c->pid, (s32)c->tid, 0);
	return 0;
}

static int itrace_sample(struct itrace_consumer *consumer, struct event_ctx *ctx)
{
	struct script *s = container_of(consumer, struct script, itrace_consumer);

	return process_sample(s, ctx);
}

static void itrace_error(struct itrace_consumer *consumer, const struct itrace_error *e)
{
	script_print_auxtrace_error(container_of(consumer, struct script, itrace_consumer), 1, e,
				    e->time, true);
}

/*
 * AUXTRACE_INFO: the decoder starts, and with it the exited-thread exception (the kernel
 * reports an EXIT while trace of the task is still to come: its thread stays in the model).
 * Its event ("branches") is checked and named as the recorded ones were.
 */
static int start_itrace(struct script *s, struct event_ctx *ctx)
{
	struct evsel *evsel;
	int t;

	s->machine.keep_exited = true;
	if (s->itrace_opts.dont_decode || s->itrace || s->session.is_pipe || s->session.is_dir ||
	    s->dump)	/* perf -D dumps the trace instead of decoding it */
		return 0;
	s->itrace_consumer.sample = itrace_sample;
	s->itrace_consumer.error = itrace_error;
	s->itrace = itrace__new(&s->session, &s->machine, &s->itrace_opts, &s->itrace_consumer,
				ctx->event, ctx->file_offset);
	if (!s->itrace)
		return -1;
	for (size_t n = 0; (evsel = itrace__evsel(s->itrace, n)); n++) {
		t = script_output_type(evsel->attr.type);
		if (!s->f.user_set[t] || s->f.wildcard_set[t]) {
			bool first = true;

			for (size_t i = 0; i < s->session.nr_evsels; i++)
				first &= script_output_type(s->session.evsels[i].attr.type) != t;
			for (size_t i = 0; i < n; i++)
				first &= script_output_type(itrace__evsel(s->itrace, i)->attr.type) != t;
			if (first && script_check_type(s, t, evsel)) {
				/* perf: the AUXTRACE_INFO record fails, -EINVAL */
				s->check_failed = s->itrace_refused = true;
				return 1;
			}
		}
		script_widen_name(s, evsel);
	}
	return 0;
}

/* A record of the file: AUX-trace records, else what comes before any kernel record. */
static int script_itrace(struct script *s, struct event_ctx *ctx)
{
	const struct perf_event_header *ev = ctx->event;

	switch (ev->type) {
	case PERF_RECORD_AUXTRACE_INFO:
		return start_itrace(s, ctx);
	case PERF_RECORD_AUXTRACE:
		return s->itrace ? itrace__add_buffer(s->itrace, ev, ctx->file_offset) : 0;
	case PERF_RECORD_AUXTRACE_ERROR: {
		/* perf event.h: perf_record_auxtrace_error */
		struct {
			struct perf_event_header header;
			u32 type, code, cpu, pid, tid, fmt;
			u64 ip, time;
			char msg[64];
		} r = { 0 };
		struct itrace_error e;

		if (s->itrace_opts.dont_decode)
			return 0;
		memcpy(&r, ev, MIN((size_t)ev->size, sizeof(r)));
		r.msg[sizeof(r.msg) - 1] = '\0';
		e = (struct itrace_error){ r.code, (s32)r.cpu, (s32)r.pid, (s32)r.tid, r.ip,
					   r.fmt ? r.msg : (const char *)&r.time };
		script_print_auxtrace_error(s, r.type, &e, r.time, r.fmt);
		return 0;
	}
	default:
		if (ev->type < PERF_RECORD_USER_TYPE_START && s->itrace)
			return itrace__process_event(s->itrace, ev, ctx->sample.time);
		return 0;
	}
}

static int script_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct script *s = container_of(consumer, struct script, consumer);
	const struct perf_event_header *ev = ctx->event;
	int ret = script_itrace(s, ctx);

	if (ret)
		return ret;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return process_sample(s, ctx);
	case PERF_RECORD_HEADER_FEATURE:
		if (s->print_features) {
			u64 feat;

			memcpy(&feat, ev + 1, sizeof(feat));
			script_sync(s);
			header__fprintf_feature(&s->session, outbuf_stream(&s->pr.out),
						(int)MIN(feat, 255u), s->show_info);
		}
		return 0;
	case PERF_RECORD_HEADER_BUILD_ID:
		/* pipe mode: build-ids come as records */
		machine__add_build_ids(&s->machine, (const u8 *)ev, ev->size, true);
		return 0;
	case PERF_RECORD_FINISHED_ROUND:	/* perf's process_finished_round_event */
		if (s->show_round_events) {
			script_sync(s);
			outbuf_puts(&s->pr.out, "PERF_RECORD_FINISHED_ROUND\n");
		}
		return 0;
	case PERF_RECORD_LOST_SAMPLES:	/* for the warning at the end: perf script prints none */
		events_stats__add_lost(&s->session.stats, ev);
		return 0;
	default:
		if (process_sideband(s, ctx))
			return -1;
		if (s->tty)
			outbuf_flush(&s->pr.out);
		return s->check_failed || s->pr.out.error ? 1 : 0;
	}
}

/* perf_session__cpu_bitmap: -C needs the cpu of every sample. */
static int check_cpus(struct script *s)
{
	for (size_t i = 0; i < s->session.nr_evsels; i++) {
		if (!(s->session.evsels[i].attr.sample_type & PERF_SAMPLE_CPU)) {
			fprintf(stderr, "File does not contain CPU events. Remove -C option to proceed.\n");
			return -1;
		}
	}
	return 0;
}

/* --time: the ranges, percentages of the SAMPLE_TIME feature's span (none in a pipe) */
static int script_parse_time(struct script *s, const char *str)
{
	size_t size;
	const u8 *feat = perf_session__feat(&s->session, HEADER_SAMPLE_TIME, &size);
	u64 bounds[2] = { 0, 0 };
	enum time_filter_error err;

	if (feat && size >= sizeof(bounds))
		memcpy(bounds, feat, sizeof(bounds));
	/* --reltime: times from the first sample's, both ends of every range moved (perf's
	 * perf_time__parse_for_ranges_reltime moves an open end too, and percentages) */
	err = s->reltime && !bounds[0] && !bounds[1]
		      ? TIME_FILTER_NO_SAMPLE_TIME
		      : time_filter__parse(&s->time, str, bounds[0], bounds[1]);
	if (!err && s->reltime)
		time_filter__shift(&s->time, bounds[0]);
	if (err) {
		outbuf_flush(&s->pr.out);	/* the header first */
		fputs(time_filter__strerror(err), stderr);
		return -1;
	}
	return 0;
}

/*
 * Whether an event's callchains come with LBR call stacks, which perf's --stitch-lbr
 * stitches (thread__resolve_callchain); elsewhere it changes nothing.
 */
static bool lbr_call_stacks(const struct script *s)
{
	for (size_t i = 0; i < s->session.nr_evsels; i++) {
		const struct perf_event_attr *attr = &s->session.evsels[i].attr;

		if ((attr->sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
		    (attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK))
			return true;
	}
	return false;
}
/* The file, and the fields checked against its events: 0, or the exit status. */
static int script_open(struct script *s, const struct script_cmd *c)
{
	const char *what;

	if (perf_session__open(&s->session, c->input)) {
		cpu_list__exit(&s->cpus);
		dlfilter__delete(s->dlfilter, s);
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	if (evswitch__init(&s->evswitch, &s->session, c->switch_on, c->switch_off)) {
		cpu_list__exit(&s->cpus);
		dlfilter__delete(s->dlfilter, s);
		perf_session__close(&s->session);
		return 256 - ENOENT;
	}
	what = s->show_round_events && s->session.is_dir ? "--show-round-events on a data directory"
	       : c->stitch_lbr && lbr_call_stacks(s) ? "--stitch-lbr with LBR call stacks" : NULL;
	if (what) {
		fprintf(stderr, "analyze script: %s is not supported yet\n", what);
		cpu_list__exit(&s->cpus);
		dlfilter__delete(s->dlfilter, s);
		perf_session__close(&s->session);
		return 255;
	}
	/*
	 * a pipe names its events as it goes: they are checked at its first sample; perf stops
	 * after --header-only's header, before it checks anything
	 */
	if (c->header_only)
		return 0;
	if ((!s->session.is_pipe && script_check_fields(s)) || (s->cpus.cpus && check_cpus(s))) {
		if (s->trace_failed)
			fprintf(stderr, "analyze: %s\n", error_get());
		cpu_list__exit(&s->cpus);
		dlfilter__delete(s->dlfilter, s);
		perf_session__close(&s->session);
		return s->trace_failed ? 1 : 255;
	}
	return 0;
}

/* The model, the workers, the filters and the output, then the header when asked for. */
static void script_setup(struct script *s, struct script_cmd *c, const struct analyze_config *cfg)
{
	c->symfs_cache = options__symsrc(&c->symsrc, cfg->buildid_dir, c->symfs, c->kallsyms,
						cfg->symcache);
	/* -j N: N threads in all, this one included */
	c->wq = c->nr_jobs > 1 ? workqueue__new(c->nr_jobs - 1) : NULL;
	s->session.wq = c->wq;
	sample_frames__init_machine(&s->machine, &s->session, &c->symsrc, &c->loader, c->wq);
	s->inlines = c->show_inline ? inlines__new(&s->machine.symsrc) : NULL;
	s->lines = s->inlines;
	for (int t = 0; t < SCRIPT_TYPES && !s->lines; t++)
		if (s->f.fields[t] & SF_SRCLINE)
			s->lines = inlines__new(&s->machine.symsrc);
	if (s->lines)
		inlines__set_full_path(s->lines, c->full_source_path);
	name_list__parse(&s->comms, c->comms);
	name_list__parse(&s->pids, c->pids);
	name_list__parse(&s->tids, c->tids);
	name_list__parse(&s->stop_bt, c->stop_bt);
	name_list__parse(&s->graph_functions, c->graph_function);
	hashmap_init(&s->graph_in);
	symbol_filter__init(&s->symbols, c->dsos, c->symbols, (u64)MAX(c->addr_range, 0));

	/* a closed pipe is the reader saying it has seen enough: EPIPE, not a signal */
	signal(SIGPIPE, SIG_IGN);
	outbuf_init(&s->pr.out, STDOUT_FILENO, OUTPUT_BUFFER);
	s->tty = isatty(STDOUT_FILENO);
	/* a terminal sees each line as it is made; -D's dump lines are made on this thread */
	/* -S, --graph-function: symbols looked up here (the caches are one thread's) */
	s->pipelined = c->wq && !s->tty && !c->dump_raw && !s->tf && !s->dlfilter &&
		       !s->symbols.by_symbol && !c->graph_function;
	aggregate__init(&s->agg, s->pipelined ? c->wq : NULL, finish_line, NULL, s);
	/*
	 * perf report --header-only's block first (every feature with -I); a pipe's features
	 * come with their records, -I shows them even without --header
	 */
	if (c->header || c->header_only)
		header__fprintf(&s->session, outbuf_stream(&s->pr.out), c->show_info);
	s->print_features = (c->header || c->show_info) && s->session.is_pipe;
}

/* The model as it was before a parallel run given up built it, and the counts. */
static void script_reset_model(struct script *s, struct script_cmd *c)
{
	if (c->wq)
		workqueue__flush(c->wq);	/* symbol tables still loading refer to dsos */
	machine__exit(&s->machine);
	dso_loader__exit(&c->loader);
	sample_frames__init_machine(&s->machine, &s->session, &c->symsrc, &c->loader, c->wq);
	memset(&s->session.stats, 0, sizeof(s->session.stats));
	for (size_t i = 0; i < s->session.nr_data_warnings; i++)
		free(s->session.data_warnings[i]);
	s->session.nr_data_warnings = 0;
}

/* The records, in perf's order (through -D's dump when asked), until every line is out. */
static int script_run(struct script *s, struct script_cmd *c)
{
	int ret = 0;

	/* perf parses --time once the header is out; its error ends the run with -EINVAL */
	c->bad_time = c->time_str && script_parse_time(s, c->time_str);

	/* -D: report -D's dump of every record, a sample's script line under its own */
	if (c->dump_raw && !c->bad_time) {
		dump__init(&c->dump, &s->session, &s->machine, &s->consumer,
			   outbuf_stream(&s->pr.out));
		c->dump.maps_handled = true;
		c->dump.lost_handled = !!(s->show_events & BIT_OF(PERF_RECORD_LOST));
		c->dump.keeps_sample = script_keeps_sample;
	}
	/* the output streams as records are read: no line when it goes to the same terminal */
	progress_init("analyze script", !c->progress, true);
	progress_phase("reading", perf_session__data_bytes(&s->session));
	if (!c->bad_time)
		ret = script__run_parallel(s, c->wq);
	if (ret == 2)
		script_reset_model(s, c);
	if (!c->bad_time && ret)
		ret = perf_session__process(&s->session,
					    c->dump_raw ? &c->dump.consumer : &s->consumer);
	if (!c->bad_time && !ret && s->itrace)	/* what the trace holds after the last one */
		ret = itrace__flush(s->itrace);
	aggregate__exit(&s->agg);	/* every line out */
	script_event_dumps__close(s);
	outbuf_exit(&s->pr.out);
	progress_done();
	session_warn_data_files(&s->session, stderr);
	return ret;
}

/* The exit status of the run that returned ret, with perf's words and warnings. */
static int script_end(struct script *s, const struct script_cmd *c, int ret)
{
	if (c->bad_time) {
		ret = 256 - EINVAL;
	} else if (s->pr.out.error && s->pr.out.error != EPIPE) {
		fprintf(stderr, "analyze script: writing the output: %s\n", strerror(s->pr.out.error));
		ret = 1;
	} else if (s->pr.out.error) {
		ret = 0;	/* the reader went away: perf ends quietly too */
	} else if (s->trace_failed) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else if (s->check_failed) {
		ret = s->itrace_refused ? 256 - EINVAL : 255;
	} else if (s->dlfilter_failed) {
		ret = 255;	/* perf says nothing more */
	} else if (ret) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else {
		session_warn_about_errors(&s->session.stats,
					  !!(s->show_events & BIT_OF(PERF_RECORD_LOST)), stderr);
		if (s->nr_itrace_errors)	/* events_stats__auxtrace_error_warn */
			fprintf(stderr, "Warning:\n%u instruction trace errors\n",
				s->nr_itrace_errors);
		if (s->debug_mode)
			fprintf(stderr, "Misordered timestamps: %" PRIu64 "\n", s->nr_misordered);
	}
	return ret;
}

static void script_exit(struct script *s, struct script_cmd *c)
{
	dlfilter__delete(s->dlfilter, s);	/* its stop() after the last line */
	if (c->dump_raw && !c->bad_time)
		dump__exit(&c->dump);
	time_filter__exit(&s->time);
	name_list__free(&s->comms);
	name_list__free(&s->pids);
	name_list__free(&s->tids);
	symbol_filter__exit(&s->symbols);
	name_list__free(&s->stop_bt);
	name_list__free(&s->graph_functions);
	hashmap_exit(&s->graph_in);
	cpu_list__exit(&s->cpus);
	free(s->big_line);
	if (c->wq)
		workqueue__destroy(c->wq);	/* symbol tables still loading refer to dsos */
	trace_fields__delete(s->tf);
	itrace__delete(s->itrace);
	unwinder__delete(s->unwinder);
	if (s->lines != s->inlines)
		inlines__delete(s->lines);
	inlines__delete(s->inlines);
	machine__exit(&s->machine);
	dso_loader__exit(&c->loader);
	/* after the workers: a table loading looks its file up under it */
	free(c->symfs_cache);
	perf_session__close(&s->session);
}

int cmd_script(int argc, const char **argv, const struct analyze_config *cfg)
{
	struct script s = { .consumer.deliver = script_deliver };
	struct script_cmd c = { .show_inline = true, .progress = true };
	int ret;

	s.pr.s = &s;
	ret = script_parse_options(&s, &c, argc, argv);
	if (!ret && c.list_dlfilters)
		dlfilter__list();
	else if (!ret)
		ret = script_apply_options(&s, &c);
	free(c.dlargv);	/* the filter has its copies */
	if (!ret && !c.list_dlfilters)
		ret = script_open(&s, &c);
	if (ret || c.list_dlfilters)
		return ret;
	script_setup(&s, &c, cfg);
	/* perf stops at start()'s error, its status the error's */
	ret = s.dlfilter && !c.header_only ? dlfilter__start(s.dlfilter, &s) & 0xff : 0;
	if (!ret && c.per_event_dump && !c.header_only && script_event_dumps__open(&s, c.input))
		ret = 255;
	if (!ret && !c.header_only) {
		ret = script_end(&s, &c, script_run(&s, &c));
	} else {
		aggregate__exit(&s.agg);
		script_event_dumps__close(&s);
		outbuf_exit(&s.pr.out);
	}
	script_exit(&s, &c);
	return ret;
}
