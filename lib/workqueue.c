/*
 * workqueue: thread pool, FIFO of work items, flush with helping, parallel_for.
 * Owns the worker threads and its lock; never allocates or frees a queued `struct work`.
 * See lib/workqueue.h for the contract, in particular the nested-flush rule.
 */
#include "lib/workqueue.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/busy.h"
#include "lib/xalloc.h"

#define WORKQUEUE_MAX_THREADS 1024

/*
 * One item being executed, on the stack of the thread running it. Frames form two lists:
 * the queue's list of running items (guarded by wq->lock) and the thread's own stack of
 * frames (thread-local, touched only by that thread), innermost first.
 */
struct exec_frame {
	struct workqueue *wq;
	u64 seq;
	struct exec_frame *prev, *next;	/* wq->running, guarded by wq->lock */
	struct exec_frame *outer;	/* this thread's enclosing frame, any queue */
};

static _Thread_local struct exec_frame *current_frame;

struct workqueue {
	pthread_mutex_t lock;
	/* Guarded by lock: */
	pthread_cond_t more;		/* signalled on queue, broadcast on shutdown */
	pthread_cond_t done;		/* broadcast when an item finishes and someone flushes */
	struct work *head, *tail;	/* pending items, FIFO, seq increasing */
	struct exec_frame *running;	/* items being executed, any order */
	u64 next_seq;			/* seq of the next queued item */
	int nr_flushing;		/* threads asleep on done */
	bool shutdown;
	/* Fixed after workqueue__new(): */
	int nr_threads;
	pthread_t *threads;
	cpu_set_t cpus;			/* where workers may run once started */
	bool spread;			/* started away from the creating thread's CPU */
};

static struct work *pop_locked(struct workqueue *wq)
{
	struct work *work = wq->head;

	wq->head = work->next;
	if (!wq->head)
		wq->tail = NULL;
	return work;
}

static void push_locked(struct workqueue *wq, struct work *work)
{
	work->next = NULL;
	work->seq = wq->next_seq++;
	if (wq->tail)
		wq->tail->next = work;
	else
		wq->head = work;
	wq->tail = work;
}

/*
 * Run one item with wq->lock held on entry and on return; the lock is dropped around the
 * callback. The item is not touched after func returns: func may free or re-queue it.
 */
static void run_locked(struct workqueue *wq, struct work *work)
{
	struct exec_frame frame = { .wq = wq, .seq = work->seq, .next = wq->running };

	if (wq->running)
		wq->running->prev = &frame;
	wq->running = &frame;
	frame.outer = current_frame;
	current_frame = &frame;
	pthread_mutex_unlock(&wq->lock);

	work->func(work);

	pthread_mutex_lock(&wq->lock);
	current_frame = frame.outer;
	if (frame.prev)
		frame.prev->next = frame.next;
	else
		wq->running = frame.next;
	if (frame.next)
		frame.next->prev = frame.prev;
	if (wq->nr_flushing)
		pthread_cond_broadcast(&wq->done);
}

static void *worker_main(void *arg)
{
	struct workqueue *wq = arg;

	if (wq->spread)
		pthread_setaffinity_np(pthread_self(), sizeof(wq->cpus), &wq->cpus);

	pthread_mutex_lock(&wq->lock);
	for (;;) {
		while (!wq->head && !wq->shutdown)
			pthread_cond_wait(&wq->more, &wq->lock);
		if (!wq->head)
			break;	/* shutdown and drained */
		run_locked(wq, pop_locked(wq));
	}
	pthread_mutex_unlock(&wq->lock);
	busy__thread_end("worker");
	return NULL;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > WORKQUEUE_MAX_THREADS ? WORKQUEUE_MAX_THREADS : (int)n;
}

/* Stop and join the first nr threads, then free: the one teardown path. */
static void workqueue__stop(struct workqueue *wq, int nr)
{
	pthread_mutex_lock(&wq->lock);
	wq->shutdown = true;
	pthread_cond_broadcast(&wq->more);
	pthread_mutex_unlock(&wq->lock);
	for (int i = 0; i < nr; i++)
		pthread_join(wq->threads[i], NULL);
	pthread_cond_destroy(&wq->done);
	pthread_cond_destroy(&wq->more);
	pthread_mutex_destroy(&wq->lock);
	free(wq->threads);
	free(wq);
}

struct workqueue *workqueue__new(int nr_threads)
{
	struct workqueue *wq = xzalloc(sizeof(*wq));
	pthread_attr_t attr;
	int i, err = 0, cpu;

	if (nr_threads <= 0)
		nr_threads = online_cpus();
	if (nr_threads > WORKQUEUE_MAX_THREADS)
		nr_threads = WORKQUEUE_MAX_THREADS;
	wq->nr_threads = nr_threads;
	wq->threads = xcalloc(nr_threads, sizeof(*wq->threads));
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->more, NULL);
	pthread_cond_init(&wq->done, NULL);

	/*
	 * A new thread may start on its creator's CPU and take it over until the scheduler
	 * moves one of them, a stall of milliseconds: workers start on the other CPUs, then
	 * may run anywhere the process may.
	 */
	pthread_attr_init(&attr);
	cpu = sched_getcpu();
	if (!sched_getaffinity(0, sizeof(wq->cpus), &wq->cpus) && CPU_COUNT(&wq->cpus) > 1 &&
	    cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &wq->cpus)) {
		cpu_set_t start = wq->cpus;

		CPU_CLR(cpu, &start);
		wq->spread = !pthread_attr_setaffinity_np(&attr, sizeof(start), &start);
	}
	for (i = 0; i < nr_threads; i++) {
		err = pthread_create(&wq->threads[i], &attr, worker_main, wq);
		if (err)
			break;
	}
	pthread_attr_destroy(&attr);
	if (err)
		goto out_stop;
	return wq;

out_stop:
	workqueue__stop(wq, i);
	errno = err;
	return NULL;
}

void workqueue__destroy(struct workqueue *wq)
{
	if (!wq)
		return;
	/* Workers drain the queue before they see shutdown, so queued work still runs. */
	workqueue__stop(wq, wq->nr_threads);
}

int workqueue__nr_threads(const struct workqueue *wq)
{
	return wq->nr_threads;
}

void workqueue__queue(struct workqueue *wq, struct work *work)
{
	pthread_mutex_lock(&wq->lock);
	push_locked(wq, work);
	pthread_cond_signal(&wq->more);
	pthread_mutex_unlock(&wq->lock);
}

bool workqueue__help(struct workqueue *wq)
{
	bool ran = false;

	pthread_mutex_lock(&wq->lock);
	if (wq->head) {
		run_locked(wq, pop_locked(wq));
		ran = true;
	}
	pthread_mutex_unlock(&wq->lock);
	return ran;
}

/* The seq of the innermost item of wq this thread is running, if any. */
static bool innermost_seq(struct workqueue *wq, u64 *seq)
{
	for (struct exec_frame *f = current_frame; f; f = f->outer) {
		if (f->wq == wq) {
			*seq = f->seq;
			return true;
		}
	}
	return false;
}

/*
 * Whether an item in the flush's wait set, seqs (floor, target) — or [0, target) without a
 * floor — is still running somewhere. The caller's own frames all have seq <= floor: the
 * innermost frame is the newest, as a thread only helps with items newer than its floor.
 */
static bool running_before_locked(struct workqueue *wq, bool has_floor, u64 floor, u64 target)
{
	for (struct exec_frame *f = wq->running; f; f = f->next) {
		if (f->seq < target && (!has_floor || f->seq > floor))
			return true;
	}
	return false;
}

void workqueue__flush(struct workqueue *wq)
{
	u64 floor = 0, target;
	bool has_floor = innermost_seq(wq, &floor);

	pthread_mutex_lock(&wq->lock);
	target = wq->next_seq;
	for (;;) {
		/*
		 * The FIFO hands out items in seq order, so everything older than the caller's
		 * own item is already taken: any pending item below target is in the wait set.
		 */
		if (wq->head && wq->head->seq < target) {
			run_locked(wq, pop_locked(wq));
			continue;
		}
		if (!running_before_locked(wq, has_floor, floor, target))
			break;
		wq->nr_flushing++;
		pthread_cond_wait(&wq->done, &wq->lock);
		wq->nr_flushing--;
	}
	pthread_mutex_unlock(&wq->lock);
}

/*
 * parallel_for: one heap descriptor shared by the caller and up to nr_threads helper items.
 * Chunks are claimed with an atomic counter, so whoever runs first takes the next chunk; the
 * caller claims too and only sleeps once every chunk is claimed. Helpers that start after the
 * last chunk was claimed find nothing to do, which is why the descriptor is reference
 * counted instead of living on the caller's stack: the caller returns as soon as the last
 * chunk is done, without waiting for late helpers to be scheduled.
 */
struct pfor_helper {
	struct work work;
	struct pfor_job *job;
};

struct pfor_job {
	void (*fn)(size_t i, void *arg);
	void *arg;
	size_t start, end, chunk, nr_chunks;
	atomic_size_t next_chunk;	/* claimed so far, may overshoot nr_chunks */
	atomic_size_t done_chunks;
	atomic_int refs;		/* caller + helpers not yet finished */
	pthread_mutex_t lock;		/* guards nothing but the wait on all_done */
	pthread_cond_t all_done;
	struct pfor_helper helpers[];
};

static void pfor_put(struct pfor_job *job)
{
	if (atomic_fetch_sub_explicit(&job->refs, 1, memory_order_acq_rel) != 1)
		return;
	pthread_cond_destroy(&job->all_done);
	pthread_mutex_destroy(&job->lock);
	free(job);
}

static void pfor_run_chunks(struct pfor_job *job)
{
	for (;;) {
		size_t c = atomic_fetch_add(&job->next_chunk, 1);
		size_t lo, hi;

		if (c >= job->nr_chunks)
			return;
		lo = job->start + c * job->chunk;	/* c < nr_chunks: no overflow */
		hi = lo + MIN(job->chunk, job->end - lo);
		for (size_t i = lo; i < hi; i++)
			job->fn(i, job->arg);
		if (atomic_fetch_add(&job->done_chunks, 1) + 1 == job->nr_chunks) {
			pthread_mutex_lock(&job->lock);
			pthread_cond_broadcast(&job->all_done);
			pthread_mutex_unlock(&job->lock);
		}
	}
}

static void pfor_helper_run(struct work *work)
{
	struct pfor_job *job = container_of(work, struct pfor_helper, work)->job;

	pfor_run_chunks(job);
	pfor_put(job);	/* may free the job and with it this work item */
}

int workqueue__parallel_for(struct workqueue *wq, size_t start, size_t end, size_t chunk,
			    void (*fn)(size_t i, void *arg), void *arg)
{
	size_t n = end - start, nr_chunks, nr_helpers;
	struct pfor_job *job;

	if (start > end || !fn)
		return -EINVAL;
	if (!n)
		return 0;
	if (!chunk) {
		size_t parts = wq ? 4 * (size_t)wq->nr_threads : 1;

		chunk = MAX(n / parts, (size_t)1);
	}
	nr_chunks = n / chunk + (n % chunk != 0);
	if (!wq || nr_chunks == 1) {
		for (size_t i = start; i < end; i++)
			fn(i, arg);
		return 0;
	}

	nr_helpers = MIN((size_t)wq->nr_threads, nr_chunks - 1);
	job = xmalloc(sizeof(*job) + nr_helpers * sizeof(job->helpers[0]));
	job->fn = fn;
	job->arg = arg;
	job->start = start;
	job->end = end;
	job->chunk = chunk;
	job->nr_chunks = nr_chunks;
	atomic_init(&job->next_chunk, 0);
	atomic_init(&job->done_chunks, 0);
	atomic_init(&job->refs, (int)nr_helpers + 1);
	pthread_mutex_init(&job->lock, NULL);
	pthread_cond_init(&job->all_done, NULL);

	pthread_mutex_lock(&wq->lock);
	for (size_t h = 0; h < nr_helpers; h++) {
		job->helpers[h].work.func = pfor_helper_run;
		job->helpers[h].job = job;
		push_locked(wq, &job->helpers[h].work);
		pthread_cond_signal(&wq->more);
	}
	pthread_mutex_unlock(&wq->lock);

	pfor_run_chunks(job);

	pthread_mutex_lock(&job->lock);
	while (atomic_load(&job->done_chunks) < nr_chunks)
		pthread_cond_wait(&job->all_done, &job->lock);
	pthread_mutex_unlock(&job->lock);
	pfor_put(job);
	return 0;
}
