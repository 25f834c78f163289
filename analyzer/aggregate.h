/*
 * aggregate: the second stage of report's sample path. The thread that reads records resolves
 * what needs the model as it is at each sample (thread, comm, map) and hands the samples on in
 * batches; one aggregator at a time (a worker; the reading thread itself only when there is
 * none, or when it would otherwise wait) finishes them in delivery order: symbol lookup,
 * filters, histograms.
 * Reference counts stay on the reading thread: a sample carries references to its thread and
 * map, which the histogram may take over; whatever it leaves is put back on the reading thread.
 */
#ifndef ANALYZER_AGGREGATE_H
#define ANALYZER_AGGREGATE_H

#include <pthread.h>

#include "analyzer/hist.h"
#include "lib/workqueue.h"

struct sample_batch;

/*
 * One sample as far as the reading thread could resolve it. Compact: it crosses from one
 * core's cache to another's.
 */
struct agg_item {
	struct thread *thread;	/* references, or NULL once the histogram took them */
	struct map *map;
	struct dso *dso;	/* map's: the aggregator reads no map, whose count changes here */
	const struct comm *comm;
	const char *parent;
	u64 addr;		/* map-relative when map is set */
	u64 period;
	s32 cpu;
	u32 hists;		/* which histogram (the evsel's index) */
	char level;
	bool filtered;
	bool deferred;		/* not resolved yet: addr is the sample's ip (see hold) */
};

/* Finishes one item (on the aggregator); may take over its thread and map. */
typedef void (*agg_item_fn)(void *data, struct agg_item *item);

struct aggregate {
	struct workqueue *wq;	/* NULL: each batch is finished as soon as it is full */
	agg_item_fn fn;
	void *data;
	struct sample_batch *cur;	/* being filled by the reading thread */
	struct sample_batch *free;	/* reading thread only */
	bool hold;			/* keep full batches in held until release */
	struct sample_batch *held, **held_tail;
	size_t nr_held;
	struct work work;
	/* the lock guards the lists and flags below */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct sample_batch *pending, **pending_tail;	/* full, in delivery order */
	struct sample_batch *done;	/* finished: references to put */
	size_t nr_pending;
	bool busy;	/* an aggregator is running */
	bool queued;	/* the work item is on the workqueue */
};

void aggregate__init(struct aggregate *agg, struct workqueue *wq, agg_item_fn fn, void *data);
/* A slot for the next sample (reading thread); aggregate__commit() hands it on. */
struct agg_item *aggregate__slot(struct aggregate *agg);
void aggregate__commit(struct aggregate *agg);
/*
 * Keep the samples handed on from now on (reading thread), until release has fixed what
 * the reading thread could not resolve yet: fn is called for every deferred item.
 */
void aggregate__hold(struct aggregate *agg);
/* Is so much held that the reading thread should rather wait (bounded memory)? */
bool aggregate__held_full(const struct aggregate *agg);
void aggregate__release(struct aggregate *agg, agg_item_fn fn, void *data);
/* Finish every sample handed on so far (reading thread; after a release). */
void aggregate__drain(struct aggregate *agg);
void aggregate__exit(struct aggregate *agg);

#endif
