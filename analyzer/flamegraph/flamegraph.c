/*
 * flamegraph: `analyze flamegraph` (see flamegraph.h). The reading thread keeps the model
 * current and resolves each sample's comm and frames' maps as script does
 * (sample_frames.h); the aggregator looks the symbols up, names the frames as
 * stackcollapse-perf.pl names perf script's lines, and adds the stack to the tree. Nothing
 * is kept per sample: a frame's names are made once per symbol, a stack's nodes once per
 * distinct path.
 */
#include "analyzer/commands.h"
#include "analyzer/flamegraph/flamegraph.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/hist/aggregate.h"
#include "analyzer/flamegraph/flamegraph_svg.h"
#include "analyzer/flamegraph/flamegraph_tree.h"
#include "analyzer/cli/name_list.h"
#include "analyzer/cli/options.h"
#include "analyzer/hist/sample_frames.h"
#include "analyzer/cli/session_warn.h"
#include "lib/error.h"
#include "lib/containers/hashmap.h"
#include "lib/progress.h"
#include "lib/xalloc.h"
#include "machine/inline.h"
#include "machine/machine.h"
#include "machine/unwind.h"
#include "readers/session.h"

static const char *const flamegraph_usage = "analyze flamegraph [<options>] [PATH]";

/* stackcollapse-perf.pl's $tidy_generic and $tidy_java, on one name (len bytes at s, in place) */
static size_t tidy_name(char *s, size_t len, bool java)
{
	size_t out = 0, cut = len;
	bool go_method = false;

	for (size_t i = 0; i < len; i++)
		if (s[i] == ';')
			s[i] = ':';
	/* Go's "net/http.(*Client).Do": a ".(", then a ")." somewhere after it */
	for (size_t i = 0; i + 1 < len && !go_method; i++) {
		if (s[i] != '.' || s[i + 1] != '(')
			continue;
		for (size_t j = i + 2; j + 1 < len && !go_method; j++)
			go_method = s[j] == ')' && s[j + 1] == '.';
		break;
	}
	/* anything else: from the first '(' on is an argument list, but "(anonymous namespace)" */
	for (size_t i = 0; i < len && !go_method; i++) {
		static const char anon[] = "anonymous namespace)";

		if (s[i] == '(' && (len - i - 1 < sizeof(anon) - 1 ||
				    memcmp(s + i + 1, anon, sizeof(anon) - 1) != 0)) {
			cut = i;
			break;
		}
	}
	for (size_t i = 0; i < cut; i++)
		if (s[i] != '"' && s[i] != '\'')
			s[out++] = s[i];
	if (java && out && s[0] == 'L' && memchr(s, '/', out)) {
		memmove(s, s + 1, out - 1);
		out--;
	}
	return out;
}

char *flamegraph_frame_names(const char *sym, const char *dso, bool java, u32 *nr)
{
	size_t sym_len = strlen(sym), dso_len = strlen(dso);
	/*
	 * Room for: SYM; a separator and "_[i]" for each of at most sym_len / 2 + 1 pieces; for
	 * each "[unknown]" among them (9 bytes at least apart), "[DSO]" instead.
	 */
	size_t size = sym_len + (sym_len / 2 + 1) * 5 + (sym_len / 9 + 1) * (dso_len + 2) + 1;
	char *names = xmalloc(size), *out = names;
	const char *p = sym, *end = sym + sym_len;

	*nr = 0;
	*names = '\0';
	if (*sym == '(')	/* perf's "(process name)" frames */
		return names;
	/* Perl's split: trailing empty pieces are dropped, an empty SYM gives none */
	while (end - sym >= 2 && end[-1] == '>' && end[-2] == '-')
		end -= 2;
	while (p < end) {
		const char *arrow = memmem(p, (size_t)(end - p), "->", 2);
		const char *stop = arrow ? arrow : end;
		size_t len = (size_t)(stop - p);
		char *name = *nr ? out + 1 : out;

		if (len == 9 && memcmp(p, "[unknown]", 9) == 0 && strcmp(dso, "[unknown]") != 0) {
			const char *base = strrchr(dso, '/');

			base = base ? base + 1 : dso;
			len = (size_t)sprintf(name, "[%s]", base);
		} else {
			memcpy(name, p, len);
		}
		len = tidy_name(name, len, java);
		if (*nr) {
			*out = ';';
			memcpy(name + len, "_[i]", 4);
			len += 4;
		}
		out = name + len;
		*out = '\0';
		++*nr;
		if (!arrow)
			break;
		p = arrow + 2;
	}
	return names;
}

/* A frame's names in the tree: ids[start .. start + nr) of struct flamegraph's name_ids. */
struct frame_names {
	u32 start, nr;
};

struct flamegraph {
	struct event_consumer consumer;
	struct perf_session session;
	struct machine machine;
	struct unwinder *unwinder;	/* --call-graph dwarf samples' user frames, or NULL */
	struct aggregate agg;
	struct name_list comms, pids, tids;
	/* the aggregator's: */
	struct flame_tree *tree;
	struct hashmap frames;	/* symbol (or dso | 1: none), | 4 for java -> index + 1 */
	struct frame_names *frame_names;
	size_t nr_frame_names, alloc_frame_names;
	u32 *name_ids;
	size_t nr_name_ids, alloc_name_ids;
	struct hashmap comms_seen;	/* comm string -> its node + 1 */
	struct inlines *inlines;	/* the functions inlined at unwound frames, as script */
	u64 nr_samples;
};

/* A sample as the reading thread resolved it. */
struct fg_item {
	const char *comm;	/* interned: lives as long as the machine */
	u32 nr_frames;
	u32 nr_unwound;		/* the last ones: unwound user frames of a dwarf sample */
	struct sample_frame frames[];	/* callee first */
};

/* The node under the root of a comm: stackcollapse-perf.pl's process name, blanks as '_' */
static u32 comm_node(struct flamegraph *fg, const char *comm)
{
	void *node = hashmap_find(&fg->comms_seen, (u64)(uintptr_t)comm);
	char *name;
	u32 id;

	if (node)
		return (u32)((uintptr_t)node - 1);
	name = xstrdup(comm);
	for (char *p = name; *p; p++)
		if (*p == ' ')
			*p = '_';
	id = flame_tree__child(fg->tree, FLAME_ROOT,
			       flame_tree__name(fg->tree, name, strlen(name)));
	free(name);
	hashmap_insert(&fg->comms_seen, (u64)(uintptr_t)comm, (void *)(uintptr_t)(id + 1));
	return id;
}

/*
 * The names of the frame at addr in dso, made on first sight of its symbol; *sym_name is the
 * symbol's own name, or NULL without one.
 */
static struct frame_names frame_names(struct flamegraph *fg, struct dso *dso, u64 addr, bool java,
				      const char **sym_name)
{
	struct addr_location al = { .dso = dso, .addr = addr };
	struct frame_names *fn;
	void *found;
	char *names, *p;
	u64 key;
	u32 nr;

	machine__resolve_symbol(&fg->machine, &al);
	*sym_name = al.sym ? symbol__name(al.symtab, al.sym) : NULL;
	/* symbols and dsos are 8-aligned: the low bits tell the kinds of key apart */
	key = al.sym ? (u64)(uintptr_t)al.sym : (u64)(uintptr_t)dso | 1;
	key |= java ? 4 : 0;
	found = hashmap_find(&fg->frames, key);
	if (found)
		return fg->frame_names[(uintptr_t)found - 1];

	names = flamegraph_frame_names(al.sym ? symbol__name(al.symtab, al.sym) : "[unknown]",
				       dso ? dso->long_name : "[unknown]", java, &nr);
	ARRAY_GROW(fg->frame_names, fg->alloc_frame_names, fg->nr_frame_names + 1);
	ARRAY_GROW(fg->name_ids, fg->alloc_name_ids, fg->nr_name_ids + nr);
	fn = &fg->frame_names[fg->nr_frame_names];
	fn->start = (u32)fg->nr_name_ids;
	fn->nr = nr;
	p = names;
	for (u32 i = 0; i < nr; i++) {
		char *sep = strchr(p, ';');
		size_t len = sep ? (size_t)(sep - p) : strlen(p);

		fg->name_ids[fg->nr_name_ids++] = flame_tree__name(fg->tree, p, len);
		p += len + 1;
	}
	free(names);
	hashmap_insert(&fg->frames, key, (void *)(uintptr_t)++fg->nr_frame_names);
	return *fn;
}

/*
 * The nodes under node of one function inlined at a frame: perf script shows it as
 * "ADDR NAME (inlined)", which stackcollapse-perf.pl reads as NAME in the dso "inlined".
 */
static u32 add_inlined(struct flamegraph *fg, u32 node, const char *name, bool java)
{
	u32 nr;
	char *names = flamegraph_frame_names(name, "inlined", java, &nr), *p = names;

	for (u32 i = 0; i < nr; i++) {
		char *sep = strchr(p, ';');
		size_t len = sep ? (size_t)(sep - p) : strlen(p);

		node = flame_tree__child(fg->tree, node, flame_tree__name(fg->tree, p, len));
		p += len + 1;
	}
	free(names);
	return node;
}

/* The aggregator's work: a sample's stack into the tree, from its comm to its leaf. */
static void add_stack(void *data, void *p)
{
	struct flamegraph *fg = data;
	struct fg_item *item = p;
	u32 node = comm_node(fg, item->comm);
	bool java = strcmp(item->comm, "java") == 0;

	for (u32 i = item->nr_frames; i-- > 0;) {
		const struct sample_frame *f = &item->frames[i];
		const char *sym_name;
		struct frame_names fn = frame_names(fg, f->dso, f->addr, java, &sym_name);
		const char *const *names = NULL;
		size_t n = 0;

		/* an unwound frame in inlined code: a frame a function, as script prints it */
		if (i >= item->nr_frames - item->nr_unwound && f->dso && sym_name)
			n = inlines__find(fg->inlines, f->dso, f->addr, sym_name, &names, NULL);
		if (!n) {	/* the frame alone */
			names = NULL;
			n = 1;
		}
		for (size_t r = n; r-- > 0;) {	/* innermost first: the outermost goes in first */
			if (names && names[r]) {
				node = add_inlined(fg, node, names[r], java);
				continue;
			}
			for (u32 k = 0; k < fn.nr; k++)
				node = flame_tree__child(fg->tree, node, fg->name_ids[fn.start + k]);
		}
	}
	flame_tree__add(fg->tree, node, 1);
	fg->nr_samples++;
}

static bool thread_filtered(struct flamegraph *fg, const struct thread *t)
{
	return (fg->comms.nr && !name_list__has(&fg->comms, thread__comm_str(t))) ||
	       (fg->pids.nr && !int_list__has(&fg->pids, t->pid)) ||
	       (fg->tids.nr && !int_list__has(&fg->tids, t->tid));
}

static int process_sample(struct flamegraph *fg, struct event_ctx *ctx)
{
	const struct perf_sample *sample = &ctx->sample;
	bool callchain = (ctx->evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
			 sample->callchain;
	struct thread *t = machine__findnew_thread(&fg->machine, (s32)sample->pid,
						   (s32)sample->tid);
	const u64 *chain = NULL;
	u64 user_at = SAMPLE_FRAMES_NO_USER_AT;
	u32 nr = 1;
	struct fg_item *item;

	if (thread_filtered(fg, t)) {
		thread__put(t);
		return 0;
	}
	/* dwarf samples: the unwound user frames, as script shows them */
	if (callchain)
		chain = sample_frames__chain(&fg->unwinder, &fg->session, &fg->machine, t, sample,
					     SAMPLE_MAX_STACK, &nr, &user_at);
	if (callchain && !chain)
		nr = 0;	/* perf could not unwind: the sample without frames */
	item = aggregate__slot(&fg->agg, sizeof(*item) + nr * sizeof(struct sample_frame));
	item->comm = thread__comm_str(t);
	item->nr_frames = nr;
	item->nr_unwound = chain && user_at != SAMPLE_FRAMES_NO_USER_AT ?
				   sample_frames__count_unwound_user(chain, user_at) : 0;
	if (callchain) {
		if (chain)
			sample_frames__resolve(&fg->machine, t, chain, user_at, item->frames, nr);
	} else {	/* the ip, as perf script's line without a callchain resolves it */
		struct addr_location al;

		machine__resolve_map(&fg->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				     sample->ip, &al);
		item->frames[0].dso = al.map ? al.map->dso : NULL;
		item->frames[0].addr = al.addr;
	}
	thread__put(t);
	aggregate__commit(&fg->agg);
	return 0;
}

static int flamegraph_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct flamegraph *fg = container_of(consumer, struct flamegraph, consumer);
	const struct perf_event_header *ev = ctx->event;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return process_sample(fg, ctx);
	case PERF_RECORD_HEADER_BUILD_ID:	/* pipe mode: build-ids come as records */
		machine__add_build_ids(&fg->machine, (const u8 *)ev, ev->size, true);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:	/* for the warning at the end */
		events_stats__add_lost(&fg->session.stats, ev);
		return 0;
	default:
		if (machine__process_event(&fg->machine, ev, ctx->sample.time)) {
			error_set("%s: offset %#llx: %s", fg->session.path,
				  (unsigned long long)ctx->file_offset, error_get());
			return -1;
		}
		return 0;
	}
}

struct flamegraph_args {
	const char *input, *output, *title, *width, *minwidth, *jobs, *symfs, *kallsyms;
	const char *comms, *pids, *tids;
	bool folded;
	bool progress;
};

/* --width and --minwidth: 0, or -1 after the usage error */
static int parse_geometry(const struct flamegraph_args *a, struct flame_svg_opts *svg,
			  const struct option *opts)
{
	char *end;

	svg->title = a->title;
	svg->width = FLAME_SVG_WIDTH;
	svg->minwidth = FLAME_SVG_MINWIDTH;
	if (a->width) {
		unsigned long w = strtoul(a->width, &end, 10);

		if (*end || end == a->width || w < 100 || w > 1000000) {
			fputs("  Error: --width needs a number of pixels from 100 to 1000000\n",
			      stderr);
			usage_with_options(flamegraph_usage, opts);
			return -1;
		}
		svg->width = (unsigned int)w;
	}
	if (a->minwidth) {
		double m = strtod(a->minwidth, &end);

		if (*end || end == a->minwidth || !(m >= 0) || m > svg->width) {
			fputs("  Error: --minwidth needs a number of pixels from 0 to the width\n",
			      stderr);
			usage_with_options(flamegraph_usage, opts);
			return -1;
		}
		svg->minwidth = m;
	}
	return 0;
}

/* The tree, written to the output; 0 or 1 after saying why. */
static int write_output(struct flamegraph *fg, const struct flamegraph_args *a,
			const struct flame_svg_opts *svg)
{
	bool to_stdout = strcmp(a->output, "-") == 0;
	FILE *out = to_stdout ? stdout : fopen(a->output, "w");
	int ret;

	if (!out) {
		fprintf(stderr, "analyze flamegraph: cannot write %s: %s\n", a->output,
			strerror(errno));
		return 1;
	}
	errno = 0;
	ret = a->folded ? flame_tree__fprintf_folded(fg->tree, out)
			: flame_svg__write(fg->tree, svg, out);
	if (!to_stdout && fclose(out) && !ret)
		ret = -1;
	if (ret && errno == EPIPE)	/* the reader went away (| head): it has seen enough */
		return 0;
	if (ret) {
		fprintf(stderr, "analyze flamegraph: writing %s: %s\n", to_stdout ? "the output" :
			a->output, strerror(errno ? errno : EIO));
		return 1;
	}
	return 0;
}

static int run(struct flamegraph *fg, const struct flamegraph_args *a,
	       const struct flame_svg_opts *svg, int nr_jobs, const struct analyze_config *cfg)
{
	struct symsrc_config symsrc = { 0 };
	struct workqueue *wq = NULL;
	struct dso_loader loader;
	char *symfs_cache;
	int ret;

	if (perf_session__open(&fg->session, a->input)) {
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	symfs_cache = options__symsrc(&symsrc, cfg->buildid_dir, a->symfs, a->kallsyms,
						cfg->symcache);
	/* -j N: N threads in all, this one included */
	wq = nr_jobs > 1 ? workqueue__new(nr_jobs - 1) : NULL;
	fg->session.wq = wq;
	sample_frames__init_machine(&fg->machine, &fg->session, &symsrc, &loader, wq);
	aggregate__init(&fg->agg, wq, add_stack, NULL, fg);
	fg->tree = flame_tree__new();
	fg->inlines = inlines__new(&fg->machine.symsrc);
	hashmap_init(&fg->frames);
	hashmap_init(&fg->comms_seen);

	progress_init("analyze flamegraph", !a->progress, false);
	progress_phase("reading", perf_session__data_bytes(&fg->session));
	ret = perf_session__process(&fg->session, &fg->consumer);
	progress_phase("loading symbols", 0);
	aggregate__exit(&fg->agg);	/* every stack in */
	progress_done();
	session_warn_data_files(&fg->session, stderr);
	if (ret) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else if (!fg->nr_samples) {
		fprintf(stderr, "analyze flamegraph: %s has no samples%s: no flame graph written\n",
			fg->session.path, fg->comms.nr || fg->pids.nr || fg->tids.nr ?
			" left by --comms, --pid and --tid" : "");
		ret = 1;
	} else {
		session_warn_about_errors(&fg->session.stats, false, stderr);
		ret = write_output(fg, a, svg);
	}

	hashmap_exit(&fg->frames);
	hashmap_exit(&fg->comms_seen);
	free(fg->frame_names);
	free(fg->name_ids);
	flame_tree__delete(fg->tree);
	inlines__delete(fg->inlines);
	if (wq)
		workqueue__destroy(wq);	/* symbol tables still loading refer to dsos */
	unwinder__delete(fg->unwinder);
	machine__exit(&fg->machine);
	dso_loader__exit(&loader);
	free(symfs_cache);	/* after the workers: a table loading looks its file up under it */
	perf_session__close(&fg->session);
	return ret;
}

int cmd_flamegraph(int argc, const char **argv, const struct analyze_config *cfg)
{
	struct flamegraph_args a = { .progress = true };
	struct option opts[] = {
		{ 'i', "input", OPT_STRING, &a.input, "file", "input file name (default: perf.data)" },
		{ 'o', "output", OPT_STRING, &a.output, "file", "output file, - for the standard output (default: flamegraph.svg; --folded: -)" },
		{ 0, "title", OPT_STRING, &a.title, "text", "title of the graph (default: Flame Graph)" },
		{ 0, "folded", OPT_BOOL, &a.folded, NULL, "write the folded stacks (comm;caller;...;callee count, sorted) instead of the SVG" },
		{ 0, "width", OPT_STRING, &a.width, "pixels", "width of the image (default: 1200)" },
		{ 0, "minwidth", OPT_STRING, &a.minwidth, "pixels", "leave out frames narrower than this (default: 0.1)" },
		{ 0, "comms", OPT_STRING, &a.comms, "comm[,comm...]", "only samples of these comms" },
		{ 0, "pid", OPT_STRING, &a.pids, "pid[,pid...]", "only samples of these pids" },
		{ 0, "tid", OPT_STRING, &a.tids, "tid[,tid...]", "only samples of these tids" },
		{ 0, "symfs", OPT_STRING, &a.symfs, "directory", "Look for files with symbols relative to this directory" },
		{ 0, "kallsyms", OPT_STRING, &a.kallsyms, "file", "kallsyms pathname" },
		{ 'k', "vmlinux", OPT_NOOP_ARG, NULL, "file", "vmlinux pathname (not used)" },
		{ 'j', "jobs", OPT_STRING, &a.jobs, "n", "threads in all for reading and loading symbols (default: online CPUs)" },
		OPT_PROGRESS(&a.progress),
		OPT_END_MARK,
	};
	struct flamegraph fg = { .consumer.deliver = flamegraph_deliver };
	struct flame_svg_opts svg;
	int nr_args, nr_jobs, ret;

	nr_args = parse_options(argc, argv, opts, flamegraph_usage);
	if (nr_args < 0)
		return 129;
	if (!options__input(nr_args, argv, &a.input, flamegraph_usage, opts))
		return 129;
	nr_jobs = options__jobs(a.jobs, flamegraph_usage, opts);
	if (nr_jobs < 0 || parse_geometry(&a, &svg, opts))
		return 129;
	if (!a.output)
		a.output = a.folded ? "-" : "flamegraph.svg";
	/* a closed pipe is the reader saying it has seen enough: EPIPE, not a signal */
	signal(SIGPIPE, SIG_IGN);
	name_list__parse(&fg.comms, a.comms);
	name_list__parse(&fg.pids, a.pids);
	name_list__parse(&fg.tids, a.tids);
	ret = run(&fg, &a, &svg, nr_jobs, cfg);
	name_list__free(&fg.comms);
	name_list__free(&fg.pids);
	name_list__free(&fg.tids);
	return ret;
}
