/* busy: the run's wall time, threads' CPU time and serial stages; see busy.h. */
#include "lib/busy.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/clock.h"

#define BUSY_MAX_THREADS 256

static bool enabled;	/* ANALYZE_BUSY is set */

static const char *const stage_names[BUSY_NR_STAGES] = { "aggregate", "parallel-wall",
							   "parallel-cpu", "fold" };

static struct {
	pthread_mutex_t lock;	/* guards the thread list */
	struct { const char *name; u64 ns; } threads[BUSY_MAX_THREADS];
	int nr_threads;
	u64 stages[BUSY_NR_STAGES];	/* atomic adds */
	u64 start;
	char path[128];
} busy = { .lock = PTHREAD_MUTEX_INITIALIZER };

u64 busy__thread_ns(void)
{
	return enabled ? clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
}

void busy__thread_end(const char *name)
{
	u64 ns;

	if (!enabled)
		return;
	ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&busy.lock);
	if (busy.nr_threads < BUSY_MAX_THREADS)
		busy.threads[busy.nr_threads++] = (typeof(busy.threads[0])){ name, ns };
	pthread_mutex_unlock(&busy.lock);
}

void busy__stage(enum busy_stage stage, u64 ns)
{
	if (enabled)
		__atomic_fetch_add(&busy.stages[stage], ns, __ATOMIC_RELAXED);
}

void busy__path(const char *note)
{
	if (enabled)
		snprintf(busy.path, sizeof(busy.path), "%s", note);
}

/* At exit, on the main thread: one line each, seconds. */
static void busy_print(void)
{
	double wall = (double)(clock_ns(CLOCK_MONOTONIC) - busy.start) / 1e9;

	fprintf(stderr, "busy: wall %.4f\n", wall);
	if (busy.path[0])
		fprintf(stderr, "busy: path %s\n", busy.path);
	fprintf(stderr, "busy: thread main %.4f\n", (double)busy__thread_ns() / 1e9);
	pthread_mutex_lock(&busy.lock);
	for (int i = 0; i < busy.nr_threads; i++)
		fprintf(stderr, "busy: thread %s %.4f\n", busy.threads[i].name,
			(double)busy.threads[i].ns / 1e9);
	pthread_mutex_unlock(&busy.lock);
	for (int s = 0; s < BUSY_NR_STAGES; s++)
		fprintf(stderr, "busy: stage %s %.4f\n", stage_names[s],
			(double)__atomic_load_n(&busy.stages[s], __ATOMIC_RELAXED) / 1e9);
}

void busy__init(void)
{
	const char *env = getenv("ANALYZE_BUSY");

	if (!env || !*env || (env[0] == '0' && !env[1]))
		return;
	enabled = true;
	busy.start = clock_ns(CLOCK_MONOTONIC);
	atexit(busy_print);
}
