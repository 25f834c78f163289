/*
 * aggregate: the second stage of a sample path (report's histograms, script's lines). The
 * thread that reads records resolves what needs the model as it is at each sample (thread,
 * comm, map) and hands items on in batches; one aggregator at a time (a worker; the reading
 * thread itself only when there is none, or when it would otherwise wait) finishes them in
 * delivery order: for report symbol lookup, filters, histograms; for script, the text.
 * Reference counts stay on the reading thread: an item may carry references (report's: its
 * thread and map, which the histogram may take over); whatever it still holds once finished
 * is put back on the reading thread by the put callback.
 */
#ifndef ANALYZER_AGGREGATE_H
#define ANALYZER_AGGREGATE_H

#include <pthread.h>

#include "analyzer/hist/hist.h"
#include "lib/workqueue.h"

struct sample_batch;

/*
 * report's item: one sample as far as the reading thread could resolve it. Compact: it
 * crosses from one core's cache to another's.
 */
struct agg_item {
	struct thread *thread;	/* references, or NULL once the histogram took them */
	struct map *map;
	struct dso *dso;	/* map's: the aggregator reads no map, whose count changes here */
	const struct comm *comm;	/* the thread's, or a final one (see final_comm) */
	const char *parent;
	const struct symbol *sym;	/* once resolved (resolved) */
	const struct hist_extra *extra;	/* when a key reads one (sort_list__has_extra) */
	u64 addr;		/* map-relative when map is set */
	u64 map_base;		/* map__base(map) */
	u64 period;
	u64 hash;		/* of its histogram entry's keys, once resolved (hists__hash) */
	s32 cpu;
	u32 hists;		/* which histogram (the evsel's index) */
	u32 chain;		/* interned callchain (callchain.h), or CC_NO_CHAIN */
	char level;
	bool filtered;
	bool deferred;		/* not resolved yet: addr is the sample's ip (see hold) */
	bool unmapped_chain;	/* chain has a frame without a map (callchains__unmapped) */
	bool resolved;		/* sym is (on the aggregator) */
};

/*
 * Called with one item: fn finishes it (on the aggregator); put, on the reading thread once
 * it is finished, puts the references it still holds.
 */
typedef void (*agg_item_fn)(void *data, void *item);
/*
 * Optional, on the aggregator: an item AGG_AHEAD_STEP * (AGG_AHEAD_STAGES - stage) items
 * before fn gets it (within its batch: the first items of a batch miss stages), to prefetch
 * what fn will read in steps, and keep in the item what it had to compute for that.
 */
typedef void (*agg_ahead_fn)(void *data, void *item, int stage);
#define AGG_AHEAD_STAGES 2
#define AGG_AHEAD_STEP 6

struct aggregate {
	struct workqueue *wq;	/* NULL: each batch is finished as soon as it is full */
	agg_item_fn fn, put;
	agg_ahead_fn ahead;	/* NULL: none; set before the first item */
	void *data;
	/*
	 * The reading thread's own fields, on their own cache lines: the aggregator on another
	 * core reads the ones above, and a line written for every item and read on the other
	 * core moves between the cores every time.
	 */
	_Alignas(64) size_t slot_size;	/* of the slot handed out last, its header included */
	struct sample_batch *cur;	/* being filled by the reading thread */
	struct sample_batch *free;	/* reading thread only */
	bool hold;			/* keep full batches in held until release */
	struct sample_batch *held, **held_tail;
	size_t nr_held;
	struct work work;
	/* the lock guards the lists and flags below */
	_Alignas(64) pthread_mutex_t lock;
	pthread_cond_t cond;
	struct sample_batch *pending, **pending_tail;	/* full, in delivery order */
	struct sample_batch *done;	/* finished: references to put */
	size_t nr_pending;
	bool busy;	/* an aggregator is running */
	bool queued;	/* the work item is on the workqueue */
	/* atomic, read without the lock by an aggregator waiting for more (wait_for_more) */
	int submitted;	/* 1: a batch came since the aggregator last looked */
	int closing;	/* 1: none comes until aggregate__drain returns */
};

/* put may be NULL: the items hold no references. */
void aggregate__init(struct aggregate *agg, struct workqueue *wq, agg_item_fn fn,
		     agg_item_fn put, void *data);
/*
 * A slot of size bytes (8-aligned, at most a few KB) for the next item (reading thread);
 * aggregate__commit() hands it on.
 */
void *aggregate__slot(struct aggregate *agg, size_t size);
void aggregate__commit(struct aggregate *agg);
/*
 * Keep the items handed on from now on (reading thread), until release has fixed what the
 * reading thread could not resolve yet: fn is called for every item held (and those of the
 * batch being filled), in order.
 */
void aggregate__hold(struct aggregate *agg);
/* Is so much held that the reading thread should rather wait (bounded memory)? */
bool aggregate__held_full(const struct aggregate *agg);
void aggregate__release(struct aggregate *agg, agg_item_fn fn, void *data);
/* Finish every item handed on so far (reading thread; after a release). */
void aggregate__drain(struct aggregate *agg);
/* aggregate__drain, and the batches' memory goes: no item comes after. */
void aggregate__finish(struct aggregate *agg);
void aggregate__exit(struct aggregate *agg);

#endif
