/*
 * annotate: `analyze annotate` (perf annotate --stdio 6.1). Reads the samples, counts them by
 * symbol and by address in it, then prints each sampled symbol in perf's order (the samples'
 * period, most first, as perf's histogram sorted by dso,symbol orders them), disassembled
 * from its dso's file (annotate_print.c), once for each event that has samples in it.
 */
#include "analyzer/commands.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/annotate/annotate.h"
#include "analyzer/annotate/disasm.h"
#include "analyzer/cli/name_list.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/session_warn.h"
#include "analyzer/hist/sample_frames.h"
#include "lib/containers/hashmap.h"
#include "lib/error.h"
#include "lib/progress.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "machine/inline.h"
#include "machine/machine.h"
#include "readers/session.h"
#include "symtab/symtab.h"

static const char *const annotate_usage = "analyze annotate [<options>]";

/* A sampled symbol of one event. */
struct ann_sym {
	struct dso *dso;	/* reference */
	const struct symtab *symtab;
	const struct symbol *sym;
	u32 evsel;
	u64 first;	/* the number of its first sample */
	struct ann_hist hist;
};

struct annotate {
	struct event_consumer consumer;
	struct perf_session session;
	struct machine machine;
	const char *sym_filter;	/* -s or the argument: only this symbol */
	struct name_list dsos;	/* -d: only these dsos' symbols */
	u64 *event_period;	/* by evsel: the samples kept, for the percentages */
	struct hashmap by_sym;	/* (symbol, evsel) -> index + 1 in syms */
	struct ann_sym *syms;
	size_t nr_syms, alloc_syms;
	u64 nr_samples;
};

static struct ann_sym *sym_of(struct annotate *a, const struct addr_location *al, u32 evsel)
{
	u64 key = (u64)(uintptr_t)al->sym ^ ((u64)evsel << 56);
	void *found = hashmap_find(&a->by_sym, key);
	struct ann_sym *s;

	if (found)
		return &a->syms[(uintptr_t)found - 1];
	ARRAY_GROW(a->syms, a->alloc_syms, a->nr_syms + 1);
	s = &a->syms[a->nr_syms];
	memset(s, 0, sizeof(*s));
	s->dso = dso__get(al->dso);
	s->symtab = al->symtab;
	s->sym = al->sym;
	s->evsel = evsel;
	s->first = a->nr_samples;
	s->hist.size = symtab__symbol_end(al->symtab, al->sym) - al->sym->start;
	s->hist.period = xcalloc(s->hist.size ? s->hist.size : 1, sizeof(u64));
	s->hist.nr = xcalloc(s->hist.size ? s->hist.size : 1, sizeof(u32));
	hashmap_insert(&a->by_sym, key, (void *)(uintptr_t)++a->nr_syms);
	return s;
}

static int process_sample(struct annotate *a, struct event_ctx *ctx)
{
	const struct perf_sample *sample = &ctx->sample;
	struct thread *t = machine__findnew_thread(&a->machine, (s32)sample->pid,
						   (s32)sample->tid);
	struct addr_location al;
	struct ann_sym *s;
	u64 off;

	machine__resolve_map(&a->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
			     sample->ip, &al);
	if (al.map)
		machine__resolve_symbol(&a->machine, &al);
	/* perf's evsel__add_sample: with a symbol asked for, the others' samples are dropped */
	if (a->sym_filter && (!al.sym || strcmp(a->sym_filter, symbol__name(al.symtab, al.sym)))) {
		thread__put(t);
		return 0;
	}
	/* -d: perf filters the others out (al.filtered) before its histogram counts them */
	if (a->dsos.nr && (!al.dso || (!name_list__has(&a->dsos, al.dso->short_name) &&
				       !name_list__has(&a->dsos, al.dso->long_name)))) {
		thread__put(t);
		return 0;
	}
	a->nr_samples++;
	a->event_period[ctx->evsel->idx] += sample->period;
	if (al.sym) {
		s = sym_of(a, &al, (u32)ctx->evsel->idx);
		off = al.addr - al.sym->start;
		if (off < s->hist.size) {
			s->hist.period[off] += sample->period;
			s->hist.nr[off]++;
		}
		s->hist.total_period += sample->period;
		s->hist.total_nr++;
	}
	thread__put(t);
	return 0;
}

static int annotate_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct annotate *a = container_of(consumer, struct annotate, consumer);
	const struct perf_event_header *ev = ctx->event;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return ctx->evsel ? process_sample(a, ctx) : 0;
	case PERF_RECORD_HEADER_BUILD_ID:
		machine__add_build_ids(&a->machine, (const u8 *)ev, ev->size, true);
		return 0;
	default:
		if (machine__process_event(&a->machine, ev, ctx->sample.time)) {
			error_set("%s: offset %#llx: %s", a->session.path,
				  (unsigned long long)ctx->file_offset, error_get());
			return -1;
		}
		return 0;
	}
}

/*
 * perf's output order of the entries of one event: period, most first; then the sort keys'
 * se_sort (hist_order.c key_sort): dso names, symbol names, in ascending order
 */
static int by_period(const void *pa, const void *pb)
{
	const struct ann_sym *a = pa, *b = pb;
	int c;

	if (a->evsel != b->evsel)
		return a->evsel < b->evsel ? -1 : 1;
	if (a->hist.total_period != b->hist.total_period)
		return a->hist.total_period > b->hist.total_period ? -1 : 1;
	c = strcmp(a->dso->short_name, b->dso->short_name);
	if (c)
		return c;
	c = strcmp(symbol__name(a->symtab, a->sym), symbol__name(b->symtab, b->sym));
	if (c)
		return c;
	return a->first < b->first ? -1 : a->first > b->first;
}

struct dso_file {
	struct dso *dso;
	struct ann_file *file;	/* NULL: none found */
};

static struct ann_file *file_of(struct annotate *a, struct hashmap *files, struct dso *dso)
{
	void *found = hashmap_find(files, (u64)(uintptr_t)dso);
	char path[4096];
	struct ann_file *f = NULL;

	if (found)
		return found == (void *)1 ? NULL : found;
	if (dso->kind == DSO_KIND_USER &&
	    !symtab__disassemble_file(&a->machine.symsrc, dso->long_name, dso->build_id,
			      dso->build_id_size, path, sizeof(path)))
		f = ann_file__open(path);
	hashmap_insert(files, (u64)(uintptr_t)dso, f ? (void *)f : (void *)1);
	return f;
}

static int print_annotations(struct annotate *a, struct ann_print_opts *opts, double limit)
{
	struct disasm *d = disasm__new();
	struct hashmap files;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "analyze annotate: cannot load the capstone library\n");
		return 1;
	}
	hashmap_init(&files);
	if (a->nr_syms)	/* (qsort takes no NULL) */
		qsort(a->syms, a->nr_syms, sizeof(*a->syms), by_period);
	for (size_t i = 0; i < a->nr_syms; i++) {
		struct ann_sym *s = &a->syms[i];
		struct ann_file *f;

		opts->event_period = a->event_period[s->evsel];
		opts->dso = s->dso;
		/* --percent-limit: of the event's period (perf's hists__total_period) */
		if (limit > 0 && (!opts->event_period ||
				  100.0 * (double)s->hist.total_period / (double)opts->event_period <
					  limit))
			continue;
		f = file_of(a, &files, s->dso);
		if (!f)
			continue;
		ann_print(stdout, f, d, s->sym->start, &s->hist,
			  opts->full_path ? s->dso->long_name : s->dso->short_name,
			  a->session.evsels[s->evsel].name, opts);
	}
	for (size_t i = 0; i < a->nr_syms; i++) {
		void *f = hashmap_find(&files, (u64)(uintptr_t)a->syms[i].dso);

		if (f && f != (void *)1) {
			ann_file__close(f);
			hashmap_insert(&files, (u64)(uintptr_t)a->syms[i].dso, (void *)1);
		}
	}
	hashmap_exit(&files);
	disasm__delete(d);
	return ret;
}

int cmd_annotate(int argc, const char **argv, const struct analyze_config *cfg)
{
	const char *input = NULL, *symfs = NULL, *symbol = NULL, *jobs = NULL, *dsos = NULL;
	const char *percent_type = NULL, *limit = NULL;
	struct workqueue *wq;
	bool stdio = false, progress = true, quiet = false, skip_missing = false, source = true;
	struct ann_print_opts popts = { 0 };
	struct option opts[] = {
		/* perf's order (which two an ambiguous prefix names), then analyze's own */
		{ 'i', "input", OPT_STRING, &input, "file", "input file name" },
		{ 'd', "dsos", OPT_STRING, &dsos, "dso[,dso...]", "only consider symbols in these dsos" },
		{ 's', "symbol", OPT_STRING, &symbol, "symbol", "symbol to annotate" },
		{ 'f', "force", OPT_NOOP, NULL, NULL, "don't complain, do it (analyze reads files of any owner)" },
		OPT_REFUSE('v', "verbose", REFUSED_NOT_YET),
		{ 'q', "quiet", OPT_BOOL, &quiet, NULL, "do now show any warnings or messages" },
		OPT_REFUSE('D', "dump-raw-trace", REFUSED_NOT_YET),
		OPT_REFUSE(0, "tui", REFUSED_UI),
		{ 0, "stdio", OPT_BOOL, &stdio, NULL, "Use the stdio interface" },
		OPT_REFUSE(0, "stdio2", REFUSED_NOT_YET),
		OPT_REFUSE(0, "ignore-vmlinux", REFUSED_NOT_YET),
		OPT_REFUSE('k', "vmlinux", REFUSED_NOT_YET),
		OPT_REFUSE('m', "modules", REFUSED_NOT_YET),
		{ 'l', "print-line", OPT_BOOL, &popts.print_line, NULL, "print matching source lines (may be slow)" },
		{ 'P', "full-paths", OPT_BOOL, &popts.full_path, NULL, "Don't shorten the displayed pathnames" },
		OPT_REFUSE('C', "cpu", REFUSED_NOT_YET),
		{ 0, "symfs", OPT_STRING, &symfs, "directory", "Look for files with symbols relative to this directory" },
		{ 0, "source", OPT_BOOL, &source, NULL, "Interleave source code with assembly code (default; the source's text: not yet)" },
		{ 0, "asm-raw", OPT_BOOL, &popts.asm_raw, NULL, "Display raw encoding of assembly instructions (default)" },
		OPT_REFUSE('M', "disassembler-style", REFUSED_NOT_YET),
		{ 0, "objdump", OPT_NOOP_ARG, NULL, "path", "objdump binary to use for disassembly and annotations (not used: capstone disassembles)" },
		OPT_REFUSE(0, "prefix", REFUSED_NOT_YET),
		OPT_REFUSE(0, "prefix-strip", REFUSED_NOT_YET),
		{ 0, "skip-missing", OPT_BOOL, &skip_missing, NULL, "Skip symbols that cannot be annotated (always, with --stdio)" },
		OPT_REFUSE(0, "group", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle", REFUSED_NOT_YET),
		OPT_REFUSE(0, "demangle-kernel", REFUSED_NOT_YET),
		{ 0, "show-total-period", OPT_BOOL, &popts.show_total_period, NULL, "Show a column with the sum of periods" },
		{ 'n', "show-nr-samples", OPT_BOOL, &popts.show_nr_samples, NULL, "Show a column with the number of samples" },
		OPT_REFUSE(0, "stdio-color", REFUSED_NOT_YET),
		{ 0, "percent-type", OPT_STRING, &percent_type, "local-period", "Set percent type local/global-period/hits" },
		{ 0, "percent-limit", OPT_STRING, &limit, "percent", "Don't show entries under that percent" },
		OPT_REFUSE(0, "itrace", REFUSED_NOT_YET),
		{ 'j', "jobs", OPT_STRING, &jobs, "n", "threads in all for reading and loading symbols (default: online CPUs)" },
		OPT_PROGRESS(&progress),
		OPT_END_MARK,
	};
	struct annotate a = { .consumer.deliver = annotate_deliver };
	struct symsrc_config symsrc = { 0 };
	struct dso_loader loader;
	char *symfs_cache;
	int nr_args, nr_jobs, ret;

	nr_args = parse_options(argc, argv, opts, annotate_usage);
	if (nr_args < 0)
		return 129;
	if (nr_args > 1) {	/* perf: one symbol argument at most */
		usage_with_options(annotate_usage, opts);
		return 129;
	}
	nr_jobs = options__jobs(jobs, annotate_usage, opts);
	if (nr_jobs < 0)
		return 129;
	if (percent_type) {
		int t = ann_percent__parse(percent_type);

		if (t < 0) {
			usage_with_options(annotate_usage, opts);
			return 129;
		}
		popts.percent_type = (enum ann_percent)t;
	}
	a.sym_filter = nr_args ? argv[0] : symbol;
	name_list__parse(&a.dsos, dsos);
	if (!input)
		input = "perf.data";
	signal(SIGPIPE, SIG_IGN);
	if (perf_session__open(&a.session, input)) {
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	symfs_cache = options__symsrc(&symsrc, cfg->buildid_dir, symfs, NULL, cfg->symcache);
	/* -j N: N threads in all, this one included; the others load symbol tables */
	wq = nr_jobs > 1 ? workqueue__new(nr_jobs - 1) : NULL;
	a.session.wq = wq;
	sample_frames__init_machine(&a.machine, &a.session, &symsrc, &loader, wq);
	a.event_period = xcalloc(a.session.nr_evsels + 1, sizeof(u64));
	hashmap_init(&a.by_sym);
	progress_init("analyze annotate", !progress, false);
	progress_phase("reading", perf_session__data_bytes(&a.session));
	ret = perf_session__process(&a.session, &a.consumer);
	progress_done();
	if (!quiet)
		session_warn_data_files(&a.session, stderr);
	if (ret) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else if (!a.nr_samples) {	/* perf says so, and exits with 0 */
		fprintf(stderr, "Error:\nThe %s data has no samples!\n", a.session.path);
	} else {
		if (popts.print_line) {
			popts.inlines = inlines__new(&a.machine.symsrc);
			inlines__set_full_path(popts.inlines, popts.full_path);
		}
		ret = print_annotations(&a, &popts, limit ? strtof(limit, NULL) : 0);
		inlines__delete(popts.inlines);
		free(popts.prev_path);
	}
	for (size_t i = 0; i < a.nr_syms; i++) {
		free(a.syms[i].hist.period);
		free(a.syms[i].hist.nr);
		dso__put(a.syms[i].dso);
	}
	free(a.syms);
	free(a.event_period);
	name_list__free(&a.dsos);
	hashmap_exit(&a.by_sym);
	if (wq)
		workqueue__destroy(wq);	/* symbol tables still loading refer to dsos */
	machine__exit(&a.machine);
	dso_loader__exit(&loader);
	free(symfs_cache);
	perf_session__close(&a.session);
	return ret;
}
