/*
 * report: `analyze report`, perf report --stdio's histogram view. Reads the session in
 * perf's delivery order, keeps the machine model current, resolves and filters samples into
 * one histogram per event, and prints them as perf 6.1 does.
 */
#include "analyzer/commands.h"
#include "analyzer/report/report_internal.h"

#include <errno.h>
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

static const char *const tips[] = {
	"analyze reads perf.data files many times faster than perf report",
	"Use analyze report --sort dso,sym to see where time goes per shared object",
	"Use analyze report --percent-limit N to hide small entries",
	"Use analyze report -n to show the number of samples of each entry",
};

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
	/* perf's branch and memory modes: none */
	children &= rep->has_callchain && !rep->sort.branch && !rep->sort.mem;
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
	rep->popts.one_thread = rep->nr_jobs == 1;
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
	if (sort_list__has_src(&rep->sort) && !rep->inlines) {
		rep->inlines = inlines__new(&rep->machine.symsrc);
		inlines__set_full_path(rep->inlines, a->full_source_path);
	}
	if (sort_list__has_extra(&rep->sort))
		rep->extras = hist_extras__new();
	rep->sample_values = sort_list__has_values(&rep->sort);
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
	/* their texts take the room of what the children view's entries keep (hist.h) */
	else if ((sort_list__has_extra(&rep->sort) || sort_list__has(&rep->sort, SORT_ADDR)) &&
		 rep->session.nr_evsels && rep->hists[0].cumulate)
		what = "--sort srcline, srcfile, addr or a sample value in the children view (use "
		       "--no-children)";
	/* perf's first tree (symbols without dsos) would compare the texts as they come */
	else if (sort_list__has_src(&rep->sort) && lookups_can_fail(&rep->sort))
		what = "--sort srcline or srcfile with symbol and no dso";
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

/* perf's report__setup_sample_type: whether an event's samples have that field */
static bool report__has_sample(const struct report *rep, u64 type)
{
	for (size_t i = 0; i < rep->session.nr_evsels; i++)
		if (rep->session.evsels[i].attr.sample_type & type)
			return true;
	return false;
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

	if (evswitch__init(&rep->evswitch, &rep->session, a->switch_on, a->switch_off))
		return 256 - ENOENT;	/* perf's -ENOENT, before the header */
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
	if (rep->sort.branch && !rep->session.is_pipe && body &&
	    !report__has_sample(rep, PERF_SAMPLE_BRANCH_STACK)) {
		fflush(stdout);
		fprintf(stderr, "Error:\nSelected -b but no branch data. Did you call perf record without -b?\n");
		return 0;	/* perf 6.1's status */
	}
	if (rep->sort.mem && !rep->session.is_pipe && body &&
	    !report__has_sample(rep, PERF_SAMPLE_DATA_SRC)) {
		fflush(stdout);
		fprintf(stderr, "Error:\nSelected --mem-mode but no mem data. Did you call perf record without -d?\n");
		return 0;	/* perf 6.1's status */
	}
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
 * symbols loading), the counts and warnings of the records read (those past the first keep,
 * the session's own from its opening). Made again empty.
 */
static void report__reset_model(struct report *rep, size_t keep)
{
	struct perf_session *s = &rep->session;

	if (rep->wq)
		workqueue__flush(rep->wq);	/* symbol tables still loading refer to dsos */
	machine__exit(&rep->machine);
	dso_loader__exit(&rep->loader);
	report__setup_model(rep, true);
	memset(&s->stats, 0, sizeof(s->stats));
	for (size_t i = keep; i < s->nr_data_warnings; i++)
		free(s->data_warnings[i]);
	s->nr_data_warnings = keep;
}

/* Every record through the model into the histograms (or the raw dump). 0, or 1 on error. */
static int report__run(struct report *rep, const struct report_args *a)
{
	size_t warnings = rep->session.nr_data_warnings;	/* the session's own, at open */
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
			report__reset_model(rep, warnings);
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

/* perf's sort_order as memory mode's header names it: with ipc_null, or else its default */
static const char *report__mem_sort_order(const struct report_args *a)
{
	static char order[512];

	if (!a->sort_str)
		return "local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,"
		       "local_ins_lat,local_p_stage_cyc";
	snprintf(order, sizeof(order), strstr(a->sort_str, "symbol") ? "%s,ipc_null" : "%s",
		 a->sort_str);
	return order;
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
		hists__resolve_srclines(h, rep->inlines, rep->extras);
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
			if (rep->sort.mem)	/* perf's period there is the weight */
				printf("# Total weight : %llu\n# Sort order   : %s\n",
				       (unsigned long long)(rel ? kept.shown_period : h->total_period),
				       report__mem_sort_order(a));
			else
				printf("# Event count (approx.): %llu\n",
				       (unsigned long long)(rel ? kept.shown_period : h->total_period));
			if (rep->socket_filter > -1)
				printf("# Processor Socket: %d\n", rep->socket_filter);
			printf("#\n");
		}
		hists__fprintf(h, &rep->popts, stdout);
		printf("\n\n");
	}
	progress_done();
	if (!a->quiet)
		printf("#\n# (Tip: %s)\n#\n", tips[rep->session.size % ARRAY_SIZE(tips)]);
	if (a->threads && report__print_threads(rep, a))
		return 1;
	if (rep->sort.branch)	/* perf's, after its other output */
		branch_stats__fprintf(&rep->branch_stats, stdout);
	return 0;
}

static void report__exit(struct report *rep)
{
	dump__exit(&rep->dump);
	aggregate__exit(&rep->agg);
	for (size_t i = 0; i < rep->nr_hists; i++)
		hists__exit(&rep->hists[i]);
	free(rep->hists);
	hist_extras__delete(rep->extras);	/* after the entries that point into it */
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
	if (rep->wq)
		workqueue__destroy(rep->wq);	/* symbol tables still loading refer to dsos */
	rep->wq = NULL;
	machine__exit(&rep->machine);
	dso_loader__exit(&rep->loader);
	/* after the workers: a table loading looks its file up under it */
	free(rep->symfs_cache);
	perf_session__close(&rep->session);
}

/* --tasks and --mmaps: perf's task tree (and maps) instead of a histogram, analyze tasks' */
static int report__tasks(const struct analyze_config *cfg, const struct report_args *a)
{
	const char *argv[8];
	int argc = 0;

	argv[argc++] = "-i";
	argv[argc++] = a->input;
	if (a->mmaps)
		argv[argc++] = "--mmaps";
	if (a->jobs) {
		argv[argc++] = "-j";
		argv[argc++] = a->jobs;
	}
	if (!a->progress)
		argv[argc++] = "--no-progress";
	argv[argc] = NULL;
	return cfg->tasks(argc, argv);
}

int cmd_report(int argc, const char **argv, const struct analyze_config *cfg)
{
	struct report rep = { .consumer.deliver = report_deliver,
			      .consumer.prefetch = report_prefetch,
			      .skip_empty = true };	/* perf 6.1's report.skip-empty default */
	struct report_args a = { .children = true, .show_inline = true, .progress = true,
				 .branch_stack = 1 };
	int ret;

	hists__branch_run_start();
	callchain_param__init(&rep.cc_param);
	hashmap_init(&rep.maps_versions);
	hashmap_init(&rep.final_comms);
	ret = report__parse(&rep, &a, argc, argv);
	if (ret >= 0)
		return ret;
	if (a.tasks || a.mmaps)
		return report__tasks(cfg, &a);
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
	ret = report__setup_modes(&rep, &a);
	if (ret >= 0) {
		perf_session__close(&rep.session);
		return ret;
	}
	progress_init("analyze report", !a.progress, a.dump_raw);
	report__setup_machine(&rep, &a, cfg);
	report__setup_hists(&rep, &a);
	report__setup_callchains(&rep, &a);
	if (report__unsupported(&rep) || report__stitch_lbr_unsupported(&rep, &a)) {
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
