/*
 * script_parallel: the lines of a file's samples made on every worker (analyzer/passes).
 * Each chunk's samples are resolved against the model at their keys and printed into the
 * chunk's own text by the worker's own printer, the lines then sorted by key. The chunks,
 * taken in file order, are merged by key and written as soon as no sample still unread can
 * come before them: perf delivers in key order when no record comes out of order, and no
 * record of a round is older than the rounds up to two before it (what the chunks' rounds
 * are checked for as they are written). A chunk the passes cannot answer for as the
 * streaming path would gives the run up: what was written stays, and the streaming path
 * goes on without printing those samples again (skip_samples).
 */
#include "analyzer/script/script_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "analyzer/passes/passes.h"
#include "lib/busy.h"
#include "lib/clock.h"
#include "lib/progress.h"
#include "lib/xalloc.h"

/*
 * The least a worker takes at once: its text (twice as long), lines and their sort are
 * memory that stays, for each worker and one more; small keeps it in the caches.
 */
#define CHUNK_BYTES (256u << 10)
#define TEXT_START (2 * CHUNK_BYTES)	/* a chunk's text to begin with: it grows as it must */
#define IOV_BATCH 1024	/* IOV_MAX */
#define NR_BUFS 2	/* a worker's chunks made and not yet written, at most */

/* A sample's line in its chunk's text (len 0: its event prints no fields). */
struct line {
	struct model_key key;
	u32 off, len;	/* a chunk's text is far under 4 GB */
};

/* A worker's room to sort its lines in (traded with the lines it sorted, see sort_lines). */
struct sort_room {
	_Alignas(64) struct line *v;
	size_t alloc;
};

/* A chunk's lines, by key; made by a worker, written (and emptied) by whoever writes. */
struct chunk_lines {
	_Alignas(64) struct outbuf text;	/* lines of their own: workers fill theirs at once */
	struct line *lines;
	size_t nr, alloc;
	/* the first samples in the kernel's map and in its stretch only, of every chunk its
	 * worker ran by then (a superset of the chunks before: keys tell) */
	struct model_key hit, stretch;
	bool busy, ready;	/* taken by a chunk; made, to be written */
};

struct run {
	struct script *s;
	struct passes ps;
	struct script_printer *printers;	/* by pass worker */
	struct sort_room *rooms;	/* by pass worker */
	/*
	 * Each worker's own chunk buffers, NR_BUFS of them: a buffer written by one core and
	 * then by another moves its lines between the caches, and the text is all of the
	 * output (its lines cost 60% more CPU when the slots went round the workers). Chunk
	 * i's is bufs_of[i] once a worker took it.
	 */
	struct chunk_lines *bufs;	/* worker w's: bufs[w * NR_BUFS, (w + 1) * NR_BUFS) */
	struct chunk_lines **bufs_of;
	pthread_mutex_t lock;
	pthread_cond_t written;
	size_t next;	/* the next chunk to write */
	/* what is written up to where, and what waits for later chunks */
	u64 seen;	/* the largest time of the rounds before the last checked one's before */
	size_t round;	/* the next round to check */
	struct model_key hit, stretch;	/* the kernel's map: the first sample in it, in its
					   stretch only, in the chunks written */
	struct chunk_lines carry, spare;	/* the lines that wait; the other buffer */
	const char *span;	/* lines to write, in one text, and their length */
	size_t span_len;
	struct iovec iov[IOV_BATCH];	/* spans to write at once */
	size_t nr_iov;
	u64 written_samples;
	bool stop;	/* given up, or the output went away: no more writing */
};

/* Whether the streaming path would print these samples the same way: only the plain fields. */
static bool eligible(const struct script *s)
{
	const u32 plain = SF_COMM | SF_TID | SF_PID | SF_TIME | SF_CPU | SF_EVNAME | SF_IP |
			  SF_SYM | SF_DSO | SF_SYMOFFSET | SF_PERIOD | SF_BPF_OUTPUT;

	if (!passes__eligible(&s->session, false) || s->tty || s->tf || s->unwinder || s->itrace ||
	    s->dump || !s->checked)
		return false;
	if (s->comms.nr || s->pids.nr || s->tids.nr || s->cpus.cpus || s->time.nr ||
	    symbol_filter__active(&s->symbols))
		return false;
	if (s->dlfilter)	/* one filter, called in delivery order */
		return false;
	if (s->reltime || s->deltatime || s->event_dumps || s->stop_bt.nr || s->graph_functions.nr)
		return false;	/* times from line to line, files, callchains cut */
	if (s->show_events || s->show_round_events || s->evswitch.on || s->evswitch.off ||
	    s->debug_mode)
		return false;
	for (size_t i = 0; i < s->session.nr_evsels; i++) {
		const struct perf_event_attr *attr = &s->session.evsels[i].attr;
		u32 fields = s->f.fields[script_output_type(attr->type)];

		if ((fields & ~plain) || attr->type == PERF_TYPE_TRACEPOINT || is_bts_event(attr))
			return false;
		if (s->use_callchain && (attr->sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    (fields & SF_IP))
			return false;
	}
	return true;
}

/* The comm a sample of the version printed: a name set is final, else the placeholder. */
static const void *line_comm(void *data, const struct thread_version *v)
{
	struct script *s = data;
	char comm[16];

	if (v->comm_set)
		return comm__str(v->comm);
	snprintf(comm, sizeof(comm), ":%d", v->tid);
	return strpool_intern(&s->machine.strings, comm);
}

/*
 * A chunk's lines by key: they come in runs already sorted (a round holds each cpu's
 * buffer in turn), merged pairwise, from one array to the other (out's and the worker's
 * room), until one is left; the two arrays trade places if it is the room.
 */
static void sort_lines(struct chunk_lines *out, struct sort_room *room)
{
	size_t nr = out->nr, *runs = xmalloc((nr + 1) * sizeof(*runs)), nr_runs = 0;
	struct line *v = out->lines, *tmp;

	ARRAY_GROW(room->v, room->alloc, nr);
	tmp = room->v;
	for (size_t i = 0; i < nr; i++)
		if (!i || model_key_less(v[i].key, v[i - 1].key))
			runs[nr_runs++] = i;
	runs[nr_runs] = nr;
	while (nr_runs > 1) {
		size_t merged = 0, k = 0;
		struct line *swap;

		for (; k < nr_runs; k += 2) {
			size_t a = runs[k], a_end = runs[k + 1], at = a;
			size_t b = a_end, b_end = k + 1 < nr_runs ? runs[k + 2] : a_end;

			while (a < a_end && b < b_end)
				tmp[at++] = model_key_less(v[b].key, v[a].key) ? v[b++] : v[a++];
			memcpy(tmp + at, v + a, (a_end - a) * sizeof(*v));
			at += a_end - a;
			memcpy(tmp + at, v + b, (b_end - b) * sizeof(*v));
			runs[merged++] = runs[k];
		}
		runs[merged] = nr;
		nr_runs = merged;
		swap = v, v = tmp, tmp = swap;
	}
	if (v != out->lines) {
		size_t alloc = out->alloc;

		room->v = out->lines;
		out->lines = v;
		out->alloc = room->alloc;
		room->alloc = alloc;
	}
	free(runs);
}

/* One chunk's work: its worker's printer writing into its lines' text. */
struct chunk_job {
	struct run *r;
	struct script_printer *pr;
	struct chunk_lines *out;
};

static void chunk_sample(void *arg, struct pass_worker *w, const struct pass_sample *ps)
{
	struct chunk_job *job = arg;
	struct chunk_lines *out = job->out;
	struct line_item item;
	size_t from = job->pr->out.len;

	(void)w;
	memset(&item, 0, sizeof(item));
	item.evsel = ps->evsel;
	item.comm = ps->v->entry_comm;
	item.ip = item.addr = ps->sample.ip;
	item.time = ps->sample.time;
	item.period = ps->sample.period;
	item.pid = ps->sample.pid;
	item.tid = ps->sample.tid;
	item.cpu = ps->sample.cpu;
	if (ps->span) {
		item.dso = ps->span->map->dso;
		item.addr = map__map_ip(ps->span->map, ps->sample.ip);
	}
	script_print_line(job->pr, &item);
	ARRAY_GROW(out->lines, out->alloc, out->nr + 1);
	out->lines[out->nr++] = (struct line){ ps->key, (u32)from, (u32)(job->pr->out.len - from) };
}

/*
 * The spans gathered written, straight from the chunks' texts (no copy into the output's
 * buffer, whose text goes first): the lines of two cpus alternate, so spans are short.
 */
static void iov_out(struct run *r)
{
	struct outbuf *ob = &r->s->pr.out;
	struct iovec *v = r->iov;
	size_t n = r->nr_iov;

	r->nr_iov = 0;
	if (outbuf_flush(ob))
		return;
	while (n && !ob->error) {
		ssize_t w = writev(ob->fd, v, (int)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ob->error = w < 0 ? errno : EIO;
			break;
		}
		while (n && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++, n--;
		}
		if (n) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
}

/* The lines gathered to go out at once: a span for writev. */
static void span_out(struct run *r)
{
	if (r->span_len) {
		r->iov[r->nr_iov++] = (struct iovec){ (void *)r->span, r->span_len };
		if (r->nr_iov == IOV_BATCH)
			iov_out(r);
	}
	r->span = NULL;
	r->span_len = 0;
}

/* Line l into the output, or into the carry when it must wait. */
static void put_line(struct run *r, const struct chunk_lines *from, const struct line *l,
		     bool now)
{
	struct chunk_lines *c = &r->carry;

	if (now) {	/* lines next to each other in one text go out as one */
		const char *p = from->text.buf + l->off;

		if (r->span + r->span_len != p) {
			span_out(r);
			r->span = p;
		}
		r->span_len += l->len;
		r->written_samples++;
		return;
	}
	ARRAY_GROW(c->lines, c->alloc, c->nr + 1);
	c->lines[c->nr++] = (struct line){ l->key, (u32)c->text.len, l->len };
	outbuf_put(&c->text, from->text.buf + l->off, l->len);
}

/*
 * Chunk i's rounds checked (none older than the rounds up to two before it), its kernel
 * samples too; false to give up. *bound: the time up to which no later record can come
 * before what is written.
 */
static bool check_chunk(struct run *r, size_t i, u64 *bound)
{
	struct passes *ps = &r->ps;
	size_t end = ps->chunks[i + 1];	/* the rounds of chunk i end before this one */

	for (; r->round < end; r->round++) {
		if (r->round >= 2)
			r->seen = MAX(r->seen, ps->round_max[r->round - 2]);
		if (ps->round_min[r->round] < r->seen) {
			passes__give_up(ps, "records out of order");
			return false;
		}
	}
	/* what comes after is no older than the rounds up to the one before the last */
	*bound = r->seen;
	if (end >= 2)
		*bound = MAX(*bound, ps->round_max[end - 2]);
	if (i + 1 == ps->nr_chunks)
		*bound = UINT64_MAX;
	return true;
}

/*
 * Chunk i written, merged with what waits (under the lock); its kernel samples checked
 * first. False: the run stops.
 */
static bool write_chunk(struct run *r, size_t i)
{
	struct chunk_lines *c = r->bufs_of[i];
	struct chunk_lines old = r->carry;
	size_t a = 0, b = 0;
	u64 bound;

	if (model_key_less(c->hit, r->hit))
		r->hit = c->hit;
	if (model_key_less(c->stretch, r->stretch))
		r->stretch = c->stretch;
	if (model_key_less(r->stretch, r->hit)) {
		passes__give_up(&r->ps, "a sample in the kernel's map before it is loaded");
		return false;
	}
	if (!check_chunk(r, i, &bound))
		return false;
	r->carry = r->spare;
	while (a < old.nr || b < c->nr) {
		bool from_old = b == c->nr ||
				(a < old.nr && model_key_less(old.lines[a].key, c->lines[b].key));
		const struct line *l = from_old ? &old.lines[a++] : &c->lines[b++];

		put_line(r, from_old ? &old : c, l, l->key.time <= bound);
	}
	span_out(r);
	iov_out(r);	/* before the texts are used again */
	old.nr = old.text.len = 0;
	r->spare = old;
	c->nr = c->text.len = 0;
	c->ready = c->busy = false;
	return !r->s->pr.out.error;
}

/* Pass 2, chunk i: its lines made, then written with every chunk before it that is ready. */
static void chunk_lines(size_t i, void *arg)
{
	struct run *r = arg;
	struct pass_worker *w;
	struct chunk_job job = { .r = r };
	struct chunk_lines *out;
	bool failed;

	w = passes__claim(&r->ps);
	pthread_mutex_lock(&r->lock);
	for (;;) {	/* a buffer of its own that is free: its chunks before are written */
		out = NULL;
		for (size_t b = 0; b < NR_BUFS && !out; b++)
			if (!r->bufs[w->index * NR_BUFS + b].busy)
				out = &r->bufs[w->index * NR_BUFS + b];
		if (out || r->stop)
			break;
		pthread_cond_wait(&r->written, &r->lock);
	}
	if (out) {
		out->busy = true;
		r->bufs_of[i] = out;
	}
	pthread_mutex_unlock(&r->lock);
	if (!out) {
		passes__release(w);
		return;
	}
	job.pr = &r->printers[w->index];
	job.out = out;
	job.pr->out = out->text;
	job.pr->worker = w;
	passes__walk_chunk(&r->ps, w, i, chunk_sample, &job);
	job.pr->worker = NULL;
	out->text = job.pr->out;
	out->hit = w->kernel_hit;
	out->stretch = w->kernel_stretch;
	failed = w->fallback;
	sort_lines(out, &r->rooms[w->index]);
	passes__release(w);
	progress_add(r->ps.bounds[r->ps.chunks[i + 1]] - r->ps.bounds[r->ps.chunks[i]]);

	pthread_mutex_lock(&r->lock);
	out->ready = true;
	if (failed)
		__atomic_store_n(&r->stop, true, __ATOMIC_RELAXED);	/* passes__check names why */
	while (!r->stop && r->next < r->ps.nr_chunks && r->bufs_of[r->next] &&
	       r->bufs_of[r->next]->ready) {
		if (!write_chunk(r, r->next))
			__atomic_store_n(&r->stop, true, __ATOMIC_RELAXED);
		else
			r->next++;
	}
	pthread_cond_broadcast(&r->written);
	pthread_mutex_unlock(&r->lock);
}

static void run_exit(struct run *r)
{
	for (size_t i = 0; r->bufs && i < r->ps.nr_workers * NR_BUFS; i++) {
		outbuf_exit(&r->bufs[i].text);
		free(r->bufs[i].lines);
	}
	free(r->bufs);
	free(r->bufs_of);
	free(r->printers);
	for (size_t w = 0; r->rooms && w < r->ps.nr_workers; w++)
		free(r->rooms[w].v);
	free(r->rooms);
	outbuf_exit(&r->carry.text);
	free(r->carry.lines);
	outbuf_exit(&r->spare.text);
	free(r->spare.lines);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->written);
	passes__exit(&r->ps);
}

int script__run_parallel(struct script *s, struct workqueue *wq)
{
	struct run r = { .s = s, .hit = MODEL_KEY_MAX, .stretch = MODEL_KEY_MAX };
	bool done = false;
	u64 t0;

	if (!eligible(s)) {
		busy__path("streaming");
		return 1;
	}
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.written, NULL);
	outbuf_init_memory(&r.carry.text, 64 << 10);
	outbuf_init_memory(&r.spare.text, 64 << 10);
	if (passes__start(&r.ps, &s->session, &s->machine, &s->consumer, wq, CHUNK_BYTES)) {
		history__set_entry_comms(&r.ps.history, line_comm, s);
		r.printers = xaligned_alloc(64, r.ps.nr_workers * sizeof(*r.printers));
		r.rooms = xaligned_alloc(64, r.ps.nr_workers * sizeof(*r.rooms));
		memset(r.rooms, 0, r.ps.nr_workers * sizeof(*r.rooms));
		for (size_t w = 0; w < r.ps.nr_workers; w++)
			r.printers[w] = (struct script_printer){ .s = s };
		r.bufs = xaligned_alloc(64, r.ps.nr_workers * NR_BUFS * sizeof(*r.bufs));
		memset(r.bufs, 0, r.ps.nr_workers * NR_BUFS * sizeof(*r.bufs));
		for (size_t i = 0; i < r.ps.nr_workers * NR_BUFS; i++)
			outbuf_init_memory(&r.bufs[i].text, TEXT_START);
		r.bufs_of = xcalloc(r.ps.nr_chunks, sizeof(*r.bufs_of));
		progress_phase("printing", r.ps.bounds[r.ps.nr_bounds - 1] - r.ps.bounds[0]);
		t0 = clock_ns(CLOCK_MONOTONIC);
		workqueue__parallel_for(wq, 0, r.ps.nr_chunks, 1, chunk_lines, &r);
		busy__stage(BUSY_PARALLEL_WALL, clock_ns(CLOCK_MONOTONIC) - t0);
		done = passes__check(&r.ps) && r.next == r.ps.nr_chunks;
		if (done)
			passes__finish(&r.ps);
	}
	passes__busy_path(&r.ps, done);
	s->skip_samples = done ? 0 : r.written_samples;
	run_exit(&r);
	if (s->pr.out.error)
		return 0;	/* the reader went away: nothing more to write */
	return done ? 0 : 2;
}
