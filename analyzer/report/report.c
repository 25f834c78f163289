/*
 * report: `analyze report`, perf report --stdio's histogram view. Reads the session in
 * perf's delivery order, keeps the machine model current, resolves and filters samples into
 * one histogram per event, and prints them as perf 6.1 does.
 */
#include "analyzer/commands.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/hist/aggregate.h"
#include "analyzer/hist/callchain.h"
#include "analyzer/output/dump.h"
#include "analyzer/output/header.h"
#include "analyzer/hist/hist.h"
#include "analyzer/itrace/itrace.h"
#include "analyzer/cli/name_list.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/session_warn.h"
#include "lib/error.h"
#include "lib/hashmap.h"
#include "lib/xxhash_inline.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "machine/inline.h"
#include "machine/unwind.h"
#include "readers/evsel_name.h"
#include "readers/order.h"
#include "readers/session.h"

static const char *const report_usage = "analyze report [<options>]";

struct report {
	struct event_consumer consumer;
	struct perf_session session;
	struct machine machine;
	struct aggregate agg;
	u64 nr_held;	/* samples delivered while the aggregator holds (a check every 1024) */
	struct sort_list sort;
	struct hists *hists;	/* one per evsel */
	size_t nr_hists;
	int *sockets;	/* from CPU_TOPOLOGY, read at the first sample (pipes bring it late) */
	int nr_cpus;
	bool sockets_read;
	struct name_list comms, dsos, symbols;
	struct name_list pids, tids;
	bool stats_mode;
	bool stats_tool;	/* --stats itself, not -D: perf's stats_setup tool */
	bool print_features;	/* pipe mode with --header: features as their records arrive */
	bool header_only;	/* pipe mode with --header-only: nothing but those */
	bool show_info;
	bool need_parent;
	bool exclude_other;	/* -x: samples without a parent are filtered */
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
	/* AUX-area traces: decoded samples go to one more histogram, after the events' */
	struct itrace_opts itrace_opts;
	struct itrace *itrace;
	struct itrace_consumer itrace_consumer;
	size_t aux_hists;	/* a file (not a pipe or directory): hists[nr_evsels + i] are the
				   decoder's, one per synthesized event */
	bool no_decode;	/* --stats, -D: perf counts the records, decodes nothing */
};

/* perf's thread__is_filtered: by the thread's comm as it is at the sample. */
static bool thread_filtered(struct report *rep, const struct thread *t)
{
	if (rep->comms.nr && !name_list__has(&rep->comms, thread__comm_str(t)))
		return true;
	if (rep->pids.nr && !int_list__has(&rep->pids, t->pid))
		return true;
	if (rep->tids.nr && !int_list__has(&rep->tids, t->tid))
		return true;
	return false;
}

/* The dso and symbol lists of perf's machine__resolve. */
static bool symbol_filtered(struct report *rep, const struct addr_location *al)
{
	if (rep->dsos.nr) {
		if (!al->dso)
			return true;
		if (!name_list__has(&rep->dsos, al->dso->short_name) &&
		    !(al->dso->short_name != al->dso->long_name &&
		      name_list__has(&rep->dsos, al->dso->long_name)))
			return true;
	}
	if (rep->symbols.nr) {
		char addr[32];

		if (!al->sym)
			return true;
		if (name_list__has(&rep->symbols, symbol__name(al->symtab, al->sym)))
			return false;
		snprintf(addr, sizeof(addr), "0x%llx",
			 (unsigned long long)(al->map->identity ? al->sym->start
						: al->sym->start - al->map->pgoff + al->map->start));
		return !name_list__has(&rep->symbols, addr);
	}
	return false;
}

/*
 * --sort parent: the first frame whose symbol matches the parent pattern, in perf's walk of
 * the sample's chain (struct chain_walk: callee or caller first, at most max_stack frames).
 * A marker that is no context ends the walk.
 */
static const char *find_parent(struct report *rep, struct thread *t, const u64 *chain)
{
	struct chain_walk w;
	u64 ip;

	chain_walk__init(&w, chain, chain[0], rep->max_stack,
			 rep->cc_param.order == CC_ORDER_CALLER);
	while (chain_walk__next(&w, &ip) > 0) {
		struct addr_location al;
		const char *name;

		machine__find_symbol(&rep->machine, t, w.cpumode, ip, &al);
		if (!al.sym)
			continue;
		name = symbol__name(al.symtab, al.sym);
		if (regexec(&rep->parent_regex, name, 0, NULL, 0) == 0)
			return strpool_intern(&rep->machine.strings, name);
	}
	return NULL;
}

/* What the frames of a chain of t resolve against, as a hash: see maps_versions. */
static u64 chain_context(struct report *rep, const struct thread *t)
{
	const struct map *kmap = rep->machine.kernel_map;
	u64 key[6] = {
		(u64)(uintptr_t)t->maps,
		(u64)(uintptr_t)hashmap_find(&rep->maps_versions, (u64)(uintptr_t)t->maps),
		rep->kernel_version,
		(u64)t->pid,
		kmap ? kmap->start : 0,	/* the kernel's bounds change once its symbols are in */
		kmap ? kmap->end : 0,
	};

	return XXH3_64bits(key, sizeof(key));
}

/* A side-band record changed maps: what was resolved against them must be again. */
static void note_maps_change(struct report *rep, const struct perf_event_header *ev)
{
	s32 tid;
	struct thread *t;

	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (machine__changes_kernel_maps(ev)) {
			rep->kernel_version++;
			return;
		}
		tid = (s32)((const struct perf_record_mmap *)ev)->pid;
		break;
	case PERF_RECORD_COMM:
		tid = (s32)((const struct perf_record_comm *)ev)->tid;
		break;
	case PERF_RECORD_FORK:
		tid = (s32)((const struct perf_record_fork *)ev)->tid;
		break;
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
	case PERF_RECORD_TEXT_POKE:
		rep->kernel_version++;
		return;
	default:
		return;
	}
	t = machine__find_thread(&rep->machine, tid);
	if (t && t->maps)
		hashmap_insert(&rep->maps_versions, (u64)(uintptr_t)t->maps,
			       (void *)(uintptr_t)++rep->maps_version);
	thread__put(t);
}

/* The symbol table the item's symbol is from (its dso's, loaded by item_resolve). */
static const struct symtab *item_symtab(const struct report *rep, const struct agg_item *item)
{
	return item->dso ? dso__symtab(item->dso, &rep->machine.symsrc) : NULL;
}

/* The histogram entry an item adds to (its symbol resolved). */
static void item_entry(const struct report *rep, const struct agg_item *item,
		       struct hist_entry *he)
{
	hist_entry__clear(he);	/* twice a sample */
	he->thread = item->thread;
	he->comm = item->comm;
	he->map = item->map;
	he->dso = item->dso;
	he->sym = item->sym;
	he->symtab = item_symtab(rep, item);
	he->parent = item->parent;
	he->ip = item->addr;
	he->cpu = item->cpu;
	he->socket = item->cpu >= 0 && item->cpu < rep->nr_cpus ? rep->sockets[item->cpu] : -1;
	he->level = item->level;
	he->unmapped_chain = item->unmapped_chain;
	he->period = item->period;
	he->hash = item->hash;
}

/*
 * On the aggregator: the item's symbol and its entry's hash, once (ahead_sample, or else
 * finish_sample).
 */
static void item_resolve(struct report *rep, struct agg_item *item)
{
	struct addr_location al = { .thread = item->thread, .map = item->map, .dso = item->dso,
				    .addr = item->addr };
	struct hist_entry he;

	if (item->resolved)
		return;
	machine__resolve_symbol(&rep->machine, &al);
	item->sym = al.sym;
	item->resolved = true;
	item->hash = 0;
	item_entry(rep, item, &he);
	item->hash = hists__hash(&rep->hists[item->hists], &he);
}

/* A sample that had to wait for the kernel's symbols (on the reading thread). */
static void resolve_deferred(void *data, void *p)
{
	struct report *rep = data;
	struct agg_item *item = p;
	struct addr_location al;

	if (!item->deferred)
		return;
	machine__resolve_kernel_map(&rep->machine, item->addr, &al);
	item->map = map__get(al.map);
	item->map_base = map__base(al.map);
	item->dso = al.map ? al.map->dso : NULL;
	item->addr = al.addr;
	item->level = al.level;
	item->deferred = false;
}

/* Everything that waited for the kernel's symbols gets them: before its maps change. */
static void settle_kernel(struct report *rep)
{
	if (!rep->agg.hold)
		return;
	machine__kernel_wait(&rep->machine);
	aggregate__release(&rep->agg, resolve_deferred, rep);
}

/*
 * A sample about to be delivered: its thread (table slot, thread, maps) and the lines of the
 * search for its ip in those maps are fetched into the cache in steps while the samples before
 * it are processed. At a hundred thousand threads, or a million maps, and more, these were
 * most of the reading thread's time, each a cache miss waited for; at ten thousand threads
 * (a MB or two of them) the hints cost more than they save (report 5% slower, alternating
 * runs), at a million they save 15%.
 */
#define PREFETCH_MIN_THREADS 32768
#define PREFETCH_MIN_MAPS 65536

/*
 * Stages 0-2 the thread (table slot, thread, maps), then the lookup of the ip in the maps. A
 * model this small stays in the cache: the hints would only cost (6% of the work, a call per
 * stage a sample). The thread's steps pay from many threads, the steps in its maps from many
 * maps.
 */
static void report_prefetch_stages(struct report *rep)
{
	if (map__nr_live() >= PREFETCH_MIN_MAPS)
		rep->consumer.prefetch_stages = ORDERED_PREFETCH_STAGES;
	else if (machine__nr_threads(&rep->machine) >= PREFETCH_MIN_THREADS)
		rep->consumer.prefetch_stages = 3;
	else
		rep->consumer.prefetch_stages = 0;
}

/* The final comm of interned string str (see struct report's final_comms). */
static const struct comm *final_comm(struct report *rep, const char *str)
{
	struct comm *c;

	if (str == rep->last_final_str)
		return rep->last_final;
	c = hashmap_find(&rep->final_comms, (u64)(uintptr_t)str);
	if (!c) {
		c = xaligned_alloc(64, sizeof(*c));
		c->str = str;
		hashmap_insert(&rep->final_comms, (u64)(uintptr_t)str, c);
	}
	rep->last_final_str = str;
	rep->last_final = c;
	return c;
}

static void final_comms__exit(struct report *rep)
{
	size_t it = 0;
	void *c;

	while (hashmap_next(&rep->final_comms, &it, NULL, &c))
		free(c);
	hashmap_exit(&rep->final_comms);
}

/*
 * What needs the model as it is at the sample: its thread, comm and map. The aggregator
 * finishes it (finish_sample).
 */
static int process_sample(struct report *rep, struct event_ctx *ctx)
{
	struct perf_sample *s = &ctx->sample;
	bool chain = rep->chains && s->callchain &&
		     (ctx->evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	const u64 *own_chain = s->callchain;	/* perf finds parents in it, not unwound frames */
	u64 user_at = UINT64_MAX;	/* where the unwound user frames start, if any */
	struct agg_item *item;
	struct addr_location al;
	struct thread *t;

	/*
	 * A chain's kernel frames are looked up now, with the kernel's symbols in (and its map's
	 * bounds fixed): what waited for them is resolved first.
	 */
	if (chain && rep->machine.kernel_pending)
		settle_kernel(rep);
	item = aggregate__slot(&rep->agg, sizeof(*item));

	report_prefetch_stages(rep);
	t = machine__findnew_thread(&rep->machine, (s32)s->pid, (s32)s->tid);
	if (rep->unwinder && s->callchain &&
	    !(s->callchain = unwind__callchain(rep->unwinder, &rep->machine, t, s))) {
		error_set("%s: offset %#llx: cannot unwind the sample's user stack: %s",
			  rep->session.path, (unsigned long long)ctx->file_offset,
			  unwind__strerror(rep->unwinder));
		thread__put(t);
		return -1;
	}
	if (s->callchain != own_chain)
		user_at = unwind__user_at(rep->unwinder);
	item->thread = t;
	/* a thread's comm is renamed only while its name was never set (the ":tid" placeholder) */
	item->comm = t->comm_set ? final_comm(rep, comm__str(t->comm)) : t->comm;
	item->parent = NULL;
	item->period = s->period;
	item->cpu = (s32)s->cpu;
	item->hists = (u32)ctx->evsel->idx;
	/* the kernel's symbols may still be loading on a worker: resolve such samples later */
	item->deferred = !machine__resolve_map_nowait(&rep->machine, t, s->misc &
						       PERF_RECORD_MISC_CPUMODE_MASK, s->ip, &al);
	if (rep->machine.kernel_pending && !rep->agg.hold)
		aggregate__hold(&rep->agg);
	if (item->deferred) {
		item->map = NULL;
		item->map_base = 0;
		item->dso = NULL;
		item->addr = s->ip;
		item->level = 'k';
	} else {
		item->map = map__get(al.map);
		item->map_base = map__base(al.map);
		item->dso = al.map ? al.map->dso : NULL;
		item->addr = al.addr;
		item->level = al.level;
	}
	if (!rep->sockets_read) {
		header__cpu_sockets(&rep->session, &rep->sockets, &rep->nr_cpus);
		rep->sockets_read = true;
	}
	if (rep->need_parent && own_chain)
		item->parent = find_parent(rep, t, own_chain);
	item->chain = CC_NO_CHAIN;
	if (chain)
		item->chain = callchains__intern_cached(rep->chains, &rep->machine, t, s->callchain,
							rep->max_stack, rep->cc_param.order, user_at,
							chain_context(rep, t));
	item->unmapped_chain = item->chain != CC_NO_CHAIN &&
			       callchains__unmapped(rep->chains, item->chain);
	/* perf's symbol__parent_filter */
	item->filtered = thread_filtered(rep, t) || (rep->exclude_other && !item->parent);
	item->resolved = false;
	aggregate__commit(&rep->agg);
	/* now and then, see whether the kernel's symbols came in; wait once too much is held */
	if (rep->agg.hold && !(++rep->nr_held & 1023)) {
		if (aggregate__held_full(&rep->agg))
			settle_kernel(rep);
		else if (machine__kernel_ready(&rep->machine))
			aggregate__release(&rep->agg, resolve_deferred, rep);
	}
	return 0;
}

/* On the reading thread, once finished: what the histogram did not take. */
static void put_sample(void *data, void *p)
{
	struct agg_item *item = p;

	thread__put(item->thread);
	map__put(item->map);
}

/*
 * On the aggregator, a few samples before finish_sample: the symbol, then the histogram's
 * index slot and entry for it, fetched while the samples before are added.
 */
static void ahead_sample(void *data, void *p, int stage)
{
	struct report *rep = data;
	struct agg_item *item = p;

	if (stage == 0)
		item_resolve(rep, item);
	else if (!item->resolved)
		return;	/* it missed stage 0 (early in its batch): nothing to go by */
	hists__prefetch(&rep->hists[item->hists], item->hash, item->chain, item->filtered, stage);
}

/* On the aggregator: the symbol, the dso and symbol filters, the histogram. */
static void finish_sample(void *data, void *p)
{
	struct report *rep = data;
	struct agg_item *item = p;
	struct addr_location al = { .thread = item->thread, .map = item->map, .dso = item->dso,
				    .addr = item->addr };
	struct hist_entry he;

	item_resolve(rep, item);
	item_entry(rep, item, &he);
	al.sym = he.sym;
	al.symtab = he.symtab;
	he.filtered = item->filtered || symbol_filtered(rep, &al);
	hists__add(&rep->hists[item->hists], &he, item->chain, item->map_base);
	item->thread = he.thread;	/* what the histogram did not take */
	item->map = he.map;
}

static int report_itrace_sample(struct itrace_consumer *consumer, struct event_ctx *ctx)
{
	struct report *rep = container_of(consumer, struct report, itrace_consumer);

	/* the histograms after the events' (itrace__add_evsel numbers its events so) */
	return process_sample(rep, ctx);
}

/* The AUX-trace records, and the decoding that comes before any kernel record. */
static int report_itrace(struct report *rep, struct event_ctx *ctx)
{
	const struct perf_event_header *ev = ctx->event;

	switch (ev->type) {
	case PERF_RECORD_AUXTRACE_INFO:
		rep->machine.keep_exited = true;	/* trace of exited threads comes later */
		if (rep->itrace || rep->no_decode || !rep->aux_hists || rep->itrace_opts.dont_decode)
			return 0;
		rep->itrace_consumer.sample = report_itrace_sample;
		rep->itrace = itrace__new(&rep->session, &rep->machine, &rep->itrace_opts,
					  &rep->itrace_consumer, ev, ctx->file_offset);
		return rep->itrace ? 0 : -1;
	case PERF_RECORD_AUXTRACE:
		return rep->itrace ? itrace__add_buffer(rep->itrace, ev, ctx->file_offset) : 0;
	default:
		if (ev->type < PERF_RECORD_USER_TYPE_START && rep->itrace)
			return itrace__process_event(rep->itrace, ev, ctx->sample.time);
		return 0;
	}
}

static void report_prefetch(struct event_consumer *consumer, const struct perf_event_header *ev,
			    const struct evsel *evsel, int stage)
{
	struct report *rep = container_of(consumer, struct report, consumer);
	u64 type = evsel ? evsel->attr.sample_type : 0, ip = 0;
	size_t word = !!(type & PERF_SAMPLE_IDENTIFIER) + !!(type & PERF_SAMPLE_IP);
	const u8 *body = (const u8 *)(ev + 1);
	bool search = false;
	u32 tid;

	if (stage < 2 && machine__nr_threads(&rep->machine) < PREFETCH_MIN_THREADS)
		return;	/* many maps, few threads: those are in the cache */
	if (ev->type != PERF_RECORD_SAMPLE || !(type & PERF_SAMPLE_TID) ||
	    ev->size < sizeof(*ev) + (word + 1) * sizeof(u64))
		return;
	/* perf_event.h: { u64 id; } { u64 ip; } { u32 pid, tid; } */
	memcpy(&tid, body + word * sizeof(u64) + sizeof(u32), sizeof(tid));
	/* the search in the maps, when its stages run: a user ip */
	if (stage >= 2 && consumer->prefetch_stages > 3 && (type & PERF_SAMPLE_IP) &&
	    (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER) {
		memcpy(&ip, body + (word - 1) * sizeof(u64), sizeof(ip));
		search = true;
	}
	machine__prefetch_sample(&rep->machine, (s32)tid, ip, search, stage);
}

static int report_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct report *rep = container_of(consumer, struct report, consumer);
	const struct perf_event_header *ev = ctx->event;
	int ret;

	if (ev->type == PERF_RECORD_HEADER_FEATURE && rep->print_features) {
		u64 feat;

		memcpy(&feat, ev + 1, sizeof(feat));
		header__fprintf_feature(&rep->session, stdout, (int)MIN(feat, 255u), rep->show_info);
		return 0;
	}
	if (rep->header_only)
		return 0;
	ret = report_itrace(rep, ctx);
	if (ret)
		return ret;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		if (rep->stats_mode) {
			rep->hists[ctx->evsel->idx].nr_sample_events++;
			return 0;
		}
		return process_sample(rep, ctx);
	case PERF_RECORD_HEADER_BUILD_ID:
		/* pipe mode: build-ids come as records */
		machine__add_build_ids(&rep->machine, (const u8 *)ev, ev->size, true);
		return 0;
	case PERF_RECORD_LOST_SAMPLES: {
		const struct perf_record_lost_samples *l = (const void *)ev;

		/* perf's --stats tool counts them by event (count_lost_samples_event), u32 */
		if (rep->stats_tool && ctx->evsel && ev->size >= sizeof(*l))
			rep->hists[ctx->evsel->idx].nr_lost_samples += (u32)l->lost;
		events_stats__add_lost(&rep->session.stats, ev);
		return 0;
	}
	case PERF_RECORD_LOST:
		events_stats__add_lost(&rep->session.stats, ev);
		return 0;
	default:
		if (rep->agg.hold && machine__changes_kernel_maps(ev))
			settle_kernel(rep);
		if (machine__process_event(&rep->machine, ev, ctx->sample.time)) {
			error_set("%s: offset %#llx: %s", rep->session.path,
				  (unsigned long long)ctx->file_offset, error_get());
			return -1;
		}
		if (rep->chains)
			note_maps_change(rep, ev);
		return 0;
	}
}

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

		if (!strcmp(name, "UNKNOWN") || !st->nr_events[i])
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
		if (!h->nr_sample_events && !h->nr_lost_samples)
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

int cmd_report(int argc, const char **argv, const struct analyze_config *cfg)
{
	const char *input = NULL, *sort_str = NULL, *comms = NULL, *dsos = NULL, *symbols = NULL;
	const char *pids = NULL, *tids = NULL, *symfs = NULL;
	const char *kallsyms = NULL, *max_stack = NULL, *parent = NULL;
	bool stdio = false, show_nr = false, quiet = false, header = false, header_only = false;
	bool stats = false, children = true, inverted = false, show_inline = true;
	struct report rep = { .consumer.deliver = report_deliver,
			      .consumer.prefetch = report_prefetch };
	struct option_callback call_graph_cb = { parse_call_graph, &rep.cc_param };
	struct option_callback percent_limit_cb = { parse_percent_limit, &rep };
	struct option_callback itrace_cb = { parse_itrace, &rep.itrace_opts };
	bool show_info = false, has_callchain, use_callchain;
	bool dump_raw = false;
	const char *jobs = NULL;
	struct option opts[] = {
		{ 'i', "input", OPT_STRING, &input, "file", "input file name" },
		{ 0, "stdio", OPT_BOOL, &stdio, NULL, "Use the stdio interface" },
		{ 's', "sort", OPT_STRING, &sort_str, "key[,key2...]", "sort by key(s): pid comm dso symbol parent cpu socket symbol_size dso_size" },
		{ 0, "comms", OPT_STRING, &comms, "comm[,comm...]", "only consider symbols in these comms" },
		{ 0, "pid", OPT_STRING, &pids, "pid[,pid...]", "only consider symbols in these pids" },
		{ 0, "tid", OPT_STRING, &tids, "tid[,tid...]", "only consider symbols in these tids" },
		{ 'd', "dsos", OPT_STRING, &dsos, "dso[,dso...]", "only consider symbols in these dsos" },
		{ 'S', "symbols", OPT_STRING, &symbols, "symbol[,symbol...]", "only consider these symbols" },
		{ 0, "percent-limit", OPT_CALLBACK, &percent_limit_cb, "percent", "Don't show entries under that percent" },
		{ 'p', "parent", OPT_STRING, &parent, "regex", "regex filter to identify parent, see: '--sort parent'" },
		{ 'x', "exclude-other", OPT_BOOL, &rep.exclude_other, NULL, "Only display entries with parent-match" },
		{ 'n', "show-nr-samples", OPT_BOOL, &show_nr, NULL, "Show a column with the number of samples" },
		{ 'q', "quiet", OPT_BOOL, &quiet, NULL, "Do not show any message" },
		{ 0, "header", OPT_BOOL, &header, NULL, "Show data header." },
		{ 0, "header-only", OPT_BOOL, &header_only, NULL, "Show only data header." },
		{ 'I', "show-info", OPT_BOOL, &show_info, NULL, "Display extended information about perf.data file" },
		{ 'j', "jobs", OPT_STRING, &jobs, "n", "worker threads for reading (default: online CPUs)" },
		{ 0, "stats", OPT_BOOL, &stats, NULL, "Display event stats" },
		{ 0, "symfs", OPT_STRING, &symfs, "directory", "Look for files with symbols relative to this directory" },
		{ 'k', "vmlinux", OPT_NOOP_ARG, NULL, "file", "vmlinux pathname (not used)" },
		{ 0, "kallsyms", OPT_STRING, &kallsyms, "file", "kallsyms pathname" },
		{ 0, "children", OPT_BOOL, &children, NULL, "Accumulate callchains of children and show total overhead as well. Enabled by default, use --no-children to disable." },
		{ 'g', "call-graph", OPT_CALLBACK, &call_graph_cb, "print_type,threshold[,print_limit],order,sort_key[,branch],value", "Display call graph (stack chain/backtrace): print_type: graph, flat, fractal, folded or none; threshold: minimum call graph inclusion threshold (default 0.5); print_limit: maximum number of call graph entry; order: callee or caller (default callee); sort_key: function or address; value: percent, period or count", true },
		{ 0, "max-stack", OPT_STRING, &max_stack, "n", "Set the maximum stack depth when parsing the callchain, anything beyond the specified depth will be ignored. Default: kernel.perf_event_max_stack or 127" },
		{ 'G', "inverted", OPT_BOOL, &inverted, NULL, "alias for inverted call graph" },
		{ 'D', "dump-raw-trace", OPT_BOOL, &dump_raw, NULL, "dump raw trace in ASCII" },
		{ 0, "inline", OPT_BOOL, &show_inline, NULL, "Show inline function" },
		{ 0, "itrace", OPT_CALLBACK, &itrace_cb, "opts", "Instruction Tracing options (as script's; default: every branch)", false, true },
		{ 0, "no-itrace", OPT_BOOL, &rep.itrace_opts.dont_decode, NULL, "do not decode AUX-area traces", false, false },
		OPT_END_MARK,
	};
	struct symsrc_config symsrc = { 0 };
	struct hists_callchain hcc = { 0 };
	struct hists_print_opts popts = { 0 };
	char bad[64], *symfs_cache = NULL;
	int nr_args, ret = 1, nr_jobs;
	struct workqueue *wq = NULL;
	struct dso_loader loader;
	struct dump dump = { 0 };

	callchain_param__init(&rep.cc_param);
	hashmap_init(&rep.maps_versions);
	hashmap_init(&rep.final_comms);
	rep.max_stack = options__max_stack();
	nr_args = parse_options(argc, argv, opts, report_usage);
	if (nr_args < 0)
		return 129;
	if (max_stack)
		rep.max_stack = (u32)MAX(0, atoi(max_stack));
	/* -D: the raw dump, then perf's stats block; samples are only counted, as --stats does */
	rep.stats_tool = stats;
	stats |= dump_raw;
	if (!options__input(nr_args, argv, &input, report_usage, opts))
		return 129;

	if (sort_str) {
		const char *s = sort_str;
		char *with_ipc = NULL;

		/* perf 6.1 appends ipc_null to a --sort that names "symbol" */
		if (strstr(sort_str, "symbol")) {
			with_ipc = xmalloc(strlen(sort_str) + 16);
			sprintf(with_ipc, "%s,ipc_null", sort_str);
			s = with_ipc;
		}
		if (sort_list__parse(&rep.sort, s, bad, sizeof(bad))) {
			fprintf(stderr, "Error:\nUnknown --sort key: `%s'\n", bad);
			free(with_ipc);
			usage_with_options(report_usage, opts);
			return 0;	/* perf 6.1 exits 0 here */
		}
		free(with_ipc);
	} else {
		sort_list__parse(&rep.sort, "comm,dso,symbol", bad, sizeof(bad));
	}
	/* perf's setup_sorting: a pattern of one's own adds the parent key, last, if not there */
	if (parent && !sort_list__has(&rep.sort, SORT_PARENT) && rep.sort.nr < MAX_SORT_KEYS)
		rep.sort.keys[rep.sort.nr++] = SORT_PARENT;
	popts.percent_limit = rep.percent_limit;
	popts.show_nr_samples = show_nr;
	popts.show_header = !quiet;

	nr_jobs = options__jobs(jobs, report_usage, opts);
	if (nr_jobs < 0)
		return 129;
	if (perf_session__open(&rep.session, input)) {
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	if (header_only && !rep.session.is_pipe) {
		header__fprintf(&rep.session, stdout, show_info);
		perf_session__close(&rep.session);
		return 0;
	}
	/* a pipe describes itself as it goes: its features print as their records come */
	rep.print_features = rep.session.is_pipe && (header || header_only) && !stats;
	rep.header_only = header_only;
	rep.show_info = show_info;

	symfs_cache = options__symsrc(&symsrc, cfg->buildid_dir, symfs, kallsyms);
	/* -j N: N threads in all, this one included */
	wq = nr_jobs > 1 ? workqueue__new(nr_jobs - 1) : NULL;
	rep.session.wq = wq;
	machine__init(&rep.machine, &symsrc);
	/* finding parents looks symbols up on this thread: then no aggregator elsewhere */
	aggregate__init(&rep.agg, sort_list__has(&rep.sort, SORT_PARENT) ? NULL : wq,
			finish_sample, put_sample, &rep);
	rep.agg.ahead = ahead_sample;
	dso_loader__init(&loader, wq, &rep.machine.symsrc);
	rep.machine.loader = &loader;
	{
		size_t size;
		const u8 *ids = perf_session__feat(&rep.session, HEADER_BUILD_ID, &size);
		bool load = !stats && !header_only;

		/*
		 * The kernel's symbols are wanted first and take longest: they start loading
		 * before the other dsos', once the kernel's build-id is known.
		 */
		if (ids)
			machine__add_build_ids(&rep.machine, ids, size, false);
		if (load)
			machine__load_kernel_ahead(&rep.machine,
						   perf_session__kernel_text(&rep.session));
		if (ids && load)
			machine__add_build_ids(&rep.machine, ids, size, true);
	}
	/* a pipe describes its events as it goes: room for as many as it may add */
	/* (an index-less file too) */
	rep.aux_hists = !rep.session.is_pipe && !rep.session.is_dir ? ITRACE_MAX_EVSELS : 0;
	rep.no_decode = stats;
	if (!rep.itrace_opts.set)	/* perf report's default: everything, instructions too */
		itrace_opts__set_default(&rep.itrace_opts, false);
	rep.nr_hists = rep.session.is_pipe ? MAX_PIPE_EVSELS
					   : rep.session.nr_evsels + rep.aux_hists;
	rep.hists = xcalloc(rep.nr_hists, sizeof(*rep.hists));
	for (size_t i = 0; i < rep.nr_hists; i++)
		hists__init(&rep.hists[i], &rep.sort);
	{
		u64 sample_type = 0;

		for (size_t i = 0; i < rep.session.nr_evsels; i++)
			sample_type |= rep.session.evsels[i].attr.sample_type;
		has_callchain = sample_type & PERF_SAMPLE_CALLCHAIN;
		/* report__setup_sample_type: the default itrace may synthesize call chains */
		has_callchain |= perf_session__has_feat(&rep.session, HEADER_AUXTRACE) &&
				 !rep.session.is_pipe && !rep.itrace_opts.set && !stats;
		/* and --itrace=g or G does */
		has_callchain |= rep.itrace_opts.callchain || rep.itrace_opts.add_callchain;
	}
	/*
	 * perf's report__setup_sample_type: no children without callchains. A pipe's attrs come
	 * with its records, after that: perf then takes no children but the call graphs (of the
	 * events that turn out to have them).
	 */
	use_callchain = (has_callchain || rep.session.is_pipe) && rep.cc_param.mode != CC_NONE;
	if (inverted)
		rep.cc_param.order = CC_ORDER_CALLER;
	/* perf's default for the children view, set before it knows whether it gets one */
	if (children && !rep.cc_param.order_set)
		rep.cc_param.order = CC_ORDER_CALLER;
	children &= has_callchain;
	if (children || use_callchain)
		rep.chains = callchains__new();
	for (size_t i = 0; i < rep.session.nr_evsels; i++) {
		rep.hists[i].cumulate = children;
		rep.hists[i].has_callchain =
			rep.session.evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN;
	}
	for (size_t i = 0; i < rep.aux_hists; i++)
		rep.hists[rep.session.nr_evsels + i].cumulate = children;
	hcc = (struct hists_callchain){ .chains = rep.chains, .machine = &rep.machine,
					.param = &rep.cc_param, .use_callchain = use_callchain,
					.skip_first = sort_str && !strncmp(sort_str, "sym", 3),
					.order = rep.cc_param.order, .one_thread = nr_jobs == 1 };
	popts.callchain = use_callchain ? &hcc : NULL;
	name_list__parse(&rep.comms, comms);
	name_list__parse(&rep.dsos, dsos);
	name_list__parse(&rep.symbols, symbols);
	name_list__parse(&rep.pids, pids);
	name_list__parse(&rep.tids, tids);
	popts.has_dso_filter = rep.dsos.nr > 0;
	rep.stats_mode = stats;
	rep.need_parent = sort_list__has(&rep.sort, SORT_PARENT);
	/* perf unwinds dwarf samples when it uses callchains: all but --no-children -g none */
	if (rep.chains) {
		rep.unwinder = unwinder__new(&rep.session, PERF_MAX_STACK_DEPTH);
		if (show_inline || rep.cc_param.key != CC_KEY_FUNCTION)
			rep.inlines = inlines__new(&rep.machine.symsrc);
		hcc.inlines = show_inline ? rep.inlines : NULL;
		hcc.lines = rep.cc_param.key != CC_KEY_FUNCTION ? rep.inlines : NULL;
	}
	/* perf compiles the pattern as it adds the parent key, before anything is printed */
	{
		int err = regcomp(&rep.parent_regex, parent ? parent : "^sys_|^do_page_fault",
				  REG_EXTENDED);

		if (err) {
			char msg[256];

			regerror(err, &rep.parent_regex, msg, sizeof(msg));
			fprintf(stderr, "Invalid regex: %s\n%s", parent, msg);
			regcomp(&rep.parent_regex, "", REG_EXTENDED);	/* out: frees one */
			ret = 0;	/* perf 6.1's status */
			goto out;
		}
	}

	if (header_only)
		header__fprintf(&rep.session, stdout, show_info);
	else if (!stats && !quiet)
		header__fprintf_report(&rep.session, stdout, header, show_info);
	if (!has_callchain && rep.cc_param.enabled && !rep.session.is_pipe && !stats &&
	    !header_only) {
		fflush(stdout);
		fprintf(stderr, "Error:\nSelected -g or --branch-history.\nBut no callchain or branch data.\nDid you call 'perf record' without -g or -b?\n");
		ret = 0;	/* perf 6.1 exits with status 0 here */
		goto out;
	}
	if (sort_list__has(&rep.sort, SORT_PARENT) && !rep.session.is_pipe) {
		bool callchain = false;

		for (size_t i = 0; i < rep.session.nr_evsels; i++)
			callchain |= rep.session.evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN;
		if (!callchain) {
			/* perf 6.1 says so after the header and exits with status 0 */
			fflush(stdout);
			fprintf(stderr, "Error:\nSelected --sort parent, but no callchain data. Did you call 'perf record' without -g?\n");
			ret = 0;
			goto out;
		}
	}
	if (!stats && !header_only)
		print_elided(&rep, stdout);

	if (dump_raw) {
		if (!quiet)
			header__fprintf_report(&rep.session, stdout, header, show_info);
		dump__init(&dump, &rep.session, &rep.machine, &rep.consumer, stdout);
	}
	ret = perf_session__process(&rep.session, dump_raw ? &dump.consumer : &rep.consumer);
	if (!ret && rep.itrace)	/* what the trace holds after the last record */
		ret = itrace__flush(rep.itrace) < 0 ? -1 : 0;
	if (!ret)
		settle_kernel(&rep);
	aggregate__finish(&rep.agg);	/* its batches' memory serves what comes after the run */
	callchains__end_run(rep.chains);
	if (ret) {
		ret = 1;
		fflush(stdout);
		fprintf(stderr, "analyze: %s\n", error_get());
		goto out;
	}

	/* perf's --stats tool is no_warn; --header-only processes no records */
	if (!rep.stats_tool && !header_only) {
		fflush(stdout);
		session_warn_about_errors(&rep.session.stats, false, stderr);
	}
	if (header_only) {
		ret = 0;
		goto out;
	}
	if (stats) {
		print_stats(&rep, stdout);
		ret = 0;
		goto out;
	}
	if (!report__has_entries(&rep)) {
		/* perf 6.1's __cmd_report: an error, but exit status 0 */
		fflush(stdout);
		fprintf(stderr, "Error:\nThe %s data has no samples!\n", rep.session.path);
		ret = 0;
		goto out;
	}
	if (!quiet)
		printf("#\n# Total Lost Samples: %llu\n#\n",
		       (unsigned long long)rep.session.stats.total_lost_samples);
	for (size_t i = 0; i < rep.session.nr_evsels + rep.aux_hists; i++) {
		struct hists *h = &rep.hists[i];
		struct evsel *evsel = i < rep.session.nr_evsels ? &rep.session.evsels[i]
					: itrace__evsel(rep.itrace, i - rep.session.nr_evsels);
		char unit;
		unsigned long nr;

		if (!h->nr_samples || !evsel)
			continue;
		/* a decoder's events are made as the trace is read: Intel PT's may have chains;
		 * a pipe's attrs come as its records do */
		if (i >= rep.session.nr_evsels || rep.session.is_pipe)
			h->has_callchain = evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN;
		if (!quiet) {
			nr = convert_unit(h->nr_samples, &unit);
			printf("# Samples: %lu%c of event '%s'\n", nr, unit, evsel__name(evsel));
			printf("# Event count (approx.): %llu\n#\n", (unsigned long long)h->total_period);
		}
		hists__resolve_callchains(h, &hcc);
		hists__fprintf(h, &popts, stdout);
		printf("\n\n");
	}
	if (!quiet)
		printf("#\n# (Tip: %s)\n#\n", tips[rep.session.size % ARRAY_SIZE(tips)]);
	ret = 0;
out:
	dump__exit(&dump);
	aggregate__exit(&rep.agg);
	for (size_t i = 0; i < rep.nr_hists; i++)
		hists__exit(&rep.hists[i]);
	free(rep.hists);
	free(rep.sockets);
	name_list__free(&rep.comms);
	name_list__free(&rep.dsos);
	name_list__free(&rep.symbols);
	name_list__free(&rep.pids);
	name_list__free(&rep.tids);
	regfree(&rep.parent_regex);
	callchains__delete(rep.chains);
	itrace__delete(rep.itrace);
	hashmap_exit(&rep.maps_versions);
	final_comms__exit(&rep);
	unwinder__delete(rep.unwinder);
	inlines__delete(rep.inlines);
	free(symfs_cache);
	if (wq)
		workqueue__destroy(wq);	/* symbol tables still loading refer to dsos */
	wq = NULL;
	machine__exit(&rep.machine);
	dso_loader__exit(&loader);
	perf_session__close(&rep.session);
	return ret;
}
