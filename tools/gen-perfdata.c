/*
 * gen-perfdata: write a synthetic but valid perf.data of any scale (processes, threads,
 * mmaps, dsos, samples, thread churn) for tests and benchmarks. Output is streamed through
 * readers/writer; memory is one tid per live thread, nothing per mmap, dso or sample, so ten
 * million mmaps or a million threads cost no more than the flags say.
 *
 * The recording it pretends to be: `perf record -e cpu-clock -F 4000` of a machine where a
 * launcher (pid 1, "gen-init") forks and execs every process; each process maps its mmaps
 * (fake dso paths, so user symbols stay unresolved) and forks its threads; then samples arrive
 * on random live threads, a share of them in the kernel ([kernel.kallsyms]_text mapped as
 * perf record synthesizes it; --kallsyms writes a matching symbol file), while threads exit
 * and new ones fork (--churn). Timestamps increase through the file; a FINISHED_ROUND follows
 * every --round records. --event replaces cpu-clock by events of any attr (the samples go to
 * them in turn); --no-event-desc leaves their names out (perf then derives them from the attr).
 * --lost N spreads N LOST records (the kernel's "ring buffer full") over the samples;
 * --lost-samples N ends the file with N LOST_SAMPLES records, as perf record 6.x writes them at
 * exit from the events' PERF_FORMAT_LOST counts (a trailer of zeros but the id: untimed).
 * --unannounced N leaves the last N processes out of the side band, as tasks perf record did
 * not see start: their samples make their threads (named ":tid", no maps). --late N times N
 * samples three rounds back, as a CPU's buffer read late: records out of order.
 * --branch-stack N gives every sample N taken branches (perf record -b, LBR; --hw-idx adds
 * the stack's hardware index, as LBR call stacks have it); --sample-fields adds the fields of
 * memory samples (perf mem: addr, weight, data source, physical address, page sizes) and
 * cgroups (with CGROUP records naming them); --elf PATH maps an ELF file into every process,
 * its build-id in the MMAP2 record, so that branches land in real functions. Their values are
 * hashes of the sample's number, never draws from the random stream: the files without them
 * stay what they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/writer.h"
#include "symtab/symtab.h"

#define USAGE "usage: gen-perfdata -o PATH [--processes N] [--threads N] [--mmaps N] [--dsos N] " \
	      "[--samples N] [--churn N] [--seed N] [--cpus N] [--comms N] [--ips N] " \
	      "[--kernel-percent P] [--kfuncs N] [--round N] [--kallsyms FILE] [--event SPEC]... " \
	      "[--no-event-desc] [--lost N] [--lost-samples N] [--unannounced N] [--late N] " \
	      "[--branch-stack N] [--hw-idx] [--sample-fields LIST] [--cgroups N] [--elf PATH]"

#define HELP \
	"  -o, --output PATH     the perf.data to write (required)\n" \
	"  --processes N         processes, all forked and exec'd before the first sample (10)\n" \
	"  --threads N           live threads per process, the main one included (4)\n" \
	"  --mmaps N             mmaps per process (8)\n" \
	"  --dsos N              distinct dsos, shared across processes (16)\n" \
	"  --samples N           samples (10000)\n" \
	"  --churn N             thread exits, each followed by a new thread's fork in the same\n" \
	"                        process, spread over the samples (0; needs --threads >= 2)\n" \
	"  --seed N              seed of every random choice (1): same flags, same file\n" \
	"  --cpus N              cpus the samples rotate over (4)\n" \
	"  --comms N             distinct process names gen-proc-0.. (8)\n" \
	"  --ips N               distinct sampled addresses per dso (16)\n" \
	"  --kernel-percent P    share of samples in the kernel (10)\n" \
	"  --kfuncs N            kernel functions gen_kfunc_0.. (64)\n" \
	"  --round N             records between FINISHED_ROUNDs (1000)\n" \
	"  --kallsyms FILE       also write the kernel symbols, for report --kallsyms FILE\n" \
	"  --event SPEC          an event instead of cpu-clock (repeat for more, up to 16; the\n" \
	"                        samples go to them in turn): comma-separated attr fields\n" \
	"                        type=N, config=N, bp_type=N, bp_addr=N, precise_ip=N, flags\n" \
	"                        exclude_user, exclude_kernel, exclude_hv, exclude_host,\n" \
	"                        exclude_guest, and name=NAME for EVENT_DESC (default: SPEC)\n" \
	"  --no-event-desc       write no EVENT_DESC feature (no event names in the file)\n" \
	"  --lost N              LOST records, spread over the samples (0)\n" \
	"  --lost-samples N      LOST_SAMPLES records at the end of the file (0)\n" \
	"  --unannounced N       the last N processes run unrecorded: no FORK, COMM or MMAP of\n" \
	"                        theirs, only their samples (0)\n" \
	"  --late N              samples, spread over the file, timed three rounds before the\n" \
	"                        records around them (a buffer read late: out of order) (0)\n" \
	"  --branch-stack N      N taken branches a sample (PERF_SAMPLE_BRANCH_STACK, as perf\n" \
	"                        record -b) (0; at most 128)\n" \
	"  --hw-idx              the branch stacks carry their hardware index (BRANCH_HW_INDEX)\n" \
	"  --sample-fields LIST  more sample fields, comma-separated: addr, weight,\n" \
	"                        weight_struct, data_src, phys_addr, cgroup, data_page_size,\n" \
	"                        code_page_size\n" \
	"  --cgroups N           CGROUP records of N cgroups /gen/cg0.. the samples' cgroup ids\n" \
	"                        pick from (one id in eight is none of them) (4)\n" \
	"  --elf PATH            every process also maps PATH's executable segment (its\n" \
	"                        build-id in the MMAP2); branches land in its functions\n" \
	"Counts take a k, M or G suffix (10^3, 10^6, 10^9).\n"

#define TID_BASE 1000u	/* first tid given out; pid 1 is the launcher */
#define INIT_PID 1u
#define TIME_BASE 1000000000ull	/* 1 s */
#define SIDEBAND_STEP 100	/* ns between side-band records */
#define PERIOD 250000	/* ns: cpu-clock at 4000 Hz */
#define USER_BASE 0x10000000ull	/* mmap k of every process starts at USER_BASE + k * MMAP_STRIDE */
#define MMAP_STRIDE 0x200000ull
#define MAX_MMAPS ((0x7f0000000000ull - USER_BASE) / MMAP_STRIDE)
#define KERNEL_TEXT 0xffffffff81000000ull
#define KFUNC_START 0x1000ull	/* kernel functions start this far after _text */
#define KFUNC_SIZE 0x400ull
#define MAX_TIDS 0x7fffffffull	/* perf keeps tids in an int */
#define MAX_EVENTS 16
#define ID_BASE 100	/* sample id of event e on cpu c: ID_BASE + e * cpus + c */
#define MAX_BRANCHES 128
#define PIE_BASE 0x555555554000ull	/* where a position-independent --elf is mapped */
#define CGROUP_ID_BASE 0x1000	/* cgroup k's id */
#define UNMAPPED_IP 0x7000ull	/* a branch address no map covers */

struct gen_event {
	struct perf_event_attr attr;	/* type, config and modifiers only */
	const char *name;
};

struct gen_opts {
	u64 processes, threads, mmaps, dsos, samples, churn, seed, cpus, comms, ips, kfuncs, round;
	u64 kernel_percent, lost, lost_samples, unannounced, late, branches, cgroups;
	u64 extra_fields;	/* --sample-fields: PERF_SAMPLE_* bits */
	bool hw_idx;
	const char *output, *kallsyms, *elf;
	struct gen_event events[MAX_EVENTS];	/* --event; none: cpu-clock */
	size_t nr_events;
	bool no_event_desc;
};

/*
 * Sample layouts (perf_event.h order): IP, TID, TIME, [ID], CPU, PERIOD for samples; TID,
 * TIME, [ID], CPU for the sample_id_all trailer of the other records. ID only with more than
 * one event (perf needs it to tell them apart); without it the file is what it always was.
 */

struct gen {
	struct gen_opts o;
	struct perf_writer *w;
	u32 *slot_tid;	/* [process * threads + slot]: the live thread in that slot; slot 0 the main */
	u64 next_tid;
	u64 time;
	u64 rng;
	u64 records_in_round;
	u64 nr_threads_total;
	u64 first_sample, last_sample;
	u32 cpu;	/* cpu of the next side-band record: round robin */
	bool with_id;	/* PERF_SAMPLE_ID: more than one event */
	struct {	/* --elf: its executable segment as mapped, and its functions */
		u64 start, len, pgoff;
		u8 build_id[20];
		u8 build_id_size;
		u64 *func_start, *func_size;
		size_t nr_funcs;
	} elf;
};

/* splitmix64: a good 64-bit mix, used both as the stream generator and as a stateless hash. */
static u64 mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static u64 rnd(struct gen *g, u64 bound)
{
	g->rng = mix(g->rng);
	return bound ? g->rng % bound : 0;
}

/* Dso d: its size and its ips hot spots are functions of d and the seed, never stored. */
static u64 dso_len(const struct gen *g, u64 d)
{
	return 0x1000 * (4 + mix(g->o.seed ^ (d * 0x100000001b3ull)) % 60);
}

static u64 dso_hot_offset(const struct gen *g, u64 d, u64 j)
{
	return (mix(g->o.seed + d * 0x10001 + j * 0x9e37) % (dso_len(g, d) / 4)) * 4;
}

/* Process p maps the dsos base, base+1, ... (mod --dsos): distinct while mmaps <= dsos. */
static u64 mmap_dso(const struct gen *g, u64 p, u64 k)
{
	return (mix(g->o.seed * 31 + p) + k) % g->o.dsos;
}

static void dso_path(char *buf, size_t size, u64 d)
{
	snprintf(buf, size, "/gen-perfdata/lib/libgen%" PRIu64 ".so", d);
}

static int emit(struct gen *g, const void *rec, size_t size)
{
	static const struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND,
							.size = sizeof(round) };

	if (perf_writer__write(g->w, rec, size))
		return -1;
	if (++g->records_in_round < g->o.round)
		return 0;
	g->records_in_round = 0;
	return perf_writer__write(g->w, &round, sizeof(round));
}

/*
 * A side-band record: BODY (BODY_SIZE bytes, header first) gets the id trailer of pid/tid at
 * the next timestamp; the header's size is set here.
 */
static int emit_sideband(struct gen *g, void *body, size_t body_size, u32 pid, u32 tid)
{
	u8 buf[512];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	u64 trailer[4], n = 0;

	trailer[n++] = (u64)tid << 32 | pid;
	trailer[n++] = g->time += SIDEBAND_STEP;
	if (g->with_id)
		trailer[n++] = ID_BASE + g->cpu;	/* the first event's */
	trailer[n++] = g->cpu;
	g->cpu = (g->cpu + 1) % g->o.cpus;
	memcpy(buf, body, body_size);
	memcpy(buf + body_size, trailer, n * sizeof(u64));
	h->size = (u16)(body_size + n * sizeof(u64));
	return emit(g, buf, h->size);
}

static int emit_comm(struct gen *g, u32 pid, u32 tid, const char *comm, bool exec)
{
	u8 buf[64] = { 0 };
	struct perf_record_comm *c = (struct perf_record_comm *)buf;
	size_t len = strlen(comm) + 1;

	c->header.type = PERF_RECORD_COMM;
	c->header.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	c->pid = pid;
	c->tid = tid;
	memcpy(c->comm, comm, len);
	return emit_sideband(g, buf, sizeof(*c) + ALIGN_UP(len, 8), pid, tid);
}

/* FORK and EXIT share a layout (perf_event.h). */
static int emit_task(struct gen *g, u32 type, u32 pid, u32 ppid, u32 tid, u32 ptid)
{
	struct perf_record_fork f = {
		.header.type = type,
		.pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid,
		.time = g->time + SIDEBAND_STEP,	/* what the trailer will say */
	};

	return emit_sideband(g, &f, sizeof(f), pid, tid);
}

static int emit_mmap2(struct gen *g, u32 pid, u64 p, u64 k)
{
	u8 buf[256] = { 0 };
	struct perf_record_mmap2 *m = (struct perf_record_mmap2 *)buf;
	u64 d = mmap_dso(g, p, k);

	m->header.type = PERF_RECORD_MMAP2;
	m->header.misc = PERF_RECORD_MISC_USER;
	m->pid = m->tid = pid;
	m->start = USER_BASE + k * MMAP_STRIDE;
	m->len = dso_len(g, d);
	m->pgoff = 0;
	m->maj = 8;
	m->min = 1;
	m->ino = 1000 + d;
	m->prot = 5;	/* PROT_READ | PROT_EXEC */
	m->flags = 2;	/* MAP_PRIVATE */
	dso_path(m->filename, 128, d);
	return emit_sideband(g, buf, sizeof(*m) + ALIGN_UP(strlen(m->filename) + 1, 8), pid, pid);
}

/* What perf record synthesizes for the kernel: an MMAP of _text.._etext named for _text. */
static int emit_kernel_mmap(struct gen *g)
{
	u8 buf[128] = { 0 };
	struct perf_record_mmap *m = (struct perf_record_mmap *)buf;
	static const char name[] = "[kernel.kallsyms]_text";

	m->header.type = PERF_RECORD_MMAP;
	m->header.misc = PERF_RECORD_MISC_KERNEL;
	m->pid = (u32)-1;
	m->tid = 0;
	m->start = KERNEL_TEXT;
	m->len = KFUNC_START + g->o.kfuncs * KFUNC_SIZE;
	m->pgoff = KERNEL_TEXT;
	memcpy(m->filename, name, sizeof(name));
	return emit_sideband(g, buf, sizeof(*m) + ALIGN_UP(sizeof(name), 8), 0, 0);
}

/* --elf: PATH's executable segment in process pid, its build-id in the record (MMAP2's) */
static int emit_elf_mmap(struct gen *g, u32 pid)
{
	u8 buf[512] = { 0 };	/* emit_sideband's size: parse_opts bounds the path */
	struct perf_record_mmap2 *m = (struct perf_record_mmap2 *)buf;
	size_t len = strlen(g->o.elf) + 1;

	m->header.type = PERF_RECORD_MMAP2;
	m->header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	m->pid = m->tid = pid;
	m->start = g->elf.start;
	m->len = g->elf.len;
	m->pgoff = g->elf.pgoff;
	m->build_id_size = g->elf.build_id_size;
	memcpy(m->build_id, g->elf.build_id, sizeof(m->build_id));
	m->prot = 5;	/* PROT_READ | PROT_EXEC */
	m->flags = 2;	/* MAP_PRIVATE */
	memcpy(m->filename, g->o.elf, len);
	return emit_sideband(g, buf, sizeof(*m) + ALIGN_UP(len, 8), pid, pid);
}

/*
 * The CGROUP records perf record synthesizes at its start (perf_event.h: id, path): the
 * root, then /gen/cg0.. with ids CGROUP_ID_BASE + k.
 */
static int emit_cgroups(struct gen *g)
{
	for (u64 k = 0; k <= g->o.cgroups; k++) {
		u64 rec[8] = { 0 };
		struct perf_event_header *h = (struct perf_event_header *)rec;
		char *path = (char *)&rec[2];

		*h = (struct perf_event_header){ .type = PERF_RECORD_CGROUP };
		rec[1] = k ? CGROUP_ID_BASE + k - 1 : 1;
		if (k)
			snprintf(path, 48, "/gen/cg%u", (u32)(k - 1));
		else
			strcpy(path, "/");
		if (emit_sideband(g, rec, 2 * sizeof(u64) + ALIGN_UP(strlen(path) + 1, 8), 0, 0))
			return -1;
	}
	return 0;
}

static u32 new_tid(struct gen *g)
{
	g->nr_threads_total++;
	return (u32)g->next_tid++;
}

/* Process p: forked by the launcher, exec'd, its mmaps, then its other threads. */
static int spawn_process(struct gen *g, u64 p)
{
	u32 pid = new_tid(g);
	u32 *slots = g->slot_tid + p * g->o.threads;
	char comm[24];	/* at most 15 characters: --comms is at most 10^6 */

	snprintf(comm, sizeof(comm), "gen-proc-%u", (u32)(p % g->o.comms));
	slots[0] = pid;
	if (p >= g->o.processes - g->o.unannounced) {	/* started before the recording */
		for (u64 t = 1; t < g->o.threads; t++)
			slots[t] = new_tid(g);
		return 0;
	}
	if (emit_task(g, PERF_RECORD_FORK, pid, INIT_PID, pid, INIT_PID) ||
	    emit_comm(g, pid, pid, comm, true))
		return -1;
	for (u64 k = 0; k < g->o.mmaps; k++) {
		if (emit_mmap2(g, pid, p, k))
			return -1;
	}
	if (g->o.elf && emit_elf_mmap(g, pid))
		return -1;
	for (u64 t = 1; t < g->o.threads; t++) {
		slots[t] = new_tid(g);
		if (emit_task(g, PERF_RECORD_FORK, pid, pid, slots[t], pid))
			return -1;
	}
	return 0;
}

/* A random non-main thread exits; a new one forks in its place. */
static int churn(struct gen *g)
{
	u64 p = rnd(g, g->o.processes), t = 1 + rnd(g, g->o.threads - 1);
	u32 *slot = &g->slot_tid[p * g->o.threads + t], pid = g->slot_tid[p * g->o.threads];

	if (emit_task(g, PERF_RECORD_EXIT, pid, pid, *slot, pid))
		return -1;
	*slot = new_tid(g);
	return emit_task(g, PERF_RECORD_FORK, pid, pid, *slot, pid);
}

/*
 * LOST n: as the kernel writes it when a ring buffer is full (perf_event.h: id, lost), with the
 * trailer of the task that was running. Its thread and count are hashes of n, not draws from
 * the random stream, so files without --lost stay what they were.
 */
static int emit_lost(struct gen *g, u64 n)
{
	u64 h = mix(g->o.seed ^ (n * 0x51ed27)), slot = h % (g->o.processes * g->o.threads);
	u64 p = slot / g->o.threads;
	struct perf_record_lost l = {
		.header.type = PERF_RECORD_LOST,
		.id = ID_BASE + g->cpu,	/* the first event's, on the trailer's cpu */
		.lost = 1 + (h >> 32) % 64,
	};

	return emit_sideband(g, &l, sizeof(l), g->slot_tid[p * g->o.threads], g->slot_tid[slot]);
}

/*
 * LOST_SAMPLES n: perf record's, written at exit (builtin-record.c, record__read_lost_samples):
 * its sample_id trailer is synthesized from an empty sample but for the id, so pid, tid, time
 * and cpu are 0.
 */
static int emit_lost_samples(struct gen *g, u64 n)
{
	u64 rec[2 + 4] = { 0 }, nr = 2;
	struct perf_event_header *h = (struct perf_event_header *)rec;

	rec[1] = 1 + mix(g->o.seed ^ (n * 0x9e3779b1)) % 1000;	/* lost */
	nr += 2;	/* tid, time */
	if (g->with_id)
		rec[nr++] = ID_BASE + (n % g->o.nr_events) * g->o.cpus + n % g->o.cpus;
	nr++;	/* cpu */
	*h = (struct perf_event_header){ .type = PERF_RECORD_LOST_SAMPLES,
					 .size = (u16)(nr * sizeof(u64)) };
	return emit(g, rec, nr * sizeof(u64));
}

/* A branch address of process p for hash h: mostly in --elf's functions, some elsewhere. */
static u64 branch_addr(const struct gen *g, u64 p, u64 h)
{
	u64 r = h % 20, k = (h >> 8) % g->o.mmaps;

	if (r < 14 && g->elf.nr_funcs) {
		size_t f = (size_t)((h >> 8) % g->elf.nr_funcs);

		return g->elf.func_start[f] + (h >> 24) % g->elf.func_size[f];
	}
	if (r < 17)
		return KERNEL_TEXT + KFUNC_START + (h >> 8) % g->o.kfuncs * KFUNC_SIZE +
		       (h >> 24) % (KFUNC_SIZE / 4) * 4;
	if (r < 19)
		return USER_BASE + k * MMAP_STRIDE +
		       dso_hot_offset(g, mmap_dso(g, p, k), (h >> 16) % g->o.ips);
	return UNMAPPED_IP + (h >> 8) % 0x100;
}

/*
 * perf_event.h's perf_branch_entry flags: mispred, predicted, in_tx, abort, cycles:16, type:4,
 * spec:2, new_type:4, priv:3.
 */
static u64 branch_flags(u64 h)
{
	u64 cycles = (h >> 20) % 4 ? (h >> 9) % 400 : 0, type = (h >> 24) % 16;

	return (h & 3) | (u64)((h >> 2) % 8 == 0) << 2 | (u64)((h >> 5) % 16 == 0) << 3 |
	       cycles << 4 | type << 20 | ((h >> 28) & 3) << 24 |
	       (type == PERF_BR_EXTEND_ABI ? (h >> 30) % 8 : 0) << 26 | ((h >> 33) % 4) << 30;
}

/*
 * A data source (perf_event.h's perf_mem_data_src): op, then either a level bit with hit or
 * miss or a level number (remote, hops), one snoop bit (and snoopx's forward), a TLB bit
 * with N/A or hit, lock, block. Few bits a field keep perf's decoded text short: its
 * decoders write " or " between bits unchecked, past their buffer.
 */
static u64 data_src(u64 h)
{
	u64 op = 1ull << (h % 6) >> 1, lvl = 0, lvl_num = 0, remote = 0, hops = 0;
	u64 snoop = 1ull << ((h >> 8) % 6) >> 1, snoopx = (h >> 11) % 2;
	u64 tlb = (1ull << ((h >> 12) % 6) >> 1) << 2 |
		  ((h >> 15) % 3 ? 1ull << ((h >> 15) % 3 - 1) : 0);
	u64 lock = (h >> 17) % 4, blk = (h >> 19) % 8, hit_miss = (h >> 22) % 3;

	if (h % 32 == 0)
		return 0;
	if ((h >> 24) % 2) {
		lvl_num = (h >> 25) % 16;
		remote = (h >> 29) % 2;
		hops = (h >> 30) % 5;
		lvl = hit_miss ? 1ull << hit_miss : 1;	/* NA, HIT or MISS */
	} else {
		lvl = (1ull << ((h >> 25) % 12 + 3)) | (hit_miss ? 1ull << hit_miss : 0);
	}
	return op | lvl << 5 | snoop << 19 | lock << 24 | tlb << 26 | lvl_num << 33 |
	       remote << 37 | snoopx << 38 | blk << 40 | hops << 43;
}

static u64 page_size(u64 h)
{
	static const u64 sizes[] = { 0, 4096, 16384, 65536, 2 << 20, 1 << 30 };

	return sizes[h % ARRAY_SIZE(sizes)];
}

/* --branch-stack and --sample-fields: the fields after PERIOD, in perf_event.h's order */
static size_t sample_extras(const struct gen *g, u64 n, u64 p, u64 addr, u64 *rec)
{
	u64 st = g->o.extra_fields, h = mix(g->o.seed ^ (n * 0x2545f4914f6cdd1dull)), nr = 0;

	if (g->o.branches) {
		rec[nr++] = g->o.branches;
		if (g->o.hw_idx)
			rec[nr++] = h % g->o.branches;
		for (u64 j = 0; j < g->o.branches; j++) {
			u64 b = mix(h + j * 3);

			rec[nr++] = branch_addr(g, p, mix(b));
			rec[nr++] = branch_addr(g, p, mix(b + 1));
			rec[nr++] = branch_flags(mix(b + 2));
		}
	}
	if (st & PERF_SAMPLE_WEIGHT)
		rec[nr++] = mix(h + 1) % 2000;
	else if (st & PERF_SAMPLE_WEIGHT_STRUCT)	/* var1_dw, var2_w (ins_lat), var3_w */
		rec[nr++] = mix(h + 1) % 2000 | (mix(h + 2) % 500) << 32 | (mix(h + 3) % 300) << 48;
	if (st & PERF_SAMPLE_DATA_SRC)
		rec[nr++] = data_src(mix(h + 4));
	if (st & PERF_SAMPLE_PHYS_ADDR)
		rec[nr++] = (mix(h + 5) & 0xffffff000ull) | (addr & 0xfff);
	if (st & PERF_SAMPLE_CGROUP)
		rec[nr++] = mix(h + 6) % 8 && g->o.cgroups
				    ? CGROUP_ID_BASE + mix(h + 6) % g->o.cgroups
				    : 0x999;
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		rec[nr++] = page_size(mix(h + 7));
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		rec[nr++] = page_size(mix(h + 8));
	return nr;
}

static int sample(struct gen *g, u64 n)
{
	u64 slot = rnd(g, g->o.processes * g->o.threads), p = slot / g->o.threads;
	u64 rec[16 + 2 + 3 * MAX_BRANCHES], nr = 0, cpu = n % g->o.cpus;
	u64 period = PERIOD - 1000 + rnd(g, 2001), ip, addr = 0;
	struct perf_event_header *h = (struct perf_event_header *)&rec[nr++];
	u16 misc;

	if (rnd(g, 100) < g->o.kernel_percent) {
		misc = PERF_RECORD_MISC_KERNEL;
		ip = KERNEL_TEXT + KFUNC_START + rnd(g, g->o.kfuncs) * KFUNC_SIZE +
		     rnd(g, KFUNC_SIZE / 4) * 4;
	} else {
		u64 k = rnd(g, g->o.mmaps), d = mmap_dso(g, p, k);

		misc = PERF_RECORD_MISC_USER;
		ip = USER_BASE + k * MMAP_STRIDE + dso_hot_offset(g, d, rnd(g, g->o.ips));
	}
	g->time += PERIOD / g->o.cpus;
	if (!g->first_sample)
		g->first_sample = g->time;
	g->last_sample = g->time;
	rec[nr++] = ip;
	rec[nr++] = (u64)g->slot_tid[slot] << 32 | g->slot_tid[p * g->o.threads];
	rec[nr++] = g->time;
	/* a late one: its time three rounds back (of samples; side band aside) */
	if (g->o.samples && (n + 1) * g->o.late / g->o.samples > n * g->o.late / g->o.samples)
		rec[nr - 1] = MAX(g->first_sample, g->time - 3 * g->o.round * (PERIOD / g->o.cpus));
	if (g->o.extra_fields & PERF_SAMPLE_ADDR) {	/* a data address: the stack's */
		addr = 0x7ffc00000000ull +
		       mix(g->o.seed ^ (n * 0x9e3779b97f4a7c15ull)) % 0x100000 * 8;
		rec[nr++] = addr;
	}
	if (g->with_id)	/* the events take the samples in turn */
		rec[nr++] = ID_BASE + (n % g->o.nr_events) * g->o.cpus + cpu;
	rec[nr++] = cpu;
	rec[nr++] = period;
	nr += sample_extras(g, n, p, addr, &rec[nr]);
	*h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .misc = misc,
					 .size = (u16)(nr * sizeof(u64)) };
	return emit(g, rec, nr * sizeof(u64));
}

static int generate(struct gen *g)
{
	static const char init[] = "gen-init";
	u64 churned = 0, lost = 0;

	if (emit_kernel_mmap(g) || emit_comm(g, INIT_PID, INIT_PID, init, false) ||
	    ((g->o.extra_fields & PERF_SAMPLE_CGROUP) && emit_cgroups(g)))
		return -1;
	for (u64 p = 0; p < g->o.processes; p++) {
		if (spawn_process(g, p))
			return -1;
	}
	/* churn spread evenly over the samples (all of it at once when there are none) */
	for (u64 n = 0; n < g->o.samples || churned < g->o.churn || lost < g->o.lost; n++) {
		u64 due = g->o.samples ? (u64)((unsigned __int128)(n + 1) * g->o.churn / g->o.samples)
				       : g->o.churn;

		for (; churned < due && churned < g->o.churn; churned++) {
			if (churn(g))
				return -1;
		}
		/* LOST records spread the same way, after the churn */
		due = g->o.samples ? (u64)((unsigned __int128)(n + 1) * g->o.lost / g->o.samples)
				   : g->o.lost;
		for (; lost < due && lost < g->o.lost; lost++) {
			if (emit_lost(g, lost))
				return -1;
		}
		if (n < g->o.samples && sample(g, n))
			return -1;
	}
	for (u64 n = 0; n < g->o.lost_samples; n++) {
		if (emit_lost_samples(g, n))
			return -1;
	}
	return 0;
}

static int write_kallsyms(const struct gen *g, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "gen-perfdata: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "%016llx T _stext\n%016llx T _text\n", KERNEL_TEXT, KERNEL_TEXT);
	for (u64 i = 0; i < g->o.kfuncs; i++)
		fprintf(f, "%016llx T gen_kfunc_%" PRIu64 "\n",
			KERNEL_TEXT + KFUNC_START + i * KFUNC_SIZE, i);
	fprintf(f, "%016llx T _etext\n", KERNEL_TEXT + KFUNC_START + g->o.kfuncs * KFUNC_SIZE);
	if (fclose(f)) {
		fprintf(stderr, "gen-perfdata: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int add_header(struct gen *g, int argc, char **argv)
{
	u64 *ids = xcalloc(g->o.cpus, sizeof(u64));
	int ret = 0;

	for (size_t e = 0; e < g->o.nr_events && !ret; e++) {
		const struct gen_event *ev = &g->o.events[e];
		struct perf_event_attr attr = {
			.type = ev->attr.type,
			.config = ev->attr.config,
			.bp_addr = ev->attr.bp_addr,
			.bp_type = ev->attr.bp_type,
			.sample_freq = 4000,
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       (g->with_id ? PERF_SAMPLE_ID : 0) | PERF_SAMPLE_CPU |
				       PERF_SAMPLE_PERIOD | g->o.extra_fields |
				       (g->o.branches ? PERF_SAMPLE_BRANCH_STACK : 0),
			/* perf record -b: any taken branch */
			.branch_sample_type = g->o.branches ? PERF_SAMPLE_BRANCH_ANY |
				(g->o.hw_idx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0) : 0,
			.read_format = PERF_FORMAT_ID,
			.disabled = 1, .inherit = 1, .freq = 1, .enable_on_exec = 1,
			.sample_id_all = 1, .precise_ip = ev->attr.precise_ip,
			.exclude_user = ev->attr.exclude_user,
			.exclude_kernel = ev->attr.exclude_kernel,
			.exclude_hv = ev->attr.exclude_hv,
			.exclude_host = ev->attr.exclude_host,
			.exclude_guest = ev->attr.exclude_guest,
		};

		/* the first event tracks the side band, as perf record's first one */
		if (e == 0) {
			attr.mmap = attr.comm = attr.task = attr.mmap2 = attr.comm_exec = 1;
			attr.cgroup = !!(g->o.extra_fields & PERF_SAMPLE_CGROUP);
		} else {
			attr.disabled = 0;
			attr.enable_on_exec = 0;
		}
		for (u64 i = 0; i < g->o.cpus; i++)	/* one per cpu, as perf record's */
			ids[i] = ID_BASE + e * g->o.cpus + i;
		ret = perf_writer__add_attr(g->w, &attr, ids, g->o.cpus,
					    g->o.no_event_desc ? NULL : ev->name);
	}
	free(ids);
	/* perf record -b marks the file (an empty section): report then sorts by branch */
	if (!ret && g->o.branches)
		ret = perf_writer__set_feature(g->w, HEADER_BRANCH_STACK, NULL, 0);
	return ret || perf_writer__set_string(g->w, HEADER_HOSTNAME, "gen-perfdata") ||
	       perf_writer__set_string(g->w, HEADER_OSRELEASE, "6.1.0-gen") ||
	       perf_writer__set_string(g->w, HEADER_VERSION, "6.1.0") ||
	       perf_writer__set_string(g->w, HEADER_ARCH, "x86_64") ||
	       perf_writer__set_nrcpus(g->w, (u32)g->o.cpus, (u32)g->o.cpus) ||
	       perf_writer__set_cmdline(g->w, (size_t)argc, (const char *const *)argv) ? -1 : 0;
}

__attribute__((format(printf, 1, 2), noreturn)) static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gen-perfdata: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; " USAGE "\n");
	exit(2);
}

/* A count: digits with an optional k, M or G (10^3, 10^6, 10^9). */
static u64 parse_count(const char *flag, const char *arg, u64 min, u64 max)
{
	char *end;
	u64 v, scale = 1;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end != arg && *end && !end[1]) {
		scale = *end == 'k' ? 1000 : *end == 'M' ? 1000000 : *end == 'G' ? 1000000000 : 0;
		end += scale != 0;
	}
	if (arg[0] < '0' || arg[0] > '9' || errno || *end || !scale || v > max / scale ||
	    v * scale < min)
		usage_error("bad value '%s' for --%s", arg, flag);
	return v * scale;
}

/* --event SPEC: comma-separated attr fields (see HELP); fields not named are 0. */
static void parse_event(struct gen_event *ev, const char *spec)
{
	static const char *const flags[] = { "exclude_user", "exclude_kernel", "exclude_hv",
					     "exclude_host", "exclude_guest" };
	char *copy = xstrdup(spec), *save = NULL;

	*ev = (struct gen_event){ .name = spec };
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		u64 v = 0;
		size_t f;

		if (eq) {
			*eq = 0;
			if (!strcmp(tok, "name")) {
				/* the rest of SPEC: a name may hold commas */
				ev->name = spec + (eq + 1 - copy);
				break;
			}
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end)
				usage_error("bad value '%s' for %s in --event", eq + 1, tok);
		}
		for (f = 0; f < ARRAY_SIZE(flags) && strcmp(tok, flags[f]); f++)
			;
		if (!eq && f < ARRAY_SIZE(flags)) {
			ev->attr.exclude_user |= f == 0;
			ev->attr.exclude_kernel |= f == 1;
			ev->attr.exclude_hv |= f == 2;
			ev->attr.exclude_host |= f == 3;
			ev->attr.exclude_guest |= f == 4;
		} else if (eq && !strcmp(tok, "type") && v <= UINT32_MAX) {
			ev->attr.type = (u32)v;
		} else if (eq && !strcmp(tok, "config")) {
			ev->attr.config = v;
		} else if (eq && !strcmp(tok, "bp_addr")) {
			ev->attr.bp_addr = v;
		} else if (eq && !strcmp(tok, "bp_type") && v <= UINT32_MAX) {
			ev->attr.bp_type = (u32)v;
		} else if (eq && !strcmp(tok, "precise_ip") && v <= 3) {
			ev->attr.precise_ip = v;
		} else {
			usage_error("bad field '%s' in --event '%s'", tok, spec);
		}
	}
	free(copy);
}

/* --sample-fields LIST: the PERF_SAMPLE_* bits named */
static u64 parse_sample_fields(const char *list)
{
	static const struct {
		const char *name;
		u64 bit;
	} fields[] = {
		{ "addr", PERF_SAMPLE_ADDR },
		{ "weight", PERF_SAMPLE_WEIGHT },
		{ "weight_struct", PERF_SAMPLE_WEIGHT_STRUCT },
		{ "data_src", PERF_SAMPLE_DATA_SRC },
		{ "phys_addr", PERF_SAMPLE_PHYS_ADDR },
		{ "cgroup", PERF_SAMPLE_CGROUP },
		{ "data_page_size", PERF_SAMPLE_DATA_PAGE_SIZE },
		{ "code_page_size", PERF_SAMPLE_CODE_PAGE_SIZE },
	};
	char *copy = xstrdup(list), *save = NULL;
	u64 bits = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t f;

		for (f = 0; f < ARRAY_SIZE(fields) && strcmp(tok, fields[f].name); f++)
			;
		if (f == ARRAY_SIZE(fields))
			usage_error("bad field '%s' in --sample-fields", tok);
		bits |= fields[f].bit;
	}
	free(copy);
	return bits;
}

static void parse_opts(struct gen_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "processes", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "mmaps", required_argument, NULL, 'm' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "samples", required_argument, NULL, 's' },
		{ "churn", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "comms", required_argument, NULL, 'n' },
		{ "ips", required_argument, NULL, 'i' },
		{ "kernel-percent", required_argument, NULL, 'k' },
		{ "kfuncs", required_argument, NULL, 'f' },
		{ "round", required_argument, NULL, 'r' },
		{ "kallsyms", required_argument, NULL, 'K' },
		{ "event", required_argument, NULL, 'e' },
		{ "no-event-desc", no_argument, NULL, 'E' },
		{ "lost", required_argument, NULL, 'l' },
		{ "lost-samples", required_argument, NULL, 'L' },
		{ "unannounced", required_argument, NULL, 'u' },
		{ "late", required_argument, NULL, 'a' },
		{ "branch-stack", required_argument, NULL, 'b' },
		{ "hw-idx", no_argument, NULL, 'x' },
		{ "sample-fields", required_argument, NULL, 'F' },
		{ "cgroups", required_argument, NULL, 'g' },
		{ "elf", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	*o = (struct gen_opts){ .processes = 10, .threads = 4, .mmaps = 8, .dsos = 16,
				.samples = 10000, .seed = 1, .cpus = 4, .comms = 8, .ips = 16,
				.kernel_percent = 10, .kfuncs = 64, .round = 1000, .cgroups = 4 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		const char *name = "";

		for (const struct option *l = longopts; l->name; l++) {
			if (l->val == c)
				name = l->name;
		}
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'p': o->processes = parse_count(name, optarg, 1, UINT32_MAX); break;
		case 't': o->threads = parse_count(name, optarg, 1, UINT32_MAX); break;
		case 'm': o->mmaps = parse_count(name, optarg, 1, MAX_MMAPS); break;
		case 'd': o->dsos = parse_count(name, optarg, 1, UINT32_MAX); break;
		case 's': o->samples = parse_count(name, optarg, 0, UINT64_MAX / 2); break;
		case 'c': o->churn = parse_count(name, optarg, 0, MAX_TIDS); break;
		case 'S': o->seed = parse_count(name, optarg, 0, UINT64_MAX); break;
		case 'C': o->cpus = parse_count(name, optarg, 1, 4096); break;
		case 'n': o->comms = parse_count(name, optarg, 1, 1000000); break;
		case 'i': o->ips = parse_count(name, optarg, 1, 1024); break;
		case 'k': o->kernel_percent = parse_count(name, optarg, 0, 100); break;
		case 'f': o->kfuncs = parse_count(name, optarg, 1, 1000000); break;
		case 'r': o->round = parse_count(name, optarg, 1, UINT64_MAX); break;
		case 'K': o->kallsyms = optarg; break;
		case 'e':
			if (o->nr_events == MAX_EVENTS)
				usage_error("more than %d events", MAX_EVENTS);
			parse_event(&o->events[o->nr_events++], optarg);
			break;
		case 'E': o->no_event_desc = true; break;
		case 'l': o->lost = parse_count(name, optarg, 0, UINT32_MAX); break;
		case 'L': o->lost_samples = parse_count(name, optarg, 0, UINT32_MAX); break;
		case 'u': o->unannounced = parse_count(name, optarg, 0, UINT32_MAX); break;
		case 'a': o->late = parse_count(name, optarg, 0, UINT64_MAX / 2); break;
		case 'b': o->branches = parse_count(name, optarg, 0, MAX_BRANCHES); break;
		case 'x': o->hw_idx = true; break;
		case 'F': o->extra_fields |= parse_sample_fields(optarg); break;
		case 'g': o->cgroups = parse_count(name, optarg, 0, 1000); break;
		case 'X': o->elf = optarg; break;
		case 'h': printf("%s\n\n%s", USAGE, HELP); exit(0);
		case ':': usage_error("option '%s' needs a value", argv[optind - 1]); break;
		default: usage_error("unknown option '%s'", argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->nr_events) {	/* perf record -e cpu-clock */
		o->events[0] = (struct gen_event){ .attr = { .type = PERF_TYPE_SOFTWARE,
							     .config = PERF_COUNT_SW_CPU_CLOCK,
							     .exclude_guest = 1 },
						   .name = "cpu-clock" };
		o->nr_events = 1;
	}
	if (!o->output)
		usage_error("no output path (-o PATH)");
	if (o->elf && strlen(o->elf) > 256)
		usage_error("--elf path longer than 256 bytes");
	if (o->hw_idx && !o->branches)
		usage_error("--hw-idx needs --branch-stack");
	if ((o->extra_fields & PERF_SAMPLE_WEIGHT) && (o->extra_fields & PERF_SAMPLE_WEIGHT_STRUCT))
		usage_error("weight and weight_struct in --sample-fields: one or the other");
	if (o->unannounced > o->processes)
		usage_error("--unannounced is more than --processes");
	if (o->churn && o->threads < 2)
		usage_error("--churn needs --threads 2 or more (main threads do not exit)");
	if (o->processes * o->threads + o->churn > MAX_TIDS - TID_BASE ||
	    o->processes > MAX_TIDS / o->threads)
		usage_error("too many threads in all (processes * threads + churn)");
}

/*
 * --elf PATH: its executable PT_LOAD as the loader maps it (a position-independent file at
 * PIE_BASE), its build-id, and the sized functions of its .symtab in that segment.
 */
static int load_elf(struct gen *g, const char *path)
{
	int fd = open(path, O_RDONLY), ret = -1, bid;
	Elf *elf = NULL;
	GElf_Ehdr ehdr;
	GElf_Phdr ph;
	Elf_Scn *scn = NULL;
	size_t n, cap = 0;
	u64 base = 0, seg_lo = 0, seg_hi = 0;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)) || !gelf_getehdr(elf, &ehdr) ||
	    elf_getphdrnum(elf, &n))
		goto out;
	base = ehdr.e_type == ET_DYN ? PIE_BASE : 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		g->elf.start = base + (ph.p_vaddr & ~0xfffull);
		g->elf.pgoff = ph.p_offset & ~0xfffull;
		g->elf.len = ALIGN_UP(ph.p_memsz + (ph.p_vaddr & 0xfff), 0x1000);
		seg_lo = ph.p_vaddr;
		seg_hi = ph.p_vaddr + ph.p_memsz;
		break;
	}
	while (g->elf.len && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
			GElf_Sym sym;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
			    sym.st_value < seg_lo || sym.st_value >= seg_hi)
				continue;
			if (g->elf.nr_funcs == cap) {
				cap = cap ? cap * 2 : 16;
				g->elf.func_start = xrealloc(g->elf.func_start, cap * sizeof(u64));
				g->elf.func_size = xrealloc(g->elf.func_size, cap * sizeof(u64));
			}
			g->elf.func_start[g->elf.nr_funcs] = base + sym.st_value;
			g->elf.func_size[g->elf.nr_funcs++] = sym.st_size;
		}
	}
	bid = symtab__filename_build_id(path, g->elf.build_id);
	if (g->elf.nr_funcs && bid > 0) {
		g->elf.build_id_size = (u8)bid;
		ret = 0;
	}
out:
	if (ret)
		fprintf(stderr, "gen-perfdata: %s: not an ELF file with functions and a build-id\n",
			path);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	struct gen g = { .next_tid = TID_BASE, .time = TIME_BASE };
	int ret = 1;

	parse_opts(&g.o, argc, argv);
	g.with_id = g.o.nr_events > 1;
	g.rng = mix(g.o.seed);
	g.slot_tid = xcalloc(g.o.processes * g.o.threads, sizeof(u32));
	if ((g.o.kallsyms && write_kallsyms(&g, g.o.kallsyms)) ||
	    (g.o.elf && load_elf(&g, g.o.elf)))
		goto out;
	g.w = perf_writer__new(g.o.output);
	if (!g.w || add_header(&g, argc, argv) || generate(&g))
		goto fail;
	if (g.first_sample && perf_writer__set_sample_time(g.w, g.first_sample, g.last_sample))
		goto fail;
	if (perf_writer__finish(g.w))
		goto fail;
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "gen-perfdata: %s\n", error_get());
out:
	perf_writer__delete(g.w);
	free(g.slot_tid);
	free(g.elf.func_start);
	free(g.elf.func_size);
	return ret;
}
