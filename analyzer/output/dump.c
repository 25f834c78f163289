/*
 * dump: perf report -D's raw dump (perf 6.1: session.c dump_event/dump_sample, event.c
 * perf_event__fprintf_*, debug.c trace_event, and the dump_printf()s of machine.c and the
 * perf report tool callbacks). Prints records; never changes the model, which the consumer
 * it forwards to keeps current. This file: the hex dump and the records' decoded lines.
 */
#include "analyzer/output/dump_internal.h"

#include <inttypes.h>
#include <stdlib.h>

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

void dump_fprintf_thread_map(FILE *fp, const struct perf_event_header *event)
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

void dump_fprintf_cpu_map(FILE *fp, const struct perf_event_header *event)
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

/* The records the kernel writes (perf_event.h: types below PERF_RECORD_USER_TYPE_START) */
static void fprintf_kernel_details(FILE *fp, const struct perf_event_header *event)
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
	default:
		/* READ, SAMPLE, LOST_SAMPLES: nothing */
		break;
	}
}

/* The records perf itself writes (perf_event.h: PERF_RECORD_USER_TYPE_START on) */
static void fprintf_user_details(FILE *fp, const struct perf_event_header *event)
{
	const u8 *b;

	switch (event->type) {
	case PERF_RECORD_FINISHED_INIT:
		fputs(": unhandled!\n", fp);
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
		dump_fprintf_thread_map(fp, event);
		fputs(": unhandled!\n", fp);
		break;
	case PERF_RECORD_CPU_MAP:
		dump_fprintf_cpu_map(fp, event);
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

void dump_fprintf_details(FILE *fp, const struct perf_event_header *event)
{
	if (event->type < PERF_RECORD_USER_TYPE_START)
		fprintf_kernel_details(fp, event);
	else
		fprintf_user_details(fp, event);
}

