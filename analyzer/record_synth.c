/*
 * record_synth: the records perf record synthesizes before it enables the events, read from
 * /proc: the kernel's map ([kernel.kallsyms]_text), and for -a/-p/-t the running tasks
 * (FORK, COMM) and their executable maps (MMAP2), as perf 6.1's synthetic-events.c lays
 * them out, with a zeroed sample_id_all trailer. They go into the header file's data.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyzer/record_internal.h"
#include "lib/xalloc.h"
#include "readers/writer.h"

#define SYNTH_MAX 8192	/* a record with the longest path (PATH_MAX) and its trailer */

struct synth {
	struct recording *rec;
	size_t id_hdr_size;
	u8 buf[SYNTH_MAX];
	int error;
};

/* Write the record built in s->buf: BODY bytes, then the zeroed trailer. */
static void emit(struct synth *s, u16 type, u16 misc, size_t body)
{
	struct perf_event_header *h = (void *)s->buf;
	size_t size = body + s->id_hdr_size;

	memset(s->buf + body, 0, s->id_hdr_size);
	h->type = type;
	h->misc = misc;
	h->size = (u16)size;
	if (!s->error && perf_writer__write(s->rec->writer, s->buf, size))
		s->error = -1;
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
	record__note_map(&s->rec->streams[0], (u32)-1, m->start, m->len, "[kernel.kallsyms]");
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
		record__note_map(&s->rec->streams[0], (u32)pid, start, end - start, name);
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

int record__synthesize(struct recording *rec)
{
	static const struct perf_event_header init = { PERF_RECORD_FINISHED_INIT, 0, sizeof(init) };
	struct synth *s = xzalloc(sizeof(*s));
	int ret;

	s->rec = rec;
	s->id_hdr_size = record__id_hdr_size(rec);
	synth_kernel(s);
	if (rec->target_pid > 0) {
		synth_process(s, rec->target_pid, 0);
	} else if (rec->target_tid > 0) {
		synth_process(s, tgid_of(rec->target_tid), rec->target_tid);
	} else if (rec->system_wide) {
		DIR *dir = opendir("/proc");
		struct dirent *d;

		while (dir && (d = readdir(dir))) {
			if (numeric(d->d_name))
				synth_process(s, atoi(d->d_name), 0);
		}
		if (dir)
			closedir(dir);
	}
	if (!s->error && perf_writer__write(rec->writer, &init, sizeof(init)))
		s->error = -1;
	ret = s->error;
	free(s);
	return ret;
}
