/*
 * gen-auxtrace: write a perf.data holding an Intel BTS AUX-area trace, as `perf record -e
 * intel_bts// --per-thread` would, from a small script of what happened (a known execution
 * of a fixture binary). perf 6.1 decodes such a file in software, so it stays the oracle
 * for `analyze script --itrace` on machines without BTS. Formats bytes only, through
 * readers/writer; what the script says is the caller's.
 *
 * Script lines (one record each, times increase by 100 ns a record unless `time` sets them):
 *   time NS                       the time of the next record
 *   thread PID TID                the task of the records that follow
 *   comm NAME                     COMM (exec) of the task
 *   mmap START LEN PGOFF BUILDID PATH   MMAP2 r-x of PATH; BUILDID (hex) goes to BUILD_ID
 *   itrace_start                  ITRACE_START of the task
 *   branch FROM TO [MISC]         a 24-byte BTS record for the next buffer (MISC 0x10)
 *   buffer IDX CPU                AUX, then AUXTRACE of the task with the branches so far
 *                                 (reference: the time as TSC)
 *   exit                          EXIT of the task
 *   round                         FINISHED_ROUND
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/writer.h"

#define USAGE "usage: gen-auxtrace -o PATH [--pmu-type N] [--aux-type N] [--time-shift N] " \
	      "[--time-mult N] [--time-zero N] [--no-index] SCRIPT"
#define STEP_NS 100
#define EVENT_ID 42
#define MAX_BRANCHES 65536
#define MAX_BUILD_IDS 16

/* perf's auxtrace.h: enum auxtrace_type; intel-bts.h: the priv[] words of AUXTRACE_INFO */
#define AUXTRACE_INTEL_BTS 2
enum { BTS_PMU_TYPE, BTS_TIME_SHIFT, BTS_TIME_MULT, BTS_TIME_ZERO, BTS_CAP_USER_TIME_ZERO,
       BTS_SNAPSHOT_MODE, BTS_PRIV_MAX };

struct bts_branch {
	u64 from, to, misc;
};

struct build_id_entry {
	char path[256];
	u8 id[20];
};

struct gen {
	struct perf_writer *w;
	u64 time;
	bool time_set;
	u32 pid, tid;
	u64 time_shift, time_mult, time_zero;
	struct bts_branch *branches;
	size_t nr_branches;
	u64 aux_offset;
	u64 *index;	/* {file_offset, size} of every AUXTRACE record */
	size_t nr_index, index_alloc;
	struct build_id_entry bids[MAX_BUILD_IDS];
	size_t nr_bids;
};

static u64 next_time(struct gen *g)
{
	if (!g->time_set)
		g->time += STEP_NS;
	g->time_set = false;
	return g->time;
}

/* perf's tsc.c: perf_time_to_tsc, the inverse of time = zero + (tsc * mult) >> shift */
static u64 time_to_tsc(const struct gen *g, u64 ns)
{
	u64 t = ns - g->time_zero, quot = t / g->time_mult, rem = t % g->time_mult;

	return (quot << g->time_shift) + (rem << g->time_shift) / g->time_mult;
}

/*
 * BODY (header first, BODY_SIZE bytes) with the sample_id_all trailer: TID, TIME, CPU,
 * IDENTIFIER (perf tells the synthesized events from this one by it).
 */
static int emit(struct gen *g, void *body, size_t body_size)
{
	u8 buf[512];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	u64 trailer[4] = { (u64)g->tid << 32 | g->pid, next_time(g), 0, EVENT_ID };

	memcpy(buf, body, body_size);
	memcpy(buf + body_size, trailer, sizeof(trailer));
	h->size = (u16)(body_size + sizeof(trailer));
	return perf_writer__write(g->w, buf, h->size);
}

static int parse_build_id(const char *hex, u8 *id)
{
	if (strlen(hex) != 40)
		return -1;
	for (int i = 0; i < 20; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		id[i] = (u8)v;
	}
	return 0;
}

static int do_mmap(struct gen *g, const char *args)
{
	u8 buf[400] = { 0 };
	struct perf_record_mmap2 *m = (struct perf_record_mmap2 *)buf;
	char hex[64], path[256];
	struct build_id_entry *b;

	if (sscanf(args, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %63s %255s", &m->start, &m->len,
		   &m->pgoff, hex, path) != 5 || g->nr_bids == MAX_BUILD_IDS)
		return -1;
	b = &g->bids[g->nr_bids++];
	if (parse_build_id(hex, b->id))
		return -1;
	snprintf(b->path, sizeof(b->path), "%s", path);
	m->header.type = PERF_RECORD_MMAP2;
	m->header.misc = PERF_RECORD_MISC_USER;
	m->pid = g->pid;
	m->tid = g->tid;
	m->maj = 8;
	m->min = 1;
	m->ino = 4242;
	m->prot = 5;	/* PROT_READ | PROT_EXEC */
	m->flags = 2;	/* MAP_PRIVATE */
	memcpy(m->filename, path, strlen(path) + 1);
	return emit(g, buf, sizeof(*m) + ALIGN_UP(strlen(path) + 1, 8));
}

static int do_comm(struct gen *g, const char *name)
{
	u8 buf[64] = { 0 };
	struct perf_record_comm *c = (struct perf_record_comm *)buf;
	size_t len = strlen(name) + 1;

	if (len > 16)
		return -1;
	c->header.type = PERF_RECORD_COMM;
	c->header.misc = PERF_RECORD_MISC_COMM_EXEC;
	c->pid = g->pid;
	c->tid = g->tid;
	memcpy(c->comm, name, len);
	return emit(g, buf, sizeof(*c) + ALIGN_UP(len, 8));
}

static int do_exit(struct gen *g)
{
	struct perf_record_fork f = {
		.header.type = PERF_RECORD_EXIT,
		.pid = g->pid, .ppid = g->pid, .tid = g->tid, .ptid = g->pid,
		.time = g->time_set ? g->time : g->time + STEP_NS,
	};

	return emit(g, &f, sizeof(f));
}

static int do_itrace_start(struct gen *g)
{
	struct {
		struct perf_event_header header;
		u32 pid, tid;
	} r = { { PERF_RECORD_ITRACE_START, 0, 0 }, g->pid, g->tid };

	return emit(g, &r, sizeof(r));
}

/* AUX (the kernel's: where the data went in the AUX area), then perf's AUXTRACE and its data. */
static int do_buffer(struct gen *g, const char *args)
{
	struct {
		struct perf_event_header header;
		u64 aux_offset, aux_size, flags;
	} aux = { { PERF_RECORD_AUX, 0, 0 }, 0, 0, 0 };
	struct {	/* perf event.h: perf_record_auxtrace */
		struct perf_event_header header;
		u64 size, offset, reference;
		u32 idx, tid, cpu, reserved;
	} rec = { { PERF_RECORD_AUXTRACE, 0, sizeof(rec) }, 0, 0, 0, 0, 0, 0, 0 };
	size_t size = g->nr_branches * sizeof(struct bts_branch);
	int idx, cpu;

	if (sscanf(args, "%d %d", &idx, &cpu) != 2 || idx < 0)
		return -1;
	aux.aux_offset = g->aux_offset;
	aux.aux_size = size;
	if (emit(g, &aux, sizeof(aux)))
		return -1;
	rec.size = size;
	rec.offset = g->aux_offset;
	rec.reference = time_to_tsc(g, g->time);
	rec.idx = (u32)idx;
	rec.tid = g->tid;
	rec.cpu = (u32)cpu;
	g->aux_offset += size;
	if (g->nr_index == g->index_alloc)
		ARRAY_GROW(g->index, g->index_alloc, g->nr_index + 2);
	g->index[g->nr_index++] = perf_writer__offset(g->w);
	g->index[g->nr_index++] = sizeof(rec);	/* the record's header.size (auxtrace.c) */
	if (perf_writer__write(g->w, &rec, sizeof(rec)) ||
	    perf_writer__write(g->w, g->branches, size))
		return -1;
	g->nr_branches = 0;
	return 0;
}

static int do_line(struct gen *g, char *line)
{
	char *args;
	struct bts_branch *b;

	line[strcspn(line, "\n")] = '\0';
	args = line + strcspn(line, " \t");
	if (*args)
		*args++ = '\0';
	if (!*line || *line == '#')
		return 0;
	if (!strcmp(line, "time")) {
		g->time = strtoull(args, NULL, 0);
		g->time_set = true;
		return 0;
	}
	if (!strcmp(line, "thread"))
		return sscanf(args, "%u %u", &g->pid, &g->tid) == 2 ? 0 : -1;
	if (!strcmp(line, "comm"))
		return do_comm(g, args);
	if (!strcmp(line, "mmap"))
		return do_mmap(g, args);
	if (!strcmp(line, "itrace_start"))
		return do_itrace_start(g);
	if (!strcmp(line, "exit"))
		return do_exit(g);
	if (!strcmp(line, "buffer"))
		return do_buffer(g, args);
	if (!strcmp(line, "round")) {
		struct perf_event_header r = { PERF_RECORD_FINISHED_ROUND, 0, sizeof(r) };

		return perf_writer__write(g->w, &r, sizeof(r));
	}
	if (!strcmp(line, "branch")) {
		if (g->nr_branches == MAX_BRANCHES)
			return -1;
		b = &g->branches[g->nr_branches];
		b->misc = 0x10;	/* predicted */
		if (sscanf(args, "%" SCNx64 " %" SCNx64 " %" SCNx64, &b->from, &b->to, &b->misc) < 2)
			return -1;
		g->nr_branches++;
		return 0;
	}
	return -1;
}

/* BUILD_ID: perf's write_buildid records, names padded to 64 (header.c, NAME_ALIGN). */
static int set_build_ids(struct gen *g)
{
	u8 *sec = xcalloc(MAX_BUILD_IDS, sizeof(struct perf_record_header_build_id) + 320);
	size_t off = 0;
	int ret;

	for (size_t i = 0; i < g->nr_bids; i++) {
		struct perf_record_header_build_id *b = (void *)(sec + off);
		size_t len = ALIGN_UP(strlen(g->bids[i].path) + 1, 64);

		b->header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE;
		b->header.size = (u16)(sizeof(*b) + len);
		b->pid = -1;
		memcpy(b->data, g->bids[i].id, 20);
		b->size = 20;
		memcpy(b->filename, g->bids[i].path, strlen(g->bids[i].path) + 1);
		off += b->header.size;
	}
	ret = perf_writer__set_feature(g->w, HEADER_BUILD_ID, sec, off);
	free(sec);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pmu-type", required_argument, NULL, 'p' },
		{ "aux-type", required_argument, NULL, 'a' },
		{ "time-shift", required_argument, NULL, 's' },
		{ "time-mult", required_argument, NULL, 'm' },
		{ "time-zero", required_argument, NULL, 'z' },
		{ "no-index", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen g = { .time = 1000000000, .time_shift = 10, .time_mult = 2048 };
	const char *output = NULL;
	u64 pmu_type = 8, aux_type = AUXTRACE_INTEL_BTS, id = EVENT_ID;
	bool index = true;
	struct perf_event_attr attr = { 0 };
	char line[512];
	FILE *in;
	int c, n = 0;

	while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'p': pmu_type = strtoull(optarg, NULL, 0); break;
		case 'a': aux_type = strtoull(optarg, NULL, 0); break;
		case 's': g.time_shift = strtoull(optarg, NULL, 0); break;
		case 'm': g.time_mult = strtoull(optarg, NULL, 0); break;
		case 'z': g.time_zero = strtoull(optarg, NULL, 0); break;
		case 'n': index = false; break;
		default: fprintf(stderr, "%s\n", USAGE); return 2;
		}
	}
	if (!output || optind != argc - 1) {
		fprintf(stderr, "%s\n", USAGE);
		return 2;
	}
	in = fopen(argv[optind], "r");
	if (!in) {
		fprintf(stderr, "gen-auxtrace: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	g.w = perf_writer__new(output);
	if (!g.w) {
		fprintf(stderr, "gen-auxtrace: %s\n", error_get());
		fclose(in);
		return 1;
	}
	g.branches = xmalloc(MAX_BRANCHES * sizeof(*g.branches));
	/* perf record -e intel_bts// --per-thread: the AUX event, sampling the side band too */
	attr.type = (u32)pmu_type;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.comm = attr.mmap = attr.mmap2 = attr.task = attr.sample_id_all = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	if (perf_writer__add_attr(g.w, &attr, &id, 1, "intel_bts//u"))
		goto fail;
	{
		/* intel-bts.h: pmu type, time shift, mult, zero, cap_user_time_zero, snapshot */
		u64 rec[2 + BTS_PRIV_MAX] = { 0 };
		struct perf_event_header *h = (struct perf_event_header *)rec;

		*h = (struct perf_event_header){ PERF_RECORD_AUXTRACE_INFO, 0, sizeof(rec) };
		rec[1] = aux_type;
		rec[2 + BTS_PMU_TYPE] = pmu_type;
		rec[2 + BTS_TIME_SHIFT] = g.time_shift;
		rec[2 + BTS_TIME_MULT] = g.time_mult;
		rec[2 + BTS_TIME_ZERO] = g.time_zero;
		rec[2 + BTS_CAP_USER_TIME_ZERO] = 1;
		if (perf_writer__write(g.w, rec, sizeof(rec)))
			goto fail;
	}
	if (!g.time_mult)
		g.time_mult = 1;	/* a file perf cannot read is wanted: the trace still writes */
	while (fgets(line, sizeof(line), in)) {
		n++;
		if (do_line(&g, line)) {
			fprintf(stderr, "gen-auxtrace: %s:%d: bad line\n", argv[optind], n);
			goto fail;
		}
	}
	if (set_build_ids(&g) ||
	    perf_writer__set_string(g.w, HEADER_HOSTNAME, "gen-auxtrace") ||
	    perf_writer__set_string(g.w, HEADER_OSRELEASE, "6.1.0-gen") ||
	    perf_writer__set_string(g.w, HEADER_VERSION, "6.1.0") ||
	    perf_writer__set_string(g.w, HEADER_ARCH, "x86_64") ||
	    perf_writer__set_nrcpus(g.w, 1, 1))
		goto fail;
	if (index && g.nr_index) {
		/* auxtrace.c: auxtrace_index__write: u64 nr, then {file_offset, header.size} */
		u64 *sec = xmalloc((g.nr_index + 1) * sizeof(u64));

		sec[0] = g.nr_index / 2;
		memcpy(sec + 1, g.index, g.nr_index * sizeof(u64));
		c = perf_writer__set_feature(g.w, HEADER_AUXTRACE, sec,
					     (g.nr_index + 1) * sizeof(u64));
		free(sec);
		if (c)
			goto fail;
	}
	if (perf_writer__finish(g.w))
		goto fail;
	perf_writer__delete(g.w);
	free(g.branches);
	free(g.index);
	fclose(in);
	return 0;
fail:
	fprintf(stderr, "gen-auxtrace: %s\n", error_get());
	perf_writer__delete(g.w);
	free(g.branches);
	free(g.index);
	fclose(in);
	return 1;
}
