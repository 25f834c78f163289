/*
 * callchain: report's call graphs. Each distinct callchain is interned once, on the thread
 * that reads records, as a run of interned frames (a frame: the dso and map-relative address
 * its ip resolved to in the thread's maps at the sample, the ip, the map's size and the
 * level); histogram entries keep only (chain, period, count) pairs. After the run the trees
 * of the entries shown are built from the interned chains and printed as perf 6.1's
 * ui/stdio/hist.c prints them (graph, fractal, flat, folded; percent, period, count).
 * Symbols are looked up once per distinct frame. Knows nothing of histograms.
 */
#ifndef ANALYZER_CALLCHAIN_H
#define ANALYZER_CALLCHAIN_H

#include <stdio.h>

#include "lib/compiler.h"
#include "machine/machine.h"

/* perf's callchain_param, with its report defaults (graph,0.5,callee,function,percent). */
enum callchain_mode { CC_GRAPH_ABS, CC_GRAPH_REL, CC_FLAT, CC_FOLDED, CC_NONE };
enum callchain_order { CC_ORDER_CALLEE, CC_ORDER_CALLER };
enum callchain_key { CC_KEY_FUNCTION, CC_KEY_ADDRESS, CC_KEY_SRCLINE };
enum callchain_value { CC_VALUE_PERCENT, CC_VALUE_PERIOD, CC_VALUE_COUNT };

struct callchain_param {
	enum callchain_mode mode;
	double min_percent;
	u32 print_limit;	/* 0: no limit */
	enum callchain_order order;
	enum callchain_key key;
	enum callchain_value value;
	bool order_set;		/* -g named an order */
	bool enabled;		/* -g given (and not none) */
	bool branch;		/* -g ...,branch: accepted, no branch stacks here */
};

void callchain_param__init(struct callchain_param *param);
/*
 * perf's parse_callchain_report_opt: a comma-separated list of mode, threshold, print limit,
 * order, sort key, "branch" and value, each by any prefix. 0, or -1 for a bad argument.
 */
int callchain_param__parse(struct callchain_param *param, const char *arg);

#define CC_NO_CHAIN UINT32_MAX

struct cc_frame {
	struct dso *dso;	/* NULL: no map */
	u64 addr;		/* map-relative (the ip without a map) */
	u64 ip;
	u64 map_size;		/* of the map (end - start), 0 without one */
	char level;		/* 'k', '.', ...; 0 without a map (perf keeps the one before) */
	bool unwound;		/* a user frame of a dwarf sample, unwound: may have inlines */
	u32 inl;		/* 0, or the frame of a function inlined there: 1 + its symbol's
				   index in the inline symtab (callchains__inline) */
};

struct callchains;
struct inlines;

struct callchains *callchains__new(void);
void callchains__delete(struct callchains *cc);

/*
 * The id of the chain of a sample (its PERF_SAMPLE_CALLCHAIN array: nr, then ips with
 * PERF_CONTEXT_* markers) as perf's cursor holds it: the first max_stack addresses, callee
 * first, or with CC_ORDER_CALLER the last max_stack, caller first. CC_NO_CHAIN when empty (or
 * when a marker is unknown: perf drops the chain). Reading thread; maps as at the sample.
 */
u32 callchains__intern(struct callchains *cc, struct machine *machine, struct thread *thread,
		       const u64 *chain, u32 max_stack, enum callchain_order order, u64 user_at);

/*
 * perf's thread__resolve_callchain_sample walk over a sample's own chain (its first nr
 * entries): from the sampled ip out (callee first) or from the outermost entry in (caller
 * first), at most max_stack frames, the PERF_CONTEXT_* markers switching the address space.
 * perf reads no marker past the last frame it takes; caller first it checks the last marker
 * before anything and, at each marker it passes, the one before it (find_prev_cpumode).
 */
struct chain_walk {
	const u64 *chain;
	u64 nr, walked;
	u32 max_stack, taken;
	bool caller, bad;
	u8 cpumode;	/* the next frame's address space */
};

void chain_walk__init(struct chain_walk *w, const u64 *chain, u64 nr, u32 max_stack,
		      bool caller);
/* 1: *ip is the next frame's (in w->cpumode); 0: the walk is over; -1: a marker that names no
 * address space (perf discards the chain there) */
int chain_walk__next(struct chain_walk *w, u64 *ip);

/*
 * callchains__intern for a chain seen before in the same context (a hash of everything its
 * frames' resolution depends on: the maps, their versions) without resolving it again: the
 * raw chain and the context are hashed (128 bits) and looked up first.
 */
u32 callchains__intern_cached(struct callchains *cc, struct machine *machine,
			      struct thread *thread, const u64 *chain, u32 max_stack,
			      enum callchain_order order, u64 user_at, u64 context);

/*
 * The chain with perf's append_inlines applied (after the run, one thread): each unwound
 * frame whose pc is in inlined code becomes a frame a function, innermost first in callee
 * order (outermost first in caller order), as perf's inline_list__append orders them; the
 * chain itself when it has none. Every chain must be taken through this before any symbol
 * of it is asked for (the inline symbols' array grows until then).
 */
u32 callchains__inline(struct callchains *cc, struct machine *machine, struct inlines *inlines,
		       u32 chain, enum callchain_order order);

/* The id of a chain of frames resolved already (cursor order). */
u32 callchains__intern_frames(struct callchains *cc, const struct cc_frame *frames, u32 nr);

/* The run is over: let the indexes and caches go (no more interning). */
void callchains__end_run(struct callchains *cc);

u32 callchains__len(const struct callchains *cc, u32 chain);
/* Whether a frame of the chain has no map (where perf's comparisons of entries wrap). */
bool callchains__unmapped(const struct callchains *cc, u32 chain);
/* The frame ids of a chain, in cursor order. */
const u32 *callchains__frame_ids(const struct callchains *cc, u32 chain);
const struct cc_frame *callchains__frame(const struct callchains *cc, u32 frame);
/* Frames interned so far: their ids are 0 to this less one. */
u32 callchains__nr_frames(const struct callchains *cc);
/* Fetch what callchains__sym will read of frame into the cache (a hint). */
void callchains__prefetch_sym(const struct callchains *cc, u32 frame);
/* The symbol of a frame, looked up once (after the run, one thread). */
const struct symbol *callchains__sym(struct callchains *cc, struct machine *machine, u32 frame,
				     const struct symtab **symtab);

/* One entry's share of a chain: its frames from offset on, with period and count. */
struct cc_contrib {
	u32 chain;
	u32 offset;
	u32 count;
	u64 period;
};

struct cc_print {
	const struct callchain_param *param;
	struct machine *machine;
	u64 total;		/* the histogram's total period */
	u64 parent;		/* the entry's period (children: accumulated) */
	u64 min_hit;		/* perf's min_callchain_hits (graph, flat, folded) */
	bool skip_first;	/* --sort starting with "sym": the single root's first frame */
	struct inlines *lines;	/* the address and srcline keys: where frames' lines come from */
};

/*
 * Whether an entry whose chains hold period in all prints no call graph: under an absolute
 * threshold (graph, flat, folded) a node shows only with min_hit or more, and none holds more
 * than the chains together. Its tree need not be built then.
 */
bool callchains__prints_nothing(const struct cc_print *p, u64 period);

/*
 * The memory of one thread's trees, kept from one entry's to the next: the largest entry's,
 * once, where a tree each would take and free it again (and leave the heap's freed pages
 * touched all over).
 */
struct cc_scratch;
struct cc_scratch *cc_scratch__new(void);
void cc_scratch__delete(struct cc_scratch *s);
/* Room for nr contributions, which the next callchains__fprintf with s may take. */
struct cc_contrib *cc_scratch__contribs(struct cc_scratch *s, size_t nr);

/*
 * Build the tree of one entry from its contributions and print it as perf's
 * hist_entry_callchain__fprintf does, in s's memory.
 */
void callchains__fprintf(struct callchains *cc, const struct cc_print *p,
			 const struct cc_contrib *contribs, size_t nr, struct cc_scratch *s,
			 FILE *fp);

#endif
