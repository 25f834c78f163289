/*
 * itrace: the AUX-trace queues (perf's auxtrace.c: one queue per AUXTRACE idx, its buffers
 * in arrival order, decoded in the order of their references) feeding the decoders
 * (intel_bts.c, intel_pt.c), and what those share: the time conversion, perf's heap, code
 * bytes from the dso files. The --itrace options and the flags' text: itrace_opts.c.
 */
#include "analyzer/itrace/itrace.h"

#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/itrace/itrace_internal.h"
#include "lib/capstone.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "readers/decode/evsel_name.h"

/* ---- queues ---- */

/* perf's auxtrace_queues__queue_buffer: the buffer joins queue idx, whose cpu and tid it
 * must share */
static int queue_buffer(struct itrace *it, u32 idx, const struct itrace_buffer *b, u64 offset)
{
	struct itrace_queue *q;

	if (idx >= MAX_QUEUES) {
		error_set("%s: offset %#llx: AUXTRACE record's queue %u is beyond %u", it->session->path,
			  (unsigned long long)offset, idx, MAX_QUEUES);
		return -1;
	}
	if (idx >= it->nr_queues) {
		size_t alloc = it->nr_queues;

		ARRAY_GROW(it->queues, alloc, idx + 1);
		memset(it->queues + it->nr_queues, 0, (idx + 1 - it->nr_queues) * sizeof(*q));
		it->nr_queues = idx + 1;
	}
	q = &it->queues[idx];
	if (!q->set) {
		q->set = true;
		q->tid = b->tid;
		q->cpu = b->cpu;
		q->pid = -1;
		q->btsq_tid = -1;
		q->btsq_cpu = -1;
	} else if (b->cpu != q->cpu || b->tid != q->tid) {
		error_set("%s: offset %#llx: auxtrace queue conflict: cpu %d, tid %d vs cpu %d, tid %d",
			  it->session->path, (unsigned long long)offset, q->cpu, q->tid, b->cpu,
			  b->tid);
		return -1;
	}
	ARRAY_GROW(q->buffers, q->alloc, q->nr + 1);
	q->buffers[q->nr] = *b;
	q->buffers[q->nr].nr = it->next_buffer_nr++;
	q->nr++;
	it->new_data = true;
	return 0;
}

/* An AUXTRACE record at `offset` (perf event.h: perf_record_auxtrace); its data follows it. */
static int add_event(struct itrace *it, const struct perf_event_header *event, u64 offset)
{
	struct itrace_auxtrace rec;
	struct itrace_buffer b;

	if (event->size < sizeof(rec)) {
		error_set("%s: offset %#llx: AUXTRACE record of %u bytes is too short",
			  it->session->path, (unsigned long long)offset, event->size);
		return -1;
	}
	memcpy(&rec, event, sizeof(rec));
	b = (struct itrace_buffer){
		.data_offset = offset + event->size,
		.size = rec.size,
		.reference = rec.reference,
		.tid = (s32)rec.tid,
		.cpu = (s32)rec.cpu,
	};
	if (b.data_offset > it->session->size || b.size > it->session->size - b.data_offset) {
		error_set("%s: offset %#llx: AUXTRACE record's %llu bytes of trace extend past the end of the file",
			  it->session->path, (unsigned long long)offset, (unsigned long long)b.size);
		return -1;
	}
	return queue_buffer(it, rec.idx, &b, offset);
}

int itrace__add_buffer(struct itrace *it, const struct perf_event_header *event, u64 offset)
{
	if (it->data_queued || it->dont_decode)
		return 0;	/* queued from the index already (perf: data_queued) */
	return add_event(it, event, offset);
}

/*
 * The AUXTRACE feature (auxtrace.c's auxtrace_index__process): u64 nr, then nr {file_offset,
 * size} entries, each the offset and header.size of an AUXTRACE record. perf queues every
 * buffer from it up front and then ignores the records as they come.
 */
static int queue_index(struct itrace *it)
{
	struct perf_session *s = it->session;
	size_t size;
	const u8 *sec = perf_session__feat(s, HEADER_AUXTRACE, &size);
	u64 nr;

	if (!sec || s->is_pipe || s->is_dir || !s->base)
		return 0;
	if (size < sizeof(u64))
		goto bad;
	memcpy(&nr, sec, sizeof(nr));	/* (feature sections are native once opened) */
	if (nr > (size - sizeof(u64)) / (2 * sizeof(u64)))
		goto bad;
	for (u64 i = 0; i < nr; i++) {
		u64 ent[2];
		struct perf_event_header h;
		bool swapped;

		memcpy(ent, sec + sizeof(u64) + i * sizeof(ent), sizeof(ent));
		if (ent[0] < s->header.data.offset || ent[0] > s->size ||
		    s->size - ent[0] < sizeof(struct itrace_auxtrace)) {
			error_set("%s: offset %#llx: AUXTRACE index entry %llu points to %#llx, outside the data",
				  s->path, (unsigned long long)s->feat[HEADER_AUXTRACE].offset,
				  (unsigned long long)i, (unsigned long long)ent[0]);
			return -1;
		}
		/* an opposite-endian file is converted in place as it is read: maybe not yet */
		memcpy(&h, s->base + ent[0], sizeof(h));
		swapped = s->swap && h.type != PERF_RECORD_AUXTRACE;
		if (swapped) {
			h.type = __builtin_bswap32(h.type);
			h.size = __builtin_bswap16(h.size);
		}
		if (h.type != PERF_RECORD_AUXTRACE)
			continue;	/* perf skips entries that are not AUXTRACE records */
		if (h.size < sizeof(struct itrace_auxtrace) || h.size != ent[1]) {
			error_set("%s: offset %#llx: AUXTRACE record does not match its index entry (size %u, index %llu)",
				  s->path, (unsigned long long)ent[0], h.size,
				  (unsigned long long)ent[1]);
			return -1;
		}
		{
			u8 copy[sizeof(struct itrace_auxtrace)];

			memcpy(copy, s->base + ent[0], sizeof(copy));
			if (swapped)
				itrace_auxtrace_swap((struct itrace_auxtrace *)copy);
			if (add_event(it, (const struct perf_event_header *)copy, ent[0]))
				return -1;
		}
	}
	it->data_queued = it->new_data;
	return 0;
bad:
	error_set("%s: offset %#llx: AUXTRACE feature section of %zu bytes is malformed", s->path,
		  (unsigned long long)s->feat[HEADER_AUXTRACE].offset, size);
	return -1;
}

void itrace_auxtrace_swap(struct itrace_auxtrace *r)
{
	r->header.type = __builtin_bswap32(r->header.type);
	r->header.misc = __builtin_bswap16(r->header.misc);
	r->header.size = __builtin_bswap16(r->header.size);
	r->size = __builtin_bswap64(r->size);
	r->offset = __builtin_bswap64(r->offset);
	r->reference = __builtin_bswap64(r->reference);
	r->idx = __builtin_bswap32(r->idx);
	r->tid = __builtin_bswap32(r->tid);
	r->cpu = __builtin_bswap32(r->cpu);
}

/* perf auxtrace.h: enum auxtrace_type */
#define AUXTRACE_INTEL_PT 1
#define AUXTRACE_INTEL_BTS 2

struct itrace *itrace__new(struct perf_session *s, struct machine *machine,
			   const struct itrace_opts *opts, struct itrace_consumer *consumer,
			   const struct perf_event_header *info, u64 offset)
{
	struct itrace *it;
	u32 type;
	int ret;

	if (info->size < sizeof(*info) + 8) {
		error_set("%s: offset %#llx: AUXTRACE_INFO record of %u bytes is too short", s->path,
			  (unsigned long long)offset, info->size);
		return NULL;
	}
	memcpy(&type, info + 1, sizeof(type));
	if (type != AUXTRACE_INTEL_BTS && type != AUXTRACE_INTEL_PT) {
		/* perf 6.1: "Error: AUX area tracing type %u is not supported" */
		error_set("%s: offset %#llx: AUXTRACE_INFO of AUX area tracing type %u, which analyze does not decode",
			  s->path, (unsigned long long)offset, type);
		return NULL;
	}
	it = xcalloc(1, sizeof(*it));
	it->session = s;
	it->machine = machine;
	it->consumer = consumer;
	it->info_offset = offset;
	it->opts = *opts;	/* the command's default when --itrace was not given */
	it->dont_decode = opts->dont_decode;
	ret = type == AUXTRACE_INTEL_BTS ? intel_bts__init(it, info, offset)
					 : intel_pt__init(it, info, offset);
	if (ret || queue_index(it)) {
		itrace__delete(it);
		return NULL;
	}
	return it;
}

static void code_files_close(struct itrace *it);

void itrace__delete(struct itrace *it)
{
	if (!it)
		return;
	if (it->capstone)
		capstone_get()->close(&it->capstone);
	if (it->ops && it->ops->exit)
		it->ops->exit(it);
	code_files_close(it);
	for (size_t i = 0; i < it->nr_evsels; i++)
		free(it->evsels[i].name);
	free(it->heap);
	for (size_t i = 0; i < it->nr_queues; i++) {
		free(it->queues[i].buffers);
		itrace_stack__exit(&it->queues[i].stack);
	}
	free(it->queues);
	free(it);
}

struct evsel *itrace__evsel(struct itrace *it, size_t i)
{
	return it && i < it->nr_evsels ? &it->evsels[i] : NULL;
}

int itrace__process_event(struct itrace *it, const struct perf_event_header *event, u64 time)
{
	if (it->dont_decode || !it->ops)
		return 0;
	switch (event->type) {
	case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2: case PERF_RECORD_FORK:
	case PERF_RECORD_COMM: case PERF_RECORD_EXIT:
		itrace__code_changed(it);	/* after it, maps may differ */
		break;
	default:
		break;
	}
	return it->ops->process_event(it, event,
				      time && time != ~0ull ? itrace__time_to_tsc(it, time) : 0);
}

int itrace__flush(struct itrace *it)
{
	if (it->dont_decode || !it->ops)
		return 0;
	return it->ops->flush(it);
}

/* ---- shared by the decoders ---- */

u64 itrace__time_to_tsc(const struct itrace *it, u64 ns)
{
	u64 t = ns - it->time_zero, quot = t / it->time_mult, rem = t % it->time_mult;

	return (quot << it->time_shift) + (rem << it->time_shift) / it->time_mult;
}

u64 itrace__tsc_to_time(const struct itrace *it, u64 tsc)
{
	u64 quot = tsc >> it->time_shift, rem = tsc & ((1ull << it->time_shift) - 1);

	return it->time_zero + quot * it->time_mult + ((rem * it->time_mult) >> it->time_shift);
}

int itrace__read_info(struct itrace *it, const struct perf_event_header *info, u64 offset,
		      const char *what, size_t min, u64 *priv, size_t max)
{
	size_t have = (info->size - sizeof(*info) - 8) / sizeof(u64);

	if (have < min) {
		error_set("%s: offset %#llx: %s AUXTRACE_INFO record of %u bytes is too short",
			  it->session->path, (unsigned long long)offset, what, info->size);
		return -1;
	}
	memcpy(priv, (const u8 *)(info + 1) + 8, MIN(have, max) * sizeof(u64));
	it->pmu_type = (u32)priv[0];
	it->time_shift = priv[1];
	it->time_mult = priv[2];
	it->time_zero = priv[3];
	/* perf 6.1 divides by it converting every timestamp (and dies of SIGFPE) */
	if (!it->time_mult) {
		error_set("%s: offset %#llx: %s AUXTRACE_INFO has a zero time multiplier",
			  it->session->path, (unsigned long long)offset, what);
		return -1;
	}
	if (it->time_shift > 63) {
		error_set("%s: offset %#llx: %s AUXTRACE_INFO has a time shift of %llu",
			  it->session->path, (unsigned long long)offset, what,
			  (unsigned long long)it->time_shift);
		return -1;
	}
	return (int)MIN(have, (size_t)INT_MAX);
}

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

/* perf's auxtrace_heap__add (the same ties broken the same way) */
void itrace__heap_add(struct itrace *it, u32 queue_nr, u64 ordinal)
{
	ARRAY_GROW(it->heap, it->heap_alloc, it->heap_cnt + 1);
	heapify(it->heap, it->heap_cnt++, queue_nr, ordinal);
}

void itrace__heap_pop(struct itrace *it)
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

/* perf's intel_pt_insn_type of the x86 branch at buf (len bytes): -1 if not decodable */
int itrace__insn_flags(const u8 *buf, size_t len)
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

void itrace__drop_buffer(struct itrace *it, const struct itrace_buffer *b)
{
	/* whole pages of trace bytes only: the records around them may be swapped in place */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)(it->session->base + b->data_offset);
	uintptr_t end = start + b->size;

	start = (start + page - 1) & ~(page - 1);
	end &= ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}

int itrace__read_insn(struct itrace *it, s32 tid, u64 ip, u8 *buf, size_t size)
{
	ssize_t n = itrace__read_code(it, tid, ip, buf, size);
	const struct capstone *cs;
	cs_insn *insn;
	size_t count;
	int len = 0;

	if (n <= 0)
		return 0;
	cs = capstone_get();
	if (!cs)
		return 0;
	if (!it->capstone && cs->open(CS_ARCH_X86, CS_MODE_64, &it->capstone) != CS_ERR_OK)
		return 0;
	count = cs->disasm(it->capstone, buf, (size_t)n, ip, 1, &insn);
	if (count) {
		len = insn[0].size;
		cs->free(insn, count);
	}
	return len;
}

/* ---- perf's thread stack (thread-stack.c, without call/return processing) ---- */

/* thread_stack__pop: to the entry of ret_addr, or nothing when it is not there */
static void stack_pop(struct itrace_stack *ts, u64 ret_addr)
{
	for (size_t i = ts->cnt; i;) {
		if (ts->entries[--i].ret_addr == ret_addr) {
			ts->cnt = i;
			return;
		}
	}
}

u32 itrace_stack__event(struct itrace_stack *ts, u32 flags, u64 from, u64 to, u8 insn_len,
			u64 trace_nr)
{
	/* a discontinuous trace: what the stack holds may be wrong, so it goes */
	if (trace_nr != ts->trace_nr) {
		if (ts->trace_nr)
			ts->cnt = 0;
		ts->trace_nr = trace_nr;
	}
	if (flags & IP_FLAG_CALL) {
		u64 ret_addr = from + insn_len;

		if (to && ret_addr != to) {	/* zero-length calls are not calls */
			ARRAY_GROW(ts->entries, ts->alloc, ts->cnt + 1);
			ts->entries[ts->cnt].ret_addr = ret_addr;
			ts->entries[ts->cnt++].trace_end = !!(flags & IP_FLAG_TRACE_END);
		}
	} else if (flags & IP_FLAG_TRACE_BEGIN) {
		/* tracing may begin after a return; a call made as it ended does not return */
		stack_pop(ts, to);
		while (ts->cnt && ts->entries[ts->cnt - 1].trace_end)
			ts->cnt--;
	} else if ((flags & IP_FLAG_RETURN) && from) {
		stack_pop(ts, to);
	}
	return (u32)ts->cnt;
}

void itrace_stack__exit(struct itrace_stack *ts)
{
	free(ts->entries);
}

int itrace__heap_return(struct itrace *it, u32 queue_nr, u64 ordinal, int ret)
{
	if (ret <= 0)
		itrace__heap_add(it, queue_nr, ordinal);
	else
		it->queues[queue_nr].on_heap = false;
	return ret < 0 ? ret : 0;
}

bool itrace__kernel_ip(const struct itrace *it, u64 ip)
{
	return ip >= it->machine->kernel_start;
}

/* ---- code bytes: dso files mapped once, few per trace ---- */

struct itrace_code {
	struct dso *dso;	/* not a reference: dsos live as long as the machine */
	const u8 *data;	/* the file mapped, or NULL */
	size_t size;
	char *path;
};
#define MAX_CODE_FILES 64

static void code_files_close(struct itrace *it)
{
	if (!it->code)
		return;
	for (size_t i = 0; i < MAX_CODE_FILES && it->code[i].dso; i++) {
		if (it->code[i].data)
			munmap((void *)it->code[i].data, it->code[i].size);
		free(it->code[i].path);
	}
	free(it->code);
	it->code = NULL;
}

static const struct itrace_code *code_file(struct itrace *it, struct dso *dso)
{
	char path[4096];
	struct itrace_code *c;
	struct stat st;
	size_t i;
	int fd;

	if (!it->code)
		it->code = xcalloc(MAX_CODE_FILES, sizeof(*it->code));
	for (i = 0; i < MAX_CODE_FILES && it->code[i].dso; i++)
		if (it->code[i].dso == dso)
			return &it->code[i];
	if (i == MAX_CODE_FILES) {	/* full: the oldest goes */
		if (it->code[0].data)
			munmap((void *)it->code[0].data, it->code[0].size);
		free(it->code[0].path);
		memmove(it->code, it->code + 1, (MAX_CODE_FILES - 1) * sizeof(*it->code));
		i = MAX_CODE_FILES - 1;
		itrace__code_changed(it);
	}
	c = &it->code[i];
	*c = (struct itrace_code){ .dso = dso };
	if (dso->kind != DSO_KIND_USER ||
	    symtab__dso_file(&it->machine->symsrc, dso->long_name, dso->build_id,
			     dso->build_id_size, path, sizeof(path)))
		return c;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return c;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			c->data = p;
			c->size = (size_t)st.st_size;
			c->path = xstrdup(path);
		}
	}
	close(fd);
	return c;
}

void itrace__code_changed(struct itrace *it)
{
	it->code_cache.start = it->code_cache.end = 0;
	it->code_generation++;
}

/* perf's intel_pt_walk_next_insn / intel_bts_get_next_insn: thread -> map -> dso file */
static int code_lookup(struct itrace *it, s32 tid, u64 ip)
{
	struct itrace_code_cache *cc = &it->code_cache;
	struct thread *t = machine__find_thread(it->machine, tid);
	const struct itrace_code *c = NULL;
	struct addr_location al;

	if (!t)
		return -1;
	machine__resolve_map(it->machine, t,
			     itrace__kernel_ip(it, ip) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
			     ip, &al);
	if (al.map && al.map->dso)
		c = code_file(it, al.map->dso);
	if (c && c->data) {
		*cc = (struct itrace_code_cache){ tid, al.map->start, al.map->end, ip - al.addr,
						  c->data, c->size, c->path };
	}
	thread__put(t);
	return c && c->data ? 0 : -1;
}

ssize_t itrace__read_code(struct itrace *it, s32 tid, u64 ip, u8 *buf, size_t size)
{
	struct itrace_code_cache *cc = &it->code_cache;
	u64 off;

	if ((tid != cc->tid || ip < cc->start || ip >= cc->end) && code_lookup(it, tid, ip))
		return -1;
	off = ip - cc->delta;
	if (off >= cc->size)
		return -1;
	size = MIN(size, (size_t)(cc->size - off));
	size = MIN(size, (size_t)(cc->end - ip));	/* the map ends there */
	memcpy(buf, cc->data + off, size);
	return (ssize_t)size;
}

const struct evsel *itrace__aux_evsel(const struct itrace *it)
{
	const struct perf_session *s = it->session;

	for (size_t i = 0; i < s->nr_evsels; i++)
		if (s->evsels[i].attr.type == it->pmu_type && s->evsels[i].nr_ids)
			return &s->evsels[i];
	return NULL;
}

/* perf's intel_bts_synth_events / intel_pt_synth_event: the AUX event's exclusions */
struct evsel *itrace__add_evsel(struct itrace *it, const struct evsel *aux, u32 type,
				u64 config, u64 period, u64 sample_type, const char *name)
{
	struct evsel *e = &it->evsels[it->nr_evsels];
	struct perf_event_attr *attr = &e->attr;
	char buf[64];

	memset(e, 0, sizeof(*e));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->sample_period = period;
	attr->sample_type = sample_type;
	attr->exclude_user = aux->attr.exclude_user;
	attr->exclude_kernel = aux->attr.exclude_kernel;
	attr->exclude_hv = aux->attr.exclude_hv;
	attr->exclude_host = aux->attr.exclude_host;
	attr->exclude_guest = aux->attr.exclude_guest;
	attr->sample_id_all = aux->attr.sample_id_all;
	attr->read_format = aux->attr.read_format;
	sample_layout_init(&e->layout, attr);
	e->idx = (int)(it->session->nr_evsels + it->nr_evsels);
	e->name = xstrdup(name ? name : evsel_name__from_attr(attr, buf, sizeof(buf)));
	it->nr_evsels++;
	return e;
}

void itrace__error(struct itrace *it, u32 code, s32 cpu, s32 pid, s32 tid, u64 ip, u64 time,
		   const char *msg)
{
	struct itrace_error e = { code, cpu, pid, tid, ip, msg, time };

	if (it->consumer->error)
		it->consumer->error(it->consumer, &e);
}
