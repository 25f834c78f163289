/*
 * report_options: `analyze report`'s command line, perf report's options (every one of perf
 * 6.1's: taken, or refused with a reason), into struct report and struct report_args.
 */
#include "analyzer/report/report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli/options.h"
#include "lib/xalloc.h"

static const char *const report_usage = "analyze report [<options>]";

/* -g: perf's report_parse_callchain_opt, its default when -g comes without a value */
static int parse_call_graph(const char *arg, void *data)
{
	struct callchain_param *param = data;

	return callchain_param__parse(param, arg ? arg : "graph,0.5,caller,function,percent");
}

/* --no-call-graph: perf's report_parse_callchain_opt unset, no call graphs */
static int unset_call_graph(const char *arg, void *data)
{
	(void)arg;
	return callchain_param__parse(data, "none");
}

/*
 * --samples: perf keeps them for its TUI's browser, which --stdio has not: a number, unused
 * (--no-samples: its OPT_INTEGER set to 0)
 */
static int parse_samples(const char *arg, void *data)
{
	char *end;

	(void)data;
	if (!arg)
		return 0;
	if ((strtol(arg, &end, 0), *end) || !*arg) {
		fprintf(stderr, " Error: option `samples' expects a numerical value\n");
		return -1;
	}
	return 0;
}

/*
 * --socket-filter: perf's OPT_INTEGER (strtol in base 10, to the end; a negative number: no
 * filter; --no-socket-filter: 0, a filter)
 */
static int parse_socket_filter(const char *arg, void *data)
{
	char *end;
	long v = 0;

	if (arg && (v = strtol(arg, &end, 10), *end)) {
		fprintf(stderr, " Error: option `socket-filter' expects a numerical value\n");
		return -1;
	}
	*(int *)data = (int)v;
	return 0;
}

/*
 * --percent-type: annotate's (perf report --stdio shows no annotation: no effect), checked
 * as perf's annotate_parse_percent_type: local or global, and period or hits, joined by a
 * '-' in either order
 */
static bool is_word(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !strncmp(s, word, len);
}

static int parse_percent_type(const char *arg, void *data)
{
	const char *dash = strchr(arg, '-'), *rest;
	size_t len, rest_len;

	(void)data;
	if (!dash)
		return -1;
	len = (size_t)(dash - arg);
	rest = dash + 1;
	rest_len = strlen(rest);
	if ((is_word(arg, len, "local") || is_word(arg, len, "global")) &&
	    (is_word(rest, rest_len, "period") || is_word(rest, rest_len, "hits")))
		return 0;
	if ((is_word(arg, len, "period") || is_word(arg, len, "hits")) &&
	    (is_word(rest, rest_len, "local") || is_word(rest, rest_len, "global")))
		return 0;
	return -1;
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
	/*
	 * perf's sort__has_parent: a sort key's, not -F's (its parent column is then [other]);
	 * its final collapse, which filters by socket, likewise: for a comm key (analyze's only
	 * key that collapses)
	 */
	for (int i = 0; i < (a->fields ? rep->fields.nr_sort_keys : rep->sort.nr); i++) {
		rep->need_parent |= rep->sort.keys[i] == SORT_PARENT;
		rep->popts.socket_filter |= rep->sort.keys[i] == SORT_COMM;
	}
	rep->popts.socket_filter &= rep->socket_filter > -1;
	rep->popts.socket = rep->socket_filter;
	return ret;
}

/* The command line into rep and a. -1 to go on, or the status to exit with. */
int report__parse(struct report *rep, struct report_args *a, int argc, const char **argv)
{
	struct option_callback call_graph_cb = { parse_call_graph, &rep->cc_param, unset_call_graph };
	struct option_callback percent_limit_cb = { parse_percent_limit, rep };
	struct option_callback percentage_cb = { parse_percentage, &rep->popts.percent_relative };
	struct option_callback samples_cb = { parse_samples, NULL, parse_samples };
	struct option_callback percent_type_cb = { parse_percent_type, NULL };
	struct option_callback socket_cb = { parse_socket_filter, &rep->socket_filter,
					     parse_socket_filter };
	struct option_callback parent_cb = { options__string, &a->parent };
	struct option_callback symfs_cb = { options__string, &a->symfs };
	struct option_callback max_stack_cb = { options__string, &a->max_stack, options__max_stack_unset };
	struct option_callback itrace_cb = { itrace_opts__option, &rep->itrace_opts };
	const struct option opts[] = {
		{ 'i', "input", OPT_STRING, &a->input, "file", "input file name" },
		{ 0, "stdio", OPT_BOOL, &a->stdio, NULL, "Use the stdio interface" },
		{ 'b', "branch-stack", OPT_INCR, &a->branch_stack, NULL, "use branch records for per branch histogram filling" },
		{ 0, "mem-mode", OPT_BOOL, &a->mem_mode, NULL, "mem access profile (with --sort: perf's default order is not supported yet)" },
		{ 0, "stitch-lbr", OPT_BOOL, &a->stitch_lbr, NULL, "Enable LBR callgraph stitching approach (with LBR call graphs: not supported yet)" },
		{ 's', "sort", OPT_STRING, &a->sort_str, "key[,key2...]", "sort by key(s): pid comm dso symbol parent cpu socket srcline srcfile local_weight weight transaction symbol_size dso_size code_page_size local_ins_lat ins_lat local_p_stage_cyc p_stage_cyc addr, and in branch mode dso_from dso_to symbol_from symbol_to mispredict abort in_tx cycles addr_from addr_to, in memory mode symbol_daddr dso_daddr locked tlb mem snoop symbol_iaddr phys_daddr data_page_size blocked" },
		{ 'F', "fields", OPT_STRING, &a->fields, "key[,keys...]", "output field(s): overhead overhead_children sample period, and the --sort keys (+key,...: added to the default ones)" },
		{ 't', "field-separator", OPT_STRING, &rep->popts.field_sep, "separator", "separator for columns, no spaces will be added between columns '.' is reserved." },
		{ 'c', "comms", OPT_STRING, &a->comms, "comm[,comm...]", "only consider symbols in these comms" },
		{ 0, "pid", OPT_STRING, &a->pids, "pid[,pid...]", "only consider symbols in these pids" },
		{ 0, "tid", OPT_STRING, &a->tids, "tid[,tid...]", "only consider symbols in these tids" },
		{ 'C', "cpu", OPT_STRING, &a->cpus, "cpu", "list of cpus to profile" },
		{ 0, "time", OPT_STRING, &rep->time_str, "str", "Time span of interest (start,stop)" },
		{ 'd', "dsos", OPT_STRING, &a->dsos, "dso[,dso...]", "only consider symbols in these dsos" },
		{ 'S', "symbols", OPT_STRING, &a->symbols, "symbol[,symbol...]", "only consider these symbols" },
		{ 0, "socket-filter", OPT_CALLBACK, &socket_cb, "n", "only show processor socket that match with this filter" },
		{ 0, "symbol-filter", OPT_STRING, &rep->popts.symbol_filter, "filter", "only show symbols that (partially) match with this filter" },
		{ 0, "percent-limit", OPT_CALLBACK, &percent_limit_cb, "percent", "Don't show entries under that percent" },
		{ 0, "percentage", OPT_CALLBACK, &percentage_cb, "relative|absolute", "how to display percentage of filtered entries" },
		{ 'p', "parent", OPT_CALLBACK, &parent_cb, "regex", "regex filter to identify parent, see: '--sort parent'" },
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
		{ 0, "tasks", OPT_BOOL, &a->tasks, NULL, "Display recorded tasks" },
		{ 0, "mmaps", OPT_BOOL, &a->mmaps, NULL, "Display recorded tasks memory maps" },
		{ 0, "samples", OPT_CALLBACK, &samples_cb, "n", "Number of samples to save per histogram entry for individual browsing (the TUI's: no effect on the text)" },
		{ 0, "ns", OPT_NOOP, NULL, NULL, "Show times in nanosecs (of the time sort key, which analyze has not: no effect)" },
		{ 0, "skip-empty", OPT_BOOL, &rep->skip_empty, NULL, "Do not display empty (or dummy) events in the output" },
		{ 0, "symfs", OPT_CALLBACK, &symfs_cb, "directory", "Look for files with symbols relative to this directory" },
		OPT_REFUSE('k', "vmlinux", REFUSED_NOT_YET),
		{ 'f', "force", OPT_NOOP, NULL, NULL, "don't complain, do it (analyze reads files of any owner)" },
		{ 'M', "disassembler-style", OPT_NOOP_ARG, NULL, "disassembler style", "Specify disassembler style (e.g. -M intel for intel syntax) (annotate's: no effect on the text)" },
		{ 0, "objdump", OPT_NOOP_ARG, NULL, "path", "objdump binary to use for disassembly and annotations (annotate's: no effect on the text)" },
		{ 0, "asm-raw", OPT_NOOP, NULL, NULL, "Display raw encoding of assembly instructions (default) (annotate's: no effect on the text)" },
		{ 0, "source", OPT_NOOP, NULL, NULL, "Interleave source code with assembly code (default) (annotate's: no effect on the text)" },
		{ 0, "percent-type", OPT_CALLBACK, &percent_type_cb, "local-period", "Set percent type local/global-period/hits (annotate's: no effect on the text)" },
		{ 0, "ignore-vmlinux", OPT_NOOP, NULL, NULL, "don't load vmlinux even if found (analyze reads no vmlinux: kernel symbols come from kallsyms)" },
		{ 0, "prefix", OPT_STRING, &a->prefix, "prefix", "Add prefix to source file path names in programs (with --prefix-strip; annotate's: no effect on the text)" },
		{ 0, "prefix-strip", OPT_STRING, &a->prefix_strip, "N", "Strip first N entries of source file path name in programs (with --prefix)" },
		{ 0, "kallsyms", OPT_STRING, &a->kallsyms, "file", "kallsyms pathname" },
		{ 0, "children", OPT_BOOL, &a->children, NULL, "Accumulate callchains of children and show total overhead as well. Enabled by default, use --no-children to disable." },
		{ 'g', "call-graph", OPT_CALLBACK, &call_graph_cb, "print_type,threshold[,print_limit],order,sort_key[,branch],value", "Display call graph (stack chain/backtrace): print_type: graph, flat, fractal, folded or none; threshold: minimum call graph inclusion threshold (default 0.5); print_limit: maximum number of call graph entry; order: callee or caller (default callee); sort_key: function or address; value: percent, period or count", true },
		{ 0, "max-stack", OPT_CALLBACK, &max_stack_cb, "n", "Set the maximum stack depth when parsing the callchain, anything beyond the specified depth will be ignored. Default: kernel.perf_event_max_stack or 127" },
		{ 'G', "inverted", OPT_BOOL, &a->inverted, NULL, "alias for inverted call graph" },
		{ 'D', "dump-raw-trace", OPT_BOOL, &a->dump_raw, NULL, "dump raw trace in ASCII" },
		{ 0, "inline", OPT_BOOL, &a->show_inline, NULL, "Show inline function" },
		{ 0, "full-source-path", OPT_BOOL, &a->full_source_path, NULL, "Show full source file name path for source lines" },
		{ 0, "itrace", OPT_CALLBACK, &itrace_cb, "opts", "Instruction Tracing options (as script's; default: every branch)", false, true },
		{ 0, "no-itrace", OPT_BOOL, &rep->itrace_opts.dont_decode, NULL, "do not decode AUX-area traces", false, false },
		{ 0, "switch-on", OPT_STRING, &a->switch_on, "event", "Consider events after the ocurrence of this event" },
		{ 0, "switch-off", OPT_STRING, &a->switch_off, "event", "Stop considering events after the ocurrence of this event" },
		{ 0, "show-on-off-events", OPT_BOOL, &rep->evswitch.show_on_off, NULL, "Show the on/off switch events, used with --switch-on and --switch-off" },
		OPT_PROGRESS(&a->progress),
		/* the rest of perf 6.1's options (the manual's table lists every one) */
		OPT_REFUSE(0, "tui", REFUSED_UI),
		OPT_REFUSE('m', "modules", REFUSED_NOT_YET),
		OPT_REFUSE('v', "verbose", REFUSED_NOT_YET),
		OPT_REFUSE('w', "column-widths", REFUSED_NOT_YET),
		OPT_REFUSE(0, "branch-history", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle-kernel", REFUSED_NOT_YET),
		OPT_REFUSE(0, "disable-order", REFUSED_NOT_YET),
		OPT_REFUSE(0, "group", REFUSED_NOT_YET),
		OPT_REFUSE(0, "group-sort-idx", REFUSED_NOT_YET),
		OPT_REFUSE(0, "hierarchy", REFUSED_NOT_YET),
		OPT_REFUSE(0, "ignore-callees", REFUSED_NOT_YET),
		OPT_REFUSE(0, "raw-trace", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-cpu-utilization", REFUSED_NOT_YET),
		OPT_REFUSE(0, "show-ref-call-graph", REFUSED_NOT_YET),
		OPT_REFUSE(0, "stdio-color", REFUSED_NOT_YET),
		OPT_REFUSE(0, "time-quantum", REFUSED_NOT_YET),
		OPT_REFUSE(0, "total-cycles", REFUSED_NOT_YET),
		OPT_END_MARK,
	};
	int nr_args, ret;

	rep->max_stack = options__max_stack();
	rep->socket_filter = -1;
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

