/*
 * swap: byte-order conversion of perf.data contents, in place, in both directions. Owns the
 * knowledge of which words of each header, attr and record are u64, u32, u16 or bytes (feature
 * sections: swap_feature.c); never interprets what the values mean. Every access is
 * bounds-checked. Facts from perf's tools/perf/util/session.c (perf_event__*_swap) and evsel.c
 * (evsel__parse_sample with needs_swap).
 */
#include "readers/decode/swap.h"

#include <string.h>

#include "readers/decode/swap_internal.h"

/* ---- file header, sections, record header ---- */

void swap_file_header(struct perf_file_header *header)
{
	u64 *w = (u64 *)header;

	/* every field is a u64, including the feature bitmap words */
	for (size_t i = 0; i < sizeof(*header) / 8; i++)
		w[i] = __builtin_bswap64(w[i]);
}

void swap_file_section(struct perf_file_section *section)
{
	section->offset = __builtin_bswap64(section->offset);
	section->size = __builtin_bswap64(section->size);
}

void swap_event_header(struct perf_event_header *header)
{
	header->type = __builtin_bswap32(header->type);
	header->misc = __builtin_bswap16(header->misc);
	header->size = __builtin_bswap16(header->size);
}

/* ---- perf_event_attr ---- */

static u8 reverse_bits(u8 b)
{
	b = (u8)((b >> 4) | (b << 4));
	b = (u8)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
	b = (u8)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
	return b;
}

/*
 * perf_event__attr_swap: the flags bitfield (8 bytes after read_format) is not byte-swapped;
 * the bits of each byte are reversed instead, because compilers allocate bitfields from the
 * other end on big-endian machines (swap_bitfield). Other fields are swapped when they lie
 * within the attr's own size field. perf forgets clockid, sample_regs_intr, sig_data and
 * config3; they are zero in most files (invariant), and swapping them is what a correct
 * reader needs, so we do.
 */
static const struct {
	u8 offset, width;
} attr_fields[] = {
	{ 8, 8 },	/* config */
	{ 16, 8 },	/* sample_period / freq */
	{ 24, 8 },	/* sample_type */
	{ 32, 8 },	/* read_format */
	{ 48, 4 },	/* wakeup_events / watermark */
	{ 52, 4 },	/* bp_type */
	{ 56, 8 },	/* bp_addr / config1 */
	{ 64, 8 },	/* bp_len / config2 */
	{ 72, 8 },	/* branch_sample_type */
	{ 80, 8 },	/* sample_regs_user */
	{ 88, 4 },	/* sample_stack_user */
	{ 92, 4 },	/* clockid */
	{ 96, 8 },	/* sample_regs_intr */
	{ 104, 4 },	/* aux_watermark */
	{ 108, 2 },	/* sample_max_stack */
	{ 112, 4 },	/* aux_sample_size */
	{ 120, 8 },	/* sig_data */
	{ 128, 8 },	/* config3 */
};

#define ATTR_FLAGS_OFFSET 40

void swap_attr_dir(void *attr, size_t size, bool to_native)
{
	struct cursor c = { .base = attr, .end = size, .to_native = to_native };
	size_t limit;
	u32 attr_size;

	cur_u32(&c);	/* type */
	attr_size = cur_u32(&c);
	if (c.bad)
		return;
	/* perf's read_attr: a zero size means the first ABI */
	limit = MIN(size, attr_size ? attr_size : PERF_ATTR_SIZE_VER0);
	for (size_t i = 0; i < ARRAY_SIZE(attr_fields); i++) {
		if (attr_fields[i].offset + attr_fields[i].width > limit)
			break;
		c.pos = attr_fields[i].offset;
		if (attr_fields[i].width == 8)
			cur_u64(&c);
		else if (attr_fields[i].width == 4)
			cur_u32(&c);
		else
			cur_u16(&c);
	}
	if (ATTR_FLAGS_OFFSET + 8 <= limit)
		for (size_t i = 0; i < 8; i++)
			((u8 *)attr)[ATTR_FLAGS_OFFSET + i] =
				reverse_bits(((u8 *)attr)[ATTR_FLAGS_OFFSET + i]);
}

void swap_attr(void *attr, size_t size)
{
	swap_attr_dir(attr, size, true);
}

/* ---- sample_id_all trailer and sample bodies ---- */

size_t swap_trailer_size(u64 sample_type)
{
	size_t n = 0;

	n += !!(sample_type & PERF_SAMPLE_TID);
	n += !!(sample_type & PERF_SAMPLE_TIME);
	n += !!(sample_type & PERF_SAMPLE_ID);
	n += !!(sample_type & PERF_SAMPLE_STREAM_ID);
	n += !!(sample_type & PERF_SAMPLE_CPU);
	n += !!(sample_type & PERF_SAMPLE_IDENTIFIER);
	return n * 8;
}

/* perf__parse_id_sample order; TID and CPU are u32 pairs (pid/tid, cpu/res). */
static void swap_trailer(struct cursor *c, u64 type)
{
	if (type & PERF_SAMPLE_TID)
		cur_u32s(c, 2);
	if (type & PERF_SAMPLE_TIME)
		cur_u64(c);
	if (type & PERF_SAMPLE_ID)
		cur_u64(c);
	if (type & PERF_SAMPLE_STREAM_ID)
		cur_u64(c);
	if (type & PERF_SAMPLE_CPU)
		cur_u32s(c, 2);
	if (type & PERF_SAMPLE_IDENTIFIER)
		cur_u64(c);
}

static void swap_read_values(struct cursor *c, u64 read_format)
{
	u64 per_value = 1 + !!(read_format & PERF_FORMAT_ID) + !!(read_format & (1ULL << 4));

	/* PERF_FORMAT_LOST is 1 << 4 (perf_event.h, 6.0+) */
	if (read_format & PERF_FORMAT_GROUP) {
		u64 nr = cur_u64(c);

		if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			cur_u64(c);
		if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			cur_u64(c);
		if (nr > (c->end - MIN(c->pos, c->end)) / 8 / per_value) {
			c->bad = true;
			return;
		}
		cur_u64s(c, nr * per_value);
	} else {
		cur_u64(c);
		if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			cur_u64(c);
		if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			cur_u64(c);
		cur_u64s(c, per_value - 1);
	}
}

/*
 * evsel__bitfield_swap_branch_flags: struct branch_flags fields from bit 0 up on a
 * little-endian host (mispred, predicted, in_tx, abort, cycles, type, spec, new_type, priv,
 * reserved). A big-endian writer allocates them from bit 63 down; after the u64 swap each
 * field moves to its mirrored position with its own bit order kept.
 */
static const struct {
	u8 offset, width;
} branch_flag_fields[] = {
	{ 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 16 },
	{ 20, 4 }, { 24, 2 }, { 26, 4 }, { 30, 3 }, { 33, 31 },
};

static u64 mirror_branch_flags(u64 v, bool to_native)
{
	u64 out = 0;

	for (size_t i = 0; i < ARRAY_SIZE(branch_flag_fields); i++) {
		unsigned int o = branch_flag_fields[i].offset, w = branch_flag_fields[i].width;
		unsigned int be = 64 - o - w;
		u64 mask = (1ULL << w) - 1;

		if (to_native)
			out |= ((v >> be) & mask) << o;
		else
			out |= ((v >> o) & mask) << be;
	}
	return out;
}

u64 swap_branch_flags(u64 value, bool to_native)
{
	if (to_native)
		return mirror_branch_flags(__builtin_bswap64(value), true);
	return __builtin_bswap64(mirror_branch_flags(value, false));
}

static void swap_branch_stack(struct cursor *c, const struct perf_event_attr *attr)
{
	u64 nr = cur_u64(c);

	if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		cur_u64(c);
	if (c->bad || nr > (c->end - MIN(c->pos, c->end)) / 24) {
		c->bad = true;
		return;
	}
	for (u64 i = 0; i < nr; i++) {
		u64 flags;

		cur_u64s(c, 2);	/* from, to */
		memcpy(&flags, c->base + c->pos, 8);
		flags = swap_branch_flags(flags, c->to_native);
		memcpy(c->base + c->pos, &flags, 8);
		c->pos += 8;
	}
}

static void swap_regs(struct cursor *c, u64 mask)
{
	u64 abi = cur_u64(c);

	if (abi)
		cur_u64s(c, (u64)__builtin_popcountll(mask));
}

/*
 * evsel__parse_sample with needs_swap: u64 words whole, TID and CPU per u32 half, RAW's u32
 * size swapped and its bytes left as written (libtraceevent reads them with the byte order
 * the tracing data announces), user stack and AUX bytes left alone.
 */
static void swap_sample(struct cursor *c, const struct perf_event_attr *attr)
{
	u64 type = attr->sample_type;

	if (type & PERF_SAMPLE_IDENTIFIER)
		cur_u64(c);
	if (type & PERF_SAMPLE_IP)
		cur_u64(c);
	if (type & PERF_SAMPLE_TID)
		cur_u32s(c, 2);
	if (type & PERF_SAMPLE_TIME)
		cur_u64(c);
	if (type & PERF_SAMPLE_ADDR)
		cur_u64(c);
	if (type & PERF_SAMPLE_ID)
		cur_u64(c);
	if (type & PERF_SAMPLE_STREAM_ID)
		cur_u64(c);
	if (type & PERF_SAMPLE_CPU)
		cur_u32s(c, 2);
	if (type & PERF_SAMPLE_PERIOD)
		cur_u64(c);
	if (type & PERF_SAMPLE_READ)
		swap_read_values(c, attr->read_format);
	if (type & PERF_SAMPLE_CALLCHAIN)
		cur_u64s(c, cur_u64(c));
	if (type & PERF_SAMPLE_RAW)
		cur_skip(c, cur_u32(c));
	if (type & PERF_SAMPLE_BRANCH_STACK)
		swap_branch_stack(c, attr);
	if (type & PERF_SAMPLE_REGS_USER)
		swap_regs(c, attr->sample_regs_user);
	if (type & PERF_SAMPLE_STACK_USER) {
		u64 size = cur_u64(c);

		if (size) {
			cur_skip(c, size);
			cur_u64(c);	/* dyn_size */
		}
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		cur_u64(c);	/* perf swaps the weight struct as one u64 too */
	if (type & PERF_SAMPLE_DATA_SRC)
		cur_u64(c);
	if (type & PERF_SAMPLE_TRANSACTION)
		cur_u64(c);
	if (type & PERF_SAMPLE_REGS_INTR)
		swap_regs(c, attr->sample_regs_intr);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		cur_u64(c);
	if (type & PERF_SAMPLE_CGROUP)
		cur_u64(c);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		cur_u64(c);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		cur_u64(c);
	if (type & PERF_SAMPLE_AUX)
		cur_skip(c, cur_u64(c));
	/* fields of sample_type bits newer than we know: perf swaps them as u64 */
	cur_rest_u64(c);
}

/* ---- CPU maps (CPU_MAP record and EVENT_UPDATE of type CPUS) ---- */

enum { CPU_MAP_CPUS = 0, CPU_MAP_MASK = 1, CPU_MAP_RANGE = 2 };

/*
 * perf_record_cpu_map_data (packed): u16 type, then CPUS {u16 nr, u16 cpu[]}, MASK {u16 nr,
 * u16 long_size, then u32 mask[] for long_size 4 or 4 bytes of padding and u64 mask[] for 8},
 * RANGE {u8 any_cpu, u8 pad, u16 start_cpu, u16 end_cpu}. The 64-bit mask layout is the one
 * perf 6.1 wrote with its unsigned long mask.
 */
static void swap_cpu_map_data(struct cursor *c)
{
	u16 type = cur_u16(c), nr, long_size;

	switch (type) {
	case CPU_MAP_CPUS:
		cur_u16s(c, cur_u16(c));
		break;
	case CPU_MAP_MASK:
		nr = cur_u16(c);
		long_size = cur_u16(c);
		if (long_size == 4) {
			cur_u32s(c, nr);
		} else if (long_size == 8) {
			cur_skip(c, 4);
			cur_u64s(c, nr);
		} else {
			c->bad = true;
		}
		break;
	case CPU_MAP_RANGE:
		cur_skip(c, 2);
		cur_u16(c);
		cur_u16(c);
		break;
	default:
		break;
	}
}

/* ---- records ---- */

enum { EVENT_UPDATE_UNIT = 0, EVENT_UPDATE_SCALE = 1, EVENT_UPDATE_NAME = 2,
       EVENT_UPDATE_CPUS = 3 };

#define AUXTRACE_ERROR_MSG_OFFSET 48	/* header 8, six u32, ip, time */
#define AUXTRACE_ERROR_MSG_SIZE 64

static void swap_user_record(struct cursor *c, struct perf_event_header *event)
{
	switch (event->type) {
	case PERF_RECORD_HEADER_ATTR: {
		/* attr (its own size), then u64 ids to the end */
		size_t attr_pos = c->pos;
		u32 attr_size;

		if (!cur_has(c, 8))
			return;
		memcpy(&attr_size, c->base + c->pos + 4, 4);
		if (c->to_native)
			attr_size = __builtin_bswap32(attr_size);
		if (!attr_size)
			attr_size = PERF_ATTR_SIZE_VER0;
		if (!cur_has(c, attr_size))
			return;
		swap_attr_dir(c->base + attr_pos, attr_size, c->to_native);
		c->pos += attr_size;
		if ((c->end - c->pos) % 8)
			c->bad = true;
		cur_rest_u64(c);
		break;
	}
	case PERF_RECORD_HEADER_EVENT_TYPE:
		cur_u64(c);	/* event_id; a 64-byte name follows */
		break;
	case PERF_RECORD_HEADER_TRACING_DATA:
		cur_u32(c);	/* size of the tracing data that follows the record */
		break;
	case PERF_RECORD_HEADER_BUILD_ID:
		cur_u32(c);	/* pid; build-id and file name are bytes (perf forgets the pid) */
		break;
	case PERF_RECORD_ID_INDEX:	/* nr, then {id, idx, cpu, tid} */
	case PERF_RECORD_STAT_CONFIG:	/* nr, then {tag, val} */
	case PERF_RECORD_STAT_ROUND:
		cur_rest_u64(c);
		break;
	case PERF_RECORD_AUXTRACE_INFO:
		cur_u32(c);	/* type */
		cur_skip(c, 4);
		cur_rest_u64(c);	/* priv[] */
		break;
	case PERF_RECORD_AUXTRACE:
		cur_u64s(c, 3);	/* size, offset, reference */
		cur_u32s(c, 3);	/* idx, tid, cpu */
		break;
	case PERF_RECORD_AUXTRACE_ERROR: {
		u32 fmt;

		cur_u32s(c, 5);	/* type, code, cpu, pid, tid */
		fmt = cur_u32(c);
		cur_u64(c);	/* ip */
		if (fmt && c->end - MIN(c->pos, c->end) >= 8)
			cur_u64(c);	/* time */
		if (fmt >= 2 && c->end >= AUXTRACE_ERROR_MSG_OFFSET + AUXTRACE_ERROR_MSG_SIZE + 8) {
			c->pos = AUXTRACE_ERROR_MSG_OFFSET + AUXTRACE_ERROR_MSG_SIZE;
			cur_u32s(c, 2);	/* machine_pid, vcpu */
		}
		break;
	}
	case PERF_RECORD_THREAD_MAP: {
		u64 nr = cur_u64(c);

		/* entries: u64 pid, char comm[16] */
		if (c->bad || nr > (c->end - c->pos) / 24) {
			c->bad = true;
			break;
		}
		for (u64 i = 0; i < nr; i++) {
			cur_u64(c);
			cur_skip(c, 16);
		}
		break;
	}
	case PERF_RECORD_CPU_MAP:
		swap_cpu_map_data(c);
		break;
	case PERF_RECORD_STAT:
		cur_u64(c);	/* id */
		cur_u32s(c, 2);	/* thread, cpu */
		cur_u64s(c, 3);	/* val, ena, run */
		break;
	case PERF_RECORD_EVENT_UPDATE: {
		u64 type = cur_u64(c);

		cur_u64(c);	/* id */
		/* perf swaps only type and id; the scale and cpu map need it just as much */
		if (type == EVENT_UPDATE_SCALE)
			cur_u64(c);
		else if (type == EVENT_UPDATE_CPUS)
			swap_cpu_map_data(c);
		break;
	}
	case PERF_RECORD_TIME_CONV:
		cur_u64s(c, 3);	/* time_shift, time_mult, time_zero */
		if (c->end - MIN(c->pos, c->end) >= 16)
			cur_u64s(c, 2);	/* time_cycles, time_mask; then two u8 caps */
		break;
	case PERF_RECORD_HEADER_FEATURE: {
		u64 feat = cur_u64(c);

		if (!c->bad && feat < HEADER_FEAT_BITS &&
		    swap_feature((int)feat, c->base + c->pos, c->end - c->pos, c->to_native))
			c->bad = true;
		break;
	}
	case PERF_RECORD_FINISHED_ROUND:
	case PERF_RECORD_FINISHED_INIT:
	case PERF_RECORD_COMPRESSED:	/* zstd bytes; the records inside are swapped one by one */
	default:
		break;
	}
}

/* Kernel record bodies up to the trailer (session.c perf_event__*_swap). */
static void swap_kernel_record(struct cursor *c, struct perf_event_header *event)
{
	switch (event->type) {
	case PERF_RECORD_MMAP:
		cur_u32s(c, 2);	/* pid, tid */
		cur_u64s(c, 3);	/* start, len, pgoff; filename follows */
		break;
	case PERF_RECORD_LOST:
		cur_u64s(c, 2);	/* id, lost */
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_ITRACE_START:
		cur_u32s(c, 2);	/* pid, tid */
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		cur_u32s(c, 4);	/* pid, ppid, tid, ptid */
		cur_u64(c);	/* time */
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		cur_u64s(c, 3);	/* time, id, stream_id */
		break;
	case PERF_RECORD_READ:
		cur_u32s(c, 2);	/* pid, tid, then the read_format values */
		cur_rest_u64(c);
		break;
	case PERF_RECORD_MMAP2:
		cur_u32s(c, 2);
		cur_u64s(c, 3);
		if (event->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			cur_skip(c, 24);	/* build_id_size, reserved, build_id[20] */
		} else {
			cur_u32s(c, 2);	/* maj, min */
			cur_u64s(c, 2);	/* ino, ino_generation */
		}
		cur_u32s(c, 2);	/* prot, flags */
		break;
	case PERF_RECORD_AUX:
		cur_u64s(c, 3);	/* aux_offset, aux_size, flags */
		break;
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		cur_u64(c);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		cur_u32s(c, 2);	/* next_prev_pid, next_prev_tid */
		break;
	case PERF_RECORD_NAMESPACES: {
		u64 nr;

		cur_u32s(c, 2);
		nr = cur_u64(c);
		if (!c->bad && nr > (c->end - c->pos) / 16)
			c->bad = true;
		else
			cur_u64s(c, nr * 2);	/* dev, ino per namespace */
		break;
	}
	case PERF_RECORD_KSYMBOL:
		cur_u64(c);	/* addr */
		cur_u32(c);	/* len */
		cur_u16(c);	/* ksym_type */
		cur_u16(c);	/* flags; name follows */
		break;
	case PERF_RECORD_BPF_EVENT:
		cur_u16(c);	/* type */
		cur_u16(c);	/* flags */
		cur_u32(c);	/* id; tag bytes follow */
		break;
	case PERF_RECORD_CGROUP:
		cur_u64(c);	/* id; path follows */
		break;
	case PERF_RECORD_TEXT_POKE: {
		u16 old_len, new_len;

		cur_u64(c);	/* addr */
		old_len = cur_u16(c);
		new_len = cur_u16(c);
		cur_skip(c, (u64)old_len + new_len);
		break;
	}
	default:
		break;
	}
}

int swap_event_body(struct perf_event_header *event, const struct perf_event_attr *attr,
		    bool to_native)
{
	struct cursor c = { .base = (u8 *)event, .pos = sizeof(*event), .end = event->size,
			    .to_native = to_native };

	if (event->size < sizeof(*event))
		return -1;
	if (event->type >= PERF_RECORD_USER_TYPE_START) {
		swap_user_record(&c, event);
		return c.bad ? -1 : 0;
	}
	if (event->type == PERF_RECORD_SAMPLE) {
		if (attr)
			swap_sample(&c, attr);
		else if ((c.end - c.pos) % 8)
			return -1;
		else
			cur_rest_u64(&c);	/* perf_event__all64_swap */
		return c.bad ? -1 : 0;
	}
	if (attr && attr->sample_id_all) {
		size_t trailer = swap_trailer_size(attr->sample_type);

		if (trailer > c.end - c.pos)
			return -1;
		c.end -= trailer;
		swap_kernel_record(&c, event);
		if (c.bad)
			return -1;
		c.pos = c.end;
		c.end = event->size;
		swap_trailer(&c, attr->sample_type);
	} else {
		swap_kernel_record(&c, event);
	}
	return c.bad ? -1 : 0;
}
