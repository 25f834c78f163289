/*
 * record_synth: the records perf record synthesizes before it enables the events, read from
 * /proc: the kernel's map ([kernel.kallsyms]_text), and for -a/-p/-t the running tasks
 * (FORK, COMM) and their executable maps (MMAP2), as perf 6.1's synthetic-events.c lays
 * them out, with a zeroed sample_id_all trailer. They go into the header file's data.
 * Processes are read in parallel on lib/workqueue, a batch at a time, each into its own
 * buffer; the buffers are written in /proc's order, so the file does not depend on timing.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyzer/record/record_internal.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "readers/writer.h"

#define SYNTH_MAX 8192	/* a record with the longest path (PATH_MAX) and its trailer */
#define SYNTH_BATCH 256	/* processes read in parallel before their records are written */

/* One process's records (or the kernel's), built by one worker. */
struct synth {
	size_t id_hdr_size;
	u8 buf[SYNTH_MAX];	/* the record being built */
	u8 *out;		/* the records built */
	size_t out_len, out_alloc;
};

/* Append the record built in s->buf: BODY bytes, then the zeroed trailer. */
static void emit(struct synth *s, u16 type, u16 misc, size_t body)
{
	struct perf_event_header *h = (void *)s->buf;
	size_t size = body + s->id_hdr_size;

	memset(s->buf + body, 0, s->id_hdr_size);
	h->type = type;
	h->misc = misc;
	h->size = (u16)size;
	ARRAY_GROW(s->out, s->out_alloc, s->out_len + size);
	memcpy(s->out + s->out_len, s->buf, size);
	s->out_len += size;
}

/* Copy a NUL-terminated string after a fixed part; the body's size, 8-byte aligned. */
static size_t put_string(struct synth *s, size_t fixed, const char *str)
{
	size_t len = MIN(strlen(str), (size_t)4095) + 1, body = fixed + ALIGN_UP(len, 8);

	memset(s->buf + fixed, 0, body - fixed);
	memcpy(s->buf + fixed, str, len - 1);
	return body;
}

/* perf's perf_event__synthesize_kernel_mmap: start and pgoff at _text, up to the end. */
static void synth_kernel(struct synth *s)
{
	struct perf_record_mmap *m = (void *)s->buf;
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long addr, text = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, "_text")) {
			text = addr;
			break;
		}
	}
	fclose(f);
	if (!text)	/* kptr_restrict: perf then has no kernel map either */
		return;
	memset(m, 0, sizeof(*m));
	m->pid = (u32)-1;
	m->start = text;
	m->len = ~0ULL - text;
	m->pgoff = text;
	emit(s, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
	     put_string(s, sizeof(*m), "[kernel.kallsyms]_text"));
}

/* Name, Tgid and PPid of /proc/PID/task/TID/status; false when the task is gone. */
static bool task_status(int pid, int tid, char *comm, size_t size, int *tgid, int *ppid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	*comm = 0;
	*tgid = pid;
	*ppid = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:", 5)) {
			const char *p = line + 5;

			while (*p == ' ' || *p == '\t')
				p++;
			snprintf(comm, size, "%.*s", (int)strcspn(p, "\n"), p);
		} else if (!strncmp(line, "Tgid:", 5)) {
			*tgid = atoi(line + 5);
		} else if (!strncmp(line, "PPid:", 5)) {
			*ppid = atoi(line + 5);
		}
	}
	fclose(f);
	return true;
}

static void synth_fork_comm(struct synth *s, int tgid, int ppid, int tid, const char *comm)
{
	struct perf_record_fork *f = (void *)s->buf;
	struct perf_record_comm *c = (void *)s->buf;

	/* perf's perf_event__synthesize_fork: a thread's parent is its process */
	memset(f, 0, sizeof(*f));
	f->pid = (u32)tgid;
	f->tid = (u32)tid;
	f->ppid = (u32)(tid == tgid ? ppid : tgid);
	f->ptid = f->ppid;
	emit(s, PERF_RECORD_FORK, 0, sizeof(*f));
	memset(c, 0, sizeof(*c));
	c->pid = (u32)tgid;
	c->tid = (u32)tid;
	emit(s, PERF_RECORD_COMM, 0, put_string(s, sizeof(*c), comm));
}

/* perf's perf_event__synthesize_mmap_events: the executable maps of /proc/PID/maps. */
static void synth_maps(struct synth *s, int pid)
{
	struct perf_record_mmap2 *m = (void *)s->buf;
	char path[64], line[4096 + 128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", pid, pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char prot[5];
		int n = 0;
		char *name;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, prot, &pgoff,
			   &maj, &min, &ino, &n) < 7 || prot[2] != 'x')
			continue;
		name = line + n;
		name[strcspn(name, "\n")] = 0;
		memset(m, 0, sizeof(*m));
		m->pid = m->tid = (u32)pid;
		m->start = start;
		m->len = end - start;
		m->pgoff = pgoff;
		m->maj = maj;
		m->min = min;
		m->ino = ino;
		m->prot = (prot[0] == 'r' ? PROT_READ : 0) | (prot[1] == 'w' ? PROT_WRITE : 0) |
			  PROT_EXEC;
		m->flags = prot[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		if (!*name)
			name = "//anon";
		emit(s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, put_string(s, sizeof(*m), name));
	}
	fclose(f);
}

static bool numeric(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++) {
		if (!isdigit((unsigned char)*name))
			return false;
	}
	return true;
}

/* One process: every thread's FORK and COMM (or only ONLY_TID's), then its maps. */
static void synth_process(struct synth *s, int pid, int only_tid)
{
	char path[64], comm[64];
	struct dirent *d;
	DIR *dir;
	int tgid, ppid;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int tid = atoi(d->d_name);

		if (!numeric(d->d_name) || (only_tid > 0 && tid != only_tid))
			continue;
		if (task_status(pid, tid, comm, sizeof(comm), &tgid, &ppid))
			synth_fork_comm(s, tgid, ppid, tid, comm);
	}
	closedir(dir);
	synth_maps(s, pid);
}

static int tgid_of(int tid)
{
	char comm[64];
	int tgid = tid, ppid;

	return task_status(tid, tid, comm, sizeof(comm), &tgid, &ppid) ? tgid : tid;
}

/*
 * Write S's records to the file, noting their maps for the build-id pass (the kernel's
 * under "[kernel.kallsyms]", as the samples name it); empty S. 0, or -1.
 */
static int flush_synth(struct recording *rec, struct synth *s)
{
	struct rec_stream *st = &rec->streams[0];
	int ret = 0;

	for (size_t off = 0; off < s->out_len;) {
		const struct perf_event_header *h = (const void *)(s->out + off);

		if (h->type == PERF_RECORD_MMAP) {
			const struct perf_record_mmap *m = (const void *)h;

			record__note_map(st, m->pid, m->start, m->len, "[kernel.kallsyms]");
		} else if (h->type == PERF_RECORD_MMAP2) {
			const struct perf_record_mmap2 *m = (const void *)h;

			record__note_map(st, m->pid, m->start, m->len, m->filename);
		}
		off += h->size;
	}
	if (s->out_len && perf_writer__write(rec->writer, s->out, s->out_len))
		ret = -1;
	s->out_len = 0;
	return ret;
}

struct synth_batch {
	const int *pids;
	int only_tid;
	struct synth *synths;	/* one per pid of the batch */
};

static void synth_one(size_t i, void *arg)
{
	struct synth_batch *b = arg;

	synth_process(&b->synths[i], b->pids[i], b->only_tid);
}

/* The processes to synthesize: -p's, -t's or (-a) every one in /proc, in /proc's order. */
static int *target_pids(struct recording *rec, size_t *nr)
{
	int *pids = NULL;
	size_t alloc = 0;
	DIR *dir;
	struct dirent *d;

	*nr = 0;
	if (rec->target_pid > 0 || rec->target_tid > 0) {
		pids = xmalloc(sizeof(int));
		pids[(*nr)++] = rec->target_pid > 0 ? rec->target_pid : tgid_of(rec->target_tid);
		return pids;
	}
	if (!rec->system_wide || !(dir = opendir("/proc")))
		return NULL;
	while ((d = readdir(dir))) {
		if (!numeric(d->d_name))
			continue;
		ARRAY_GROW(pids, alloc, *nr + 1);
		pids[(*nr)++] = atoi(d->d_name);
	}
	closedir(dir);
	return pids;
}

int record__synthesize(struct recording *rec)
{
	static const struct perf_event_header init = { PERF_RECORD_FINISHED_INIT, 0, sizeof(init) };
	struct synth_batch b = { .only_tid = rec->target_tid };
	size_t nr = 0, id_hdr_size = record__id_hdr_size(rec);
	int *pids = target_pids(rec, &nr), ret = 0;
	struct workqueue *wq = nr > 1 ? workqueue__new(0) : NULL;

	b.pids = pids;
	b.synths = xcalloc(MIN(nr, (size_t)SYNTH_BATCH) + 1, sizeof(*b.synths));
	for (size_t i = 0; i <= MIN(nr, (size_t)SYNTH_BATCH); i++)
		b.synths[i].id_hdr_size = id_hdr_size;
	synth_kernel(&b.synths[0]);
	ret = flush_synth(rec, &b.synths[0]);
	for (size_t start = 0; start < nr && !ret; start += SYNTH_BATCH) {
		size_t n = MIN(nr - start, (size_t)SYNTH_BATCH);

		b.pids = pids + start;
		workqueue__parallel_for(wq, 0, n, 1, synth_one, &b);
		for (size_t i = 0; i < n && !ret; i++)
			ret = flush_synth(rec, &b.synths[i]);
	}
	if (!ret && perf_writer__write(rec->writer, &init, sizeof(init)))
		ret = -1;
	workqueue__destroy(wq);
	for (size_t i = 0; i <= MIN(nr, (size_t)SYNTH_BATCH); i++)
		free(b.synths[i].out);
	free(b.synths);
	free(pids);
	return ret;
}
