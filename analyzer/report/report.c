/*
 * report: `analyze report`, perf report --stdio's histogram view. Reads the session in
 * perf's delivery order, keeps the machine model current, resolves and filters samples into
 * one histogram per event, and prints them as perf 6.1 does.
 */
#include "analyzer/commands.h"
#include "analyzer/report/report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/header.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/session_warn.h"
#include "lib/busy.h"
#include "lib/error.h"
#include "lib/progress.h"
#include "lib/xalloc.h"
#include "machine/inline.h"
#include "machine/unwind.h"
#include "readers/decode/evsel_name.h"

static const char *const report_usage = "analyze report [<options>]";

/* --itrace[=opts], as perf's itrace_parse_synth_opts */
static int parse_itrace(const char *arg, void *data)
{
	if (itrace_opts__parse(data, arg)) {
		fprintf(stderr, "Bad Instruction Tracing options '%s'\n", arg);
		return -1;
	}
	return 0;
}

static unsigned long convert_unit(unsigned long value, char *unit)
{
	*unit = ' ';
	if (value > 1000) {
		value /= 1000;
		*unit = 'K';
	}
	if (value > 1000) {
		value /= 1000;
		*unit = 'M';
	}
	if (value > 1000) {
		value /= 1000;
		*unit = 'G';
	}
	return value;
}

static void print_stats(struct report *rep, FILE *fp)
{
	const struct events_stats *st = &rep->session.stats;

	/* perf_session__fprintf_nr_events: decoded samples are not counted */
	fprintf(fp, "\nAggregated stats:%s\n",
		perf_session__has_feat(&rep->session, HEADER_AUXTRACE)
			? " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)"
			: "");
	for (u32 i = 0; i < PERF_RECORD_HEADER_MAX; i++) {
		const char *name = perf_event__name(i);

		if (!strcmp(name, "UNKNOWN") || (rep->skip_empty && !st->nr_events[i]))
			continue;
		if (i && st->nr_events[0])
			fprintf(fp, "%16s events: %10d  (%4.1f%%)\n", name, (int)st->nr_events[i],
				100.0 * st->nr_events[i] / st->nr_events[0]);
		else
			fprintf(fp, "%16s events: %10d\n", name, (int)st->nr_events[i]);
	}
	for (size_t i = 0; i < rep->session.nr_evsels; i++) {
		const struct hists *h = &rep->hists[i];

		/* perf skips events without samples or lost ones (report.skip-empty) */
		if (rep->skip_empty && !h->nr_sample_events && !h->nr_lost_samples)
			continue;
		fprintf(fp, "%s stats:\n", evsel__name(&rep->session.evsels[i]));
		if (h->nr_sample_events)
			fprintf(fp, "%16s events: %10d\n", "SAMPLE", (int)h->nr_sample_events);
		if (h->nr_lost_samples)
			fprintf(fp, "%16s events: %10d\n", "LOST_SAMPLES", (int)h->nr_lost_samples);
	}
}

/*
 * Whether any histogram has an entry. perf counts the entries of filtered samples too (a
 * --comms that matches nothing still prints the tables), so any sample added counts.
 */
static bool report__has_entries(const struct report *rep)
{
	for (size_t i = 0; i < rep->session.nr_evsels + rep->aux_hists; i++)
		if (rep->hists[i].nr_samples)
			return true;
	return false;
}

static void print_elided(struct report *rep, FILE *fp)
{
	struct { enum sort_key key; struct name_list *list; const char *name; } elide[] = {
		{ SORT_SYM, &rep->symbols, "symbol" },
		{ SORT_DSO, &rep->dsos, "dso" },
		{ SORT_COMM, &rep->comms, "comm" },
	};
	bool all = true;

	for (int i = 0; i < rep->sort.nr; i++) {
		rep->sort.elide[i] = false;
		for (size_t k = 0; k < ARRAY_SIZE(elide); k++) {
			if (rep->sort.keys[i] == elide[k].key && elide[k].list->nr == 1) {
				fprintf(fp, "# %s: %s\n", elide[k].name, elide[k].list->names[0]);
				rep->sort.elide[i] = true;
			}
		}
		all &= rep->sort.elide[i];
	}
	/* perf shows every column again rather than none */
	if (all)
		for (int i = 0; i < rep->sort.nr; i++)
			rep->sort.elide[i] = false;
}

/* -g: perf's report_parse_callchain_opt, its default when -g comes without a value */
static int parse_call_graph(const char *arg, void *data)
{
	struct callchain_param *param = data;

	return callchain_param__parse(param, arg ? arg : "graph,0.5,caller,function,percent");
}

/* --samples: perf keeps them for its TUI's browser, which --stdio has not: a number, unused */
static int parse_samples(const char *arg, void *data)
{
	char *end;

	(void)data;
	if (!arg || (strtol(arg, &end, 0), *end) || !*arg) {
		fprintf(stderr, " Error: option `samples' expects a numerical value\n");
		return -1;
	}
	return 0;
}

/* --percentage: perf's parse_filter_percentage takes the two words whole */
static int parse_percentage(const char *arg, void *data)
{
	bool *relative = data;

	if (strcmp(arg, "relative") && strcmp(arg, "absolute"))
		return -1;
	*relative = !strcmp(arg, "relative");
	return 0;
}

/* --percent-limit also sets the callchains' threshold (perf's parse_percent_limit) */
static int parse_percent_limit(const char *arg, void *data)
{
	struct report *rep = data;

	rep->percent_limit = strtof(arg, NULL);
	rep->cc_param.min_percent = rep->percent_limit;
	return 0;
}

static const char *const tips[] = {
	"analyze reads perf.data files many times faster than perf report",
	"Use analyze report --sort dso,sym to see where time goes per shared object",
	"Use analyze report --percent-limit N to hide small entries",
	"Use analyze report -n to show the number of samples of each entry",
};

/* The options as given, where they do not go into struct report directly. */
struct report_args {
	const char *input, *sort_str, *comms, *dsos, *symbols, *pids, *tids, *symfs;
	const char *kallsyms, *max_stack, *parent, *jobs, *fields, *cpus, *prefix, *prefix_strip;
	bool stdio, show_nr, quiet, header, header_only, show_info, stats, children, inverted;
	bool show_inline, dump_raw, progress, threads, full_source_path;
	const char *pretty;
};

/* -F, as perf's __setup_output_field takes it, after the sort keys. -1 to go on, or the status. */
static int report__parse_fields(struct report *rep, const struct report_args *a,
				const struct option *opts)
{
	char bad[64];
	int err = field_list__parse(&rep->fields, a->fields, bad, sizeof(bad));

	if (err == -3) {
		fprintf(stderr, "analyze report: -F %s: not supported yet\n", bad);
		return 1;
	}
	if (err) {
		if (err == -2)
			fprintf(stderr, "Error:\nInvalid --fields key: `+'\n");
		else
			fprintf(stderr, "Error:\nUnknown --fields key: `%s'\n", bad);
		usage_with_options(report_usage, opts);
		return 0;	/* perf 6.1 exits 0 here */
	}
	field_list__add_keys(&rep->fields, &rep->sort);
	rep->popts.fields = &rep->fields;
	return -1;
}

/* --sort, as perf's setup_sorting takes it. -1 to go on, or the status to exit with. */
static int report__parse_sort(struct report *rep, const struct report_args *a,
			      const struct option *opts)
{
	char bad[64];
	int ret;

	if (a->sort_str) {
		const char *s = a->sort_str;
		char *with_ipc = NULL;

		/* perf 6.1 appends ipc_null to a --sort that names "symbol" */
		if (strstr(a->sort_str, "symbol")) {
			with_ipc = xmalloc(strlen(a->sort_str) + 16);
			sprintf(with_ipc, "%s,ipc_null", a->sort_str);
			s = with_ipc;
		}
		if (sort_list__parse(&rep->sort, s, bad, sizeof(bad))) {
			fprintf(stderr, "Error:\nUnknown --sort key: `%s'\n", bad);
			free(with_ipc);
			usage_with_options(report_usage, opts);
			return 0;	/* perf 6.1 exits 0 here */
		}
		free(with_ipc);
	} else if (!a->fields || *a->fields == '+') {
		sort_list__parse(&rep->sort, "comm,dso,symbol", bad, sizeof(bad));
	}	/* a strict -F without --sort: its own keys only (perf's __setup_sorting) */
	/* perf's setup_sorting: a pattern of one's own adds the parent key, last, if not there */
	if (a->parent && !sort_list__has(&rep->sort, SORT_PARENT) && rep->sort.nr < MAX_SORT_KEYS)
		rep->sort.keys[rep->sort.nr++] = SORT_PARENT;
	ret = a->fields ? report__parse_fields(rep, a, opts) : -1;
	/* perf's sort__has_parent: a sort key's, not -F's (its parent column is then [other]) */
	for (int i = 0; i < (a->fields ? rep->fields.nr_sort_keys : rep->sort.nr); i++)
		rep->need_parent |= rep->sort.keys[i] == SORT_PARENT;
	return ret;
}

/* The command line into rep and a. -1 to go on, or the status to exit with. */
static int report__parse(struct report *rep, struct report_args *a, int argc, const char **argv)
{
	struct option_callback call_graph_cb = { parse_call_graph, &rep->cc_param };
	struct option_callback percent_limit_cb = { parse_percent_limit, rep };
	struct option_callback percentage_cb = { parse_percentage, &rep->popts.percent_relative };
	struct option_callback samples_cb = { parse_samples, NULL };
	struct option_callback itrace_cb = { parse_itrace, &rep->itrace_opts };
	const struct option opts[] = {
		{ 'i', "input", OPT_STRING, &a->input, "file", "input file name" },
		{ 0, "stdio", OPT_BOOL, &a->stdio, NULL, "Use the stdio interface" },
		{ 's', "sort", OPT_STRING, &a->sort_str, "key[,key2...]", "sort by key(s): pid comm dso symbol parent cpu socket symbol_size dso_size" },
		{ 'F', "fields", OPT_STRING, &a->fields, "key[,keys...]", "output field(s): overhead overhead_children sample period, and the --sort keys (+key,...: added to the default ones)" },
		{ 't', "field-separator", OPT_STRING, &rep->popts.field_sep, "separator", "separator for columns, no spaces will be added between columns '.' is reserved." },
		{ 'c', "comms", OPT_STRING, &a->comms, "comm[,comm...]", "only consider symbols in these comms" },
		{ 0, "pid", OPT_STRING, &a->pids, "pid[,pid...]", "only consider symbols in these pids" },
		{ 0, "tid", OPT_STRING, &a->tids, "tid[,tid...]", "only consider symbols in these tids" },
		{ 'C', "cpu", OPT_STRING, &a->cpus, "cpu", "list of cpus to profile" },
		{ 0, "time", OPT_STRING, &rep->time_str, "str", "Time span of interest (start,stop)" },
		{ 'd', "dsos", OPT_STRING, &a->dsos, "dso[,dso...]", "only consider symbols in these dsos" },
		{ 'S', "symbols", OPT_STRING, &a->symbols, "symbol[,symbol...]", "only consider these symbols" },
		{ 0, "symbol-filter", OPT_STRING, &rep->popts.symbol_filter, "filter", "only show symbols that (partially) match with this filter" },
		{ 0, "percent-limit", OPT_CALLBACK, &percent_limit_cb, "percent", "Don't show entries under that percent" },
		{ 0, "percentage", OPT_CALLBACK, &percentage_cb, "relative|absolute", "how to display percentage of filtered entries" },
		{ 'p', "parent", OPT_STRING, &a->parent, "regex", "regex filter to identify parent, see: '--sort parent'" },
		{ 'x', "exclude-other", OPT_BOOL, &rep->exclude_other, NULL, "Only display entries with parent-match" },
		{ 'U', "hide-unresolved", OPT_BOOL, &rep->hide_unresolved, NULL, "Only display entries resolved to a symbol" },
		{ 'n', "show-nr-samples", OPT_BOOL, &a->show_nr, NULL, "Show a column with the number of samples" },
		{ 0, "show-total-period", OPT_BOOL, &rep->popts.show_total_period, NULL, "Show a column with the sum of periods" },
		{ 'T', "threads", OPT_BOOL, &a->threads, NULL, "Show per-thread event counters" },
		{ 0, "pretty", OPT_STRING, &a->pretty, "key", "pretty printing style key: normal raw" },
		{ 'q', "quiet", OPT_BOOL, &a->quiet, NULL, "Do not show any message" },
		{ 0, "header", OPT_BOOL, &a->header, NULL, "Show data header." },
		{ 0, "header-only", OPT_BOOL, &a->header_only, NULL, "Show only data header." },
		{ 'I', "show-info", OPT_BOOL, &a->show_info, NULL, "Display extended information about perf.data file" },
		{ 'j', "jobs", OPT_STRING, &a->jobs, "n", "worker threads for reading (default: online CPUs)" },
		{ 0, "stats", OPT_BOOL, &a->stats, NULL, "Display event stats" },
		{ 0, "samples", OPT_CALLBACK, &samples_cb, "n", "Number of samples to save per histogram entry for individual browsing (the TUI's: no effect on the text)" },
		{ 0, "ns", OPT_NOOP, NULL, NULL, "Show times in nanosecs (of the time sort key, which analyze has not: no effect)" },
		{ 0, "skip-empty", OPT_BOOL, &rep->skip_empty, NULL, "Do not display empty (or dummy) events in the output" },
		{ 0, "symfs", OPT_STRING, &a->symfs, "directory", "Look for files with symbols relative to this directory" },
		OPT_REFUSE('k', "vmlinux", REFUSED_NOT_YET),
		{ 'f', "force", OPT_NOOP, NULL, NULL, "don't complain, do it (analyze reads files of any owner)" },
		{ 0, "prefix", OPT_STRING, &a->prefix, "prefix", "Add prefix to source file path names in programs (with --prefix-strip; annotate's: no effect on the text)" },
		{ 0, "prefix-strip", OPT_STRING, &a->prefix_strip, "N", "Strip first N entries of source file path name in programs (with --prefix)" },
		{ 0, "kallsyms", OPT_STRING, &a->kallsyms, "file", "kallsyms pathname" },
		{ 0, "children", OPT_BOOL, &a->children, NULL, "Accumulate callchains of children and show total overhead as well. Enabled by default, use --no-children to disable." },
		{ 'g', "call-graph", OPT_CALLBACK, &call_graph_cb, "print_type,threshold[,print_limit],order,sort_key[,branch],value", "Display call graph (stack chain/backtrace): print_type: graph, flat, fractal, folded or none; threshold: minimum call graph inclusion threshold (default 0.5); print_limit: maximum number of call graph entry; order: callee or caller (default callee); sort_key: function or address; value: percent, period or count", true },
		{ 0, "max-stack", OPT_STRING, &a->max_stack, "n", "Set the maximum stack depth when parsing the callchain, anything beyond the specified depth will be ignored. Default: kernel.perf_event_max_stack or 127" },
		{ 'G', "inverted", OPT_BOOL, &a->inverted, NULL, "alias for inverted call graph" },
		{ 'D', "dump-raw-trace", OPT_BOOL, &a->dump_raw, NULL, "dump raw trace in ASCII" },
		{ 0, "inline", OPT_BOOL, &a->show_inline, NULL, "Show inline function" },
		{ 0, "full-source-path", OPT_BOOL, &a->full_source_path, NULL, "Show full source file name path for source lines" },
		{ 0, "itrace", OPT_CALLBACK, &itrace_cb, "opts", "Instruction Tracing options (as script's; default: every branch)", false, true },
		{ 0, "no-itrace", OPT_BOOL, &rep->itrace_opts.dont_decode, NULL, "do not decode AUX-area traces", false, false },
		OPT_PROGRESS(&a->progress),
		/* the rest of perf 6.1's options (the manual's table lists every one) */
		OPT_REFUSE(0, "tui", REFUSED_UI),
		OPT_REFUSE('b', "branch-stack", REFUSED_NOT_YET),
		OPT_REFUSE('M', "disassembler-style", REFUSED_NOT_YET),
		OPT_REFUSE('m', "modules", REFUSED_NOT_YET),
		OPT_REFUSE('v', "verbose", REFUSED_NOT_YET),
		OPT_REFUSE('w', "column-widths", REFUSED_NOT_YET),
		OPT_REFUSE(0, "asm-raw", REFUSED_NOT_YET),
		OPT_REFUSE(0, "branch-history", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle-kernel", REFUSED_NOT_YET),
		OPT_REFUSE(0, "disable-order", REFUSED_NOT_YET),
		OPT_REFUSE(0, "group", REFUSED_NOT_YET),
		OPT_REFUSE(0, "group-sort-idx", REFUSED_NOT_YET),
		OPT_REFUSE(0, "hierarchy", REFUSED_NOT_YET),
		OPT_REFUSE(0, "ignore-callees", REFUSED_NOT_YET),
		OPT_REFUSE(0, "ignore-vmlinux", REFUSED_NOT_YET),
		OPT_REFUSE(0, "mem-mode", REFUSED_NOT_YET),
		OPT_REFUSE(0, "mmaps", REFUSED_NOT_YET),
		OPT_REFUSE(0, "objdump", REFUSED_NOT_YET),
		OPT_REFUSE(0, "percent-type", REFUSED_NOT_YET),
		OPT_REFUSE(0, "raw-trace", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-cpu-utilization", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-on-off-events", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-ref-call-graph", REFUSED_NOT_YET),
		OPT_REFUSE(0, "socket-filter", REFUSED_NOT_YET),
		OPT_REFUSE(0, "source", REFUSED_NOT_YET),
		OPT_REFUSE(0, "stdio-color", REFUSED_NOT_YET),
		OPT_REFUSE(0, "stitch-lbr", REFUSED_NOT_YET),
		OPT_REFUSE(0, "switch-off", REFUSED_NOT_YET),
		OPT_REFUSE(0, "switch-on", REFUSED_NOT_YET),
		OPT_REFUSE(0, "tasks", REFUSED_NOT_YET),
		OPT_REFUSE(0, "time-quantum", REFUSED_NOT_YET),
		OPT_REFUSE(0, "total-cycles", REFUSED_NOT_YET),
		OPT_END_MARK,
	};
	int nr_args, ret;

	rep->max_stack = options__max_stack();
	nr_args = parse_options(argc, argv, opts, report_usage);
	if (nr_args < 0)
		return 129;
	if (a->max_stack)
		rep->max_stack = (u32)MAX(0, atoi(a->max_stack));
	/* -D: the raw dump, then perf's stats block; samples are only counted, as --stats does */
	rep->stats_tool = a->stats;
	a->stats |= a->dump_raw;
	if (!options__input(nr_args, argv, &a->input, report_usage, opts))
		return 129;
	if (a->prefix_strip && !a->prefix) {
		fprintf(stderr, "--prefix-strip requires --prefix\n");
		return 234;	/* perf's -EINVAL, before it reads the file */
	}
	ret = report__parse_sort(rep, a, opts);
	if (ret >= 0)
		return ret;
	rep->popts.percent_limit = rep->percent_limit;
	rep->popts.show_nr_samples = a->show_nr;
	rep->popts.show_header = !a->quiet;
	rep->nr_jobs = options__jobs(a->jobs, report_usage, opts);
	return rep->nr_jobs < 0 ? 129 : -1;
}

/* The model, the symbol sources and the kernel's symbols loading ahead. */
static void report__setup_model(struct report *rep, bool load);

static void report__setup_machine(struct report *rep, const struct report_args *a,
				  const struct analyze_config *cfg)
{
	rep->symfs_cache = options__symsrc(&rep->symsrc, cfg->buildid_dir, a->symfs, a->kallsyms,
						cfg->symcache);
	/* -j N: N threads in all, this one included */
	rep->wq = rep->nr_jobs > 1 ? workqueue__new(rep->nr_jobs - 1) : NULL;
	rep->session.wq = rep->wq;
	/* finding parents looks symbols up on this thread: then no aggregator elsewhere */
	aggregate__init(&rep->agg, rep->need_parent ? NULL : rep->wq,
			finish_sample, put_sample, rep);
	rep->agg.ahead = ahead_sample;
	report__setup_model(rep, !a->stats && !a->header_only);
}

/* The model, empty, its symbols loading ahead. */
static void report__setup_model(struct report *rep, bool load)
{
	size_t size;
	const u8 *ids = perf_session__feat(&rep->session, HEADER_BUILD_ID, &size);

	machine__init(&rep->machine, &rep->symsrc);
	dso_loader__init(&rep->loader, rep->wq, &rep->machine.symsrc);
	rep->machine.loader = &rep->loader;
	/*
	 * The kernel's symbols are wanted first and take longest: they start loading before the
	 * other dsos', once the kernel's build-id is known.
	 */
	if (ids)
		machine__add_build_ids(&rep->machine, ids, size, false);
	if (load)
		machine__load_kernel_ahead(&rep->machine, perf_session__kernel_text(&rep->session));
	if (ids && load)
		machine__add_build_ids(&rep->machine, ids, size, true);
}

/* One histogram per event (and per event an AUX decoder may make). */
static void report__setup_hists(struct report *rep, const struct report_args *a)
{
	u64 sample_type = 0;

	/* a pipe describes its events as it goes: room for as many as it may add */
	/* (an index-less file too) */
	rep->aux_hists = !rep->session.is_pipe && !rep->session.is_dir ? ITRACE_MAX_EVSELS : 0;
	rep->no_decode = a->stats;
	if (!rep->itrace_opts.set)	/* perf report's default: everything, instructions too */
		itrace_opts__set_default(&rep->itrace_opts, false);
	rep->nr_hists = rep->session.is_pipe ? MAX_PIPE_EVSELS
					     : rep->session.nr_evsels + rep->aux_hists;
	rep->hists = xcalloc(rep->nr_hists, sizeof(*rep->hists));
	for (size_t i = 0; i < rep->nr_hists; i++)
		hists__init(&rep->hists[i], &rep->sort);
	for (size_t i = 0; i < rep->session.nr_evsels; i++)
		sample_type |= rep->session.evsels[i].attr.sample_type;
	rep->has_callchain = sample_type & PERF_SAMPLE_CALLCHAIN;
	/* report__setup_sample_type: the default itrace may synthesize call chains */
	rep->has_callchain |= perf_session__has_feat(&rep->session, HEADER_AUXTRACE) &&
			      !rep->session.is_pipe && !rep->itrace_opts.set && !a->stats;
	/* and --itrace=g or G does */
	rep->has_callchain |= rep->itrace_opts.callchain || rep->itrace_opts.add_callchain;
}

/* Children view, call graphs, unwinding and inlines, as the recording and options ask. */
static void report__setup_callchains(struct report *rep, const struct report_args *a)
{
	bool children = a->children;

	/*
	 * perf's report__setup_sample_type: no children without callchains. A pipe's attrs
	 * come with its records, after that: perf then takes no children but the call graphs
	 * (of the events that turn out to have them).
	 */
	rep->use_callchain = (rep->has_callchain || rep->session.is_pipe) &&
			     rep->cc_param.mode != CC_NONE;
	if (a->inverted)
		rep->cc_param.order = CC_ORDER_CALLER;
	/* perf's default for the children view, set before it knows whether it gets one */
	if (children && !rep->cc_param.order_set)
		rep->cc_param.order = CC_ORDER_CALLER;
	children &= rep->has_callchain;
	if (children || rep->use_callchain)
		rep->chains = callchains__new();
	for (size_t i = 0; i < rep->session.nr_evsels; i++) {
		rep->hists[i].cumulate = children;
		rep->hists[i].has_callchain =
			rep->session.evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN;
	}
	for (size_t i = 0; i < rep->aux_hists; i++)
		rep->hists[rep->session.nr_evsels + i].cumulate = children;
	rep->hcc = (struct hists_callchain){
		.chains = rep->chains, .machine = &rep->machine, .param = &rep->cc_param,
		.use_callchain = rep->use_callchain,
		.skip_first = !a->fields && a->sort_str && !strncmp(a->sort_str, "sym", 3),
		.order = rep->cc_param.order, .one_thread = rep->nr_jobs == 1 };
	rep->popts.callchain = rep->use_callchain ? &rep->hcc : NULL;
	/* perf unwinds dwarf samples when it uses callchains: all but --no-children -g none */
	if (rep->chains) {
		rep->unwinder = unwinder__new(&rep->session, PERF_MAX_STACK_DEPTH);
		if (a->show_inline || rep->cc_param.key != CC_KEY_FUNCTION)
			rep->inlines = inlines__new(&rep->machine.symsrc);
		if (rep->inlines)
			inlines__set_full_path(rep->inlines, a->full_source_path);
		rep->hcc.inlines = a->show_inline ? rep->inlines : NULL;
		rep->hcc.lines = rep->cc_param.key != CC_KEY_FUNCTION ? rep->inlines : NULL;
	}
}

/* Combinations not done yet: true when one was asked for (and said so). */
static bool report__unsupported(const struct report *rep)
{
	const char *what = NULL;

	/* perf joins folded frames with the separator */
	if (rep->popts.field_sep && rep->use_callchain && rep->cc_param.mode == CC_FOLDED)
		what = "-t with -g folded";
	/* perf leaves the unresolved frames out of the callchains too */
	else if (rep->hide_unresolved && rep->chains)
		what = "--hide-unresolved with callchains (use --no-children -g none)";
	if (what)
		fprintf(stderr, "analyze report: %s is not supported yet\n", what);
	return what;
}

/* The filters, and the parent pattern perf compiles before printing anything. */
static int report__setup_filters(struct report *rep, const struct report_args *a)
{
	int err;

	name_list__parse(&rep->comms, a->comms);
	name_list__parse(&rep->dsos, a->dsos);
	name_list__parse(&rep->symbols, a->symbols);
	name_list__parse(&rep->pids, a->pids);
	name_list__parse(&rep->tids, a->tids);
	rep->popts.has_dso_filter = rep->dsos.nr > 0;
	rep->stats_mode = a->stats;
	err = regcomp(&rep->parent_regex, a->parent ? a->parent : "^sys_|^do_page_fault",
		      REG_EXTENDED);
	if (err) {
		char msg[256];

		regerror(err, &rep->parent_regex, msg, sizeof(msg));
		fprintf(stderr, "Invalid regex: %s\n%s", a->parent, msg);
		regcomp(&rep->parent_regex, "", REG_EXTENDED);	/* report__exit frees one */
		return -1;
	}
	return 0;
}

/* -C's list, perf_session__cpu_bitmap's checks; false when perf gives up on it (it said why) */
static bool report__setup_cpus(struct report *rep, const char *str)
{
	size_t size;
	const u8 *feat = perf_session__feat(&rep->session, HEADER_NRCPUS, &size);
	u32 nr_cpus[2] = { CPU_LIST_MAX, CPU_LIST_MAX };	/* avail, online */

	for (size_t i = 0; i < rep->session.nr_evsels; i++) {
		if (!(rep->session.evsels[i].attr.sample_type & PERF_SAMPLE_CPU)) {
			fprintf(stderr, "File does not contain CPU events. Remove -C option to proceed.\n");
			return false;
		}
	}
	if (!cpu_list__parse(&rep->cpus, str)) {
		fprintf(stderr, "Invalid cpu_list\n");
		return false;
	}
	if (feat && size >= sizeof(nr_cpus))
		memcpy(nr_cpus, feat, sizeof(nr_cpus));
	for (int c = (int)nr_cpus[0]; c <= rep->cpus.max; c++) {
		if (cpu_list__has(&rep->cpus, (u32)c)) {
			fprintf(stderr, "Requested CPU %d too large. Consider raising MAX_NR_CPUS\n", c);
			return false;
		}
	}
	return true;
}

/*
 * --time and -C, checked after the header as perf does (--time's error with its status,
 * 234; -C's with 0). -1 to go on, or the status to exit with.
 */
static int report__setup_samples(struct report *rep, const struct report_args *a)
{
	if (rep->time_str) {
		size_t size;
		const u8 *feat = perf_session__feat(&rep->session, HEADER_SAMPLE_TIME, &size);
		u64 bounds[2] = { 0, 0 };	/* the first and last sample times */
		enum time_filter_error err;

		if (feat && size >= sizeof(bounds))
			memcpy(bounds, feat, sizeof(bounds));
		err = time_filter__parse(&rep->time, rep->time_str, bounds[0], bounds[1]);
		if (err) {
			fflush(stdout);
			if (!a->quiet)
				fputs(time_filter__strerror(err), stderr);
			return 234;	/* perf's -EINVAL */
		}
	}
	if (a->cpus && !a->stats && !report__setup_cpus(rep, a->cpus)) {
		fflush(stdout);
		fprintf(stderr, "Error:\nfailed to set cpu bitmap\n");
		return 0;
	}
	return -1;
}

/*
 * What perf prints before it reads a record, and the errors it finds then (each with its
 * exit status, 0). -1 to go on, or the status to exit with.
 */
static int report__preamble(struct report *rep, const struct report_args *a)
{
	bool body = !a->stats && !a->header_only;
	int ret;

	if (a->header_only)
		header__fprintf(&rep->session, stdout, a->show_info);
	else if (!a->stats && !a->quiet)
		header__fprintf_report(&rep->session, stdout, a->header, a->show_info);
	if (rep->popts.field_sep && *rep->popts.field_sep == '.') {
		/* perf's symbol__init, after the header, exit status 0 */
		fflush(stdout);
		fprintf(stderr, "'.' is the only non valid --field-separator argument\n");
		return 0;
	}
	ret = report__setup_samples(rep, a);
	if (ret >= 0)
		return ret;
	if (!rep->has_callchain && rep->cc_param.enabled && !rep->session.is_pipe && body) {
		fflush(stdout);
		fprintf(stderr, "Error:\nSelected -g or --branch-history.\nBut no callchain or branch data.\nDid you call 'perf record' without -g or -b?\n");
		return 0;	/* perf 6.1 exits with status 0 here */
	}
	if (rep->need_parent && !rep->session.is_pipe) {
		bool callchain = false;

		for (size_t i = 0; i < rep->session.nr_evsels; i++)
			callchain |= rep->session.evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN;
		if (!callchain) {
			/* perf 6.1 says so after the header and exits with status 0 */
			fflush(stdout);
			fprintf(stderr, "Error:\nSelected --sort parent, but no callchain data. Did you call 'perf record' without -g?\n");
			return 0;
		}
	}
	if (body)
		print_elided(rep, stdout);
	return -1;
}

/*
 * What a parallel run given up left: the model (built from the side-band records, its
 * symbols loading), the counts and warnings of the records read. Made again empty.
 */
static void report__reset_model(struct report *rep)
{
	struct perf_session *s = &rep->session;

	if (rep->wq)
		workqueue__flush(rep->wq);	/* symbol tables still loading refer to dsos */
	machine__exit(&rep->machine);
	dso_loader__exit(&rep->loader);
	report__setup_model(rep, true);
	memset(&s->stats, 0, sizeof(s->stats));
	for (size_t i = 0; i < s->nr_data_warnings; i++)
		free(s->data_warnings[i]);
	s->nr_data_warnings = 0;
}

/* Every record through the model into the histograms (or the raw dump). 0, or 1 on error. */
static int report__run(struct report *rep, const struct report_args *a)
{
	int ret;

	if (a->dump_raw) {
		if (!a->quiet)
			header__fprintf_report(&rep->session, stdout, a->header, a->show_info);
		dump__init(&rep->dump, &rep->session, &rep->machine, &rep->consumer, stdout);
	}
	progress_phase("reading", perf_session__data_bytes(&rep->session));
	if (a->dump_raw || a->stats || a->header_only) {
		busy__path("streaming");
		ret = 1;
	} else {
		ret = report__run_parallel(rep);
	}
	if (ret) {
		if (ret == 2)
			report__reset_model(rep);
		ret = perf_session__process(&rep->session, a->dump_raw ? &rep->dump.consumer
								       : &rep->consumer);
	}
	if (!ret && rep->itrace)	/* what the trace holds after the last record */
		ret = itrace__flush(rep->itrace) < 0 ? -1 : 0;
	progress_phase("loading symbols", 0);
	session_warn_data_files(&rep->session, stderr);
	if (!ret)
		settle_kernel(rep);
	aggregate__finish(&rep->agg);	/* its batches' memory serves what comes after the run */
	callchains__end_run(rep->chains);
	if (ret) {
		progress_done();
		fflush(stdout);
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	/* perf's --stats tool is no_warn; --header-only processes no records */
	if (!rep->stats_tool && !a->header_only)
		session_warn_about_errors(&rep->session.stats, false, stderr);
	return 0;
}

/*
 * -T: perf's per-thread counter values (perf_read_values_display), from READ records; with
 * none, its table's header alone. 0, or 1 when the recording has such records.
 */
static int report__print_threads(const struct report *rep, const struct report_args *a)
{
	if (rep->session.stats.nr_events[PERF_RECORD_READ]) {
		fflush(stdout);
		fprintf(stderr, "analyze report: -T with READ records is not supported yet\n");
		return 1;
	}
	/* --pretty: "raw", else perf's normal style, whatever the word */
	if (a->pretty && !strcmp(a->pretty, "raw"))
		printf("# %*s  %*s  %*s  %*s  %*s\n", 3, "PID", 3, "TID", 4, "Name", 3, "Raw", 5,
		       "Count");
	else
		printf("# %*s  %*s\n", 3, "PID", 3, "TID");
	return 0;
}

/* The histograms of the events that have samples, as perf prints them. */
static int report__output(struct report *rep, const struct report_args *a)
{
	if (a->stats) {
		progress_done();
		print_stats(rep, stdout);
		return 0;
	}
	if (!report__has_entries(rep)) {
		/* perf 6.1's __cmd_report: an error, but exit status 0 */
		progress_done();
		fflush(stdout);
		fprintf(stderr, "Error:\nThe %s data has no samples!\n", rep->session.path);
		return 0;
	}
	if (!a->quiet)
		printf("#\n# Total Lost Samples: %llu\n#\n",
		       (unsigned long long)rep->session.stats.total_lost_samples);
	for (size_t i = 0; i < rep->session.nr_evsels + rep->aux_hists; i++) {
		struct hists *h = &rep->hists[i];
		struct evsel *evsel = i < rep->session.nr_evsels ? &rep->session.evsels[i]
					: itrace__evsel(rep->itrace, i - rep->session.nr_evsels);
		char unit;
		unsigned long nr;

		/* --no-skip-empty: the recorded events without samples too */
		if (!evsel || (!h->nr_samples && (rep->skip_empty || i >= rep->session.nr_evsels)))
			continue;
		/* a decoder's events are made as the trace is read: Intel PT's may have chains;
		 * a pipe's attrs come as its records do */
		if (i >= rep->session.nr_evsels || rep->session.is_pipe)
			h->has_callchain = evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN;
		if (h->cumulate || rep->use_callchain)
			progress_phase("building call graphs", 0);
		hists__resolve_callchains(h, &rep->hcc);
		progress_output_starts();
		if (!a->quiet) {
			bool rel = rep->popts.percent_relative;
			struct hists_kept kept;

			hists__kept(h, &rep->popts, &kept);
			/* perf's hists__fprintf_nr_sample_events */
			nr = convert_unit(rel ? kept.nr_samples : h->nr_samples, &unit);
			printf("# Samples: %lu%c of event '%s'", nr, unit, evsel__name(evsel));
			if (rep->time_str)
				printf(" (time slices: %s)", rep->time_str);
			putchar('\n');
			printf("# Event count (approx.): %llu\n#\n",
			       (unsigned long long)(rel ? kept.shown_period : h->total_period));
		}
		hists__fprintf(h, &rep->popts, stdout);
		printf("\n\n");
	}
	progress_done();
	if (!a->quiet)
		printf("#\n# (Tip: %s)\n#\n", tips[rep->session.size % ARRAY_SIZE(tips)]);
	return a->threads ? report__print_threads(rep, a) : 0;
}

static void report__exit(struct report *rep)
{
	dump__exit(&rep->dump);
	aggregate__exit(&rep->agg);
	for (size_t i = 0; i < rep->nr_hists; i++)
		hists__exit(&rep->hists[i]);
	free(rep->hists);
	free(rep->sockets);
	name_list__free(&rep->comms);
	name_list__free(&rep->dsos);
	name_list__free(&rep->symbols);
	name_list__free(&rep->pids);
	name_list__free(&rep->tids);
	time_filter__exit(&rep->time);
	cpu_list__exit(&rep->cpus);
	regfree(&rep->parent_regex);
	callchains__delete(rep->chains);
	itrace__delete(rep->itrace);
	hashmap_exit(&rep->maps_versions);
	final_comms__exit(rep);
	unwinder__delete(rep->unwinder);
	inlines__delete(rep->inlines);
	free(rep->symfs_cache);
	if (rep->wq)
		workqueue__destroy(rep->wq);	/* symbol tables still loading refer to dsos */
	rep->wq = NULL;
	machine__exit(&rep->machine);
	dso_loader__exit(&rep->loader);
	perf_session__close(&rep->session);
}

int cmd_report(int argc, const char **argv, const struct analyze_config *cfg)
{
	struct report rep = { .consumer.deliver = report_deliver,
			      .consumer.prefetch = report_prefetch,
			      .skip_empty = true };	/* perf 6.1's report.skip-empty default */
	struct report_args a = { .children = true, .show_inline = true, .progress = true };
	int ret;

	callchain_param__init(&rep.cc_param);
	hashmap_init(&rep.maps_versions);
	hashmap_init(&rep.final_comms);
	ret = report__parse(&rep, &a, argc, argv);
	if (ret >= 0)
		return ret;
	if (perf_session__open(&rep.session, a.input)) {
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	if (a.header_only && !rep.session.is_pipe) {
		header__fprintf(&rep.session, stdout, a.show_info);
		perf_session__close(&rep.session);
		return 0;
	}
	/* a pipe describes itself as it goes: its features print as their records come */
	rep.print_features = rep.session.is_pipe && (a.header || a.header_only) && !a.stats;
	rep.header_only = a.header_only;
	rep.show_info = a.show_info;
	progress_init("analyze report", !a.progress, a.dump_raw);
	report__setup_machine(&rep, &a, cfg);
	report__setup_hists(&rep, &a);
	report__setup_callchains(&rep, &a);
	if (report__unsupported(&rep)) {
		ret = 1;
	} else if (report__setup_filters(&rep, &a)) {
		ret = 0;	/* perf 6.1's status */
	} else if ((ret = report__preamble(&rep, &a)) < 0) {
		ret = report__run(&rep, &a);
		if (!ret && !a.header_only)
			ret = report__output(&rep, &a);
	}
	progress_done();
	report__exit(&rep);
	return ret;
}
