/*
 * report_events: the report's record processing: side-band records into the machine model,
 * samples resolved, filtered and handed to the aggregator, AUX traces to the decoder. The
 * front end (report.c) sets the run up and prints what this gathered.
 */
#include "analyzer/report/report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/header.h"
#include "analyzer/cli/session_warn.h"
#include "lib/error.h"
#include "lib/containers/xxhash_inline.h"
#include "lib/xalloc.h"
#include "machine/unwind.h"
#include "readers/order.h"

/* perf's thread__is_filtered: by the thread's comm as it is at the sample. */
bool thread_filtered(struct report *rep, const struct thread *t)
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
bool symbol_filtered(struct report *rep, const struct addr_location *al)
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

/*
 * The sample's values that keys read from a hist_extra, interned (once a sample, only when
 * such a key is asked for). perf 6.1 on x86 (arch_perf_parse_sample_weight): without WEIGHT,
 * WEIGHT_STRUCT's weight is its low 32 bits and ins_lat the 16 above; p_stage_cyc stays 0
 * (powerpc's).
 */
static const struct hist_extra *sample_extra(struct report *rep, const struct evsel *evsel,
					     const struct perf_sample *s)
{
	struct hist_extra x = { .weight = s->weight, .transaction = s->transaction,
				.code_page_size = s->code_page_size };

	if ((evsel->attr.sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) ==
	    PERF_SAMPLE_WEIGHT_STRUCT) {
		x.weight = (u32)s->weight;
		x.ins_lat = (u16)(s->weight >> 32);
	}
	return hist_extras__intern(rep->extras, &x);
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
	he->extra = item->extra;
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
void settle_kernel(struct report *rep)
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
const struct comm *final_comm(struct report *rep, const char *str)
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

void final_comms__exit(struct report *rep)
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

	/* perf drops them before resolving them: counted nowhere (-C's after the switch's) */
	if (time_filter__skip(&rep->time, s->time) ||
	    evswitch__discard(&rep->evswitch, ctx->evsel) || !cpu_list__has(&rep->cpus, s->cpu))
		return 0;
	/*
	 * A chain's kernel frames are looked up now, with the kernel's symbols in (and its map's
	 * bounds fixed): what waited for them is resolved first.
	 */
	if ((chain || rep->sort.branch || rep->sort.mem) && rep->machine.kernel_pending)
		settle_kernel(rep);
	if (rep->sort.branch || rep->sort.mem) {	/* no item: resolved and added here */
		int ret;

		t = machine__findnew_thread(&rep->machine, (s32)s->pid, (s32)s->tid);
		ret = rep->sort.branch ? report_branch_sample(rep, ctx, t)
				       : report_mem_sample(rep, ctx, t);
		thread__put(t);
		return ret;
	}
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
	item->extra = rep->sample_values ? sample_extra(rep, ctx->evsel, s) : NULL;
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
void put_sample(void *data, void *p)
{
	struct agg_item *item = p;

	thread__put(item->thread);
	map__put(item->map);
}

/*
 * On the aggregator, a few samples before finish_sample: the symbol, then the histogram's
 * index slot and entry for it, fetched while the samples before are added.
 */
void ahead_sample(void *data, void *p, int stage)
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
void finish_sample(void *data, void *p)
{
	struct report *rep = data;
	struct agg_item *item = p;
	struct addr_location al = { .thread = item->thread, .map = item->map, .dso = item->dso,
				    .addr = item->addr };
	struct hist_entry he;

	item_resolve(rep, item);
	if (rep->hide_unresolved && !item->sym)
		return;	/* perf's process_sample_event drops it: counted nowhere */
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

void report_prefetch(struct event_consumer *consumer, const struct perf_event_header *ev,
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

int report_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
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

