/*
 * record_stream: the ring buffers of `analyze record` and the streams that drain them. One
 * buffer per CPU, the CPU's other events redirected into it (PERF_EVENT_IOC_SET_OUTPUT);
 * a stream (the main thread, or one --threads thread per mask) drains its buffers into the
 * file or data.N, through zstd with -z, and notes what the build-id pass and the summary need.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

#include "analyzer/record/record_internal.h"
#include "lib/error.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "readers/writer.h"

/* perf's PERF_SAMPLE_MAX_SIZE bounds a record; a COMPRESSED record's payload stays below. */
#define COMPRESSED_MAX (65535u - sizeof(struct perf_event_header) - 1)
#define OUT_BUF_SIZE (256u * 1024)
#define HITS_COMPACT 4096	/* sample pages noted before the list is made unique */
static int map_buffer(struct recording *rec, int fd, struct rec_buffer *b)
{
	size_t size = (rec->mmap_pages + 1) * rec->page_size;
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (base == MAP_FAILED) {
		fprintf(stderr, "failed to mmap with %d (%s)\n", errno, strerror(errno));
		return -1;
	}
	b->base = base;
	b->data_size = rec->mmap_pages * rec->page_size;
	b->fd = fd;
	return 0;
}

/* Buffered raw writes to data.N. */
static int out_flush(struct rec_stream *s)
{
	size_t done = 0;

	while (done < s->out_len) {
		ssize_t n = write(s->fd, s->out + done, s->out_len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->error = n < 0 ? -errno : -ENOSPC;
			return -1;
		}
		done += (size_t)n;
	}
	s->out_len = 0;
	return 0;
}

static int raw_write(struct rec_stream *s, const void *bytes, size_t size)
{
	s->bytes_out += size;
	if (s->writer) {
		if (perf_writer__write(s->writer, bytes, size)) {
			s->error = -EIO;
			return -1;
		}
		return 0;
	}
	while (size) {
		size_t n = MIN(size, OUT_BUF_SIZE - s->out_len);

		memcpy(s->out + s->out_len, bytes, n);
		s->out_len += n;
		bytes = (const u8 *)bytes + n;
		size -= n;
		if (s->out_len == OUT_BUF_SIZE && out_flush(s))
			return -1;
	}
	return 0;
}

/* One zstd frame over SIZE bytes, cut into PERF_RECORD_COMPRESSED records (perf's layout). */
static int compress_write(struct rec_stream *s, const void *bytes, size_t size)
{
	ZSTD_inBuffer in = { bytes, size, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { s->zbuf + sizeof(struct perf_event_header), COMPRESSED_MAX, 0 };
		struct perf_event_header *h = (struct perf_event_header *)s->zbuf;

		left = ZSTD_compressStream2(s->zstd, &out, &in, ZSTD_e_end);
		if (ZSTD_isError(left)) {
			s->error = -EINVAL;
			return -1;
		}
		if (!out.pos)
			continue;
		h->type = PERF_RECORD_COMPRESSED;
		h->misc = 0;
		h->size = (u16)(sizeof(*h) + out.pos);
		if (raw_write(s, s->zbuf, h->size))
			return -1;
	} while (left);
	return 0;
}

int record__stream_write(struct rec_stream *s, const void *bytes, size_t size)
{
	s->bytes_in += size;
	if (s->zstd)
		return compress_write(s, bytes, size);
	return raw_write(s, bytes, size);
}

void record__note_map(struct rec_stream *s, u32 pid, u64 start, u64 len, const char *path)
{
	struct recording *rec = s->rec;
	struct rec_map *m;

	ARRAY_GROW(s->maps, s->alloc_maps, s->nr_maps + 1);
	m = &s->maps[s->nr_maps++];
	m->pid = pid;
	m->start = start;
	m->end = start + len;
	pthread_mutex_lock(&rec->paths_lock);
	m->path = strpool_intern(&rec->paths, path);
	pthread_mutex_unlock(&rec->paths_lock);
}

static int cmp_hit(const void *a, const void *b)
{
	const struct rec_hit *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/*
 * A user sample's page (maps are whole pages: a page tells the map), for the build-id pass;
 * the list is sorted and made unique whenever it fills, so it grows with the pages hit (four
 * times their number at most), not with the samples.
 */
static void note_hit(struct rec_stream *s, u32 pid, u64 ip)
{
	struct rec_hit h = { pid, ip & ~4095ULL };

	if (s->nr_hits && s->hits[s->nr_hits - 1].pid == h.pid && s->hits[s->nr_hits - 1].ip == h.ip)
		return;
	if (s->nr_hits == s->alloc_hits && s->nr_hits >= HITS_COMPACT) {
		size_t n = 0;

		qsort(s->hits, s->nr_hits, sizeof(*s->hits), cmp_hit);
		for (size_t i = 0; i < s->nr_hits; i++) {
			if (!n || cmp_hit(&s->hits[n - 1], &s->hits[i]))
				s->hits[n++] = s->hits[i];
		}
		s->nr_hits = n;
		/*
		 * Half the list free after a compaction, or the next one comes a few samples
		 * later and sorts it all again: one sort every half a list of samples at least.
		 */
		if (n > s->alloc_hits / 2)
			ARRAY_GROW(s->hits, s->alloc_hits, s->alloc_hits + 1);
	}
	ARRAY_GROW(s->hits, s->alloc_hits, s->nr_hits + 1);
	s->hits[s->nr_hits++] = h;
}

/* What the build-id pass and the summary need from one record (bounded by its size). */
static void account(struct rec_stream *s, const u8 *r, size_t size)
{
	const struct perf_event_header *h = (const void *)r;
	const struct perf_event_attr *a = &s->rec->events[0].attr;
	const u8 *p = r + sizeof(*h), *end = r + size;

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		u64 ip, pid, time;

		s->samples++;
		if (a->sample_type & PERF_SAMPLE_IDENTIFIER)
			p += 8;
		if (p + 24 > end)
			return;
		memcpy(&ip, p, 8);
		memcpy(&pid, p + 8, 8);
		memcpy(&time, p + 16, 8);
		if (!s->first_time || time < s->first_time)
			s->first_time = time;
		if (time > s->last_time)
			s->last_time = time;
		if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
			s->kernel_hit = true;
		} else {
			note_hit(s, (u32)pid, ip);
		}
		break;
	}
	case PERF_RECORD_LOST: {
		const struct perf_record_lost *l = (const void *)r;

		if (size >= sizeof(*l))
			s->lost += l->lost;
		break;
	}
	case PERF_RECORD_MMAP2: {
		const struct perf_record_mmap2 *m = (const void *)r;

		if (size > sizeof(*m) && memchr(m->filename, 0, (size_t)(end - (const u8 *)m->filename)))
			record__note_map(s, m->pid, m->start, m->len, m->filename);
		break;
	}
	case PERF_RECORD_MMAP: {
		const struct perf_record_mmap *m = (const void *)r;

		if (size > sizeof(*m) && memchr(m->filename, 0, (size_t)(end - (const u8 *)m->filename)))
			record__note_map(s, m->pid, m->start, m->len, m->filename);
		break;
	}
	}
}

/* Walk the records of [tail, head) of a buffer for account(); false on a broken record. */
static bool walk(struct rec_stream *s, const struct rec_buffer *b, u64 tail, u64 head)
{
	const u8 *data = b->base + s->rec->page_size;
	size_t mask = b->data_size - 1;

	while (tail < head) {
		size_t off = tail & mask;
		const struct perf_event_header *h = (const void *)(data + off);
		size_t size = h->size;

		if (size < sizeof(*h) || size > head - tail)
			return false;
		if (off + size <= b->data_size) {
			account(s, data + off, size);
		} else {
			size_t first = b->data_size - off;

			ARRAY_GROW(s->tmp, s->tmp_alloc, size);
			memcpy(s->tmp, data + off, first);
			memcpy(s->tmp + first, data, size - first);
			account(s, s->tmp, size);
		}
		tail += size;
	}
	return true;
}

/* Drain one buffer: its new bytes in at most two pieces (the ring wraps). Bytes written. */
static ssize_t drain_buffer(struct rec_stream *s, struct rec_buffer *b)
{
	struct perf_event_mmap_page *pg = (void *)b->base;
	const u8 *data = b->base + s->rec->page_size;
	u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	size_t mask = b->data_size - 1, start, len;

	if (head == tail)
		return 0;
	if (head - tail > b->data_size || !walk(s, b, tail, head)) {
		fprintf(stderr, "analyze record: a ring buffer is corrupt: dropping its data\n");
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
		return 0;
	}
	start = tail & mask;
	len = (size_t)(head - tail);
	if (start + len > b->data_size) {
		size_t first = b->data_size - start;

		if (s->zstd) {	/* one frame: the two pieces joined */
			ARRAY_GROW(s->tmp, s->tmp_alloc, len);
			memcpy(s->tmp, data + start, first);
			memcpy(s->tmp + first, data, len - first);
			if (record__stream_write(s, s->tmp, len))
				return -1;
		} else if (record__stream_write(s, data + start, first) ||
			   record__stream_write(s, data, len - first)) {
			return -1;
		}
	} else if (record__stream_write(s, data + start, len)) {
		return -1;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return (ssize_t)len;
}

/* Every buffer of the stream once; a FINISHED_ROUND after them in a single file (perf's). */
int record__drain(struct rec_stream *s)
{
	static const struct perf_event_header round = { PERF_RECORD_FINISHED_ROUND, 0,
							sizeof(round) };
	size_t total = 0;

	for (size_t i = 0; i < s->nr_buffers; i++) {
		ssize_t n = drain_buffer(s, &s->buffers[i]);

		if (n < 0)
			return -1;
		total += (size_t)n;
	}
	if (total && s->writer)
		return raw_write(s, &round, sizeof(round));
	return 0;
}

/* A stream's loop: wait for its buffers, drain them; once told to stop, drain a last time. */
static void *stream_run(void *arg)
{
	struct rec_stream *s = arg;
	struct pollfd *pfd = xcalloc(s->nr_buffers + 1, sizeof(*pfd));

	pthread_setaffinity_np(pthread_self(), sizeof(s->affinity), &s->affinity);
	for (size_t i = 0; i < s->nr_buffers; i++)
		pfd[i] = (struct pollfd){ .fd = s->buffers[i].fd, .events = POLLIN };
	pfd[s->nr_buffers] = (struct pollfd){ .fd = s->rec->stop, .events = POLLIN };
	while (!s->error) {
		bool stop = __atomic_load_n(&s->rec->done, __ATOMIC_ACQUIRE);

		if (record__drain(s) || stop)
			break;
		s->wakeups++;	/* perf counts every wait as a wakeup */
		if (poll(pfd, s->nr_buffers + 1, -1) > 0) {
			for (size_t i = 0; i < s->nr_buffers; i++) {
				if (pfd[i].revents & (POLLHUP | POLLERR))
					pfd[i].fd = -1;
			}
		}
	}
	free(pfd);
	return NULL;
}

static int stream_init(struct recording *rec, struct rec_stream *s, size_t index)
{
	s->rec = rec;
	s->fd = -1;
	if (rec->zstd_level) {
		s->zstd = ZSTD_createCCtx();
		s->zbuf = xmalloc(COMPRESSED_MAX + sizeof(struct perf_event_header));
		ZSTD_CCtx_setParameter(s->zstd, ZSTD_c_compressionLevel, rec->zstd_level);
	}
	if (!rec->threads) {
		s->writer = rec->writer;
		return 0;
	}
	s->affinity = rec->masks[index].affinity;
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/data.%zu", rec->output, index);
		s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (s->fd < 0) {
			fprintf(stderr, "Failed to open %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	s->out = xmalloc(OUT_BUF_SIZE);
	return 0;
}

/* The stream of CPU index c: the mask that drains its CPU (record__set_masks left no other). */
static size_t stream_of_cpu(const struct recording *rec, size_t c)
{
	size_t m = 0;

	while (rec->threads && !CPU_ISSET(rec->cpus[c], &rec->masks[m].maps))
		m++;
	return m;
}

int record__start_streams(struct recording *rec)
{
	size_t per_cpu = rec->nr_tids * rec->nr_events;

	rec->nr_streams = rec->threads ? rec->nr_masks : 1;
	rec->streams = xcalloc(rec->nr_streams, sizeof(*rec->streams));
	for (size_t i = 0; i < rec->nr_streams; i++)
		rec->streams[i].fd = -1;	/* what record__close closes if an init fails */
	for (size_t i = 0; i < rec->nr_streams; i++) {
		if (stream_init(rec, &rec->streams[i], i))
			return -1;
	}
	for (size_t c = 0; c < rec->nr_cpus; c++) {
		struct rec_stream *s = &rec->streams[stream_of_cpu(rec, c)];

		s->buffers = xreallocarray(s->buffers, s->nr_buffers + 1, sizeof(*s->buffers));
		if (map_buffer(rec, rec->fds[c * per_cpu], &s->buffers[s->nr_buffers]))
			return -1;
		s->nr_buffers++;
		/* the kernel redirects into a buffer once it is mapped */
		for (size_t i = 1; i < per_cpu; i++) {
			if (ioctl(rec->fds[c * per_cpu + i], PERF_EVENT_IOC_SET_OUTPUT,
				  rec->fds[c * per_cpu])) {
				fprintf(stderr, "failed to redirect event %s: %s\n",
					rec->events[i % rec->nr_events].name, strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

/* Start the streaming threads (--threads); without them the main thread drains. */
int record__run_threads(struct recording *rec)
{
	for (size_t i = 0; rec->threads && i < rec->nr_streams; i++) {
		struct rec_stream *s = &rec->streams[i];

		if (pthread_create(&s->thread, NULL, stream_run, s)) {
			fprintf(stderr, "failed to start a streaming thread\n");
			return -1;
		}
		s->started = true;
	}
	return 0;
}

void record__stop_streams(struct recording *rec)
{
	__atomic_store_n(&rec->done, 1, __ATOMIC_RELEASE);
	if (rec->stop >= 0 && eventfd_write(rec->stop, 1))
		perror("analyze record: eventfd");
	for (size_t i = 0; i < rec->nr_streams; i++) {
		struct rec_stream *s = &rec->streams[i];

		if (s->started)
			pthread_join(s->thread, NULL);
		s->started = false;
		if (!rec->threads)
			record__drain(s);
	}
}

int record__finish_streams(struct recording *rec)
{
	int ret = 0;

	for (size_t i = 0; i < rec->nr_streams; i++) {
		struct rec_stream *s = &rec->streams[i];

		if (s->fd >= 0 && !s->error)
			out_flush(s);
		if (s->fd >= 0 && close(s->fd) && !s->error)
			s->error = -errno;
		s->fd = -1;
		if (s->error) {
			fprintf(stderr, "analyze record: cannot write %s: %s\n", rec->output,
				strerror(-s->error));
			ret = -1;
		}
	}
	return ret;
}

void record__close(struct recording *rec)
{
	for (size_t i = 0; i < rec->nr_streams; i++) {
		struct rec_stream *s = &rec->streams[i];

		for (size_t j = 0; j < s->nr_buffers; j++)
			munmap(s->buffers[j].base, s->buffers[j].data_size + rec->page_size);
		if (s->fd >= 0)
			close(s->fd);
		ZSTD_freeCCtx(s->zstd);
		free(s->zbuf);
		free(s->out);
		free(s->tmp);
		free(s->buffers);
		free(s->maps);
		free(s->hits);
	}
	free(rec->streams);
	rec->streams = NULL;
	rec->nr_streams = 0;
	record__close_events(rec);
}
