/* prefault: pages mapped ahead of the reader on a thread of their own; see prefault.h. */
#include "readers/prefault.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "lib/busy.h"
#include "lib/xalloc.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* uapi/asm-generic/mman-common.h */
#endif

#define BLOCK (2ull << 20)	/* mapped at a time: the reader releases in such blocks too */
#define AHEAD (8ull << 20)	/* how far ahead of the reader it goes */
#define MIN_RANGE (64ull << 20)	/* smaller ranges are read before a thread would help */

struct prefault {
	u8 *base;
	u64 from, to;
	pthread_t thread;
	/* written by the reader, read by the thread */
	_Alignas(64) u64 pos;
	bool stop;
};

static void *run(void *arg)
{
	struct prefault *p = arg;
	u64 next = p->from;

	while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED) && next < p->to) {
		u64 pos = __atomic_load_n(&p->pos, __ATOMIC_RELAXED), len;

		if (next < pos)	/* the reader went past: catch up from where it is */
			next = pos / BLOCK * BLOCK;
		if (next >= pos + AHEAD) {
			struct timespec ts = { 0, 50 * 1000 };

			nanosleep(&ts, NULL);
			continue;
		}
		len = MIN(BLOCK - next % BLOCK, p->to - next);
		if (madvise(p->base + next, len, MADV_POPULATE_READ))
			break;	/* not supported (or the file shrank): the reader faults itself */
		next += len;
	}
	busy__thread_end("prefault");
	return NULL;
}

struct prefault *prefault__start(u8 *base, u64 from, u64 to)
{
	struct prefault *p;

	if (to <= from || to - from < MIN_RANGE)
		return NULL;
	p = xzalloc(sizeof(*p));
	p->base = base;
	p->from = from / 4096 * 4096;
	p->to = to;
	p->pos = from;
	if (pthread_create(&p->thread, NULL, run, p)) {
		free(p);
		return NULL;
	}
	return p;
}

void prefault__advance(struct prefault *p, u64 pos)
{
	if (p)
		__atomic_store_n(&p->pos, pos, __ATOMIC_RELAXED);
}

void prefault__stop(struct prefault *p)
{
	if (!p)
		return;
	__atomic_store_n(&p->stop, true, __ATOMIC_RELAXED);
	pthread_join(p->thread, NULL);
	free(p);
}
