/*
 * hist: perf report's histograms. Samples are merged into entries by the sort keys (perf's
 * se_cmp semantics: two samples share an entry when every key compares equal), then ordered
 * and printed as perf 6.1's stdio output does: entries ordered by the collapse comparators,
 * stable-sorted by period then the keys' sort comparators; column widths from the data and
 * the headers; filtered entries kept but not shown.
 */
#ifndef ANALYZER_HIST_H
#define ANALYZER_HIST_H

#include <stdio.h>

#include "analyzer/hist/callchain.h"
#include "lib/compiler.h"
#include "lib/containers/hashmap.h"
#include "lib/containers/rbtree.h"
#include "lib/containers/slab.h"
#include "machine/machine.h"

enum sort_key {
	SORT_PID,
	SORT_COMM,
	SORT_DSO,
	SORT_SYM,
	SORT_PARENT,
	SORT_CPU,
	SORT_SOCKET,
	SORT_SYM_SIZE,
	SORT_DSO_SIZE,
	SORT_IPC_NULL,
	SORT_SRCLINE,
	SORT_SRCFILE,
	SORT_ADDR,
	/* these (to SORT_P_STAGE_CYC) read the entry's hist_extra */
	SORT_LOCAL_WEIGHT,
	SORT_WEIGHT,
	SORT_TRANSACTION,
	SORT_CODE_PAGE_SIZE,
	SORT_LOCAL_INS_LAT,
	SORT_INS_LAT,
	SORT_LOCAL_P_STAGE_CYC,
	SORT_P_STAGE_CYC,
	/* branch mode's (perf's bstack dimensions): an entry is a branch, see struct hist_branch */
	SORT_DSO_FROM,
	SORT_DSO_TO,
	SORT_SYM_FROM,
	SORT_SYM_TO,
	SORT_MISPREDICT,
	SORT_ABORT,
	SORT_IN_TX,
	SORT_CYCLES,
	SORT_ADDR_FROM,
	SORT_ADDR_TO,
	/* memory mode's (perf's memory dimensions): see struct hist_mem */
	SORT_SYM_DADDR,
	SORT_DSO_DADDR,
	SORT_LOCKED,
	SORT_TLB,
	SORT_MEM,
	SORT_SNOOP,
	SORT_SYM_IADDR,
	SORT_PHYS_DADDR,
	SORT_DATA_PAGE_SIZE,
	SORT_BLOCKED,
	SORT_NR_KEYS
};

#define MAX_SORT_KEYS 16

struct sort_list {
	enum sort_key keys[MAX_SORT_KEYS];
	bool elide[MAX_SORT_KEYS];
	int nr;
	/*
	 * No dso key: the symbol key then compares two symbols' dsos first (perf 6.1.187's
	 * sort__sym_cmp, after the fix of its hists__has(dso) test that 6.1 stable took).
	 */
	bool sym_by_dso;
	bool branch;	/* perf's branch mode: entries have a struct hist_branch */
	bool mem;	/* perf's memory mode (--mem-mode): entries have a struct hist_mem */
};

/* Parse perf's --sort string. Returns 0, or -1 with *bad set to the unknown key. */
int sort_list__parse(struct sort_list *list, const char *str, char *bad, size_t bad_size);
bool sort_list__has(const struct sort_list *list, enum sort_key key);
/* Whether key is one of branch mode's only (perf: "Invalid --sort key" outside it). */
bool sort_key__is_branch(enum sort_key key);
/* The same of memory mode's. */
bool sort_key__is_mem(enum sort_key key);
/* Whether key is in the list and elided (shown in no column, compared in no output order). */
bool sort_list__elided(const struct sort_list *list, enum sort_key key);

/*
 * perf's output fields (-F) and output order: the sort keys, and after them the columns that
 * are not keys (perf's hpp dimensions), numbered on from SORT_NR_KEYS.
 */
enum hpp_field {
	HPP_OVERHEAD = SORT_NR_KEYS,
	HPP_OVERHEAD_CHILDREN,
	HPP_SAMPLE,
	HPP_PERIOD,
	FIELD_NR
};

#define MAX_FIELDS 32

struct field_list {
	int ids[MAX_FIELDS];	/* enum sort_key or enum hpp_field */
	int nr;
	bool strict;	/* -F without '+': perf's default columns and order are left out */
	int nr_sort_keys;	/* the sort list's keys before -F's were appended */
};

/*
 * Parse perf's -F string ("+a,b" adds to the default columns). 0; -1 with *bad set to the
 * unknown field; -2 for a '+' alone (perf's "Invalid --fields key"); -3 with *bad set to a
 * field of perf's not supported.
 */
int field_list__parse(struct field_list *list, const char *str, char *bad, size_t bad_size);
/* -F's sort keys that the sort list lacks appended to it, as perf's output fields are. */
void field_list__add_keys(struct field_list *fields, struct sort_list *sort);

/* What decides the columns and their order besides -F and the sort keys. */
struct field_setup {
	bool cumulate;		/* the children view */
	bool show_nr_samples;	/* -n */
	bool show_total_period;	/* -T */
};

/*
 * perf's setup_sorting: the columns (perf's default ones unless -F is strict, then -F's,
 * then the sort keys not among them) and the output order (perf's overhead columns unless
 * strict, the sort keys, then the other columns).
 */
void field_list__layout(const struct field_list *user, const struct sort_list *sort,
			const struct field_setup *setup, struct field_list *columns,
			struct field_list *order);

/*
 * What an entry of branch mode has besides the normal keys: perf's branch_info, the first
 * branch's, which the branch keys compare and print. The entry itself is the branch's target
 * as the normal keys see it, as perf's is (map, dso, sym: the target's, its map refreshed by
 * later branches; ip: its raw address; level: the sample's). Kept aside (hists->extra_slab),
 * pointed to by hist_entry.branch, so that the normal report's entry stays 128 bytes.
 */
struct hist_branch {
	const struct dso *from_dso, *to_dso;
	const struct symbol *from_sym, *to_sym;
	const struct symtab *from_symtab, *to_symtab;
	u64 from, to;		/* the raw addresses */
	u64 from_addr, to_addr;	/* in their maps (the raw ones without) */
	u64 flags;		/* perf_event.h's perf_branch_entry bits after from and to */
	char from_level, to_level;
};

/* perf_branch_entry's flags: mispred:1, predicted:1, in_tx:1, abort:1, cycles:16, type:4... */
#define BRANCH_MISPRED(f) ((f) & 1)
#define BRANCH_PREDICTED(f) (((f) >> 1) & 1)
#define BRANCH_IN_TX(f) (((f) >> 2) & 1)
#define BRANCH_ABORT(f) (((f) >> 3) & 1)
#define BRANCH_CYCLES(f) ((u16)((f) >> 4))
#define BRANCH_TYPE(f) (((f) >> 20) & 15)
#define BRANCH_NEW_TYPE(f) (((f) >> 26) & 15)

/*
 * What an entry of memory mode has besides the normal keys (the sample's own address): perf's
 * mem_info, its first sample's. Kept aside as struct hist_branch is.
 */
struct hist_mem {
	const struct dso *daddr_dso, *iaddr_dso;
	const struct symbol *daddr_sym, *iaddr_sym;
	const struct symtab *daddr_symtab, *iaddr_symtab;
	u64 daddr, iaddr;	/* the raw data address, the raw ip */
	u64 daddr_base, iaddr_base;	/* their maps' map__base */
	u64 phys_addr, data_page_size;
	u64 data_src;
};

struct hist_entry {
	struct thread *thread;	/* reference */
	const struct comm *comm;	/* its string may change once: see struct comm */
	struct map *map;	/* reference, may be NULL */
	struct dso *dso;	/* map's dso: keys read it without touching the map, whose
				 * count another thread changes */
	const struct symbol *sym;
	const struct symtab *symtab;
	const char *parent;	/* interned, NULL for [other] */
	u64 ip;		/* a sample's map-relative address, a callchain entry's raw ip */
	u64 period;
	u64 period_acc;	/* children: its own period and its callees' (perf's stat_acc) */
	union {
		/* of the map it was made from, when it keeps no map (callchain entries) */
		u64 map_size;
		/*
		 * Its sample's values and source texts for the keys that read them
		 * (struct hist_extra), which have no callchain entries: no room for another
		 * field, and the keys are rare enough to do without the children view.
		 */
		const struct hist_extra *extra;
		/* branch and memory modes (sort->branch, ->mem), which have no callchain
		 * entries: see hist_branch, hist_mem */
		const struct hist_branch *branch;
		const struct hist_mem *mem;
	};
	u64 first;	/* the number of the first sample that reached it (UINT64_MAX: none yet) */
	s32 cpu, socket;
	u32 hash;	/* hists__hash (32 bits) */
	u32 nr_events;	/* samples (u32 in perf's he_stat too) */
	/*
	 * first_pos and the flags share a word that the replay reads while the cumulation,
	 * on another thread, writes max_depth (hist_resolve.c): not one word with it.
	 */
	u32 first_pos : 21;	/* where in its first sample: 0 its own entry, 1 + i its chain's
				   frame i: a chain is as long as kernel.perf_event_max_stack
				   lets the kernel's be, 127 frames by default, with unwound and
				   inlined frames added, far under 2^21) */
	u32 level : 8;		/* 'k', '.'... */
	u32 filtered : 1;
	u32 merged : 1;		/* folded into an earlier entry by a collapse */
	u32 unmapped_chain : 1;	/* a sample (proto): its chain has a frame without a map */
	u32 max_depth;		/* the longest of its callchains (perf's callchain->max_depth) */
	u32 contrib_first, contrib_nr;	/* its callchains, once hists__resolve_callchains ran */
};

/*
 * Every field of he zero, one by one: a memset of the whole (or a compound literal) is a
 * rep stos, slow to start, for the protos made a few times a sample or frame. The size
 * check makes a new field come here too.
 */
static inline void hist_entry__clear(struct hist_entry *he)
{
	_Static_assert(sizeof(struct hist_entry) == 128, "hist_entry__clear sets every field");
	he->thread = NULL;
	he->comm = NULL;
	he->map = NULL;
	he->dso = NULL;
	he->sym = NULL;
	he->symtab = NULL;
	he->parent = NULL;
	he->ip = he->period = he->period_acc = he->first = 0;
	he->map_size = 0;	/* and extra, branch, mem */
	he->cpu = he->socket = 0;
	he->hash = he->nr_events = 0;
	he->first_pos = he->level = he->max_depth = 0;
	he->filtered = he->merged = he->unmapped_chain = 0;
	he->contrib_first = he->contrib_nr = 0;
}

/*
 * What an entry keeps for the keys that read more than struct hist_entry holds, interned in
 * a report's hist_extras (equal contents are one pointer). Its first sample's values (perf's
 * hist_entry fields: weight and ins_lat of PERF_SAMPLE_WEIGHT_STRUCT's parts or WEIGHT's
 * whole, p_stage_cyc (0 on x86), transaction, code_page_size), and once hists__resolve_srclines ran, perf
 * 6.1's srcline and srcfile (sort.c hist_entry__srcline, get_srcfile): line "FILE:LINE" as
 * addr2line answers for its address, else "SYMBOL+OFFSET" (decimal), else "DSO[ADDR]", "??:0"
 * without a map; file the FILE of an answer, else "" (both NULL before).
 */
struct hist_extra {
	const char *line, *file;
	u64 weight, transaction, code_page_size;
	u16 ins_lat, p_stage_cyc;
};

struct hist_extras;

struct hist_extras *hist_extras__new(void);
void hist_extras__delete(struct hist_extras *extras);
/* x's interned copy: valid until extras is deleted. Not thread safe (one writer). */
const struct hist_extra *hist_extras__intern(struct hist_extras *extras,
					     const struct hist_extra *x);
/* Whether the sort list has a key that reads hist_extra; one of a sample's values. */
bool sort_list__has_extra(const struct sort_list *list);
bool sort_list__has_values(const struct sort_list *list);

/* A sample's chain in an entry, counted: what the run keeps of callchains. */
struct chain_pair {
	u32 entry, chain;
	u32 count;
	bool filtered;
	bool owns_thread;	/* else it borrows its entry's */
	char level;	/* of its samples' own address */
	u64 period;
	u64 first;		/* its first sample's number */
	u64 last;		/* its last sample's number */
	struct thread *thread;	/* its first sample's: perf's entries take the thread and */
	const struct comm *comm;	/* comm of the first sample that reaches them */
};

/*
 * What hists__resolve_callchains keeps of a pair once the pair's entries are made: what the
 * replay (entry, level, filter) and the call graphs (chain, count, period) read. 24 bytes.
 */
struct chain_count {
	u32 entry, chain;
	u32 count;
	bool filtered;
	char level;
	u64 period;
};

/*
 * A sample of the children view that reached an entry of an address without a map, which
 * perf's first tree may fail to find (see hist_replay.c). 16 bytes: a busy
 * system-wide recording has them by the hundred thousand.
 */
struct hist_wrap_sample {
	u32 sample;	/* its number (none kept past 2^32 samples) */
	u32 period;	/* (none kept when one does not fit) */
	u32 ref : 31;	/* its chain's pair, or without a chain its own entry */
	u32 chainless : 1;
	u32 thread;	/* in hists->wrap_threads */
};

/* A thread of those samples: a reference when owns, else its entry's or pair's. */
struct hist_wrap_thread {
	struct thread *thread;
	bool owns;
};

struct object_map {
	u64 base, last;
};

struct entry_index {
	u32 *slots;	/* entry number + 1, or 0 */
	size_t cap;	/* power of two */
};

/* An entry's callchain: a pair's chain from a frame on. */
struct entry_contrib {
	u32 pair, offset;
};

struct hists {
	const struct sort_list *sort;
	struct entry_index index;
	struct hist_entry *entries;
	size_t nr, alloc;
	u32 *merged_into;	/* by entry, once a collapse merged one: the entry that absorbed it */
	size_t merged_into_alloc;
	/*
	 * perf refreshes an entry's map with each sample's (he->ms.map) and names a data
	 * symbol by the entry's ip less the symbol's start unmapped in that map: for the
	 * entries of data symbols, the latest map's start - pgoff (0 for identity maps) and the
	 * number of the sample that brought it (struct object_map, by 1 + its index in omaps).
	 */
	struct hashmap object_maps;
	struct object_map *omaps;
	size_t nr_omaps, omaps_alloc;
	size_t last;	/* index + 1 of the entry the last sample went to */
	u64 nr_samples, nr_non_filtered_samples;
	u64 total_period;	/* of every sample, filtered or not */
	u64 nr_sample_events;	/* for --stats */
	u64 nr_lost_samples;	/* for --stats: what the event's LOST_SAMPLES records count */
	bool collapsed;		/* hists__collapse ran */
	bool cumulate;		/* children view: entries accumulate their callees' periods */
	bool has_callchain;	/* the event's samples have callchains */
	struct chain_pair *pairs;	/* in the order first seen, until resolved: then NULL */
	struct chain_count *counts;	/* then: the pairs' counts, in the same order */
	size_t nr_pairs, pairs_alloc;
	struct entry_index pair_index;
	struct entry_contrib *contribs;	/* by entry, once resolved */
	size_t nr_contribs;
	struct hist_wrap_sample *wraps;	/* in the order they came, until resolved */
	size_t nr_wraps, wraps_alloc;
	bool wraps_off;		/* a number or period too large to keep: no replay */
	struct hist_wrap_thread *wrap_threads;
	size_t nr_wrap_threads, wrap_threads_alloc;
	struct hashmap wrap_thread_ids;	/* thread -> 1 + its index in wrap_threads */
	u32 *in_order;	/* once resolved, if any wraps or tree_mode: the entries in perf's
			   collapsed tree's order (what its output tree is fed), else NULL */
	bool tree_mode;	/* entries found through perf's first tree, not the index (hist.c) */
	bool index_stale;	/* hists__append'ed to: the index lacks entries */
	struct rbtree entries_in;	/* that tree, in tree_mode */
	size_t nr_in_order;
	/* perf's trees' orders sorted rather than built (hist_order.c), the last output's: for
	 * the tests, which set order_by_trees to compare the two ways */
	bool in_sorted, out_sorted, order_by_trees;
	bool srclines;	/* hists__resolve_srclines ran */
	struct slab extra_slab;	/* the entries' struct hist_branch or hist_mem, in those modes */
};

/* A run begins (tools/batch runs many in a process): perf's mispredict column's last answer
 * forgotten, as a new perf process has it. */
void hists__branch_run_start(void);
void hists__init(struct hists *hists, const struct sort_list *sort);
void hists__exit(struct hists *hists);
/*
 * Add one resolved sample. proto holds references to its thread and map: the histogram
 * takes over what it keeps (those fields become NULL, or another map it lets go); the
 * caller puts what is left. Takes and puts no reference itself, so that it may run on
 * another thread than the one that owns the reference counts. proto->hash is
 * hists__hash(hists, proto) if the caller has it, else 0; map_base is
 * map__base(proto->map) (read by the caller, on the thread that owns the map).
 */
void hists__add(struct hists *hists, struct hist_entry *proto, u32 chain, u64 map_base);
/*
 * Fold in an entry of a partial histogram (hists__add'ed elsewhere, its hash kept), partials'
 * entries in the order of their first samples: the first of equal ones makes the entry (a
 * copy of he: the caller takes its references), the others add their counts. order: the
 * entry's first sample's rank. Its index in hists; *created whether it made it.
 */
u32 hists__merge(struct hists *hists, struct hist_entry *he, u64 order, bool *created);
/*
 * n entries appended, for the caller to fill (each equal to no other entry, its hash and
 * first set, references taken): hists__append for many at once, from any threads. The
 * index is made again by hists__merge_done.
 */
struct hist_entry *hists__append_n(struct hists *hists, size_t n);
/*
 * Room for nr entries and their index taken at once: what grows by doubling copies, and
 * each copy's pages are fresh ones to fault in.
 */
void hists__reserve(struct hists *hists, size_t nr);
/*
 * Append he (its hash kept), known to be equal to no entry, as made by the sample of rank
 * order: hists__merge without the lookup. The index is made again by hists__merge_done.
 */
void hists__append(struct hists *hists, const struct hist_entry *he, u64 order);
/*
 * Every partial folded in: the index made again if entries were appended, the entries of
 * data symbols take their final maps' bases.
 */
void hists__merge_done(struct hists *hists);
/* Whether a sort's lookups go through perf's first tree (tree_mode: see hist.c). */
bool lookups_can_fail(const struct sort_list *sort);
/* The hash of proto's keys, which hists__add and hists__prefetch go by. */
u64 hists__hash(const struct hists *hists, const struct hist_entry *proto);
/*
 * Prefetch what hists__add will read for an entry of that hash, in two steps some samples
 * apart: stage 0 the index slot, stage 1 (the slot in by then) the entry it holds; and the
 * same for the pair of chain (CC_NO_CHAIN: none) in that entry. A hint: it changes nothing.
 */
void hists__prefetch(const struct hists *hists, u64 hash, u32 chain, bool filtered, int stage);

struct inlines;

/*
 * After the run, before hists__resolve_callchains, with the srcline or srcfile key (not in
 * the children view, nor where lookups_can_fail): every entry's texts, found once an entry
 * (a dso and address: the keys compare those until then) with inlines' line lookup, into
 * its hist_extra (interned in extras), then the entries that share their texts and other
 * keys merged (hists__collapse), as perf 6.1 compares the keys as strings.
 */
void hists__resolve_srclines(struct hists *hists, struct inlines *inlines,
			     struct hist_extras *extras);
/* Whether the sort list has a key of source lines (srcline, srcfile). */
bool sort_list__has_src(const struct sort_list *list);

/* What call graphs need after the run (report's). */
struct hists_callchain {
	struct callchains *chains;
	struct machine *machine;
	const struct callchain_param *param;
	bool use_callchain;	/* print the graphs (not -g none) */
	bool skip_first;	/* --sort starting with "sym" (perf's callchain__fprintf_graph) */
	struct inlines *inlines;	/* dwarf recordings: the unwound frames' inlined functions */
	struct inlines *lines;		/* the address and srcline keys: frames' source lines */
	enum callchain_order order;	/* the chains' (as interned) */
	bool one_thread;	/* -j1: no second thread replays perf's first tree or prints */
};

/*
 * After the run, on the thread that owns the reference counts: merge the entries the final
 * comms make equal, then give every entry its callchains (children: make the entries of
 * every caller in the chains and accumulate into them, as perf's hist_iter_cumulative does
 * per sample; here once per distinct chain and entry).
 */
void hists__resolve_callchains(struct hists *hists, const struct hists_callchain *cc);

struct hists_print_opts {
	const struct field_list *fields;	/* -F's, or NULL */
	bool show_nr_samples;	/* -n */
	bool show_total_period;	/* -T */
	const char *field_sep;	/* -t: NULL, or perf's separator output */
	bool percent_relative;	/* --percentage relative: of the samples not filtered out */
	const char *symbol_filter;	/* --symbol-filter: only symbols whose names have it */
	bool socket_filter;	/* --socket-filter (with a comm key): only this socket's entries */
	int socket;
	bool show_header;
	bool has_dso_filter;	/* perf widens [unknown] dso columns only without --dsos */
	double percent_limit;
	const struct hists_callchain *callchain;	/* NULL: no call graphs */
	bool one_thread;	/* -j1: no second thread prints */
};

/* What the filters kept of a histogram: what --percentage relative counts. */
struct hists_kept {
	u64 nr_samples;		/* the samples the filters kept as they came */
	u64 period;		/* their period (perf's total_non_filtered_period) */
	u64 shown_period;	/* of the entries --symbol-filter keeps too, which perf
				   applies after the run */
};

void hists__kept(const struct hists *hists, const struct hists_print_opts *opts,
		 struct hists_kept *kept);
/* Sort, size and print the entries (header lines included when show_header). */
void hists__fprintf(struct hists *hists, const struct hists_print_opts *opts, FILE *fp);
/* "   %6.2f%%" of percent, as snprintf(buf, size, ...) would write it, but faster. */
int hists__format_percent(char *buf, size_t size, double percent);

#endif
