/*
 * gate: a work item that holds the worker running it until the test opens the gate, so
 * that items queued behind it wait (tests of helping and of loads queued ahead).
 */
#ifndef TESTS_UNIT_GATE_H
#define TESTS_UNIT_GATE_H

#include <pthread.h>
#include <stdbool.h>

#include "lib/workqueue.h"

struct gate {
	struct work work;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started, opened;
};

static inline void gate_run(struct work *work)
{
	struct gate *g = container_of(work, struct gate, work);

	pthread_mutex_lock(&g->lock);
	g->started = true;
	pthread_cond_broadcast(&g->cond);
	while (!g->opened)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* Queue the gate and wait until a worker is held by it. */
static inline void gate_close(struct gate *g, struct workqueue *wq)
{
	*g = (struct gate){ .work.func = gate_run };
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	workqueue__queue(wq, &g->work);
	pthread_mutex_lock(&g->lock);
	while (!g->started)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* Let the worker go; destroy the gate once the queue has drained. */
static inline void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->opened = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

#endif
