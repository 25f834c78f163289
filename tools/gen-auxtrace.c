/*
 * gen-auxtrace: write a perf.data holding an Intel BTS (or, with --pt, an Intel PT) AUX-area
 * trace, as `perf record -e intel_bts// --per-thread` (intel_pt//u) would, from a small
 * script of what happened (a known execution of a fixture binary). perf 6.1 decodes such a
 * file in software, so it stays the oracle for `analyze script --itrace` on machines without
 * the PMU. Formats bytes only, through readers/writer (PT packets through libipt's
 * encoder); what the script says is the caller's.
 *
 * Script lines (one record each, times increase by 100 ns a record unless `time` sets them):
 *   time NS                       the time of the next record
 *   thread PID TID                the task of the records that follow
 *   comm NAME                     COMM (exec) of the task
 *   mmap START LEN PGOFF BUILDID PATH   MMAP2 r-x of PATH; BUILDID (hex) goes to BUILD_ID
 *   itrace_start                  ITRACE_START of the task
 *   branch FROM TO [MISC]         a 24-byte BTS record for the next buffer (MISC 0x10)
 *   buffer IDX CPU                AUX, then AUXTRACE of the task with the trace so far
 *                                 (reference: the time as TSC)
 * Intel PT packets for the next buffer (--pt; addresses hex, full 48-bit IPs):
 *   psb | psbend | pad | ovf      the packet
 *   tsc                           TSC of the time (the time advances as for a record)
 *   cbr RATIO | mode64            CBR; MODE.Exec 64-bit
 *   tnt BITS                      TNT-8 of up to 6 bits, "1" taken, "0" not, oldest first
 *   tip|tip.pge|tip.pgd|fup [IP]  the IP packet (no IP: suppressed)
 *   raw HEX                       bytes as they are (corrupt packets)
 *   mark | repeat N               the bytes since the mark, N more times (large traces)
 *   exit                          EXIT of the task
 *   round                         FINISHED_ROUND
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/writer.h"

#define USAGE "usage: gen-auxtrace -o PATH [--pmu-type N] [--aux-type N] [--time-shift N] " \
	      "[--time-mult N] [--time-zero N] [--no-index] [--pt] SCRIPT"
#define STEP_NS 100
#define EVENT_ID 42
#define MAX_TRACE (256u << 20)	/* one buffer's bytes at most */
#define MAX_BUILD_IDS 16

/* perf's auxtrace.h: enum auxtrace_type; intel-bts.h: the priv[] words of AUXTRACE_INFO */
#define AUXTRACE_INTEL_BTS 2
enum { BTS_PMU_TYPE, BTS_TIME_SHIFT, BTS_TIME_MULT, BTS_TIME_ZERO, BTS_CAP_USER_TIME_ZERO,
       BTS_SNAPSHOT_MODE, BTS_PRIV_MAX };
/* intel-pt.h (perf 6.1): the priv[] words of an Intel PT AUXTRACE_INFO */
#define AUXTRACE_INTEL_PT 1
enum { PT_PMU_TYPE, PT_TIME_SHIFT, PT_TIME_MULT, PT_TIME_ZERO, PT_CAP_USER_TIME_ZERO,
       PT_TSC_BIT, PT_NORETCOMP_BIT, PT_HAVE_SCHED_SWITCH, PT_SNAPSHOT_MODE, PT_PER_CPU_MMAPS,
       PT_MTC_BIT, PT_MTC_FREQ_BITS, PT_TSC_CTC_N, PT_TSC_CTC_D, PT_CYC_BIT,
       PT_MAX_NONTURBO_RATIO, PT_FILTER_STR_LEN, PT_PRIV_MAX };
/* the intel_pt PMU's format (sysfs format/): pt config:0, tsc config:10, noretcomp
 * config:11, branch config:13, mtc config:9, mtc_period config:14-17, cyc config:1 */
#define PT_CONFIG_TSC (1ull << 10)
#define PT_CONFIG (1ull | PT_CONFIG_TSC | 1ull << 13)

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
	bool pt;
	u8 *trace;		/* the next buffer's bytes */
	size_t trace_size, trace_alloc;
	size_t mark;		/* where `mark` was: `repeat` copies the bytes since */
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

static int add_trace(struct gen *g, const void *bytes, size_t size)
{
	if (size > MAX_TRACE - g->trace_size)
		return -1;
	if (g->trace_size + size > g->trace_alloc)
		ARRAY_GROW(g->trace, g->trace_alloc, g->trace_size + size);
	memcpy(g->trace + g->trace_size, bytes, size);
	g->trace_size += size;
	return 0;
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
	size_t size;
	int idx, cpu;

	if (sscanf(args, "%d %d", &idx, &cpu) != 2 || idx < 0)
		return -1;
	/* perf pads AUX data to 8 bytes (PERF_AUXTRACE_RECORD_ALIGNMENT), the padding counted
	 * in its size: zeros, PT's PAD packets */
	while (g->trace_size % 8)
		if (add_trace(g, "", 1))
			return -1;
	size = g->trace_size;
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
	    perf_writer__write(g->w, g->trace, size))
		return -1;
	g->trace_size = g->mark = 0;
	return 0;
}


static int do_branch(struct gen *g, const char *args)
{
	struct bts_branch b = { .misc = 0x10 };	/* predicted */

	if (sscanf(args, "%" SCNx64 " %" SCNx64 " %" SCNx64, &b.from, &b.to, &b.misc) < 2)
		return -1;
	return add_trace(g, &b, sizeof(b));
}

/* One PT packet through libipt's encoder, appended to the next buffer. */
static int encode(struct gen *g, const struct pt_packet *packet)
{
	u8 buf[64];
	struct pt_config config;
	struct pt_encoder *enc;
	int n;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	enc = pt_alloc_encoder(&config);
	if (!enc)
		return -1;
	n = pt_enc_next(enc, packet);
	pt_free_encoder(enc);
	return n > 0 ? add_trace(g, buf, (size_t)n) : -1;
}

static int pt_ip_packet(struct gen *g, enum pt_packet_type type, const char *args)
{
	struct pt_packet p = { .type = type };

	if (*args) {
		p.payload.ip.ipc = pt_ipc_sext_48;
		p.payload.ip.ip = strtoull(args, NULL, 16);
	} else {
		p.payload.ip.ipc = pt_ipc_suppressed;
	}
	return encode(g, &p);
}

static int pt_tnt(struct gen *g, const char *bits)
{
	struct pt_packet p = { .type = ppt_tnt_8 };
	size_t n = strlen(bits);

	if (!n || n > 6)
		return -1;
	/* the oldest branch is the most significant bit of the payload */
	for (size_t i = 0; i < n; i++) {
		if (bits[i] != '0' && bits[i] != '1')
			return -1;
		p.payload.tnt.payload = p.payload.tnt.payload << 1 | (u64)(bits[i] - '0');
	}
	p.payload.tnt.bit_size = (u8)n;
	return encode(g, &p);
}

static int pt_raw(struct gen *g, const char *hex)
{
	for (;;) {
		unsigned v;

		while (*hex == ' ')
			hex++;
		if (!*hex)
			return 0;
		if (!hex[1] || sscanf(hex, "%2x", &v) != 1 || add_trace(g, &(u8){ (u8)v }, 1))
			return -1;
		hex += 2;
	}
}

static int pt_repeat(struct gen *g, u64 n)
{
	size_t start = MIN(g->mark, g->trace_size), len = g->trace_size - start;

	if (!n || !len)
		return 0;
	if (len > (MAX_TRACE - g->trace_size) / n)
		return -1;
	if (g->trace_size + n * len > g->trace_alloc)
		ARRAY_GROW(g->trace, g->trace_alloc, g->trace_size + n * len);
	for (u64 i = 0; i < n; i++, g->trace_size += len)
		memcpy(g->trace + g->trace_size, g->trace + start, len);
	return 0;
}

/* the PT packet lines; 1 when the line is not one */
static int pt_line(struct gen *g, const char *op, const char *args)
{
	struct pt_packet p = { 0 };

	if (!strcmp(op, "psb"))
		p.type = ppt_psb;
	else if (!strcmp(op, "psbend"))
		p.type = ppt_psbend;
	else if (!strcmp(op, "pad"))
		p.type = ppt_pad;
	else if (!strcmp(op, "ovf"))
		p.type = ppt_ovf;
	else if (!strcmp(op, "tsc")) {
		p.type = ppt_tsc;
		p.payload.tsc.tsc = time_to_tsc(g, next_time(g));
	} else if (!strcmp(op, "cbr")) {
		p.type = ppt_cbr;
		p.payload.cbr.ratio = (u8)strtoul(args, NULL, 0);
	} else if (!strcmp(op, "mode64")) {
		p.type = ppt_mode;
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	} else if (!strcmp(op, "tnt"))
		return pt_tnt(g, args);
	else if (!strcmp(op, "tip"))
		return pt_ip_packet(g, ppt_tip, args);
	else if (!strcmp(op, "tip.pge"))
		return pt_ip_packet(g, ppt_tip_pge, args);
	else if (!strcmp(op, "tip.pgd"))
		return pt_ip_packet(g, ppt_tip_pgd, args);
	else if (!strcmp(op, "fup"))
		return pt_ip_packet(g, ppt_fup, args);
	else if (!strcmp(op, "raw"))
		return pt_raw(g, args);
	else if (!strcmp(op, "mark")) {
		g->mark = g->trace_size;
		return 0;
	} else if (!strcmp(op, "repeat"))
		return pt_repeat(g, strtoull(args, NULL, 0));
	else
		return 1;
	return encode(g, &p);
}

static int do_line(struct gen *g, char *line)
{
	char *args;
	int ret;

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
	if (!strcmp(line, "branch") && !g->pt)
		return do_branch(g, args);
	ret = g->pt ? pt_line(g, line, args) : 1;
	return ret ? -1 : 0;
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

/* intel-pt.c's intel_pt_info_fill as perf 6.1 writes it for intel_pt//u --per-thread */
static int write_pt_info(struct gen *g, u64 aux_type, u64 pmu_type)
{
	u64 rec[2 + PT_PRIV_MAX] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)rec;
	u64 *priv = rec + 2;

	*h = (struct perf_event_header){ PERF_RECORD_AUXTRACE_INFO, 0, sizeof(rec) };
	rec[1] = aux_type;
	priv[PT_PMU_TYPE] = pmu_type;
	priv[PT_TIME_SHIFT] = g->time_shift;
	priv[PT_TIME_MULT] = g->time_mult;
	priv[PT_TIME_ZERO] = g->time_zero;
	priv[PT_CAP_USER_TIME_ZERO] = 1;
	priv[PT_TSC_BIT] = PT_CONFIG_TSC;
	priv[PT_NORETCOMP_BIT] = 1ull << 11;
	priv[PT_HAVE_SCHED_SWITCH] = 0;
	priv[PT_MTC_BIT] = 1ull << 9;
	priv[PT_MTC_FREQ_BITS] = 0xfull << 14;
	priv[PT_TSC_CTC_N] = 2;
	priv[PT_TSC_CTC_D] = 1;
	priv[PT_CYC_BIT] = 1ull << 1;
	priv[PT_MAX_NONTURBO_RATIO] = 24;
	return perf_writer__write(g->w, rec, sizeof(rec));
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
		{ "pt", no_argument, NULL, 't' },
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
		case 't': g.pt = true; break;
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
	if (g.pt && aux_type == AUXTRACE_INTEL_BTS)
		aux_type = AUXTRACE_INTEL_PT;
	/* perf record -e intel_bts// --per-thread: the AUX event, sampling the side band too */
	attr.type = (u32)pmu_type;
	attr.config = g.pt ? PT_CONFIG : 0;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.comm = attr.mmap = attr.mmap2 = attr.task = attr.sample_id_all = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	if (perf_writer__add_attr(g.w, &attr, &id, 1, g.pt ? "intel_pt//u" : "intel_bts//u"))
		goto fail;
	if (g.pt) {
		if (write_pt_info(&g, aux_type, pmu_type))
			goto fail;
	} else {
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
	free(g.trace);
	free(g.index);
	fclose(in);
	return 0;
fail:
	fprintf(stderr, "gen-auxtrace: %s\n", error_get());
	perf_writer__delete(g.w);
	free(g.trace);
	free(g.index);
	fclose(in);
	return 1;
}
