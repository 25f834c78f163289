/*
 * workqueue: a small thread pool with a kernel-workqueue-like API (the shape of perf's
 * multithreading work: workqueue_struct / work_struct / queue_work / flush_workqueue /
 * parallel_for). It runs readers, decompression and symbol loading in parallel; it knows
 * nothing about perf.data.
 *
 * Model
 * -----
 * A `struct workqueue` owns N worker threads and one FIFO of pending `struct work` items.
 * Users embed a `struct work` in their own object, set `func` and queue it; the worker calls
 * `func(work)` and the callback finds its object with container_of():
 *
 *	struct load_job {
 *		struct work work;
 *		struct dso *dso;
 *	};
 *
 *	static void load_job_run(struct work *work)
 *	{
 *		struct load_job *job = container_of(work, struct load_job, work);
 *
 *		dso__load(job->dso);
 *	}
 *
 *	job->work.func = load_job_run;
 *	workqueue__queue(wq, &job->work);
 *	...
 *	workqueue__flush(wq);
 *
 * Items start in the order they were queued; they may finish in any order. An item runs on a
 * pool thread, or on a thread that is waiting in workqueue__flush() (flushers help run the
 * items they wait for instead of sleeping).
 *
 * Complexity
 * ----------
 * Queueing is O(1) (one mutex acquisition, no allocation). A flush re-checks its condition in
 * O(number of items running at that moment) each time an item finishes while it waits.
 * parallel_for allocates one small descriptor per call, never per index or per chunk, and
 * hands out chunks with an atomic counter.
 *
 * Thread safety
 * -------------
 * Every call except workqueue__new() and workqueue__destroy() may be made from any thread,
 * including from inside a work item of the same queue. One mutex guards the queue and the
 * list of running items; it is never held while user code runs.
 *
 * Ownership
 * ---------
 * The queue never copies, allocates or frees a `struct work`: the caller owns it and must keep
 * it alive and unmodified from workqueue__queue() until its `func` has been called. `func` may
 * free or re-queue its own item (the queue does not touch the item after `func` returns). A
 * `struct work` may be queued again once its `func` has started.
 *
 * Not handled
 * -----------
 * Cycles across two queues (an item of A flushes B while an item of B flushes A) can deadlock,
 * as in the kernel. Work items must not call workqueue__destroy() on their own queue.
 */
#ifndef LIB_WORKQUEUE_H
#define LIB_WORKQUEUE_H

#include <stddef.h>

#include "lib/compiler.h"

struct workqueue;

/*
 * A unit of work. Set `func` before queueing; the other fields are private to workqueue.c
 * and need no initialisation.
 */
struct work {
	void (*func)(struct work *work);
	/* private: */
	struct work *next;	/* pending FIFO link, guarded by the queue's lock */
	u64 seq;		/* position in queueing order, decides what a flush waits for */
};

/*
 * Create a pool of `nr_threads` worker threads; `nr_threads <= 0` means one per online CPU.
 * 1 is valid (the `-j1` case): everything still works, including nested flush and
 * parallel_for from a work item. Returns a new queue owned by the caller (release it with
 * workqueue__destroy()), or NULL with errno set when threads cannot be started.
 */
struct workqueue *workqueue__new(int nr_threads);

/*
 * Run every item still queued (including items queued by running items meanwhile), wait
 * for them, join the threads and free the queue. NULL is a no-op. Must not be called from a
 * work item of `wq`, nor while another thread may still queue to or flush `wq`.
 */
void workqueue__destroy(struct workqueue *wq);

/* Number of worker threads of the pool (not counting threads that help while flushing). */
int workqueue__nr_threads(const struct workqueue *wq);

/*
 * Append `work` to the queue and wake one idle worker. Never blocks on work, never fails.
 * `work->func` must be set; see Ownership above.
 */
void workqueue__queue(struct workqueue *wq, struct work *work);

/*
 * Wait until every item queued before this call has finished; the calling thread runs
 * pending items itself while it waits. Items queued after the call are not waited for.
 *
 * Nested flush: called from inside a work item W of the same queue, flush waits for every
 * item queued after W started and before the call — in particular everything W queued
 * itself — but not for items that were already running when W started (older items
 * taken by other threads). Those may themselves be flushing and waiting for W; waiting for
 * them could deadlock, and W cannot finish before this call returns anyway. With this rule
 * every wait points from an older item to newer ones, so any number of items may flush at
 * once on any number of threads (even one) without deadlock. A flush from a thread that is
 * not running an item of `wq` waits for everything queued before it.
 */
void workqueue__flush(struct workqueue *wq);

/*
 * Run the oldest pending item on the calling thread, if there is one; true if it ran one.
 * For a thread that must wait for something a worker is doing: it helps rather than sleeps
 * (the item is newer than anything running, as the nested-flush rule above requires).
 */
bool workqueue__help(struct workqueue *wq);

/*
 * Call fn(i, arg) once for every i in [start, end), `chunk` consecutive indices at a time,
 * spread over the pool, and return when all calls have returned. The calling thread runs
 * chunks too, so it completes even when every worker is busy; it is safe from inside a work
 * item, and fn may itself call parallel_for or queue and flush work. Calls for different i
 * run concurrently and in no particular order; fn must synchronise anything it shares.
 *
 * `chunk == 0` picks a size giving each thread a few chunks. `wq == NULL` runs everything on
 * the calling thread. An empty range returns 0 without calling fn.
 * Returns 0, or -EINVAL when start > end or fn is NULL.
 */
int workqueue__parallel_for(struct workqueue *wq, size_t start, size_t end, size_t chunk,
			    void (*fn)(size_t i, void *arg), void *arg);

#endif
