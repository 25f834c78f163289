/*
 * intel_bts: Intel BTS traces decoded natively, as perf 6.1's util/intel-bts.c does it. A
 * BTS buffer is an array of 24-byte records {from, to, misc}; each becomes a "branches"
 * sample whose kind (call, return, jcc...) comes from the instruction at `from`, read from
 * the dso file of the thread's map there. perf's quirks are kept: its loop never takes the
 * last record of a buffer, and `s` skips one event more than asked.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/itrace_internal.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "readers/evsel_name.h"

/* intel-bts.h: the priv[] words of AUXTRACE_INFO */
enum { BTS_PMU_TYPE, BTS_TIME_SHIFT, BTS_TIME_MULT, BTS_TIME_ZERO, BTS_CAP_USER_TIME_ZERO,
       BTS_SNAPSHOT_MODE, BTS_PRIV_MAX };

#define BTS_RECORD 24
#define BTS_ERR_NOINSN 5	/* intel-bts.c: INTEL_BTS_ERR_NOINSN */
#define INSN_BUF 16		/* INTEL_PT_INSN_BUF_SZ */
#define MAX_TIMESTAMP (~0ull)
/* perf's PERF_SAMPLE_MASK: the sample fields a synthesized event may keep */
#define SAMPLE_MASK                                                                           \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |            \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |     \
	 PERF_SAMPLE_IDENTIFIER)

/* dso files opened to read instructions: few per trace */
struct itrace_code {
	struct dso *dso;	/* not a reference: dsos live as long as the machine */
	int fd;
};
#define MAX_CODE_FILES 64

/* perf's intel_bts_synth_events: "branches", from the first event of the BTS PMU with ids */
static void synth_evsel(struct itrace *it)
{
	struct perf_session *s = it->session;
	struct perf_event_attr *attr = &it->evsel.attr;
	const struct evsel *bts = NULL;
	char name[64];

	for (size_t i = 0; i < s->nr_evsels && !bts; i++)
		if (s->evsels[i].attr.type == it->pmu_type && s->evsels[i].nr_ids)
			bts = &s->evsels[i];
	if (!bts || !it->opts.branches)
		return;
	memset(&it->evsel, 0, sizeof(it->evsel));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	attr->sample_period = 1;
	attr->sample_type = (bts->attr.sample_type & SAMPLE_MASK) | PERF_SAMPLE_IP |
			    PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR;
	attr->sample_type &= ~(u64)(PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	attr->exclude_user = bts->attr.exclude_user;
	attr->exclude_kernel = bts->attr.exclude_kernel;
	attr->exclude_hv = bts->attr.exclude_hv;
	attr->exclude_host = bts->attr.exclude_host;
	attr->exclude_guest = bts->attr.exclude_guest;
	attr->sample_id_all = bts->attr.sample_id_all;
	attr->read_format = bts->attr.read_format;
	sample_layout_init(&it->evsel.layout, attr);
	it->evsel.idx = (int)s->nr_evsels;
	it->evsel.name = xstrdup(evsel_name__from_attr(attr, name, sizeof(name)));
	it->has_evsel = true;
}

int intel_bts__init(struct itrace *it, const struct perf_event_header *info, u64 offset)
{
	u64 priv[BTS_PRIV_MAX] = { 0 };
	size_t have = (info->size - sizeof(*info) - 8) / sizeof(u64);

	/* intel_bts_process_auxtrace_info: up to the snapshot word, which may be missing */
	if (have < BTS_SNAPSHOT_MODE) {
		error_set("%s: offset %#llx: Intel BTS AUXTRACE_INFO record of %u bytes is too short",
			  it->session->path, (unsigned long long)offset, info->size);
		return -1;
	}
	memcpy(priv, (const u8 *)(info + 1) + 8, MIN(have, (size_t)BTS_PRIV_MAX) * sizeof(u64));
	it->pmu_type = (u32)priv[BTS_PMU_TYPE];
	it->time_shift = priv[BTS_TIME_SHIFT];
	it->time_mult = priv[BTS_TIME_MULT];
	it->time_zero = priv[BTS_TIME_ZERO];
	it->snapshot_mode = priv[BTS_SNAPSHOT_MODE];
	/* perf 6.1 divides by it converting every timestamp (and dies of SIGFPE) */
	if (!it->time_mult) {
		error_set("%s: offset %#llx: Intel BTS AUXTRACE_INFO has a zero time multiplier",
			  it->session->path, (unsigned long long)offset);
		return -1;
	}
	if (it->time_shift > 63) {
		error_set("%s: offset %#llx: Intel BTS AUXTRACE_INFO has a time shift of %llu",
			  it->session->path, (unsigned long long)offset,
			  (unsigned long long)it->time_shift);
		return -1;
	}
	if (it->dont_decode)
		return 0;
	if (it->opts.calls)
		it->branches_filter |= IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_TRACE_END;
	if (it->opts.returns)
		it->branches_filter |= IP_FLAG_RETURN | IP_FLAG_TRACE_BEGIN;
	synth_evsel(it);
	it->code = xcalloc(MAX_CODE_FILES, sizeof(*it->code));
	return 0;
}

void intel_bts__exit(struct itrace *it)
{
	if (it->code) {
		for (size_t i = 0; i < MAX_CODE_FILES && it->code[i].dso; i++)
			if (it->code[i].fd >= 0)
				close(it->code[i].fd);
		free(it->code);
	}
	if (it->has_evsel)
		free(it->evsel.name);
	free(it->heap);
}

/* perf's tsc.c: perf_time_to_tsc */
static u64 time_to_tsc(const struct itrace *it, u64 ns)
{
	u64 t = ns - it->time_zero, quot = t / it->time_mult, rem = t % it->time_mult;

	return (quot << it->time_shift) + (rem << it->time_shift) / it->time_mult;
}

/* ---- perf's auxtrace_heap (the same ties broken the same way) ---- */

static void heapify(struct itrace_heap_item *h, size_t pos, u32 queue_nr, u64 ordinal)
{
	while (pos) {
		size_t parent = (pos - 1) >> 1;

		if (h[parent].ordinal <= ordinal)
			break;
		h[pos] = h[parent];
		pos = parent;
	}
	h[pos] = (struct itrace_heap_item){ queue_nr, ordinal };
}

static void heap_add(struct itrace *it, u32 queue_nr, u64 ordinal)
{
	ARRAY_GROW(it->heap, it->heap_alloc, it->heap_cnt + 1);
	heapify(it->heap, it->heap_cnt++, queue_nr, ordinal);
}

static void heap_pop(struct itrace *it)
{
	struct itrace_heap_item *h = it->heap;
	size_t pos = 0, cnt = it->heap_cnt, last;

	if (!cnt)
		return;
	it->heap_cnt--;
	for (;;) {
		size_t left = (pos << 1) + 1, right = left + 1;

		if (left >= cnt)
			break;
		if (right >= cnt) {
			h[pos] = h[left];
			return;
		}
		if (h[left].ordinal < h[right].ordinal) {
			h[pos] = h[left];
			pos = left;
		} else {
			h[pos] = h[right];
			pos = right;
		}
	}
	last = cnt - 1;
	heapify(h, pos, h[last].queue_nr, h[last].ordinal);
}

/* ---- instructions ---- */

/* perf's intel_pt_insn_type of the x86 branch at buf (len bytes): -1 if not decodable */
static int x86_branch_flags(const u8 *buf, size_t len)
{
	size_t i = 0;
	u8 op;

	while (i < len && (buf[i] == 0x66 || buf[i] == 0x67 || buf[i] == 0xf2 || buf[i] == 0xf3 ||
			   buf[i] == 0xf0 || buf[i] == 0x2e || buf[i] == 0x36 || buf[i] == 0x3e ||
			   buf[i] == 0x26 || buf[i] == 0x64 || buf[i] == 0x65))
		i++;
	if (i < len && (buf[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= len)
		return -1;
	op = buf[i++];
	if (op >= 0x70 && op <= 0x7f)
		return IP_FLAG_BRANCH | IP_FLAG_CONDITIONAL;
	switch (op) {
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:	/* loop*, jcxz */
		return IP_FLAG_BRANCH | IP_FLAG_CONDITIONAL;
	case 0xe8: case 0x9a:
		return IP_FLAG_BRANCH | IP_FLAG_CALL;
	case 0xe9: case 0xeb: case 0xea:
		return IP_FLAG_BRANCH;
	case 0xc2: case 0xc3: case 0xca: case 0xcb:
		return IP_FLAG_BRANCH | IP_FLAG_RETURN;
	case 0xcf:
		return IP_FLAG_BRANCH | IP_FLAG_RETURN | IP_FLAG_INTERRUPT;
	case 0xcc: case 0xcd: case 0xce:
		return IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_INTERRUPT;
	case 0xff: {
		u8 reg;

		if (i >= len)
			return -1;
		reg = (buf[i] >> 3) & 7;
		if (reg == 2 || reg == 3)
			return IP_FLAG_BRANCH | IP_FLAG_CALL;
		if (reg == 4 || reg == 5)
			return IP_FLAG_BRANCH;
		return 0;
	}
	case 0x0f:
		if (i >= len)
			return -1;
		op = buf[i];
		if (op >= 0x80 && op <= 0x8f)
			return IP_FLAG_BRANCH | IP_FLAG_CONDITIONAL;
		if (op == 0x05 || op == 0x34)	/* syscall, sysenter */
			return IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_SYSCALLRET;
		if (op == 0x07 || op == 0x35)	/* sysret, sysexit */
			return IP_FLAG_BRANCH | IP_FLAG_RETURN | IP_FLAG_SYSCALLRET;
		return 0;
	default:
		return 0;
	}
}

static int code_fd(struct itrace *it, struct dso *dso)
{
	char path[4096];
	size_t i;

	for (i = 0; i < MAX_CODE_FILES && it->code[i].dso; i++)
		if (it->code[i].dso == dso)
			return it->code[i].fd;
	if (i == MAX_CODE_FILES) {	/* full: the oldest goes */
		if (it->code[0].fd >= 0)
			close(it->code[0].fd);
		memmove(it->code, it->code + 1, (MAX_CODE_FILES - 1) * sizeof(*it->code));
		i = MAX_CODE_FILES - 1;
	}
	it->code[i].dso = dso;
	it->code[i].fd = -1;
	if (dso->kind == DSO_KIND_USER &&
	    !symtab__dso_file(&it->machine->symsrc, dso->long_name, dso->build_id,
			      dso->build_id_size, path, sizeof(path)))
		it->code[i].fd = open(path, O_RDONLY | O_CLOEXEC);
	return it->code[i].fd;
}

static bool kernel_ip(const struct itrace *it, u64 ip)
{
	return ip >= it->machine->kernel_start;
}

/* perf's intel_bts_get_next_insn: the flags of the instruction at ip, or -1 */
static int insn_flags(struct itrace *it, s32 tid, u64 ip)
{
	struct thread *t = machine__find_thread(it->machine, tid);
	struct addr_location al;
	u8 buf[INSN_BUF];
	ssize_t n = -1;
	int fd;

	if (!t)
		return -1;
	machine__resolve_map(it->machine, t,
			     kernel_ip(it, ip) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, ip,
			     &al);
	if (al.map && al.map->dso && (fd = code_fd(it, al.map->dso)) >= 0)
		n = pread(fd, buf, sizeof(buf), (off_t)al.addr);
	thread__put(t);
	return n > 0 ? x86_branch_flags(buf, (size_t)n) : -1;
}

static void synth_error(struct itrace *it, const struct itrace_queue *q, u64 ip)
{
	struct itrace_error e = { BTS_ERR_NOINSN, q->btsq_cpu, q->pid, q->btsq_tid, ip,
				  "Failed to get instruction" };

	if (it->consumer->error)
		it->consumer->error(it->consumer, &e);
}

/* intel_bts_get_branch_type */
static u32 branch_type(struct itrace *it, struct itrace_queue *q, u64 from, u64 to)
{
	int flags;

	if (!from)
		return to ? IP_FLAG_BRANCH | IP_FLAG_TRACE_BEGIN : 0;
	if (!to)
		return IP_FLAG_BRANCH | IP_FLAG_TRACE_END;
	flags = insn_flags(it, q->btsq_tid, from);
	if (flags < 0) {
		if (it->opts.errors)
			synth_error(it, q, from);
		return 0;
	}
	/* an async branch into the kernel */
	if (!kernel_ip(it, from) && kernel_ip(it, to) &&
	    (u32)flags != (IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_SYSCALLRET))
		flags = IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_INTERRUPT;
	return (u32)flags;
}

static int synth_sample(struct itrace *it, const struct itrace_queue *q, u64 from, u64 to,
			u32 flags)
{
	struct perf_event_header header = { PERF_RECORD_SAMPLE, 0, sizeof(header) };
	struct event_ctx ctx;

	/* intel_bts_synth_branch_sample: "num_events++ <= initial_skip" skips one more */
	if (it->opts.initial_skip && it->num_events++ <= it->opts.initial_skip)
		return 0;
	header.misc = kernel_ip(it, from) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	memset(&ctx, 0, sizeof(ctx));
	ctx.event = &header;
	ctx.evsel = &it->evsel;
	ctx.file_offset = it->info_offset;
	ctx.sample.ip = from;
	ctx.sample.addr = to;
	ctx.sample.pid = (u32)q->pid;
	ctx.sample.tid = (u32)q->btsq_tid;
	ctx.sample.cpu = (u32)q->btsq_cpu;
	ctx.sample.period = 1;
	ctx.sample.misc = header.misc;
	ctx.sample.flags = flags;
	return it->consumer->sample(it->consumer, &ctx);
}

/* intel_bts_find_overlap: a snapshot buffer repeats the end of the one before it */
static u64 overlap_start(const u8 *a, u64 len_a, const u8 *b, u64 len_b)
{
	for (u64 offs = len_a > len_b ? len_a - len_b : 0; offs < len_a; offs += BTS_RECORD)
		if (!memcmp(a + offs, b, len_a - offs))
			return len_a - offs;
	return 0;
}

/* intel_bts_process_buffer */
static int process_buffer(struct itrace *it, struct itrace_queue *q, size_t idx)
{
	const struct itrace_buffer *b = &q->buffers[idx];
	const u8 *data = it->session->base + b->data_offset;
	u64 sz = b->size;
	int ret = 0;

	if (it->snapshot_mode && idx) {
		const struct itrace_buffer *a = &q->buffers[idx - 1];
		u64 skip = overlap_start(it->session->base + a->data_offset, a->size, data, sz);

		data += skip;
		sz -= skip;
	}
	if (!it->has_evsel)
		return 0;
	/* perf's loop: "sz > bsz", so the last record of a buffer is never taken */
	for (; sz > BTS_RECORD; data += BTS_RECORD, sz -= BTS_RECORD) {
		u64 rec[3];
		u32 flags;

		memcpy(rec, data, sizeof(rec));	/* little-endian, as the hardware wrote it */
		if (!rec[0] && !rec[1])
			continue;
		flags = branch_type(it, q, rec[0], rec[1]);
		if (it->branches_filter && !(it->branches_filter & flags))
			continue;
		ret = synth_sample(it, q, rec[0], rec[1], flags);
		if (ret) {
			it->stopped = true;
			return -1;
		}
	}
	return 0;
}

/* intel_bts_process_queue: decode its next buffer; 1 when it has no more */
static int process_queue(struct itrace *it, u32 nr, u64 *ts)
{
	struct itrace_queue *q = &it->queues[nr];
	int ret;

	if (q->done)
		return 1;
	if (q->pid == -1) {
		struct thread *t = machine__find_thread(it->machine, q->btsq_tid);

		if (t) {
			q->pid = t->pid;
			thread__put(t);
		}
	}
	if (!q->has_buffer) {
		if (q->next >= q->nr) {
			q->done = true;
			return 1;
		}
		q->has_buffer = true;
	}
	ret = process_buffer(it, q, q->next);
	if (ret)
		return ret;
	q->next++;
	if (q->next < q->nr) {
		*ts = q->buffers[q->next].reference;
	} else {
		q->has_buffer = false;
		q->done = true;
	}
	return 0;
}

/* intel_bts_setup_queues: a queue with buffers gets its decoder and a place on the heap */
static void update_queues(struct itrace *it)
{
	if (!it->new_data)
		return;
	it->new_data = false;
	for (u32 i = 0; i < it->nr_queues; i++) {
		struct itrace_queue *q = &it->queues[i];

		if (!q->nr)
			continue;
		if (!q->decoder) {
			q->decoder = true;
			q->btsq_cpu = q->cpu;
			q->btsq_tid = q->tid;
		}
		if (!q->on_heap && !q->has_buffer && q->next < q->nr) {
			q->has_buffer = true;
			heap_add(it, i, q->buffers[q->next].reference);
			q->on_heap = true;
		}
	}
}

static int process_queues(struct itrace *it, u64 timestamp)
{
	while (it->heap_cnt && it->heap[0].ordinal <= timestamp) {
		u32 nr = it->heap[0].queue_nr;
		u64 ts = 0;
		int ret;

		heap_pop(it);
		ret = process_queue(it, nr, &ts);
		if (ret < 0) {
			heap_add(it, nr, ts);
			return ret;
		}
		if (!ret)
			heap_add(it, nr, ts);
		else
			it->queues[nr].on_heap = false;
	}
	return 0;
}

/* intel_bts_process_tid_exit: the first queue of the thread is decoded to its end */
static int process_tid_exit(struct itrace *it, s32 tid)
{
	for (u32 i = 0; i < it->nr_queues; i++) {
		struct itrace_queue *q = &it->queues[i];
		u64 ts;
		int ret;

		if (!q->decoder || q->btsq_tid != tid)
			continue;
		while (!(ret = process_queue(it, i, &ts)))
			;
		return ret < 0 ? ret : 0;
	}
	return 0;
}

int itrace__process_event(struct itrace *it, const struct perf_event_header *event, u64 time)
{
	u64 timestamp = time && time != ~0ull ? time_to_tsc(it, time) : 0;
	int ret;

	if (it->dont_decode)
		return 0;
	update_queues(it);
	ret = process_queues(it, timestamp);
	if (!ret && event->type == PERF_RECORD_EXIT && event->size >= sizeof(struct perf_record_fork))
		ret = process_tid_exit(it, (s32)((const struct perf_record_fork *)event)->tid);
	return it->stopped ? 1 : ret;
}

int itrace__flush(struct itrace *it)
{
	int ret;

	if (it->dont_decode)
		return 0;
	update_queues(it);
	ret = process_queues(it, MAX_TIMESTAMP);
	return it->stopped ? 0 : ret;
}
