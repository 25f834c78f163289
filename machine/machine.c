/*
 * machine: threads, per-process maps and the kernel maps, updated by side-band records in
 * delivery order, following perf 6.1's machine.c/thread.c semantics. Exited threads stay in
 * the model (perf 6.1 keeps them: samples after EXIT still find their comm). Addresses to
 * maps and symbols: machine_resolve.c.
 */
#include "machine/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/error.h"
#include "lib/containers/slab.h"
#include "lib/xalloc.h"
#include "machine/history.h"
#include "readers/decode/sample.h"

#define KERNEL_MMAP_PREFIX "[kernel.kallsyms]"

#define COMMS_PER_CHUNK 1024

struct comm_chunk {
	struct comm_chunk *next;
	size_t used;
	struct comm comms[COMMS_PER_CHUNK];
};

/* A comm object for an interned name. */
static struct comm *comm__new(struct machine *m, const char *str)
{
	struct comm_chunk *c = m->comms;

	if (!c || c->used == COMMS_PER_CHUNK) {
		c = xmalloc(sizeof(*c));
		c->next = m->comms;
		c->used = 0;
		m->comms = c;
	}
	c->comms[c->used].str = str;
	return &c->comms[c->used++];
}

/* Threads are many and short-lived: a slab, not a malloc each (single writer). */
static struct slab thread_slab = SLAB_INIT(struct thread);

static struct thread *thread__new(s32 pid, s32 tid)
{
	struct thread *t = slab_zalloc(&thread_slab);

	refcount_init(&t->ref, "thread");
	t->pid = pid;
	t->tid = tid;
	t->ppid = -1;
	return t;
}

/* The ":tid" placeholder, made when first needed (see struct thread). */
struct thread *thread__with_comm(struct machine *m, struct thread *t)
{
	char comm[16];

	if (t && !t->comm) {
		snprintf(comm, sizeof(comm), ":%d", t->tid);
		t->comm0.str = strpool_intern(&m->strings, comm);
		t->comm = &t->comm0;
	}
	return t;
}

struct thread *thread__get(struct thread *t)
{
	if (t)
		refcount_get(&t->ref);
	return t;
}

void thread__put(struct thread *t)
{
	if (t && refcount_put(&t->ref)) {
		maps__put(t->maps);
		slab_free(&thread_slab, t);
	}
}

/* What history needs: t as it is now (after a change). */
static void log_thread(struct machine *m, struct thread *t)
{
	if (m->history)
		history__thread(m->history, t);
}

/*
 * perf's __thread__set_comm: the first name overrides the ":tid" placeholder in place.
 * str is interned.
 */
static void thread__set_comm(struct machine *m, struct thread *t, const char *str)
{
	if (t->comm_set) {
		t->comm = comm__new(m, str);
	} else if (t->comm) {	/* histograms may be reading it on another thread */
		__atomic_store_n(&t->comm->str, str, __ATOMIC_RELAXED);
	} else {
		t->comm0.str = str;
		t->comm = &t->comm0;
	}
	t->comm_set = true;
	log_thread(m, t);
}

/* Fibonacci hashing: consecutive tids land far apart. */
static u64 tid_hash(s32 tid)
{
	return (u64)(u32)tid * 0x9e3779b97f4a7c15ull;
}

static u64 thread_hash(const void *obj)
{
	return tid_hash(((const struct thread *)obj)->tid);
}

static bool thread_has_tid(const void *obj, const void *key)
{
	return ((const struct thread *)obj)->tid == *(const s32 *)key;
}

static struct thread *table_find(const struct ptrtable *tt, s32 tid)
{
	return ptrtable_find(tt, tid_hash(tid), thread_has_tid, &tid);
}

static struct thread *threads__lookup(struct machine *m, s32 tid)
{
	struct thread *t = m->recent[(u32)tid % ARRAY_SIZE(m->recent)];

	if (t && t->tid == tid)
		return t;
	return table_find(&m->threads, tid);
}

static struct thread *__findnew(struct machine *m, s32 pid, s32 tid, bool create);

/*
 * The maps of t, for a record that adds to them: a retired thread (maps released) gets new
 * ones, its process's when it is not the leader.
 */
static struct maps *thread__revive_maps(struct machine *m, struct thread *t)
{
	struct thread *leader;

	if (t->maps)
		return t->maps;
	if (t->pid == t->tid || t->pid == -1) {
		t->maps = maps__new();
		log_thread(m, t);
		return t->maps;
	}
	leader = __findnew(m, t->pid, t->pid, true);
	t->maps = maps__get(thread__revive_maps(m, leader));
	thread__put(leader);
	log_thread(m, t);
	return t->maps;
}

/* perf's machine__update_thread_pid: a thread first seen with pid -1 learns its process. */
static void update_thread_pid(struct machine *m, struct thread *t, s32 pid)
{
	struct thread *leader;

	if (pid == t->pid || pid == -1 || t->pid != -1)
		return;
	t->pid = pid;
	log_thread(m, t);
	if (t->pid == t->tid)
		return;
	leader = __findnew(m, pid, pid, true);
	if (t->maps != thread__revive_maps(m, leader)) {
		maps__put(t->maps);
		t->maps = maps__get(leader->maps);
	}
	thread__put(leader);
	log_thread(m, t);
}

static struct thread *__findnew(struct machine *m, s32 pid, s32 tid, bool create)
{
	struct thread *t = threads__lookup(m, tid);

	if (t) {
		update_thread_pid(m, t, pid);
		m->recent[(u32)tid % ARRAY_SIZE(m->recent)] = t;
		return thread__get(t);
	}
	if (!create)
		return NULL;
	t = thread__new(pid, tid);
	ptrtable_insert(&m->threads, t);	/* the table's reference */
	if (pid == tid || pid == -1) {
		t->maps = maps__new();
	} else {
		struct thread *leader = __findnew(m, pid, pid, true);

		t->maps = maps__get(thread__revive_maps(m, leader));
		thread__put(leader);
	}
	log_thread(m, t);
	m->recent[(u32)tid % ARRAY_SIZE(m->recent)] = t;
	return thread__get(t);
}

/* Inside the model: threads without their placeholder comm. */
static struct thread *threads__findnew(struct machine *m, s32 pid, s32 tid)
{
	return __findnew(m, pid, tid, true);
}

static struct thread *threads__find(struct machine *m, s32 tid)
{
	return __findnew(m, -1, tid, false);
}

struct thread *machine__findnew_thread(struct machine *m, s32 pid, s32 tid)
{
	return thread__with_comm(m, threads__findnew(m, pid, tid));
}

void machine__prefetch_sample(const struct machine *m, s32 tid, u64 ip, bool search, int stage)
{
	struct thread *t;

	if (stage < 2) {
		ptrtable_prefetch(&m->threads, tid_hash(tid), stage);
		return;
	}
	t = table_find(&m->threads, tid);	/* in cache by now, if it is there */
	if (!t || !t->maps)
		return;
	if (stage == 2) {
		__builtin_prefetch(t->maps);	/* a lookup's fields first (struct maps) */
		if (search)	/* and its index, for the search's steps */
			__builtin_prefetch((const char *)t->maps + sizeof(*t->maps) - 1);
	} else if (search) {
		maps__prefetch(t->maps, ip, (size_t)(stage - 3));
	}
}

struct thread *machine__find_thread(struct machine *m, s32 tid)
{
	return thread__with_comm(m, threads__find(m, tid));
}

size_t machine__nr_threads(const struct machine *m)
{
	return m->threads.count;
}

int machine__for_each_thread(struct machine *m, int (*fn)(struct thread *thread, void *data),
			     void *data)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < m->threads.cap; i++)
		if (m->threads.slots[i])
			ret = fn(thread__with_comm(m, ptrtable_at(&m->threads, i)), data);
	return ret;
}

static void machine__remove_thread(struct machine *m, struct thread *t)
{
	if (m->recent[(u32)t->tid % ARRAY_SIZE(m->recent)] == t)
		m->recent[(u32)t->tid % ARRAY_SIZE(m->recent)] = NULL;
	if (ptrtable_remove(&m->threads, t)) {
		if (m->history)
			history__thread_gone(m->history, t->tid);
		thread__put(t);
	}
}

/*
 * Release an exited thread's maps (see machine.h). The thread itself stays in the table, as
 * perf 6.1 keeps it until a FORK reuses its tid: samples long after its EXIT (the kernel
 * tears a big address space down after it) still find its comm.
 */
static void retire(struct machine *m, struct thread *t)
{
	struct maps *maps = t->maps;
	struct thread *leader;
	bool is_leader = t->pid == t->tid;

	if (!maps || table_find(&m->threads, t->tid) != t)
		return;	/* retired already, or its tid was reused: its maps go with it */
	if (is_leader && refcount_read(&maps->ref) > 1) {
		t->retire_due = true;	/* its threads use its maps: they go with the last */
		return;
	}
	t->maps = NULL;
	log_thread(m, t);
	leader = is_leader ? NULL : table_find(&m->threads, t->pid);
	maps__put(maps);
	if (leader && leader->retire_due && leader->maps == maps && refcount_read(&maps->ref) == 1)
		retire(m, leader);
}


/* Append t (a reference of its own) to q */
static void exit_queue_push(struct exit_queue *q, struct thread *t, u64 time)
{
	if (q->head + q->nr == q->alloc) {
		if (q->head >= q->alloc / 2 && q->head) {
			memmove(q->v, q->v + q->head, q->nr * sizeof(*q->v));
			q->head = 0;
		} else {
			ARRAY_GROW(q->v, q->alloc, q->alloc + 1);
		}
	}
	q->v[q->head + q->nr++] = (struct exited_thread){ thread__get(t), time };
}

/* The first thread of q (its reference, the caller's now) if it exited after + before now */
static struct exited_thread *exit_queue_due(struct exit_queue *q, u64 after, u64 now)
{
	struct exited_thread *e;

	if (!q->nr || q->v[q->head].time + after >= now) {
		if (!q->nr)
			q->head = 0;
		return NULL;
	}
	e = &q->v[q->head++];
	q->nr--;
	return e;
}

static void exit_queue_exit(struct exit_queue *q)
{
	for (size_t i = 0; i < q->nr; i++)
		thread__put(q->v[q->head + i].thread);
	free(q->v);
}

static void queue_exited(struct machine *m, struct thread *t, u64 time)
{
	exit_queue_push(&m->exited, t, time);
}

/*
 * Retire the exited threads the stream has moved far enough past, and forget those it has
 * moved farther past (but a leader whose maps its threads still use).
 */
static void retire_exited(struct machine *m)
{
	struct exited_thread *e;

	while ((e = exit_queue_due(&m->exited, MACHINE_RETIRE_AFTER_NS, m->now))) {
		retire(m, e->thread);
		exit_queue_push(&m->forget, e->thread, e->time);
		thread__put(e->thread);
	}
	while ((e = exit_queue_due(&m->forget, MACHINE_FORGET_AFTER_NS, m->now))) {
		struct thread *t = e->thread;

		if (!t->maps && table_find(&m->threads, t->tid) == t)
			machine__remove_thread(m, t);
		thread__put(t);
	}
}

void machine__init(struct machine *m, const struct symsrc_config *cfg)
{
	struct thread *idle;

	memset(m, 0, sizeof(*m));
	strpool_init(&m->strings);
	ptrtable_init(&m->threads, thread_hash);
	dsos__init(&m->dsos);
	m->kmaps = maps__new();
	m->symsrc = *cfg;
	m->kernel_start = 1ULL << 63;	/* x86_64: every address above 2^63 is the kernel's */
	/* perf registers the idle task as pid 0 "swapper" before reading events. */
	idle = threads__findnew(m, 0, 0);
	thread__set_comm(m, idle, strpool_intern(&m->strings, "swapper"));
	thread__put(idle);
}

void machine__exit(struct machine *m)
{
	exit_queue_exit(&m->exited);
	exit_queue_exit(&m->forget);
	for (size_t i = 0; i < m->threads.cap; i++)
		thread__put(ptrtable_at(&m->threads, i));
	ptrtable_exit(&m->threads);
	while (m->comms) {
		struct comm_chunk *next = m->comms->next;

		free(m->comms);
		m->comms = next;
	}
	maps__put(m->kmaps);
	dso__put(m->kernel_dso);
	dsos__exit(&m->dsos);
	strpool_exit(&m->strings);
}

/*
 * perf's anon and no-dso names, and [vdso]. Most names are plain paths: the second character
 * ('/', 'd', 'a', 'S') or the first ('[') rules them out before any compare.
 */
static bool is_anon_memory(const char *name)
{
	if (name[0] != '/' || (name[1] != '/' && name[1] != 'd' && name[1] != 'a'))
		return false;
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14);
}

static bool is_no_dso_memory(const char *name)
{
	if (name[0] == '/')
		return name[1] == 'S' && !strncmp(name, "/SYSV", 5);
	return name[0] == '[' && (!strncmp(name, "[stack", 6) || !strcmp(name, "[heap]"));
}

static void process_kernel_mmap(struct machine *m, u64 start, u64 len, u64 pgoff,
				const char *filename)
{
	struct dso *dso;
	struct map *map;

	if (strncmp(filename, KERNEL_MMAP_PREFIX, strlen(KERNEL_MMAP_PREFIX)) == 0) {
		dso = dsos__findnew(&m->dsos, &m->strings, KERNEL_MMAP_PREFIX);
		map = map__new(start, start + len, 0, dso);
		map->identity = true;
		maps__insert(m->kmaps, map);
		m->kernel_map = map;
		/* perf's ref_reloc_sym: where _text was at record time (0 under kptr_restrict) */
		m->kernel_ref_reloc = pgoff;
		dso__load_ahead(dso, m->loader, pgoff);
		if (!m->kernel_dso)
			m->kernel_dso = dso__get(dso);
		map__put(map);
		dso__put(dso);
		return;
	}
	/* A kernel module or other kernel mapping. */
	dso = dsos__findnew(&m->dsos, &m->strings, filename);
	dso->kind = DSO_KIND_KERNEL;
	map = map__new(start, start + len, pgoff, dso);
	maps__insert(m->kmaps, map);
	map__put(map);
	dso__put(dso);
}

/*
 * prot, shared: as recorded; ino: the file's inode when the record has its id (MMAP2 without
 * a build-id, id not all zero), else NULL. They are only shown by listings.
 */
static void process_user_mmap(struct machine *m, s32 pid, s32 tid, u64 start, u64 len,
			      u64 pgoff, u8 prot, bool shared, const u64 *ino,
			      const char *filename, const u8 *build_id, u8 build_id_size)
{
	struct thread *t = threads__findnew(m, pid, tid);
	bool anon = is_anon_memory(filename), no_dso = is_no_dso_memory(filename);
	bool exec = prot & PROT_EXEC;
	char newname[64];
	struct dso *dso;
	struct map *map;

	if ((anon || no_dso) && exec) {
		snprintf(newname, sizeof(newname), "/tmp/perf-%d.map", pid);
		filename = newname;
	}
	if (filename[0] == '[' && strcmp(filename, "[vdso]") == 0) {
		pgoff = 0;
		ino = NULL;	/* perf's vdso dso is found by name alone */
	}
	dso = dsos__findnew(&m->dsos, &m->strings, filename);
	if (build_id_size && !dso->build_id_size) {
		memcpy(dso->build_id, build_id, MIN(build_id_size, sizeof(dso->build_id)));
		dso->build_id_size = MIN(build_id_size, sizeof(dso->build_id));
	}
	map = map__new(start, start + len, pgoff, dso);
	map->identity = anon || no_dso;
	map->prot = prot;
	map->shared = shared;
	map->ino_index = ino ? dso__ino_index(dso, *ino) : 0;
	maps__insert(thread__revive_maps(m, t), map);
	map__put(map);
	dso__put(dso);
	thread__put(t);
}

static int process_fork(struct machine *m, const struct perf_record_fork *ev)
{
	struct thread *t = threads__find(m, ev->tid);
	struct thread *parent = threads__findnew(m, ev->ppid, ev->ptid);

	/* An existing thread that is not really the parent: drop it, as perf does. */
	if (parent->pid != (s32)ev->ppid) {
		machine__remove_thread(m, parent);
		thread__put(parent);
		parent = threads__findnew(m, ev->ppid, ev->ptid);
	}
	if (t) {
		machine__remove_thread(m, t);
		thread__put(t);
	}
	t = threads__findnew(m, ev->pid, ev->tid);
	if (parent->comm_set)
		thread__set_comm(m, t, parent->comm->str);
	t->ppid = parent->tid;
	/* A new process gets a copy of its parent's maps, except for synthesized forks. */
	if (t->pid != parent->pid && t->maps != parent->maps &&
	    !(ev->header.misc & PERF_RECORD_MISC_FORK_EXEC)) {
		maps__put(t->maps);
		t->maps = maps__clone(thread__revive_maps(m, parent));
	}
	log_thread(m, t);
	thread__put(t);
	thread__put(parent);
	return 0;
}

static const char *record_string(const struct perf_event_header *event, const char *s)
{
	const char *end = (const char *)event + event->size;

	if (s >= end || !memchr(s, '\0', end - s))
		return NULL;
	return s;
}

int machine__process_event(struct machine *m, const struct perf_event_header *event, u64 time)
{
	u8 cpumode = event->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;

	if (!sample_time_untimed(time) && time > m->now) {
		m->now = time;
		retire_exited(m);
	}

	switch (event->type) {
	case PERF_RECORD_MMAP: {
		const struct perf_record_mmap *ev = (const void *)event;
		const char *name;

		if (event->size < sizeof(*ev) || !(name = record_string(event, ev->filename)))
			return error_set("malformed MMAP record"), -1;
		if (kernel)
			process_kernel_mmap(m, ev->start, ev->len, ev->pgoff, name);
		else
			/* perf 6.1's machine__process_mmap_event: exec unless a data mapping */
			process_user_mmap(m, ev->pid, ev->tid, ev->start, ev->len, ev->pgoff,
					  event->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC,
					  false, NULL, name, NULL, 0);
		return 0;
	}
	case PERF_RECORD_MMAP2: {
		const struct perf_record_mmap2 *ev = (const void *)event;
		const char *name;
		bool has_bid = event->misc & PERF_RECORD_MISC_MMAP_BUILD_ID;

		if (event->size < sizeof(*ev) || !(name = record_string(event, ev->filename)))
			return error_set("malformed MMAP2 record"), -1;
		if (kernel)
			process_kernel_mmap(m, ev->start, ev->len, ev->pgoff, name);
		else
			process_user_mmap(m, ev->pid, ev->tid, ev->start, ev->len, ev->pgoff,
					  (u8)ev->prot, ev->flags & MAP_SHARED,
					  has_bid || !(ev->maj | ev->min | ev->ino | ev->ino_generation)
						  ? NULL : &ev->ino,
					  name, has_bid ? ev->build_id : NULL,
					  has_bid ? MIN(ev->build_id_size, 20) : 0);
		return 0;
	}
	case PERF_RECORD_COMM: {
		const struct perf_record_comm *ev = (const void *)event;
		const char *comm;
		struct thread *t;

		if (event->size < sizeof(*ev) || !(comm = record_string(event, ev->comm)))
			return error_set("malformed COMM record"), -1;
		t = threads__findnew(m, ev->pid, ev->tid);
		thread__set_comm(m, t, strpool_intern(&m->strings, comm));
		thread__put(t);
		return 0;
	}
	case PERF_RECORD_FORK:
		if (event->size < sizeof(struct perf_record_fork))
			return error_set("malformed FORK record"), -1;
		return process_fork(m, (const void *)event);
	case PERF_RECORD_EXIT: {
		const struct perf_record_fork *ev = (const void *)event;
		struct thread *t;

		if (event->size < sizeof(*ev))
			return error_set("malformed EXIT record"), -1;
		t = threads__find(m, ev->tid);
		if (t) {
			t->exited = true;
			if (!m->keep_exited && !sample_time_untimed(time))
				queue_exited(m, t, time);
			thread__put(t);
		}
		return 0;
	}
	default:
		return 0;
	}
}

void machine__load_kernel_ahead(struct machine *m, u64 text)
{
	struct dso *dso;

	if (!text || !m->loader || !m->loader->wq)
		return;
	dso = dsos__findnew(&m->dsos, &m->strings, KERNEL_MMAP_PREFIX);
	dso__load_ahead(dso, m->loader, text);
	dso__put(dso);
}

/* BUILD_ID feature: a sequence of perf_record_header_build_id records. */
void machine__add_build_ids(struct machine *m, const u8 *data, size_t size, bool load_ahead)
{
	size_t off = 0;

	while (size - off >= sizeof(struct perf_record_header_build_id)) {
		/* feature sections need not be aligned: copy the fixed part out */
		struct perf_record_header_build_id bid, *b = &bid;
		const char *name = (const char *)data + off + sizeof(bid);
		size_t len;
		struct dso *dso;
		u8 bid_size;

		memcpy(&bid, data + off, sizeof(bid));
		len = b->header.size;
		if (len < sizeof(*b) || len > size - off)
			break;
		if (!memchr(name, '\0', len - sizeof(*b)))
			break;
		bid_size = (b->header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? b->size : 20;
		if (bid_size > 20)
			bid_size = 20;
		if (strncmp(name, KERNEL_MMAP_PREFIX, strlen(KERNEL_MMAP_PREFIX)) == 0)
			name = KERNEL_MMAP_PREFIX;
		dso = dsos__findnew(&m->dsos, &m->strings, name);
		/*
		 * The last entry of a name wins, as in perf; but once a worker may be loading
		 * the dso's symbols, it reads the build-id: those were added before (report adds
		 * every id first, then queues the loads), so the ids stay as they are.
		 */
		if (!dso__symbols_requested(dso)) {
			memcpy(dso->build_id, b->data, bid_size);
			dso->build_id_size = bid_size;
		}
		/* the recording hit it: load its symbols while records are read (not the
		 * kernel: its relocation comes with its MMAP record) */
		if (dso->kind != DSO_KIND_KERNEL && load_ahead)
			dso__load_ahead(dso, m->loader, 0);
		dso__put(dso);
		off += len;
	}
}

bool machine__changes_kernel_maps(const struct perf_event_header *event)
{
	u8 cpumode = event->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return (event->type == PERF_RECORD_MMAP || event->type == PERF_RECORD_MMAP2) &&
	       (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL);
}
