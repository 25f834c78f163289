/*
 * dump: perf report -D's raw dump (perf 6.1: session.c dump_event/dump_sample, event.c
 * perf_event__fprintf_*, debug.c trace_event, and the dump_printf()s of machine.c and the
 * perf report tool callbacks). Prints records; never changes the model, which the consumer
 * it forwards to keeps current.
 */
#include "analyzer/output/dump.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "machine/machine.h"
#include "readers/evsel_name.h"

#define PIPE_OFFSET_BASE PERF_PIPE_HEADER_SIZE	/* perf counts pipe offsets after its header */

/* ---- the hex dump (debug.c trace_event + print_binary) ---- */

void dump_fprintf_hex(FILE *fp, const struct perf_event_header *event)
{
	const u8 *data = (const u8 *)event;
	size_t len = event->size;

	fprintf(fp, ".\n. ... raw event: size %u bytes\n", event->size);
	for (size_t line = 0; line < len; line += 16) {
		size_t n = len - line < 16 ? len - line : 16;

		fprintf(fp, ".  %04zx: ", line);
		for (size_t i = 0; i < 16; i++) {
			if (i < n)
				fprintf(fp, " %02x", data[line + i]);
			else
				fputs("   ", fp);
		}
		fputs("  ", fp);
		for (size_t i = 0; i < n; i++) {
			u8 ch = data[line + i];

			fputc(ch >= 0x20 && ch < 0x7f ? ch : '.', fp);
		}
		for (size_t i = n; i < 16; i++)
			fputc(' ', fp);
		fputc('\n', fp);
	}
	fputc('\n', fp);
}

/* ---- record layouts perf's event.h defines and readers/format.h does not ---- */

struct dump_id_index_entry {
	u64 id, idx, cpu, tid;
};

struct dump_thread_map_entry {
	u64 pid;
	char comm[16];
};

/* A record's body past the header, or NULL when it is shorter than `need` bytes. */
static const u8 *body(const struct perf_event_header *event, size_t need)
{
	if (event->size < sizeof(*event) + need)
		return NULL;
	return (const u8 *)(event + 1);
}

static u64 get_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u32 get_u32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u16 get_u16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A string field of a record, bounded by the record's end. */
static int str_len(const struct perf_event_header *event, const char *s)
{
	const char *end = (const char *)event + event->size;
	const char *nul;

	if (s >= end)
		return 0;
	nul = memchr(s, '\0', end - s);
	return (int)((nul ? nul : end) - s);
}

/* ---- cpu maps (perf's cpu_map__new_data + cpu_map__snprint) ---- */

struct cpu_list {
	int *cpu;
	size_t nr, cap;
};

static void cpu_list__add(struct cpu_list *l, int cpu)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		int *p = realloc(l->cpu, cap * sizeof(*p));

		if (!p)
			return;
		l->cpu = p;
		l->cap = cap;
	}
	l->cpu[l->nr++] = cpu;
}

/* perf_record_cpu_map_data: u16 type, then CPUS {u16 nr, u16 cpu[]}, MASK {u16 nr,
 * u16 long_size, [4 pad if 8,] mask[]} or RANGE {u8 any_cpu, u8 pad, u16 start, u16 end}. */
static bool cpu_map_decode(const u8 *data, size_t size, struct cpu_list *l)
{
	u16 type, nr, long_size;

	if (size < 2)
		return false;
	type = get_u16(data);
	switch (type) {
	case 0:	/* PERF_CPU_MAP__CPUS */
		if (size < 4)
			return false;
		nr = get_u16(data + 2);
		if (4 + (size_t)nr * 2 > size)
			return false;
		for (u16 i = 0; i < nr; i++) {
			u16 c = get_u16(data + 4 + i * 2);

			cpu_list__add(l, c == (u16)-1 ? -1 : (int)c);
		}
		return true;
	case 1:	/* PERF_CPU_MAP__MASK */
		if (size < 6)
			return false;
		nr = get_u16(data + 2);
		long_size = get_u16(data + 4);
		if (long_size == 4) {
			if (6 + (size_t)nr * 4 > size)
				return false;
			for (u16 i = 0; i < nr; i++) {
				u32 m = get_u32(data + 6 + i * 4);

				for (int b = 0; b < 32; b++)
					if (m & (1u << b))
						cpu_list__add(l, i * 32 + b);
			}
			return true;
		}
		if (long_size == 8) {
			if (10 + (size_t)nr * 8 > size)
				return false;
			for (u16 i = 0; i < nr; i++) {
				u64 m = get_u64(data + 10 + i * 8);

				for (int b = 0; b < 64; b++)
					if (m & (1ull << b))
						cpu_list__add(l, i * 64 + b);
			}
			return true;
		}
		return false;
	case 2:	/* PERF_CPU_MAP__RANGE_CPUS */
		if (size < 8)
			return false;
		if (data[2])
			cpu_list__add(l, -1);
		for (int c = get_u16(data + 4); c <= get_u16(data + 6); c++)
			cpu_list__add(l, c);
		return true;
	default:
		return false;
	}
}

static int cpu_at(const struct cpu_list *l, size_t i)
{
	return i < l->nr ? l->cpu[i] : -1;
}

/* cpu_map__fprintf: ranges of consecutive entries, "0-3,5", and a newline. */
static void cpu_list__fprintf(FILE *fp, const struct cpu_list *l)
{
	bool first = true;
	long start = -1;

	for (size_t i = 0; i < l->nr + 1; i++) {
		bool last = i == l->nr;
		int cpu = last ? 0x7fffffff : l->cpu[i];

		if (start == -1) {
			start = (long)i;
			if (last)
				fprintf(fp, "%s%d", first ? "" : ",", cpu_at(l, i));
		} else if ((long)i - start != (long)cpu - cpu_at(l, start) || last) {
			size_t end = i - 1;

			if ((size_t)start == end)
				fprintf(fp, "%s%d", first ? "" : ",", cpu_at(l, start));
			else
				fprintf(fp, "%s%d-%d", first ? "" : ",", cpu_at(l, start),
					cpu_at(l, end));
			first = false;
			start = (long)i;
		}
	}
	fputc('\n', fp);
}

/* ---- per-record details ---- */

static void fprintf_mmap(FILE *fp, const struct perf_event_header *event)
{
	const struct perf_record_mmap *ev = (const void *)event;

	if (!body(event, sizeof(*ev) - sizeof(*event)))
		return;
	fprintf(fp, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]: %c %.*s\n",
		(s32)ev->pid, (s32)ev->tid, (u64)ev->start, (u64)ev->len, (u64)ev->pgoff,
		event->misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x',
		str_len(event, ev->filename), ev->filename);
}

static void fprintf_mmap2(FILE *fp, const struct perf_event_header *event)
{
	const struct perf_record_mmap2 *ev = (const void *)event;
	char prot[5];

	if (!body(event, sizeof(*ev) - sizeof(*event)))
		return;
	prot[0] = ev->prot & 1 ? 'r' : '-';	/* PROT_READ */
	prot[1] = ev->prot & 2 ? 'w' : '-';	/* PROT_WRITE */
	prot[2] = ev->prot & 4 ? 'x' : '-';	/* PROT_EXEC */
	prot[3] = ev->flags & 1 ? 's' : 'p';	/* MAP_SHARED */
	prot[4] = '\0';
	fprintf(fp, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (s32)ev->pid,
		(s32)ev->tid, (u64)ev->start, (u64)ev->len, (u64)ev->pgoff);
	if (event->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		size_t n = ev->build_id_size < 20 ? ev->build_id_size : 20;

		fputs(" <", fp);
		for (size_t i = 0; i < n; i++)
			fprintf(fp, "%02x", ev->build_id[i]);
		fputc('>', fp);
	} else {
		fprintf(fp, " %02x:%02x %" PRIu64 " %" PRIu64, ev->maj, ev->min, (u64)ev->ino,
			(u64)ev->ino_generation);
	}
	fprintf(fp, "]: %s %.*s\n", prot, str_len(event, ev->filename), ev->filename);
}

static void fprintf_comm(FILE *fp, const struct perf_event_header *event)
{
	const struct perf_record_comm *ev = (const void *)event;

	if (!body(event, sizeof(*ev) - sizeof(*event)))
		return;
	fprintf(fp, "%s: %.*s:%d/%d\n", event->misc & PERF_RECORD_MISC_COMM_EXEC ? " exec" : "",
		str_len(event, ev->comm), ev->comm, (s32)ev->pid, (s32)ev->tid);
}

static void fprintf_task(FILE *fp, const struct perf_event_header *event)
{
	const struct perf_record_fork *ev = (const void *)event;

	if (!body(event, sizeof(*ev) - sizeof(*event)))
		return;
	fprintf(fp, "(%d:%d):(%d:%d)\n", (s32)ev->pid, (s32)ev->tid, (s32)ev->ppid,
		(s32)ev->ptid);
}

static void fprintf_switch(FILE *fp, const struct perf_event_header *event)
{
	bool out = event->misc & PERF_RECORD_MISC_SWITCH_OUT;
	const char *in_out = !out ? "IN         " :
			     !(event->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT        " :
										     "OUT preempt";
	const u8 *b;

	if (event->type == PERF_RECORD_SWITCH) {
		fprintf(fp, " %s\n", in_out);
		return;
	}
	if (!(b = body(event, 8)))
		return;
	fprintf(fp, " %s  %s pid/tid: %5d/%-5d\n", in_out, out ? "next" : "prev",
		(s32)get_u32(b), (s32)get_u32(b + 4));
}

static void fprintf_namespaces(FILE *fp, const struct perf_event_header *event)
{
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };
	const u8 *b = body(event, 16);
	u64 nr;

	if (!b)
		return;
	nr = get_u64(b + 8);
	fprintf(fp, " %d/%d - nr_namespaces: %u\n\t\t[", (s32)get_u32(b), (s32)get_u32(b + 4),
		(u32)nr);
	for (u32 i = 0; i < (u32)nr; i++) {
		const u8 *e = b + 16 + (size_t)i * 16;

		if (e + 16 > (const u8 *)event + event->size)
			break;
		if (i && i % 4 == 0)
			fputs("\n\t\t ", fp);
		fprintf(fp, "%u/%s: %" PRIu64 "/%#" PRIx64 "%s", i,
			i < ARRAY_SIZE(names) ? names[i] : "UNKNOWN", get_u64(e), get_u64(e + 8),
			i + 1 != (u32)nr ? ", " : "]\n");
	}
}

static void fprintf_id_index(FILE *fp, const struct perf_event_header *event)
{
	const u8 *b = body(event, 8);
	size_t sz, nr, e1 = sizeof(struct dump_id_index_entry), e2 = 16;
	const u8 *ext = NULL;

	if (!b)
		return;
	sz = event->size - sizeof(*event) - 8;
	nr = get_u64(b);
	if (nr > sz / e1) {
		fprintf(fp, "Too big: nr %zu max_nr %zu\n", nr, sz / e1);
		return;
	}
	/* perf 6.1: a second array of {machine_pid, vcpu} may follow the entries */
	if (sz >= nr * (e1 + e2))
		ext = b + 8 + nr * e1;
	fprintf(fp, " nr: %zu\n", nr);
	for (size_t i = 0; i < nr; i++) {
		const u8 *e = b + 8 + i * e1;

		fprintf(fp, " ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %" PRId64 "  tid: %" PRId64,
			get_u64(e), get_u64(e + 8), (s64)get_u64(e + 16), (s64)get_u64(e + 24));
		if (ext)
			fprintf(fp, "  machine_pid: %" PRId64 "  vcpu: %" PRIu64 "\n",
				(s64)get_u64(ext + i * e2), get_u64(ext + i * e2 + 8));
		else
			fputc('\n', fp);
	}
}

static void fprintf_event_update(FILE *fp, const struct perf_event_header *event)
{
	const u8 *b = body(event, 16);
	size_t len;
	struct cpu_list cpus = { 0 };
	double scale;

	if (!b)
		return;
	len = event->size - sizeof(*event) - 16;
	fprintf(fp, "\n... id:    %" PRIu64 "\n", get_u64(b + 8));
	switch (get_u64(b)) {
	case 0:	/* PERF_EVENT_UPDATE__UNIT */
		fprintf(fp, "... unit:  %.*s\n", (int)strnlen((const char *)b + 16, len), b + 16);
		break;
	case 1:	/* PERF_EVENT_UPDATE__SCALE */
		if (len < sizeof(scale))
			break;
		memcpy(&scale, b + 16, sizeof(scale));
		fprintf(fp, "... scale: %f\n", scale);
		break;
	case 2:	/* PERF_EVENT_UPDATE__NAME */
		fprintf(fp, "... name:  %.*s\n", (int)strnlen((const char *)b + 16, len), b + 16);
		break;
	case 3:	/* PERF_EVENT_UPDATE__CPUS */
		fputs("... ", fp);
		if (cpu_map_decode(b + 16, len, &cpus))
			cpu_list__fprintf(fp, &cpus);
		else
			fputs("failed to get cpus\n", fp);
		free(cpus.cpu);
		break;
	default:
		fputs("... unknown type\n", fp);
		break;
	}
}

static void fprintf_thread_map(FILE *fp, const struct perf_event_header *event)
{
	const u8 *b = body(event, 8);
	const struct dump_thread_map_entry *e;
	u64 nr;

	fputs(" nr: ", fp);
	if (!b || (nr = get_u64(b)) > (event->size - sizeof(*event) - 8) / sizeof(*e)) {
		fputs("failed to get threads from event\n", fp);
		return;
	}
	fprintf(fp, "%d thread%s: ", (int)nr, nr > 1 ? "s" : "");
	for (u64 i = 0; i < nr; i++)
		fprintf(fp, "%s%d", i ? ", " : "",
			(int)get_u64(b + 8 + i * sizeof(*e) + offsetof(struct dump_thread_map_entry, pid)));
	fputc('\n', fp);
}

static void fprintf_cpu_map(FILE *fp, const struct perf_event_header *event)
{
	struct cpu_list cpus = { 0 };

	fputs(": ", fp);
	if (cpu_map_decode((const u8 *)(event + 1), event->size - sizeof(*event), &cpus))
		cpu_list__fprintf(fp, &cpus);
	else
		fputs("failed to get cpumap from event\n", fp);
	free(cpus.cpu);
}

static void fprintf_time_conv(FILE *fp, const struct perf_event_header *event)
{
	const u8 *b = body(event, 24);

	if (!b)
		return;
	fprintf(fp, "\n... Time Shift      %" PRIu64 "\n", get_u64(b));
	fprintf(fp, "... Time Muliplier  %" PRIu64 "\n", get_u64(b + 8));
	fprintf(fp, "... Time Zero       %" PRIu64 "\n", get_u64(b + 16));
	/* the extended fields, when the record is long enough to hold them */
	if (event->size > sizeof(*event) + 24 && event->size >= sizeof(*event) + 42) {
		fprintf(fp, "... Time Cycles     %" PRIu64 "\n", get_u64(b + 24));
		fprintf(fp, "... Time Mask       %#" PRIx64 "\n", get_u64(b + 32));
		fprintf(fp, "... Cap Time Zero   %" PRId32 "\n", (s32)b[40]);
		fprintf(fp, "... Cap Time Short  %" PRId32 "\n", (s32)b[41]);
	}
}

static void fprintf_stat_config(FILE *fp, const struct perf_event_header *event)
{
	const u8 *b = body(event, 8);
	u64 nr, aggr_mode = 0, scale = 0, interval = 0;

	if (!b)
		return;
	nr = get_u64(b);
	for (u64 i = 0; i < nr && 8 + (i + 1) * 16 <= event->size - sizeof(*event); i++) {
		u64 tag = get_u64(b + 8 + i * 16), val = get_u64(b + 16 + i * 16);

		if (tag == 1)
			aggr_mode = val;
		else if (tag == 2)
			scale = val;
		else if (tag == 3)
			interval = val;
	}
	fprintf(fp, "\n... aggr_mode %d\n... scale     %d\n... interval  %u\n", (int)aggr_mode,
		(int)scale, (unsigned)interval);
}

void dump_fprintf_details(FILE *fp, const struct perf_event_header *event)
{
	const u8 *b;

	switch (event->type) {
	case PERF_RECORD_MMAP:
		fprintf_mmap(fp, event);
		break;
	case PERF_RECORD_MMAP2:
		fprintf_mmap2(fp, event);
		break;
	case PERF_RECORD_COMM:
		fprintf_comm(fp, event);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fprintf_task(fp, event);
		break;
	case PERF_RECORD_LOST:
		if ((b = body(event, 16)))
			fprintf(fp, ": id:%" PRIu64 ": lost:%" PRIu64 "\n", get_u64(b), get_u64(b + 8));
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_FINISHED_INIT:
		fputs(": unhandled!\n", fp);
		break;
	case PERF_RECORD_AUX:
		if ((b = body(event, 24))) {
			u64 flags = get_u64(b + 16);

			fprintf(fp, " offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#" PRIx64
				" [%s%s%s]\n", get_u64(b), get_u64(b + 8), flags,
				flags & PERF_AUX_FLAG_TRUNCATED ? "T" : "",
				flags & PERF_AUX_FLAG_OVERWRITE ? "O" : "",
				flags & PERF_AUX_FLAG_PARTIAL ? "P" : "");
		}
		break;
	case PERF_RECORD_ITRACE_START:
		if ((b = body(event, 8)))
			fprintf(fp, " pid: %u tid: %u\n", get_u32(b), get_u32(b + 4));
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		fprintf_switch(fp, event);
		break;
	case PERF_RECORD_NAMESPACES:
		fprintf_namespaces(fp, event);
		break;
	case PERF_RECORD_KSYMBOL: {
		const struct perf_record_ksymbol *ev = (const void *)event;

		if (body(event, sizeof(*ev) - sizeof(*event)))
			fprintf(fp, " addr %" PRIx64 " len %u type %u flags 0x%x name %.*s\n",
				(u64)ev->addr, ev->len, ev->ksym_type, ev->flags,
				str_len(event, ev->name), ev->name);
		break;
	}
	case PERF_RECORD_BPF_EVENT:
		if ((b = body(event, 8)))
			fprintf(fp, " type %u, flags %u, id %u\n", get_u16(b), get_u16(b + 2),
				get_u32(b + 4));
		break;
	case PERF_RECORD_CGROUP:
		if ((b = body(event, 8)))
			fprintf(fp, " cgroup: %" PRIu64 " %.*s\n", get_u64(b),
				str_len(event, (const char *)b + 8), b + 8);
		break;
	case PERF_RECORD_TEXT_POKE:
		if ((b = body(event, 12)))
			fprintf(fp, " %" PRIx64 "  old len %u new len %u\n", get_u64(b),
				get_u16(b + 8), get_u16(b + 10));
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		if ((b = body(event, 8)))
			fprintf(fp, " hw_id: %#" PRIx64 "\n", get_u64(b));
		break;
	case PERF_RECORD_FINISHED_ROUND:
		fputc('\n', fp);	/* perf_event__process_finished_round, before the flush */
		break;
	case PERF_RECORD_ID_INDEX:
		fprintf_id_index(fp, event);
		break;
	case PERF_RECORD_AUXTRACE_INFO:
		if ((b = body(event, 4)))
			fprintf(fp, " type: %u\n", get_u32(b));
		break;
	case PERF_RECORD_AUXTRACE:
		if ((b = body(event, 36)))
			fprintf(fp, " size: %#" PRIx64 "  offset: %#" PRIx64 "  ref: %#" PRIx64
				"  idx: %u  tid: %d  cpu: %d\n", get_u64(b), get_u64(b + 8),
				get_u64(b + 16), get_u32(b + 24), (s32)get_u32(b + 28),
				(s32)get_u32(b + 32));
		break;
	case PERF_RECORD_THREAD_MAP:
		fprintf_thread_map(fp, event);
		fputs(": unhandled!\n", fp);
		break;
	case PERF_RECORD_CPU_MAP:
		fprintf_cpu_map(fp, event);
		fputs(": unhandled!\n", fp);
		break;
	case PERF_RECORD_STAT_CONFIG:
		fprintf_stat_config(fp, event);
		fputs(": unhandled!\n", fp);
		break;
	case PERF_RECORD_STAT:
		if ((b = body(event, 40))) {
			fprintf(fp, "\n... id %" PRIu64 ", cpu %d, thread %d\n", get_u64(b),
				(s32)get_u32(b + 8), (s32)get_u32(b + 12));
			fprintf(fp, "... value %" PRIu64 ", enabled %" PRIu64 ", running %" PRIu64 "\n",
				get_u64(b + 16), get_u64(b + 24), get_u64(b + 32));
		}
		fputs(": unhandled!\n", fp);
		break;
	case PERF_RECORD_STAT_ROUND:
		if ((b = body(event, 16)))
			fprintf(fp, "\n... time %" PRIu64 ", type %s\n", get_u64(b + 8),
				get_u64(b) == 1 ? "FINAL" : "INTERVAL");
		fputs(": unhandled!\n", fp);
		break;
	case PERF_RECORD_EVENT_UPDATE:
		fprintf_event_update(fp, event);
		break;
	case PERF_RECORD_TIME_CONV:
		fprintf_time_conv(fp, event);
		fputs(": unhandled!\n", fp);
		break;
	default:
		/* ATTR, EVENT_TYPE, TRACING_DATA, BUILD_ID, FEATURE, AUXTRACE_ERROR: nothing */
		break;
	}
}

/* ---- samples (session.c dump_sample) ---- */

static const char *x86_reg_name(unsigned int id)
{
	static const char *const names[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
		"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
	};
	static char xmm[32][8];

	if (id < ARRAY_SIZE(names))
		return names[id];
	if (id >= 32 && id < 64) {
		/* XMM0..XMM15, two u64 halves each; perf names both halves alike */
		unsigned int n = (id - 32) / 2;

		snprintf(xmm[id - 32], sizeof(xmm[0]), "XMM%u", n);
		return xmm[id - 32];
	}
	return "unknown";
}

static void fprintf_regs(FILE *fp, const char *type, u64 abi, u64 mask, const u64 *regs)
{
	static const char *const abis[] = { "none", "32-bit", "64-bit" };
	unsigned int i = 0;

	fprintf(fp, "... %s regs: mask 0x%" PRIx64 " ABI %s\n", type, mask,
		abi < ARRAY_SIZE(abis) ? abis[abi] : "unknown");
	for (unsigned int rid = 0; rid < 64; rid++)
		if (mask & (1ull << rid))
			fprintf(fp, ".... %-5s 0x%016" PRIx64 "\n", x86_reg_name(rid), regs[i++]);
}

/* util/units.c unit_number__scnprintf via get_page_size_name */
static const char *page_size_name(u64 size, char *buf, size_t len)
{
	static const char units[] = "BKMG";
	int i = 0;

	if (!size) {
		snprintf(buf, len, "N/A");
		return buf;
	}
	while (size / 1024 > 1 && i < 3) {
		size /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", size, units[i]);
	return buf;
}

static void fprintf_callchain(FILE *fp, const struct perf_sample *s,
			      const struct perf_event_attr *attr)
{
	const u64 *chain = s->callchain;
	u64 nr = chain[0];

	if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) && s->branch_stack) {
		/* LBR call stack: the kernel part of the chain, then the LBR entries */
		const u64 *br = s->branch_stack;
		const u64 *entries = br + 1 + !!(attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
		u64 i;

		for (i = 0; i < nr; i++)
			if (chain[1 + i] == (u64)PERF_CONTEXT_USER)
				break;
		if (i != nr && br[0]) {
			u64 knr = i + 1;

			fprintf(fp, "... LBR call chain: nr:%" PRIu64 "\n", i + 1 + br[0] + 1);
			for (i = 0; i < knr; i++)
				fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)i, chain[1 + i]);
			fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)knr, entries[1]);
			for (i = 0; i < br[0]; i++)
				fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)(i + knr + 1),
					entries[i * 3]);
		}
	}
	fprintf(fp, "... FP chain: nr:%" PRIu64 "\n", nr);
	for (u64 i = 0; i < nr; i++)
		fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)i, chain[1 + i]);
}

static void fprintf_branch_stack(FILE *fp, const struct perf_sample *s,
				 const struct perf_event_attr *attr)
{
	const u64 *br = s->branch_stack;
	const u64 *e = br + 1 + !!(attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	bool callstack = attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK;

	if (!callstack)
		fprintf(fp, "... branch stack: nr:%" PRIu64 "\n", br[0]);
	else
		fprintf(fp, "... branch callstack: nr:%" PRIu64 "\n", br[0] + 1);
	for (u64 i = 0; i < br[0]; i++) {
		u64 from = e[i * 3], to = e[i * 3 + 1], flags = e[i * 3 + 2];

		if (!callstack) {
			/* perf_branch_entry flags: mispred, predicted, in_tx, abort, cycles:16 */
			fprintf(fp, "..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64
				" %hu cycles %s%s%s%s %x\n", i, from, to,
				(unsigned short)((flags >> 4) & 0xffff), flags & 1 ? "M" : " ",
				flags & 2 ? "P" : " ", flags & 8 ? "A" : " ", flags & 4 ? "T" : " ",
				(unsigned)(flags >> 24));
		} else if (i == 0) {
			fprintf(fp, "..... %2" PRIu64 ": %016" PRIx64 "\n..... %2" PRIu64
				": %016" PRIx64 "\n", i, to, i + 1, from);
		} else {
			fprintf(fp, "..... %2" PRIu64 ": %016" PRIx64 "\n", i + 1, from);
		}
	}
}

static void fprintf_sample_read(FILE *fp, const struct perf_sample *s, u64 fmt)
{
	const u64 *r = s->read;
	size_t k = 0;

	fputs("... sample_read:\n", fp);
	if (fmt & PERF_FORMAT_GROUP) {
		u64 nr = r[k++];

		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			fprintf(fp, "...... time enabled %016" PRIx64 "\n", r[k++]);
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			fprintf(fp, "...... time running %016" PRIx64 "\n", r[k++]);
		fprintf(fp, ".... group nr %" PRIu64 "\n", nr);
		for (u64 i = 0; i < nr; i++) {
			u64 value = r[k++], id = fmt & PERF_FORMAT_ID ? r[k++] : 0;

			fprintf(fp, "..... id %016" PRIx64 ", value %016" PRIx64, id, value);
			if (fmt & PERF_FORMAT_LOST)
				fprintf(fp, ", lost %" PRIu64, r[k++]);
			fputc('\n', fp);
		}
	} else {
		u64 value = r[k++], id = 0, lost = 0;

		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			fprintf(fp, "...... time enabled %016" PRIx64 "\n", r[k++]);
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			fprintf(fp, "...... time running %016" PRIx64 "\n", r[k++]);
		if (fmt & PERF_FORMAT_ID)
			id = r[k++];
		if (fmt & PERF_FORMAT_LOST)
			lost = r[k++];
		fprintf(fp, "..... id %016" PRIx64 ", value %016" PRIx64, id, value);
		if (fmt & PERF_FORMAT_LOST)
			fprintf(fp, ", lost %" PRIu64, lost);
		fputc('\n', fp);
	}
}

void dump_fprintf_sample(FILE *fp, const struct perf_event_header *event,
			 const struct perf_sample *s, const struct perf_event_attr *attr)
{
	u64 type = attr->sample_type;
	char buf[32];

	fprintf(fp, "(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n",
		event->misc, (s32)s->pid, (s32)s->tid, s->ip, s->period, s->addr);
	if ((type & PERF_SAMPLE_CALLCHAIN) && s->callchain)
		fprintf_callchain(fp, s, attr);
	if ((type & PERF_SAMPLE_BRANCH_STACK) && s->branch_stack)
		fprintf_branch_stack(fp, s, attr);
	if ((type & PERF_SAMPLE_REGS_USER) && s->user_regs.regs)
		fprintf_regs(fp, "user", s->user_regs.abi, s->user_regs.mask, s->user_regs.regs);
	if ((type & PERF_SAMPLE_REGS_INTR) && s->intr_regs.regs)
		fprintf_regs(fp, "intr", s->intr_regs.abi, s->intr_regs.mask, s->intr_regs.regs);
	if (type & PERF_SAMPLE_STACK_USER) {
		/* perf's offset is where the size field sits in the record */
		u64 off = s->user_stack.data ?
			(u64)((const u8 *)s->user_stack.data - 8 - (const u8 *)event) : 0;

		fprintf(fp, "... ustack: size %" PRIu64 ", offset 0x%x\n",
			s->user_stack.size ? s->user_stack.dyn_size : 0, (unsigned)off);
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		if (type & PERF_SAMPLE_WEIGHT_STRUCT)
			fprintf(fp, "... weight: %" PRIu64 ",0x%x,0x%x\n", s->weight & 0xffffffff,
				(unsigned)((s->weight >> 32) & 0xffff), (unsigned)(s->weight >> 48));
		else
			fprintf(fp, "... weight: %" PRIu64 "\n", s->weight);
	}
	if (type & PERF_SAMPLE_DATA_SRC)
		fprintf(fp, " . data_src: 0x%" PRIx64 "\n", s->data_src);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		fprintf(fp, " .. phys_addr: 0x%" PRIx64 "\n", s->phys_addr);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		fprintf(fp, " .. data page size: %s\n",
			page_size_name(s->data_page_size, buf, sizeof(buf)));
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		fprintf(fp, " .. code page size: %s\n",
			page_size_name(s->code_page_size, buf, sizeof(buf)));
	if (type & PERF_SAMPLE_TRANSACTION)
		fprintf(fp, "... transaction: %" PRIx64 "\n", s->transaction);
	if ((type & PERF_SAMPLE_READ) && s->read)
		fprintf_sample_read(fp, s, attr->read_format);
}

/* ---- the consumer ---- */

/* perf's evlist__print_tstamp: cpu and time as the combined sample_type has them. */
static void fprintf_tstamp(struct dump *d, const struct perf_event_header *event,
			   const struct perf_sample *s)
{
	struct perf_session *ses = d->session;
	u64 type = 0;

	/* an empty evlist (a pipe before its first ATTR) reads as no sample_id_all */
	if (event->type != PERF_RECORD_SAMPLE &&
	    (!ses->nr_evsels || !ses->evsels[0].attr.sample_id_all)) {
		fputs("-1 -1 ", d->fp);
		return;
	}
	for (size_t i = 0; i < ses->nr_evsels; i++)
		type |= ses->evsels[i].attr.sample_type;
	if (type & PERF_SAMPLE_CPU)
		fprintf(d->fp, "%u ", s->cpu);
	if (type & PERF_SAMPLE_TIME)
		fprintf(d->fp, "%" PRIu64 " ", s->time);
}

/* session.c dump_event: where the record comes from, its bytes, then its decoded line. */
static void dump_event(struct dump *d, const struct perf_event_header *event, u64 offset,
		       const struct perf_sample *s, const char *path)
{
	if (d->session->is_pipe)
		offset -= PIPE_OFFSET_BASE;
	fprintf(d->fp, "\n%#" PRIx64 "@%s [%#x]: event: %u\n", offset, path, event->size,
		event->type);
	dump_fprintf_hex(d->fp, event);
	fprintf_tstamp(d, event, s);
	fprintf(d->fp, "%#" PRIx64 " [%#x]: PERF_RECORD_%s", offset, event->size,
		perf_event__name(event->type));
}

/* intel-bts.c's intel_bts_print_info: AUXTRACE_INFO's words, as far as the record has them */
static void fprintf_bts_info(FILE *fp, const struct perf_event_header *event)
{
	static const char *const names[] = { "PMU Type", "Time Shift", "Time Muliplier",
					     "Time Zero", "Cap Time Zero", "Snapshot mode" };
	const u8 *b = body(event, 8);
	size_t n = b ? (event->size - sizeof(*event) - 8) / 8 : 0;

	for (size_t i = 0; i < n && i < ARRAY_SIZE(names); i++) {
		u64 v = get_u64(b + 8 + 8 * i);

		if (i == 1 || i == 2 || i == 3)
			fprintf(fp, "  %-18s %" PRIu64 "\n", names[i], v);
		else
			fprintf(fp, "  %-18s %" PRId64 "\n", names[i], (s64)v);
	}
}

/* intel_bts_dump: the trace bytes that follow an AUXTRACE record, 24 a line */
static void fprintf_bts_data(FILE *fp, const u8 *buf, u64 len)
{
	u64 pos = 0;

	fprintf(fp, ".\n. ... Intel BTS data: size %" PRIu64 " bytes\n", len);
	while (len) {
		u64 sz = MIN(len, (u64)24), i;

		fprintf(fp, ".  %08" PRIx64 ": ", pos);
		for (i = 0; i < sz; i++)
			fprintf(fp, " %02x", buf[i]);
		for (; i < 24; i++)
			fputs("   ", fp);
		if (sz == 24) {
			u64 r[3];

			memcpy(r, buf, sizeof(r));
			fprintf(fp, " %" PRIx64 " -> %" PRIx64 " %s\n", r[0], r[1],
				r[2] & 0x10 ? "pred" : "miss");
		} else {
			fputs(" Bad record!\n", fp);
		}
		pos += sz;
		buf += sz;
		len -= sz;
	}
}

/* The AUX-area records' own dump, as the decoder of an Intel BTS trace prints it. */
static void dump_aux(struct dump *d, const struct perf_event_header *event, u64 file_offset)
{
	const u8 *b;

	if (event->type == PERF_RECORD_AUXTRACE_INFO && (b = body(event, 4))) {
		d->aux_type = get_u32(b);
		if (d->aux_type == 2 && event->size >= sizeof(*event) + 8 + 5 * 8)
			fprintf_bts_info(d->fp, event);
		else if (d->aux_type == 2)
			d->aux_type = 0;	/* perf refuses it */
	} else if (event->type == PERF_RECORD_AUXTRACE && d->aux_type == 2 && d->session->base &&
		   !d->session->is_dir && (b = body(event, 8))) {
		u64 size = get_u64(b), at = file_offset + event->size;

		/* the reader checked that the bytes lie in the data */
		if (at <= d->session->size && size <= d->session->size - at)
			fprintf_bts_data(d->fp, d->session->base + at, size);
	}
}

static void dump_raw(struct event_consumer *consumer, const struct perf_event_header *event,
		     const char *path, u64 file_offset)
{
	struct dump *d = container_of(consumer, struct dump, consumer);
	struct perf_sample zero = { 0 };

	if (event->type < PERF_RECORD_USER_TYPE_START) {
		/* printed at delivery; a directory's data.N files need their name then */
		if (d->session->is_dir && strcmp(path, d->session->data_path))
			hashmap_insert(&d->paths, (u64)(uintptr_t)event, (void *)path);
		return;
	}
	/* perf inflates COMPRESSED records without showing them */
	if (event->type == PERF_RECORD_COMPRESSED)
		return;
	dump_event(d, event, file_offset, &zero, path);
	if (d->maps_handled && event->type == PERF_RECORD_THREAD_MAP)
		fprintf_thread_map(d->fp, event);
	else if (d->maps_handled && event->type == PERF_RECORD_CPU_MAP)
		fprintf_cpu_map(d->fp, event);
	else
		dump_fprintf_details(d->fp, event);
	dump_aux(d, event, file_offset);
}

/* machine__resolve's dump lines: the sample's thread and the dso its ip falls in. */
static void fprintf_sample_location(struct dump *d, const struct perf_sample *s)
{
	u8 cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct thread *t = machine__findnew_thread(d->machine, (s32)s->pid, (s32)s->tid);
	struct addr_location al;

	fprintf(d->fp, " ... thread: %s:%d\n", thread__comm_str(t), t->tid);
	machine__resolve(d->machine, t, cpumode, s->ip, &al);
	if (al.map)
		fprintf(d->fp, " ...... dso: %s\n", al.map->dso->long_name);
	else if (cpumode != PERF_RECORD_MISC_KERNEL && cpumode != PERF_RECORD_MISC_USER)
		fputs(" ...... dso: [hypervisor]\n", d->fp);
	else
		fputs(" ...... dso: <not found>\n", d->fp);
	thread__put(t);
}

/* machine__process_fork_event drops a thread at ptid whose pid is not ppid, and says so. */
static void fprintf_fork_parent(struct dump *d, const struct perf_event_header *event)
{
	const struct perf_record_fork *ev = (const void *)event;
	struct thread *parent;

	if (event->size < sizeof(*ev))
		return;
	parent = machine__findnew_thread(d->machine, (s32)ev->ppid, (s32)ev->ptid);
	if (parent->pid != (s32)ev->ppid)
		fprintf(d->fp, "removing erroneous parent thread %d/%d\n", parent->pid, parent->tid);
	thread__put(parent);
}

static void dump_kernel_event(struct dump *d, struct event_ctx *ctx)
{
	const struct perf_event_header *event = ctx->event;
	const char *path = d->session->is_pipe ? "pipe" : d->session->data_path;

	if (d->session->is_dir) {
		const char *p = hashmap_remove(&d->paths, (u64)(uintptr_t)event);

		if (p)
			path = p;
	}
	dump_event(d, event, ctx->file_offset, &ctx->sample, path);
	switch (event->type) {
	case PERF_RECORD_SAMPLE:
		if (!ctx->evsel)
			return;
		dump_fprintf_sample(d->fp, event, &ctx->sample, &ctx->evsel->attr);
		return;	/* the location lines come with each sample delivered */
	case PERF_RECORD_READ: {
		const u8 *b = (const u8 *)(event + 1);
		u64 fmt = ctx->evsel ? ctx->evsel->attr.read_format : 0;

		/* perf reads its fixed perf_record_read layout, whatever read_format holds */
		if (event->size < sizeof(*event) + 16)
			return;
		fprintf(d->fp, ": %d %d %s %" PRIu64 "\n", (s32)get_u32(b), (s32)get_u32(b + 4),
			evsel__name(ctx->evsel),
			get_u64(b + 8));
		if ((fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) && event->size >= sizeof(*event) + 24)
			fprintf(d->fp, "... time enabled : %" PRIu64 "\n", get_u64(b + 16));
		if ((fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) && event->size >= sizeof(*event) + 32)
			fprintf(d->fp, "... time running : %" PRIu64 "\n", get_u64(b + 24));
		if ((fmt & PERF_FORMAT_ID) && event->size >= sizeof(*event) + 40)
			fprintf(d->fp, "... id           : %" PRIu64 "\n", get_u64(b + 32));
		return;
	}
	case PERF_RECORD_LOST:
		if (!d->lost_handled)	/* else the consumer's line follows on this one */
			dump_fprintf_details(d->fp, event);
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (event->size >= sizeof(*event) + 8)
			fprintf(d->fp, ": id:%" PRIu64 ": lost samples :%" PRIu64 "\n",
				ctx->sample.id, get_u64((const u8 *)(event + 1)));
		return;
	case PERF_RECORD_FORK:
		dump_fprintf_details(d->fp, event);
		fprintf_fork_parent(d, event);
		return;
	default:
		dump_fprintf_details(d->fp, event);
		return;
	}
}

/*
 * session.c deliver_sample_value: a PERF_SAMPLE_READ sample is one sample per counter value,
 * of the counter's own event, with the value's growth since that counter's last sample as
 * its period; counters that did not grow, or whose id no event has, give none.
 */
static int deliver_read_value(struct dump *d, struct event_ctx *ctx, u64 id, u64 value,
			      bool kept)
{
	struct event_ctx one = *ctx;
	u64 *prev;

	one.evsel = perf_session__evsel_by_id(d->session, id);
	if (!one.evsel)
		return 0;
	prev = hashmap_find(&d->read_values, id);
	if (!prev) {
		prev = calloc(1, sizeof(*prev));
		if (!prev)
			return -1;
		hashmap_insert(&d->read_values, id, prev);
	}
	one.sample.id = id;
	one.sample.period = value - *prev;
	*prev = value;
	if (!one.sample.period)
		return 0;
	if (kept)
		fprintf_sample_location(d, &one.sample);
	return d->next->deliver(d->next, &one);
}

static int deliver_read_sample(struct dump *d, struct event_ctx *ctx, bool kept)
{
	u64 fmt = ctx->evsel->attr.read_format;
	const u64 *r = ctx->sample.read;
	size_t k = 0, nr = 1;
	int ret = 0;

	if (fmt & PERF_FORMAT_GROUP)
		nr = r[k++];
	k += !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	for (size_t i = 0; i < nr && !ret; i++) {
		u64 value = r[k++], id = fmt & PERF_FORMAT_ID ? r[k++] : 0;

		k += !!(fmt & PERF_FORMAT_LOST);
		ret = deliver_read_value(d, ctx, id, value, kept);
	}
	return ret;
}

static int dump_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct dump *d = container_of(consumer, struct dump, consumer);
	const struct perf_event_header *event = ctx->event;
	bool kept;

	if (event->type >= PERF_RECORD_USER_TYPE_START)
		return d->next->deliver(d->next, ctx);
	dump_kernel_event(d, ctx);
	if (event->type != PERF_RECORD_SAMPLE)
		return d->next->deliver(d->next, ctx);
	kept = !d->keeps_sample || d->keeps_sample(d->next, ctx);
	/* a read sample's values are taken apart (their deltas kept) whether it is kept or not */
	if (ctx->evsel && (ctx->evsel->attr.sample_type & PERF_SAMPLE_READ) && ctx->sample.read)
		return deliver_read_sample(d, ctx, kept);
	if (kept)
		fprintf_sample_location(d, &ctx->sample);
	return d->next->deliver(d->next, ctx);
}

void dump__init(struct dump *d, struct perf_session *session, struct machine *machine,
		struct event_consumer *next, FILE *fp)
{
	memset(d, 0, sizeof(*d));
	d->consumer.deliver = dump_deliver;
	d->consumer.raw = dump_raw;
	d->next = next;
	d->session = session;
	d->machine = machine;
	d->fp = fp;
	hashmap_init(&d->paths);
	hashmap_init(&d->read_values);
}

void dump__exit(struct dump *d)
{
	u64 key;
	void *value;

	for (size_t i = 0; hashmap_next(&d->read_values, &i, &key, &value);)
		free(value);
	hashmap_exit(&d->read_values);
	hashmap_exit(&d->paths);
}
