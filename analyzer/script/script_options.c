/*
 * script_options: perf script 6.1's options as `analyze script` takes them (the parser is
 * analyzer/cli's), and what they set. See script_options.h.
 */
#include "analyzer/script/script_options.h"
#include "analyzer/script/script_dlfilter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli/options.h"
#include "lib/xalloc.h"

static const char *const script_usage = "analyze script [<options>]";

/* -F, as perf's parse_output_fields: applied as it comes, its error said before the usage */
static int parse_fields(const char *arg, void *data)
{
	char bad[96];
	enum script_fields_error err = script_fields__parse(data, arg, bad, sizeof(bad));

	if (err == SF_ERR_UNSUPPORTED)
		fprintf(stderr, "analyze script: field '%s' is not supported yet\n", bad);
	else if (err == SF_ERR_NOT_VALID)
		fprintf(stderr, "%s\n", bad);
	else if (err)
		fprintf(stderr, "%s\n", script_fields__strerror(err));
	return err ? -1 : 0;
}

/* perf 6.1's trace options: -F edits, --itrace letters and --ns, each as perf sets them */
static int trace_option(struct script *s, const char *fields, const char *itrace, int pad_dso)
{
	if (parse_fields(fields, &s->f))
		return -1;
	itrace_opts__parse(&s->itrace_opts, itrace);
	s->ns = true;
	if (pad_dso)	/* (perf never sets it back) */
		s->pad_dso = pad_dso;
	return 0;
}

/* --insn-trace: every instruction, with the trace's errors as perf 6.1 prints them ("e") */
static int parse_insn_trace(const char *arg, void *data)
{
	return trace_option(data, "+insn,-event,-period", "i0nse", 0);
}

/* --call-trace: calls with their depth, dso names padded to 50 (pad_output_len_dso) */
static int parse_call_trace(const char *arg, void *data)
{
	return trace_option(data, "-ip,-addr,-event,-period,+callindent", "cewp", 50);
}

/* --call-ret-trace: calls and returns, with their kinds */
static int parse_call_ret_trace(const char *arg, void *data)
{
	return trace_option(data, "-ip,-addr,-event,-period,+callindent,+flags", "crewp", 0);
}


/* --addr-range: perf's OPT_INTEGER (strtol in base 10, to the end: "" is 0) */
static int parse_addr_range(const char *arg, void *data)
{
	char *end;
	long v;

	if (!arg) {	/* --no-addr-range */
		*(int *)data = 0;
		return 0;
	}
	v = strtol(arg, &end, 10);
	if (*end) {
		fputs("  Error: option `addr-range' expects a numerical value\n", stderr);
		return -1;
	}
	*(int *)data = (int)v;
	return 0;
}

static int parse_dlarg(const char *arg, void *data)
{
	struct script_cmd *c = data;

	c->dlargv = xrealloc(c->dlargv, (c->dlargc + 1) * sizeof(*c->dlargv));
	c->dlargv[c->dlargc++] = arg;
	return 0;
}

/* The options, each -F in turn editing perf's defaults: 0, or the exit status. */
int script_parse_options(struct script *s, struct script_cmd *c, int argc,
				const char **argv)
{
	struct option_callback fields_cb = { parse_fields, &s->f };
	struct option_callback itrace_cb = { itrace_opts__option, &s->itrace_opts };
	/* perf 6.1's --no-insn-trace, --no-call-trace, --no-call-ret-trace: as without "no-" */
	struct option_callback insn_trace_cb = { parse_insn_trace, s, parse_insn_trace };
	struct option_callback call_trace_cb = { parse_call_trace, s, parse_call_trace };
	struct option_callback call_ret_trace_cb = { parse_call_ret_trace, s, parse_call_ret_trace };
	struct option_callback dlarg_cb = { parse_dlarg, c };
	struct option_callback addr_range_cb = { parse_addr_range, &c->addr_range, parse_addr_range };
	struct option_callback symfs_cb = { options__string, &c->symfs };
	struct option_callback max_stack_cb = { options__string, &c->max_stack, options__max_stack_unset };
	struct option opts[] = {
		{ 'i', "input", OPT_STRING, &c->input, "file", "input file name" },
		{ 'F', "fields", OPT_CALLBACK, &fields_cb, "str", "comma separated output fields prepend with 'type:'. +field to add and -field to remove. Valid types: hw,sw,trace,raw,break. Fields: comm,tid,pid,time,cpu,event,trace,ip,sym,dso,symoff,period,addr,flags,callindent,insn,insnlen,synth,srcline,misc,brstack,brstacksym,brstackoff,weight,ins_lat,data_src,phys_addr,data_page_size,code_page_size,bpf-output" },
		{ 'c', "comms", OPT_STRING, &c->comms, "comm[,comm...]", "only display events for these comms" },
		{ 0, "pid", OPT_STRING, &c->pids, "pid[,pid...]", "only consider symbols in these pids" },
		{ 0, "tid", OPT_STRING, &c->tids, "tid[,tid...]", "only consider symbols in these tids" },
		{ 'C', "cpu", OPT_STRING, &c->cpus, "cpu", "list of cpus to profile" },
		{ 0, "dsos", OPT_STRING, &c->dsos, "dso[,dso...]", "only consider symbols in these DSOs" },
		{ 0, "addr-range", OPT_CALLBACK, &addr_range_cb, "n", "Use with -S to list traced records within address range" },
		{ 0, "ns", OPT_BOOL, &c->ns, NULL, "Use 9 decimal places when displaying time" },
		{ 'd', "debug-mode", OPT_BOOL, &s->debug_mode, NULL, "do various checks like samples ordering and lost events" },
		{ 'f', "force", OPT_NOOP, NULL, NULL, "don't complain, do it (analyze reads files of any owner)" },
		{ 'a', "all-cpus", OPT_NOOP, NULL, NULL, "system-wide collection from all CPUs (perf script record's, with a script: no effect on the text)" },
		{ 0, "reltime", OPT_BOOL, &c->reltime, NULL, "Show time stamps relative to start" },
		{ 0, "deltatime", OPT_BOOL, &c->deltatime, NULL, "Show time stamps relative to previous event" },
		{ 0, "show-task-events", OPT_BOOL, &c->task_events, NULL, "Show the fork/comm/exit events" },
		{ 0, "show-mmap-events", OPT_BOOL, &c->mmap_events, NULL, "Show the mmap events" },
		{ 0, "header", OPT_BOOL, &c->header, NULL, "Show data header." },
		{ 0, "header-only", OPT_BOOL, &c->header_only, NULL, "Show only data header." },
		{ 0, "per-event-dump", OPT_BOOL, &c->per_event_dump, NULL, "Dump trace output to files named by the monitored events" },
		{ 'I', "show-info", OPT_BOOL, &c->show_info, NULL, "display extended information from perf.data file" },
		{ 'D', "dump-raw-trace", OPT_BOOL, &c->dump_raw, NULL, "dump raw trace in ASCII" },
		{ 0, "show-switch-events", OPT_BOOL, &c->switch_events, NULL, "Show context switch events (if recorded)" },
		{ 0, "show-lost-events", OPT_BOOL, &c->lost_events, NULL, "Show lost events (if recorded)" },
		{ 0, "show-namespace-events", OPT_BOOL, &c->namespace_events, NULL, "Show namespace events (if recorded)" },
		{ 0, "show-round-events", OPT_BOOL, &c->round_events, NULL, "Show round events (if recorded)" },
		{ 0, "stitch-lbr", OPT_BOOL, &c->stitch_lbr, NULL, "Enable LBR callgraph stitching approach (with LBR call stacks: not supported yet)" },
		{ 0, "show-cgroup-events", OPT_BOOL, &c->cgroup_events, NULL, "Show cgroup events (if recorded)" },
		{ 0, "time", OPT_STRING, &c->time_str, "str", "Time span of interest (start,stop)" },
		{ 'G', "hide-call-graph", OPT_BOOL, &c->hide_callgraph, NULL, "When printing symbols do not display call chain" },
		{ 0, "stop-bt", OPT_STRING, &c->stop_bt, "symbol[,symbol...]", "Stop display of callgraph at these symbols" },
		{ 0, "max-stack", OPT_CALLBACK, &max_stack_cb, "n", "Set the maximum stack depth when parsing the callchain, anything beyond the specified depth will be ignored. Default: kernel.perf_event_max_stack or 127" },
		{ 0, "symfs", OPT_CALLBACK, &symfs_cb, "directory", "Look for files with symbols relative to this directory" },
		{ 'S', "symbols", OPT_STRING, &c->symbols, "symbol[,symbol...]", "only consider these symbols" },
		{ 0, "kallsyms", OPT_STRING, &c->kallsyms, "file", "kallsyms pathname" },
		OPT_REFUSE('k', "vmlinux", REFUSED_NOT_YET),
		{ 'j', "jobs", OPT_STRING, &c->jobs, "n", "threads in all for reading and loading symbols (default: online CPUs)" },
		{ 0, "inline", OPT_BOOL, &c->show_inline, NULL, "Show inline function" },
		{ 0, "full-source-path", OPT_BOOL, &c->full_source_path, NULL, "Show full source file name path for source lines" },
		{ 0, "itrace", OPT_CALLBACK, &itrace_cb, "opts", "Instruction Tracing options: i[period] synthesize instructions events, b branches, c calls (only), r returns (only), x transactions, e errors, s<N> skip initial events; default ce (Intel BTS decoded)", false, true },
		{ 0, "no-itrace", OPT_BOOL, &s->itrace_opts.dont_decode, NULL, "do not decode AUX-area traces", false, false },
		{ 0, "insn-trace", OPT_CALLBACK, &insn_trace_cb, NULL, "Decode instructions from itrace", false, true },
		{ 0, "call-trace", OPT_CALLBACK, &call_trace_cb, NULL, "Show call trace from itrace", false, true },
		{ 0, "call-ret-trace", OPT_CALLBACK, &call_ret_trace_cb, NULL, "Show call and return trace from itrace", false, true },
		{ 0, "switch-on", OPT_STRING, &c->switch_on, "event", "Consider events after the ocurrence of this event" },
		{ 0, "switch-off", OPT_STRING, &c->switch_off, "event", "Stop considering events after the ocurrence of this event" },
		{ 0, "show-on-off-events", OPT_BOOL, &s->evswitch.show_on_off, NULL, "Show the on/off switch events, used with --switch-on and --switch-off" },
		{ 0, "graph-function", OPT_STRING, &c->graph_function, "symbol[,symbol...]", "Only print symbols and callees with --call-trace/--call-ret-trace" },
		{ 0, "dlfilter", OPT_STRING, &c->dlfilter, "file", "filter .so file name" },
		{ 0, "dlarg", OPT_CALLBACK, &dlarg_cb, "argument", "filter argument" },
		{ 0, "list-dlfilters", OPT_BOOL, &c->list_dlfilters, NULL, "list available dlfilters" },
		OPT_PROGRESS(&c->progress),
		/* the rest of perf 6.1's options (the manual's table lists every one) */
		OPT_REFUSE('g', "gen-script", REFUSED_SCRIPTING),
		OPT_REFUSE('l', "list", REFUSED_SCRIPTING),
		OPT_REFUSE('s', "script", REFUSED_SCRIPTING),
		OPT_REFUSE('v', "verbose", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle-kernel", REFUSED_NOT_YET),
		OPT_REFUSE(0, "dump-unsorted-raw-trace", REFUSED_NOT_YET),
		OPT_REFUSE(0, "guest-code", REFUSED_NOT_YET),
		OPT_REFUSE(0, "guestkallsyms", REFUSED_NOT_YET),
		OPT_REFUSE(0, "guestmodules", REFUSED_NOT_YET),
		OPT_REFUSE(0, "guestmount", REFUSED_NOT_YET),
		OPT_REFUSE(0, "guestvmlinux", REFUSED_NOT_YET),
		OPT_REFUSE(0, "max-blocks", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-kernel-path", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-bpf-events", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-text-poke-events", REFUSED_NOT_YET),
		OPT_REFUSE(0, "xed", REFUSED_NOT_YET),
		OPT_END_MARK,
	};
	int nr_args;

	script_fields__init(&s->f);	/* -F edits perf's defaults, each -F in turn */
	nr_args = parse_options(argc, argv, opts, script_usage);
	if (nr_args < 0)
		return 129;
	if (c->list_dlfilters)	/* perf lists them and exits as it parses the option */
		return 0;
	if (!options__input(nr_args, argv, &c->input, script_usage, opts))
		return 129;
	c->nr_jobs = options__jobs(c->jobs, script_usage, opts);
	if (c->nr_jobs < 0)
		return 129;
	return 0;
}

/* What the options set in struct script: 0, or the exit status (a bad cpu list). */
int script_apply_options(struct script *s, const struct script_cmd *c)
{
	if (c->cpus && !cpu_list__parse(&s->cpus, c->cpus)) {
		cpu_list__exit(&s->cpus);
		fprintf(stderr, "analyze script: bad cpu list '%s'\n", c->cpus);
		return 255;
	}
	if (c->reltime && c->deltatime) {
		fputs("reltime and deltatime - the two don't get along well. Please limit to --reltime or --deltatime.\n",
		      stderr);
		return 255;
	}
	s->ns |= c->ns;
	s->reltime = c->reltime;
	s->show_info = c->show_info;
	s->deltatime = c->deltatime;
	s->dump = c->dump_raw;
	for (int t = 0; t < SCRIPT_TYPES; t++) {
		s->itrace_opts.insn_bytes |= !!(s->f.fields[t] & (SF_INSN | SF_INSNLEN));
		s->itrace_opts.thread_stack |= !!(s->f.fields[t] & SF_CALLINDENT);
	s->itrace_opts.thread_stack |= c->graph_function != NULL;	/* its call depths */
	}
	if (!s->itrace_opts.set)	/* perf script's default: calls and errors */
		itrace_opts__set_default(&s->itrace_opts, true);
	s->no_callchain = c->hide_callgraph;
	/* perf's scripting_max_stack; more than perf's own default is not kept */
	s->max_stack = MIN(c->max_stack ? (u32)MAX(0, atoi(c->max_stack)) : options__max_stack(),
			   SAMPLE_MAX_STACK);
	s->show_events = (c->task_events ? SHOW_TASK : 0) | (c->mmap_events ? SHOW_MMAP : 0) |
			 (c->switch_events ? SHOW_SWITCH : 0) |
			 (c->lost_events ? BIT_OF(PERF_RECORD_LOST) : 0) |
			 (c->namespace_events ? BIT_OF(PERF_RECORD_NAMESPACES) : 0) |
			 (c->cgroup_events ? BIT_OF(PERF_RECORD_CGROUP) : 0);
	/* perf turns ordering off for it: records are processed in file order */
	s->show_round_events = c->round_events;
	s->consumer.unordered = c->round_events;
	/* perf loads the filter before it opens the file */
	if (c->dlfilter) {
		s->dlfilter = dlfilter__new(c->dlfilter, c->dlargc, c->dlargv);
		if (!s->dlfilter) {
			cpu_list__exit(&s->cpus);
			return 255;
		}
	}
	return 0;
}
