/*
 * hist_render: the entries' lines made by this thread and a helper, in chunks, and written in
 * order by this one (render_entries, hist_print.c, makes a chunk's), where printing reads
 * nothing that is filled in as it prints.
 */
#include "analyzer/hist/hist_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/busy.h"
#include "lib/xalloc.h"

/*
 * Whether two threads may print at once: what printing reads must not be filled in as it
 * reads it. In the children view every frame's symbol was looked up as the entries were
 * made; source lines (the address and srcline keys) are looked up as they are printed.
 */
static bool render_shared_safe(const struct hists *hists, const struct hists_print_opts *opts)
{
	return hists->cumulate && opts->callchain->param->key == CC_KEY_FUNCTION &&
	       !opts->callchain->lines;
}

/*
 * The same for a flat report: its columns printed from what the entries hold, nothing looked
 * up or made as they print (a key that does is not in this list).
 */
static bool flat_shared_safe(const struct field_list *cols)
{
	for (int i = 0; i < cols->nr; i++) {
		switch (cols->ids[i]) {
		case SORT_PID: case SORT_COMM: case SORT_DSO: case SORT_SYM: case SORT_PARENT:
		case SORT_CPU: case SORT_SOCKET: case SORT_SYM_SIZE: case SORT_DSO_SIZE:
		case SORT_IPC_NULL:
			break;
		default:
			if (cols->ids[i] < SORT_NR_KEYS)
				return false;
		}
	}
	return true;
}

/* With r->lock held: claim the next chunk if its slot is free; false when none can be. */
static bool render_claim(struct render *r, size_t *chunk)
{
	if (r->next >= r->nr_chunks || r->next >= r->written + RENDER_SLOTS)
		return false;
	*chunk = r->next++;
	return true;
}

/* Make chunk c into its slot (without the lock), then mark it ready (with it). */
static void render_chunk(struct render *r, size_t c, struct cc_scratch *scratch)
{
	struct render_slot *slot = &r->slots[c % RENDER_SLOTS];
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	/* a memory stream fails only for want of memory */
	if (!mem)
		xalloc_failed(0);
	render_entries(r, r->starts[c], r->starts[c + 1], scratch, mem);
	if (fclose(mem))
		xalloc_failed(len);
	pthread_mutex_lock(&r->lock);
	slot->buf = buf;
	slot->len = len;
	slot->ready = true;
	pthread_cond_broadcast(&r->cond);
}

static void *render_helper(void *arg)
{
	struct render *r = arg;
	struct cc_scratch *scratch = cc_scratch__new();
	size_t c;

	pthread_mutex_lock(&r->lock);
	while (r->next < r->nr_chunks) {
		if (!render_claim(r, &c)) {
			pthread_cond_wait(&r->cond, &r->lock);
			continue;
		}
		pthread_mutex_unlock(&r->lock);
		render_chunk(r, c, scratch);	/* returns with the lock held */
	}
	pthread_mutex_unlock(&r->lock);
	cc_scratch__delete(scratch);
	busy__thread_end("render");
	return NULL;
}

/* The chunks made by this thread and a helper, written in order by this one. */
static void render_parallel(struct render *r, struct cc_scratch *scratch, FILE *fp)
{
	pthread_t helper;
	size_t c, alloc = 0, work = 0;

	/*
	 * Chunks of about equal work: the first entries, with the most callchains, have the
	 * largest graphs, and chunks of equal counts would leave the helper waiting on them.
	 */
	r->nr_chunks = 0;
	r->starts = NULL;
	for (size_t i = 0; i < r->nr; i++) {
		if (!work) {
			ARRAY_GROW(r->starts, alloc, r->nr_chunks + 2);
			r->starts[r->nr_chunks++] = i;
		}
		work += 1 + r->hists->entries[r->order[i]].contrib_nr;
		if (work >= RENDER_CHUNK)
			work = 0;
	}
	ARRAY_GROW(r->starts, alloc, r->nr_chunks + 1);
	r->starts[r->nr_chunks] = r->nr;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	if (pthread_create(&helper, NULL, render_helper, r)) {
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->cond);
		free(r->starts);
		render_entries(r, 0, r->nr, scratch, fp);
		return;
	}
	pthread_mutex_lock(&r->lock);
	while (r->written < r->nr_chunks) {
		struct render_slot *slot = &r->slots[r->written % RENDER_SLOTS];

		if (slot->ready) {
			char *buf = slot->buf;
			size_t len = slot->len;

			*slot = (struct render_slot){ 0 };
			r->written++;
			pthread_cond_broadcast(&r->cond);
			pthread_mutex_unlock(&r->lock);
			fwrite(buf, 1, len, fp);
			free(buf);
			pthread_mutex_lock(&r->lock);
		} else if (render_claim(r, &c)) {
			pthread_mutex_unlock(&r->lock);
			render_chunk(r, c, scratch);	/* returns with the lock held */
		} else {
			pthread_cond_wait(&r->cond, &r->lock);
		}
	}
	pthread_mutex_unlock(&r->lock);
	pthread_join(helper, NULL);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r->starts);
}

void render_run(struct render *r, struct cc_scratch *scratch, FILE *fp)
{
	const struct hists_print_opts *opts = r->opts;

	if (r->nr >= RENDER_MIN && !opts->one_thread &&
	    (r->graphs ? !opts->callchain->one_thread && render_shared_safe(r->hists, opts)
		       : flat_shared_safe(r->columns)))
		render_parallel(r, scratch, fp);
	else
		render_entries(r, 0, r->nr, scratch, fp);
}
