/*
 * machine: the host's model of tasks and address spaces, updated by side-band records in
 * delivery order (COMM FORK EXIT MMAP MMAP2 and the BUILD_ID feature), and queried by sample
 * resolution (tid -> thread, ip -> map -> dso -> symbol).
 * threads: a table keyed by tid with a cache of recent lookups. Threads of
 * one process share one `maps`; a process fork copies it. Objects are refcounted; lookups named
 * __findnew/__get return a reference the caller puts. One writer, no locks.
 */
#ifndef MACHINE_MACHINE_H
#define MACHINE_MACHINE_H

#include "lib/compiler.h"
#include "lib/containers/ptrtable.h"
#include "lib/refcount.h"
#include "lib/containers/strpool.h"
#include "machine/dso.h"
#include "machine/map.h"
#include "readers/format.h"
#include "symtab/symtab.h"

/*
 * A comm as perf keeps it: an object whose string the first COMM of a thread overrides in
 * place (the ":tid" placeholder becomes the real name), so histogram entries made before that
 * COMM show the real name too. Later COMMs (exec) make new objects. Owned by the machine.
 */
struct comm {
	const char *str;	/* interned; read it with comm__str() off the reading thread */
};

/* The string of a comm, read safely while the thread that reads records may rename it. */
static inline const char *comm__str(const struct comm *comm)
{
	return __atomic_load_n(&comm->str, __ATOMIC_RELAXED);
}

struct thread {
	struct refcount ref;
	s32 pid, tid, ppid;
	/*
	 * ":tid" until a COMM or a fork sets it. Inside the model it is NULL until needed (most
	 * threads get their name before anything asks); a thread handed out by the functions
	 * below always has one.
	 */
	struct comm *comm;
	struct comm comm0;	/* the first comm object: the placeholder or the first name */
	bool comm_set;
	bool exited;
	bool retire_due;	/* a process leader past its retirement, its maps kept for its threads */
	struct maps *maps;	/* NULL once retired (until a record adds a map again) */
};

struct comm_chunk;
struct history;

/* An EXIT waiting for the stream to move past it (machine.c). */
struct exited_thread {
	struct thread *thread;	/* a reference */
	u64 time;
};

/* Exited threads in EXIT order: a queue. */
struct exit_queue {
	struct exited_thread *v;
	size_t head, nr, alloc;
};

struct machine {
	struct strpool strings;
	struct comm_chunk *comms;	/* arena of comm objects */
	struct ptrtable threads;	/* by tid; holds a reference to each */
	struct thread *recent[64];	/* recent lookups by tid % 64, not references */
	struct dsos dsos;
	struct maps *kmaps;	/* kernel maps */
	struct map *kernel_map;	/* [kernel.kallsyms] map in kmaps, not a reference */
	struct dso *kernel_dso;
	struct symsrc_config symsrc;
	u64 kernel_start;
	u64 kernel_ref_reloc;	/* pgoff of the [kernel.kallsyms]_text MMAP */
	struct dso_loader *loader;	/* loads symbol tables ahead, or NULL */
	/*
	 * The kernel's map was hit while a worker still loads its symbols: until they are in
	 * and its bounds fixed, lookups in the kernel's maps wait (machine__resolve_map_nowait).
	 */
	bool kernel_pending;
	/*
	 * Keep exited threads' maps to the end (the tasks listing, AUX-trace decoding) instead
	 * of retiring them after their EXIT. Set before the first record.
	 */
	bool keep_exited;
	/* Exited threads, their maps retired MACHINE_RETIRE_AFTER_NS after their EXIT ... */
	struct exit_queue exited;
	/* ... and then the threads forgotten MACHINE_FORGET_AFTER_NS after it */
	struct exit_queue forget;
	u64 now;	/* the latest timestamp of a side-band record */
	struct history *history;	/* logging every change (machine/history.h), or NULL */
};

struct addr_location {
	struct thread *thread;	/* borrowed */
	struct map *map;	/* borrowed */
	struct dso *dso;	/* borrowed */
	const struct symtab *symtab;
	const struct symbol *sym;
	u64 addr;	/* map-relative when a map was found, else the raw ip */
	char level;	/* k . g u H */
	u8 cpumode;
};

void machine__init(struct machine *machine, const struct symsrc_config *cfg);
void machine__exit(struct machine *machine);

/* perf's machine__findnew_thread: returns a new reference. */
struct thread *machine__findnew_thread(struct machine *machine, s32 pid, s32 tid);
struct thread *machine__find_thread(struct machine *machine, s32 tid);
/*
 * Prefetch what a sample's lookup of tid and of ip in its maps will read, in steps a few
 * samples apart: stage 0, 1, 2 the table slot, the thread, its maps; from 3 on, the lines of
 * the search in the maps (maps__prefetch), when asked to (search: a user ip, and stages for
 * it to come). Changes nothing.
 */
void machine__prefetch_sample(const struct machine *machine, s32 tid, u64 ip, bool search,
			      int stage);
/*
 * t with its ":tid" placeholder comm made if it has none yet (perf's, for a thread a sample
 * reaches before any name): t.
 */
struct thread *thread__with_comm(struct machine *machine, struct thread *t);
struct thread *thread__get(struct thread *thread);
static inline const char *thread__comm_str(const struct thread *thread)
{
	return thread->comm->str;
}
void thread__put(struct thread *thread);

/* How many threads the model holds (exited ones too: they stay until their tid is reused). */
size_t machine__nr_threads(const struct machine *machine);
/*
 * Call fn on every thread the model holds, in no particular order (listings: the tasks tree);
 * stops at and returns fn's first non-zero return. The threads are borrowed; fn must not
 * change the model.
 */
int machine__for_each_thread(struct machine *machine,
			     int (*fn)(struct thread *thread, void *data), void *data);

/*
 * How long after its EXIT (in recorded time) a thread's maps are released. A task still runs
 * after its EXIT record (the kernel tears its address space down), in the kernel: its samples'
 * user frames need the maps only for a moment, their comm (the thread stays) for as long as
 * the teardown waits for a CPU, which on a busy machine is seconds.
 */
#define MACHINE_RETIRE_AFTER_NS 2000000000ull
/*
 * How long after its EXIT an exited thread (its maps retired) leaves the table. perf 6.1 keeps
 * it until its tid is reused; but a task's last samples come while its address space is torn
 * down, seconds after the EXIT on a loaded machine (6.8 s seen, the sysw_exit fixture's 3.3 s):
 * so memory is bounded by the threads that exit in 10 s of the recording, not by all of them.
 */
#define MACHINE_FORGET_AFTER_NS 10000000000ull

/*
 * Side-band records. Return 0, or -1 for a malformed record (error_get() says why).
 *
 * Exit rule: EXIT marks the thread exited and it stays in the table, as perf 6.1 keeps it,
 * until a FORK reuses its tid (and replaces it, as in perf) or, unless keep_exited, until a
 * side-band record MACHINE_FORGET_AFTER_NS (of recorded time) past the EXIT has been
 * processed: a sample of it in that time finds its pid and comm. Before that, unless
 * keep_exited, the thread is retired once a side-band record MACHINE_RETIRE_AFTER_NS past the
 * EXIT has been processed: its maps are released (a record that maps something into it again
 * starts new ones). A process leader whose threads still run keeps the process's maps until
 * the last of them is retired (and stays in the table until then). EXITs without a timestamp
 * retire nothing.
 */
int machine__process_event(struct machine *machine, const struct perf_event_header *event,
			   u64 time);
/* Start loading the kernel's symbols now, relocated to text (its _text at record time). */
void machine__load_kernel_ahead(struct machine *machine, u64 text);
/* Build-ids from the BUILD_ID feature section; load_ahead: start loading those dsos' symbols. */
void machine__add_build_ids(struct machine *machine, const u8 *data, size_t size,
			    bool load_ahead);

/* Its map only (the symbol later: machine__resolve_symbol). */
void machine__find_map(struct machine *machine, struct thread *thread, u8 cpumode, u64 ip,
		       struct addr_location *al);
/* Resolve an address in one address space, without fallback (perf's thread__find_symbol). */
void machine__find_symbol(struct machine *machine, struct thread *thread, u8 cpumode, u64 ip,
			  struct addr_location *al);
/*
 * Resolve a sample's ip in its thread in two steps: the map (perf's thread__find_map_fb),
 * which needs the model as it is at the sample, then the symbol in the map's dso (perf's
 * map__find_symbol), which may be done later and on another thread: it reads and loads
 * symbol tables, never the model.
 */
void machine__resolve_map(struct machine *machine, struct thread *thread, u8 cpumode, u64 ip,
			  struct addr_location *al);
void machine__resolve_symbol(struct machine *machine, struct addr_location *al);
/*
 * machine__resolve_map without waiting for the kernel's symbols: false, with nothing
 * resolved, when the answer is to be looked up in the kernel's maps while their bounds
 * still wait for those symbols (kernel_pending). Such a sample is resolved later with
 * machine__resolve_kernel_map(), once machine__kernel_ready() or _wait(), and before any
 * record changes the kernel's maps (machine__changes_kernel_maps()).
 */
bool machine__resolve_map_nowait(struct machine *machine, struct thread *thread, u8 cpumode,
				 u64 ip, struct addr_location *al);
void machine__resolve_kernel_map(struct machine *machine, u64 ip, struct addr_location *al);
/* Whether nothing waits for the kernel's symbols (applied if they just came in). */
bool machine__kernel_ready(struct machine *machine);
/* Wait for the kernel's symbols if something waits for them. */
void machine__kernel_wait(struct machine *machine);
bool machine__changes_kernel_maps(const struct perf_event_header *event);
/*
 * A callchain's context marker (PERF_CONTEXT_*): true and the cpumode of the frames after it,
 * as perf 6.1's add_callchain_ip; false for an address or a marker perf 6.1 does not take,
 * the guest ones included (it discards the whole chain then: later perfs know them).
 */
static inline bool machine__callchain_context(u64 ip, u8 *cpumode)
{
	switch (ip) {
	case (u64)PERF_CONTEXT_HV:
		*cpumode = PERF_RECORD_MISC_HYPERVISOR;
		return true;
	case (u64)PERF_CONTEXT_KERNEL:
		*cpumode = PERF_RECORD_MISC_KERNEL;
		return true;
	case (u64)PERF_CONTEXT_USER:
		*cpumode = PERF_RECORD_MISC_USER;
		return true;
	}
	return false;
}

/* Both steps at once. */
void machine__resolve(struct machine *machine, struct thread *thread, u8 cpumode, u64 ip,
		      struct addr_location *al);

#endif
