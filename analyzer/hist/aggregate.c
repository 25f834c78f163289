/*
 * aggregate: items handed from the reading thread to one aggregator at a time, in batches,
 * finished in delivery order. Owns the batches; knows nothing of what the items are or what
 * finishing means. A batch is a run of bytes: each item, of the size its slot was asked for,
 * after a word that holds that size.
 */
#include "analyzer/hist/aggregate.h"

#include <stdlib.h>
#include "lib/busy.h"
#include "lib/clock.h"
#include "lib/xalloc.h"

#define BATCH_BYTES (80 << 10)	/* report: 1024 samples */
#define MAX_PENDING 16		/* batches waiting before the reading thread waits for them */
#define MAX_HELD 48		/* batches held before the reading thread should wait */
#define ITEM_HEADER 8		/* the size word before each item: items stay 8-aligned */
#define AHEAD_WRITE_FROM 512	/* the bytes ahead of a slot that aggregate__slot asks for */
#define AHEAD_WRITE_TO 768
#define SPIN_NS 200000		/* an idle aggregator waits this long for the next batch */

struct sample_batch {
	struct sample_batch *next;
	size_t used;	/* bytes of items, headers included */
	_Alignas(8) unsigned char bytes[BATCH_BYTES];
};

/* Every item of b, in order. */
#define for_each_item(b, item, off)                                                         \
	for (size_t off = 0, size_;                                                          \
	     off < (b)->used && ((size_ = *(size_t *)((b)->bytes + off)),                   \
				 (item = (b)->bytes + off + ITEM_HEADER), true);             \
	     off += ITEM_HEADER + ALIGN_UP(size_, 8))

static size_t item_next(const struct sample_batch *b, size_t off)
{
	return off + ITEM_HEADER + ALIGN_UP(*(const size_t *)(b->bytes + off), 8);
}

/* fn on every item of b, in order; ahead on the items to come, stage by stage. */
static void finish_batch(struct sample_batch *b, agg_item_fn fn, agg_ahead_fn ahead, void *data)
{
	size_t lead[AGG_AHEAD_STAGES];	/* the item each stage is at */

	for (int s = 0; s < AGG_AHEAD_STAGES; s++) {
		lead[s] = 0;
		for (int i = 0; ahead && i < AGG_AHEAD_STEP * (AGG_AHEAD_STAGES - s); i++)
			if (lead[s] < b->used)
				lead[s] = item_next(b, lead[s]);
	}
	for (size_t off = 0; off < b->used; off = item_next(b, off)) {
		for (int s = 0; ahead && s < AGG_AHEAD_STAGES; s++) {
			if (lead[s] < b->used) {
				ahead(data, b->bytes + lead[s] + ITEM_HEADER, s);
				lead[s] = item_next(b, lead[s]);
			}
		}
		fn(data, b->bytes + off + ITEM_HEADER);
	}
}

/*
 * With agg->lock held and nothing pending: wait a little for the next batch, spinning,
 * rather than end the work item. The reading thread fills one every few tens of
 * microseconds, and waking a worker gone to sleep takes a futex call and, on a VM, an
 * interrupt to the other CPU. Not when the reading thread finishes the batches itself.
 */
static bool wait_for_more(struct aggregate *agg)
{
	u64 until = 0;

	if (!agg->wq)
		return false;
	pthread_mutex_unlock(&agg->lock);
	for (unsigned int i = 0; !__atomic_load_n(&agg->submitted, __ATOMIC_ACQUIRE); i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		if (i % 64)
			continue;
		if (!until)
			until = clock_ns(CLOCK_MONOTONIC) + SPIN_NS;
		else if (clock_ns(CLOCK_MONOTONIC) > until || __atomic_load_n(&agg->closing, __ATOMIC_ACQUIRE))
			break;
	}
	pthread_mutex_lock(&agg->lock);
	__atomic_store_n(&agg->submitted, 0, __ATOMIC_RELAXED);
	return agg->pending != NULL;
}

/* With agg->lock held and busy claimed by the caller: finish what is pending, give busy up. */
static void run_claimed(struct aggregate *agg)
{
	agg_item_fn fn = agg->fn;	/* not read per item: the reading thread writes near it */
	agg_ahead_fn ahead = agg->ahead;
	void *data = agg->data;
	u64 start;

	while (agg->pending || wait_for_more(agg)) {
		struct sample_batch *b = agg->pending;

		agg->pending = b->next;
		if (!agg->pending)
			agg->pending_tail = &agg->pending;
		agg->nr_pending--;

		pthread_mutex_unlock(&agg->lock);
		start = busy__thread_ns();
		finish_batch(b, fn, ahead, data);
		busy__stage(BUSY_AGGREGATE, busy__thread_ns() - start);
		pthread_mutex_lock(&agg->lock);
		b->next = agg->done;
		agg->done = b;
		pthread_cond_broadcast(&agg->cond);
	}
	agg->busy = false;
	pthread_cond_broadcast(&agg->cond);
}

/* Finish what is pending, unless an aggregator runs already (it will). */
static void run(struct aggregate *agg)
{
	pthread_mutex_lock(&agg->lock);
	if (!agg->busy) {
		agg->busy = true;
		run_claimed(agg);
	}
	pthread_mutex_unlock(&agg->lock);
}

/*
 * The work item. It claims the aggregator in the same critical section that notes it is no
 * longer queued: aggregate__drain() waits for either, and agg may go as soon as it sees
 * neither.
 */
static void run_work(struct work *work)
{
	struct aggregate *agg = container_of(work, struct aggregate, work);

	pthread_mutex_lock(&agg->lock);
	agg->queued = false;
	if (agg->busy) {
		pthread_cond_broadcast(&agg->cond);
	} else {
		agg->busy = true;
		run_claimed(agg);
	}
	pthread_mutex_unlock(&agg->lock);
}

/* Put the references finished samples still hold; their batches are free again. */
static void reclaim(struct aggregate *agg)
{
	struct sample_batch *b;

	pthread_mutex_lock(&agg->lock);
	b = agg->done;
	agg->done = NULL;
	pthread_mutex_unlock(&agg->lock);
	while (b) {
		struct sample_batch *next = b->next;
		void *item;

		if (agg->put)
			for_each_item(b, item, off)
				agg->put(agg->data, item);
		b->used = 0;
		b->next = agg->free;
		agg->free = b;
		b = next;
	}
}

void aggregate__init(struct aggregate *agg, struct workqueue *wq, agg_item_fn fn,
		     agg_item_fn put, void *data)
{
	pthread_mutexattr_t attr;

	*agg = (struct aggregate){ .wq = wq, .fn = fn, .put = put, .data = data };
	agg->pending_tail = &agg->pending;
	agg->held_tail = &agg->held;
	agg->work.func = run_work;
	/*
	 * Held for a few instructions, taken twice a batch by each side: a waiter spins a
	 * little before it sleeps (asleep, it costs a futex call to wake, and on a VM an
	 * interrupt to the other CPU).
	 */
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&agg->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	pthread_cond_init(&agg->cond, NULL);
}

static void submit(struct aggregate *agg);

void *aggregate__slot(struct aggregate *agg, size_t size)
{
	size_t need = ITEM_HEADER + ALIGN_UP(size, 8);

	if (need > BATCH_BYTES)
		abort();	/* a caller's bug: items are small */
	if (agg->cur && BATCH_BYTES - agg->cur->used < need)
		submit(agg);
	if (!agg->cur) {
		agg->cur = agg->free;
		if (agg->cur)
			agg->free = agg->cur->next;
		else
			agg->cur = xmalloc_populated(sizeof(*agg->cur));
		agg->cur->used = 0;
	}
	*(size_t *)(agg->cur->bytes + agg->cur->used) = size;
	agg->slot_size = need;
	/*
	 * A recycled batch's lines were last read by the aggregator, on another core: a first
	 * write here waits for that core to give the line up. Ask for them a few items early.
	 */
	for (size_t ahead = AHEAD_WRITE_FROM; ahead < AHEAD_WRITE_TO; ahead += 64)
		if (agg->cur->used + ahead < BATCH_BYTES)
			__builtin_prefetch(agg->cur->bytes + agg->cur->used + ahead, 1);
	return agg->cur->bytes + agg->cur->used + ITEM_HEADER;
}

/* Hand batches first..*last_next on to the aggregator. */
static void submit_list(struct aggregate *agg, struct sample_batch *first,
			struct sample_batch **last_next, size_t nr)
{
	bool queue = false, help;

	pthread_mutex_lock(&agg->lock);
	*agg->pending_tail = first;
	agg->pending_tail = last_next;
	agg->nr_pending += nr;
	__atomic_store_n(&agg->submitted, 1, __ATOMIC_RELEASE);
	if (agg->wq && !agg->queued && !agg->busy)
		queue = agg->queued = true;
	/*
	 * With workers, the reading thread leaves the samples to them: the histograms stay in
	 * one core's cache. It only takes its turn when it would wait anyway (below).
	 */
	help = !agg->wq;
	while (agg->nr_pending > MAX_PENDING && agg->busy) {
		/* the aggregator is behind: do queued work meanwhile (reading ahead, or the
		 * aggregator itself when no worker has started it) */
		pthread_mutex_unlock(&agg->lock);
		if (workqueue__help(agg->wq)) {
			pthread_mutex_lock(&agg->lock);
			continue;
		}
		pthread_mutex_lock(&agg->lock);
		if (agg->nr_pending > MAX_PENDING && agg->busy)
			pthread_cond_wait(&agg->cond, &agg->lock);
	}
	pthread_mutex_unlock(&agg->lock);
	if (queue)
		workqueue__queue(agg->wq, &agg->work);
	if (help)
		run(agg);
	reclaim(agg);
}

static void submit(struct aggregate *agg)
{
	struct sample_batch *b = agg->cur;

	agg->cur = NULL;
	b->next = NULL;
	if (agg->hold) {
		*agg->held_tail = b;
		agg->held_tail = &b->next;
		agg->nr_held++;
		return;
	}
	submit_list(agg, b, &b->next, 1);
}

void aggregate__hold(struct aggregate *agg)
{
	agg->hold = true;
}

bool aggregate__held_full(const struct aggregate *agg)
{
	return agg->nr_held >= MAX_HELD;
}

/* Stop holding: what is held goes on. */
static void unhold(struct aggregate *agg)
{
	struct sample_batch *b = agg->held, **tail = agg->held_tail;
	size_t nr = 0;

	agg->hold = false;
	if (!b)
		return;
	for (struct sample_batch *x = b; x; x = x->next)
		nr++;
	agg->held = NULL;
	agg->held_tail = &agg->held;
	agg->nr_held = 0;
	submit_list(agg, b, tail, nr);
}

void aggregate__release(struct aggregate *agg, agg_item_fn fn, void *data)
{
	void *item;

	for (struct sample_batch *b = agg->held; b; b = b->next)
		for_each_item(b, item, off)
			fn(data, item);
	if (agg->cur)
		for_each_item(agg->cur, item, off)
			fn(data, item);
	unhold(agg);
}

void aggregate__commit(struct aggregate *agg)
{
	agg->cur->used += agg->slot_size;
}

void aggregate__drain(struct aggregate *agg)
{
	unhold(agg);	/* only after an error: what is held goes as it is */
	if (agg->cur && agg->cur->used)
		submit(agg);
	__atomic_store_n(&agg->closing, 1, __ATOMIC_RELEASE);	/* no waiting for more */
	pthread_mutex_lock(&agg->lock);
	/* the work item, once queued, must have run before agg may go */
	while (agg->busy || agg->pending || agg->queued) {
		if (!agg->busy && agg->pending) {
			pthread_mutex_unlock(&agg->lock);
			run(agg);
			pthread_mutex_lock(&agg->lock);
			continue;
		}
		pthread_cond_wait(&agg->cond, &agg->lock);
	}
	pthread_mutex_unlock(&agg->lock);
	reclaim(agg);
	__atomic_store_n(&agg->closing, 0, __ATOMIC_RELAXED);
}

void aggregate__finish(struct aggregate *agg)
{
	aggregate__drain(agg);
	free(agg->cur);
	agg->cur = NULL;
	while (agg->free) {
		struct sample_batch *next = agg->free->next;

		free(agg->free);
		agg->free = next;
	}
}

void aggregate__exit(struct aggregate *agg)
{
	aggregate__finish(agg);
	pthread_mutex_destroy(&agg->lock);
	pthread_cond_destroy(&agg->cond);
}
