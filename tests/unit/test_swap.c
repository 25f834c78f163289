/*
 * Unit tests of readers/decode/swap: native -> foreign -> native round trips of synthetic records of
 * every type, attrs and feature sections; the attr bitfield rule; field-level checks of what
 * is swapped and what is left alone; malformed sizes returning -1 without touching bytes
 * outside the record. Everything is built here: no host files, no recording.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "readers/decode/swap.h"

/* ---- a small byte builder ---- */

struct buf {
	u8 data[4096];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	cr_assert_leq(b->len + n, sizeof(b->data));
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u8(struct buf *b, u8 v) { put(b, &v, 1); }
static void put_u16(struct buf *b, u16 v) { put(b, &v, 2); }
static void put_u32(struct buf *b, u32 v) { put(b, &v, 4); }
static void put_u64(struct buf *b, u64 v) { put(b, &v, 8); }

static void put_pad8(struct buf *b)
{
	while (b->len % 8)
		put_u8(b, 0);
}

/* perf string: u32 len (padded to 8 incl. NUL as perf writes), bytes */
static void put_string(struct buf *b, const char *s)
{
	u32 len = (u32)((strlen(s) + 1 + 7) & ~7UL);
	u8 zero[64] = { 0 };

	put_u32(b, len);
	put(b, s, strlen(s));
	put(b, zero, len - strlen(s));
}

static void begin_record(struct buf *b, u32 type, u16 misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	b->len = 0;
	put(b, &h, sizeof(h));
}

static void end_record(struct buf *b)
{
	((struct perf_event_header *)b->data)->size = (u16)b->len;
}

/* trailer for TRAILER_TYPE: TID, TIME, ID, CPU, IDENTIFIER */
#define TRAILER_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
		      PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD)

static void put_trailer(struct buf *b)
{
	put_u32(b, 1234);	/* pid */
	put_u32(b, 1235);	/* tid */
	put_u64(b, 0x1122334455667788ULL);	/* time */
	put_u64(b, 42);		/* id */
	put_u32(b, 3);		/* cpu */
	put_u32(b, 0);		/* res */
	put_u64(b, 42);		/* identifier */
}

static struct perf_event_attr test_attr(void)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.sample_type = TRAILER_TYPE;
	a.sample_id_all = 1;
	return a;
}

/* Exactly-sized heap copy with guard bytes around it, so stray writes show up. */
#define GUARD 16
static u8 *guarded_copy(const void *src, size_t n)
{
	u8 *p = malloc(n + 2 * GUARD);

	memset(p, 0xa5, GUARD);
	memset(p + GUARD + n, 0x5a, GUARD);
	memcpy(p + GUARD, src, n);
	return p;
}

static void check_guards(const u8 *p, size_t n)
{
	for (size_t i = 0; i < GUARD; i++) {
		cr_assert_eq(p[i], 0xa5, "byte before the buffer touched");
		cr_assert_eq(p[GUARD + n + i], 0x5a, "byte after the buffer touched");
	}
}

/* native -> foreign -> native must give back the same bytes; returns the foreign copy */
static u8 *roundtrip_record(const struct buf *b, const struct perf_event_attr *attr)
{
	u8 *g = guarded_copy(b->data, b->len);
	struct perf_event_header *e = (struct perf_event_header *)(g + GUARD);
	u8 *foreign = malloc(b->len);

	cr_assert_eq(swap_event_body(e, attr, false), 0, "to foreign failed (type %u)",
		     ((const struct perf_event_header *)b->data)->type);
	swap_event_header(e);
	memcpy(foreign, e, b->len);
	cr_assert_neq(memcmp(foreign, b->data, b->len), 0);
	swap_event_header(e);
	cr_assert_eq(swap_event_body(e, attr, true), 0, "to native failed");
	cr_assert_eq(memcmp(e, b->data, b->len), 0, "round trip changed type %u",
		     ((const struct perf_event_header *)b->data)->type);
	check_guards(g, b->len);
	free(g);
	return foreign;
}

static u32 rd32(const u8 *p) { u32 v; memcpy(&v, p, 4); return v; }
static u64 rd64(const u8 *p) { u64 v; memcpy(&v, p, 8); return v; }

/* ---- records ---- */

static void build_kernel_record(struct buf *b, u32 type)
{
	begin_record(b, type, 0);
	switch (type) {
	case PERF_RECORD_MMAP:
		put_u32(b, 10); put_u32(b, 11);
		put_u64(b, 0x400000); put_u64(b, 0x1000); put_u64(b, 0x2000);
		put(b, "/bin/true\0\0\0\0\0\0", 16);
		break;
	case PERF_RECORD_LOST:
		put_u64(b, 42); put_u64(b, 7);
		break;
	case PERF_RECORD_COMM:
		put_u32(b, 10); put_u32(b, 11);
		put(b, "true\0\0\0\0", 8);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		put_u32(b, 10); put_u32(b, 9); put_u32(b, 11); put_u32(b, 12);
		put_u64(b, 123456789);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		put_u64(b, 5); put_u64(b, 42); put_u64(b, 43);
		break;
	case PERF_RECORD_READ:
		put_u32(b, 10); put_u32(b, 11);
		put_u64(b, 1000); put_u64(b, 2000); put_u64(b, 3000); put_u64(b, 42);
		break;
	case PERF_RECORD_MMAP2:
		put_u32(b, 10); put_u32(b, 11);
		put_u64(b, 0x400000); put_u64(b, 0x1000); put_u64(b, 0);
		put_u32(b, 8); put_u32(b, 1); put_u64(b, 777); put_u64(b, 1);
		put_u32(b, 5); put_u32(b, 2);
		put(b, "/usr/lib/libc.so\0\0\0\0\0\0\0\0", 24);
		break;
	case PERF_RECORD_AUX:
		put_u64(b, 0x100); put_u64(b, 0x200); put_u64(b, 1);
		break;
	case PERF_RECORD_ITRACE_START:
		put_u32(b, 10); put_u32(b, 11);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		put_u64(b, 99);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		put_u32(b, 20); put_u32(b, 21);
		break;
	case PERF_RECORD_NAMESPACES:
		put_u32(b, 10); put_u32(b, 11); put_u64(b, 2);
		put_u64(b, 4); put_u64(b, 0xf0000001); put_u64(b, 4); put_u64(b, 0xf0000002);
		break;
	case PERF_RECORD_KSYMBOL:
		put_u64(b, 0xffffffffc0000000ULL); put_u32(b, 256); put_u16(b, 1); put_u16(b, 0);
		put(b, "bpf_prog_x\0\0\0\0\0\0", 16);
		break;
	case PERF_RECORD_BPF_EVENT:
		put_u16(b, 1); put_u16(b, 0); put_u32(b, 77);
		put(b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
		break;
	case PERF_RECORD_CGROUP:
		put_u64(b, 12); put(b, "/sys/x\0\0", 8);
		break;
	case PERF_RECORD_TEXT_POKE:
		put_u64(b, 0xffffffff81000000ULL); put_u16(b, 2); put_u16(b, 2);
		put(b, "\x90\x90\xcc\xcc", 4);
		put_pad8(b);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		put_u64(b, 3);
		break;
	}
	put_trailer(b);
	end_record(b);
}

Test(swap, kernel_records_roundtrip)
{
	struct perf_event_attr attr = test_attr();
	struct buf b;

	for (u32 type = PERF_RECORD_MMAP; type <= PERF_RECORD_AUX_OUTPUT_HW_ID; type++) {
		if (type == PERF_RECORD_SAMPLE)
			continue;
		build_kernel_record(&b, type);
		free(roundtrip_record(&b, &attr));
	}
}

Test(swap, comm_fields_and_trailer)
{
	struct perf_event_attr attr = test_attr();
	struct buf b;
	u8 *f;
	size_t t;

	build_kernel_record(&b, PERF_RECORD_COMM);
	f = roundtrip_record(&b, &attr);
	cr_assert_eq(rd32(f + 8), __builtin_bswap32(10));	/* pid per u32 */
	cr_assert_eq(rd32(f + 12), __builtin_bswap32(11));
	cr_assert_eq(memcmp(f + 16, "true", 4), 0);		/* string left alone */
	t = b.len - swap_trailer_size(TRAILER_TYPE);
	cr_assert_eq(rd32(f + t), __builtin_bswap32(1234));	/* trailer pid/tid per half */
	cr_assert_eq(rd32(f + t + 4), __builtin_bswap32(1235));
	cr_assert_eq(rd64(f + t + 8), __builtin_bswap64(0x1122334455667788ULL));
	cr_assert_eq(rd32(f + t + 24), __builtin_bswap32(3));	/* cpu per half */
	free(f);
}

Test(swap, mmap2_build_id_variant_keeps_bytes)
{
	struct perf_event_attr attr = test_attr();
	struct buf b;
	u8 *f;

	begin_record(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_u32(&b, 10); put_u32(&b, 11);
	put_u64(&b, 0x400000); put_u64(&b, 0x1000); put_u64(&b, 0);
	put_u8(&b, 20); put_u8(&b, 0); put_u16(&b, 0);
	put(&b, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14", 20);
	put_u32(&b, 5); put_u32(&b, 2);
	put(&b, "/bin/x\0\0", 8);
	put_trailer(&b);
	end_record(&b);
	f = roundtrip_record(&b, &attr);
	cr_assert_eq(memcmp(f + 40, b.data + 40, 24), 0);
	free(f);
}

static void build_user_record(struct buf *b, u32 type)
{
	struct perf_event_attr a = test_attr();

	begin_record(b, type, 0);
	switch (type) {
	case PERF_RECORD_HEADER_ATTR:
		a.config = 5;
		a.disabled = 1;
		put(b, &a, sizeof(a));
		put_u64(b, 42); put_u64(b, 43);
		break;
	case PERF_RECORD_HEADER_EVENT_TYPE: {
		char name[64] = "sched:sched_switch";

		put_u64(b, 300);
		put(b, name, sizeof(name));
		break;
	}
	case PERF_RECORD_HEADER_TRACING_DATA:
		put_u32(b, 4096); put_u32(b, 0);
		break;
	case PERF_RECORD_HEADER_BUILD_ID:
		put_u32(b, (u32)-1);
		put(b, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x14\0\0\0", 24);
		put(b, "/bin/ls\0", 8);
		break;
	case PERF_RECORD_FINISHED_ROUND:
	case PERF_RECORD_FINISHED_INIT:
		break;
	case PERF_RECORD_ID_INDEX:
		put_u64(b, 2);
		for (int i = 0; i < 8; i++)
			put_u64(b, 100 + i);
		break;
	case PERF_RECORD_AUXTRACE_INFO:
		put_u32(b, 6); put_u32(b, 0); put_u64(b, 1); put_u64(b, 2);
		break;
	case PERF_RECORD_AUXTRACE:
		put_u64(b, 4096); put_u64(b, 0); put_u64(b, 77);
		put_u32(b, 1); put_u32(b, 2); put_u32(b, 3); put_u32(b, 0);
		break;
	case PERF_RECORD_AUXTRACE_ERROR: {
		char msg[64] = "decoder error";

		put_u32(b, 1); put_u32(b, 2); put_u32(b, 3); put_u32(b, 4); put_u32(b, 5);
		put_u32(b, 2);	/* fmt */
		put_u64(b, 0xffffffff81000000ULL); put_u64(b, 555);
		put(b, msg, sizeof(msg));
		put_u32(b, 6); put_u32(b, 7);
		break;
	}
	case PERF_RECORD_THREAD_MAP: {
		char comm[16] = "worker";

		put_u64(b, 2);
		put_u64(b, 100); put(b, comm, 16);
		put_u64(b, 101); put(b, comm, 16);
		break;
	}
	case PERF_RECORD_CPU_MAP:
		put_u16(b, 0); put_u16(b, 3); put_u16(b, 0); put_u16(b, 1); put_u16(b, 7);
		put_pad8(b);
		break;
	case PERF_RECORD_STAT_CONFIG:
		put_u64(b, 2); put_u64(b, 0); put_u64(b, 1); put_u64(b, 1); put_u64(b, 3);
		break;
	case PERF_RECORD_STAT:
		put_u64(b, 42); put_u32(b, 1); put_u32(b, 2);
		put_u64(b, 10); put_u64(b, 20); put_u64(b, 30);
		break;
	case PERF_RECORD_STAT_ROUND:
		put_u64(b, 1); put_u64(b, 999);
		break;
	case PERF_RECORD_EVENT_UPDATE: {
		double scale = 0.5;

		put_u64(b, 1); put_u64(b, 42); put(b, &scale, 8);
		break;
	}
	case PERF_RECORD_TIME_CONV:
		put_u64(b, 10); put_u64(b, 20); put_u64(b, 30); put_u64(b, 40); put_u64(b, 50);
		put_u8(b, 1); put_u8(b, 0);
		put_pad8(b);
		break;
	case PERF_RECORD_HEADER_FEATURE:
		put_u64(b, HEADER_HOSTNAME);
		put_string(b, "myhost");
		break;
	case PERF_RECORD_COMPRESSED:
		put(b, "\x28\xb5\x2f\xfd\x00\x00\x00\x00", 8);
		break;
	}
	end_record(b);
}

Test(swap, user_records_roundtrip)
{
	struct buf b;

	for (u32 type = PERF_RECORD_HEADER_ATTR; type < PERF_RECORD_HEADER_MAX; type++) {
		build_user_record(&b, type);
		free(roundtrip_record(&b, NULL));
	}
}

Test(swap, event_update_cpus_roundtrip)
{
	struct buf b;

	begin_record(&b, PERF_RECORD_EVENT_UPDATE, 0);
	put_u64(&b, 3); put_u64(&b, 42);
	put_u16(&b, 1); put_u16(&b, 1); put_u16(&b, 8); put_u32(&b, 0);
	put_u64(&b, 0xf0f0);
	end_record(&b);
	free(roundtrip_record(&b, NULL));
}

/* ---- samples ---- */

Test(swap, sample_all_fields_roundtrip)
{
	struct perf_event_attr attr = { 0 };
	struct buf b;
	size_t raw_at, stack_at, br_at;
	u8 *f;

	attr.size = sizeof(attr);
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			   PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
			   PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			   PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
			   PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			   PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |
			   PERF_SAMPLE_AUX;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	attr.sample_regs_user = 0x7;
	attr.sample_regs_intr = 0x3;

	begin_record(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put_u64(&b, 42);			/* identifier */
	put_u64(&b, 0x401000);			/* ip */
	put_u32(&b, 10); put_u32(&b, 11);	/* pid, tid */
	put_u64(&b, 1000);			/* time */
	put_u64(&b, 0xdead);			/* addr */
	put_u64(&b, 42);			/* id */
	put_u64(&b, 43);			/* stream_id */
	put_u32(&b, 1); put_u32(&b, 0);		/* cpu, res */
	put_u64(&b, 4000);			/* period */
	put_u64(&b, 2); put_u64(&b, 555);	/* read: nr, enabled */
	put_u64(&b, 1); put_u64(&b, 42); put_u64(&b, 2); put_u64(&b, 44);
	put_u64(&b, 3);				/* callchain */
	put_u64(&b, PERF_CONTEXT_USER); put_u64(&b, 0x401000); put_u64(&b, 0x402000);
	raw_at = b.len;
	put_u32(&b, 12);			/* raw: size, then 12 bytes */
	put(&b, "\x01\x00\x02\x00\x03\x00\x00\x00\x04\x00\x00\x00", 12);
	br_at = b.len;
	put_u64(&b, 1); put_u64(&b, 7);		/* branch: nr, hw_idx */
	put_u64(&b, 0x401000); put_u64(&b, 0x402000); put_u64(&b, 0x5 | (123ULL << 4));
	put_u64(&b, 2);				/* regs user: abi, 3 regs */
	put_u64(&b, 1); put_u64(&b, 2); put_u64(&b, 3);
	stack_at = b.len;
	put_u64(&b, 16);			/* stack user: size, bytes, dyn_size */
	put(&b, "0123456789abcdef", 16);
	put_u64(&b, 16);
	put_u64(&b, 77);			/* weight */
	put_u64(&b, 0x1234);			/* data_src */
	put_u64(&b, 0);				/* transaction */
	put_u64(&b, 2); put_u64(&b, 8); put_u64(&b, 9);	/* regs intr */
	put_u64(&b, 0x1000);			/* phys_addr */
	put_u64(&b, 5);				/* cgroup */
	put_u64(&b, 4096); put_u64(&b, 4096);	/* page sizes */
	put_u64(&b, 8);				/* aux: size, bytes */
	put(&b, "AUXBYTES", 8);
	end_record(&b);

	f = roundtrip_record(&b, &attr);
	cr_assert_eq(rd32(f + raw_at), __builtin_bswap32(12));
	cr_assert_eq(memcmp(f + raw_at + 4, b.data + raw_at + 4, 12), 0, "raw bytes must stay");
	cr_assert_eq(memcmp(f + stack_at + 8, "0123456789abcdef", 16), 0);
	cr_assert_eq(memcmp(f + b.len - 8, "AUXBYTES", 8), 0);
	cr_assert_eq(rd64(f + br_at + 16), __builtin_bswap64(0x401000));
	cr_assert_eq(rd32(f + 24), __builtin_bswap32(10));	/* pid per half */
	free(f);
}

Test(swap, sample_without_attr_is_all_u64)
{
	struct buf b;
	u8 *f;

	begin_record(&b, PERF_RECORD_SAMPLE, 0);
	put_u64(&b, 0x0102030405060708ULL);
	put_u64(&b, 9);
	end_record(&b);
	f = roundtrip_record(&b, NULL);
	cr_assert_eq(rd64(f + 8), 0x0807060504030201ULL);
	free(f);
}

Test(swap, branch_flags_mirror)
{
	/* mispred is bit 0 natively and the top bit of the first byte when big-endian */
	u64 foreign = swap_branch_flags(1, false);

	cr_assert_eq(((u8 *)&foreign)[0], 0x80);
	/* cycles (bits 4..19) keep their value */
	cr_assert_eq(swap_branch_flags(swap_branch_flags(123ULL << 4, false), true), 123ULL << 4);
	for (u64 v = 1; v; v <<= 1)
		cr_assert_eq(swap_branch_flags(swap_branch_flags(v, false), true), v);
}

/* ---- attrs ---- */

Test(swap, attr_bitfield_rule_and_roundtrip)
{
	struct perf_event_attr a = { 0 }, b;
	u8 *raw = (u8 *)&b;
	u8 flags[8];

	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_freq = 4000;
	a.freq = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.disabled = 1;
	a.inherit = 1;
	a.sample_id_all = 1;
	a.precise_ip = 2;
	a.clockid = 1;
	a.sample_max_stack = 127;
	b = a;
	memcpy(flags, (u8 *)&a + 40, 8);
	swap_attr_dir(&b, sizeof(b), false);
	cr_assert_eq(b.type, __builtin_bswap32(a.type));
	cr_assert_eq(b.size, __builtin_bswap32(a.size));
	cr_assert_eq(b.config, __builtin_bswap64(a.config));
	cr_assert_eq(b.sample_type, __builtin_bswap64(a.sample_type));
	cr_assert_eq(b.sample_max_stack, __builtin_bswap16(a.sample_max_stack));
	/* byte 0 of the flags: disabled (bit 0) and inherit (bit 1) become bits 7 and 6 */
	cr_assert_eq(flags[0] & 3, 3);
	cr_assert_eq(raw[40] & 0xc0, 0xc0);
	for (int i = 0; i < 8; i++)	/* bytes stay in place, bits reversed */
		for (int bit = 0; bit < 8; bit++)
			cr_assert_eq((raw[40 + i] >> (7 - bit)) & 1, (flags[i] >> bit) & 1);
	swap_attr(&b, sizeof(b));
	cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0);
}

Test(swap, attr_short_size_swaps_only_its_fields)
{
	struct perf_event_attr a = { 0 }, b;

	a.size = PERF_ATTR_SIZE_VER0;
	a.config = 1;
	a.branch_sample_type = 0x1111;	/* beyond VER0: must stay as is */
	b = a;
	swap_attr_dir(&b, sizeof(b), false);
	cr_assert_eq(b.branch_sample_type, 0x1111);
	cr_assert_eq(b.config, __builtin_bswap64(1));
	swap_attr(&b, sizeof(b));
	cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0);
}

Test(swap, file_header_and_section)
{
	struct perf_file_header h = { 0 }, c;
	struct perf_file_section s = { 0x100, 0x40 };

	h.magic = PERF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = 136;
	h.adds_features[0] = 1ULL << HEADER_HOSTNAME;
	c = h;
	swap_file_header(&c);
	cr_assert_eq(c.magic, PERF_MAGIC2_SWAPPED);
	cr_assert_eq(c.adds_features[0], __builtin_bswap64(1ULL << HEADER_HOSTNAME));
	swap_file_header(&c);
	cr_assert_eq(memcmp(&c, &h, sizeof(h)), 0);
	swap_file_section(&s);
	cr_assert_eq(s.offset, __builtin_bswap64(0x100));
}

/* ---- features ---- */

static void roundtrip_feature(int feat, const struct buf *b)
{
	u8 *g = guarded_copy(b->data, b->len);

	cr_assert_eq(swap_feature(feat, g + GUARD, b->len, false), 0, "feature %d", feat);
	if (feat != HEADER_TRACING_DATA && b->len)
		cr_assert_neq(memcmp(g + GUARD, b->data, b->len), 0, "feature %d unchanged", feat);
	cr_assert_eq(swap_feature(feat, g + GUARD, b->len, true), 0, "feature %d back", feat);
	cr_assert_eq(memcmp(g + GUARD, b->data, b->len), 0, "feature %d round trip", feat);
	check_guards(g, b->len);
	free(g);
}

static void build_feature(struct buf *b, int feat, bool dies)
{
	struct perf_event_attr a = test_attr();

	b->len = 0;
	switch (feat) {
	case HEADER_BUILD_ID:
		for (int i = 0; i < 2; i++) {
			struct perf_event_header h = { .type = PERF_RECORD_HEADER_BUILD_ID,
						       .misc = 1, .size = 8 + 4 + 24 + 16 };

			put(b, &h, sizeof(h));
			put_u32(b, (u32)-1 - i);
			put(b, "\xaa\xbb\xcc\xdd\xee\xff\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\x14\0\0\0", 24);
			put(b, "[kernel.kallsyms", 16);
		}
		break;
	case HEADER_HOSTNAME: case HEADER_OSRELEASE: case HEADER_VERSION:
	case HEADER_ARCH: case HEADER_CPUDESC: case HEADER_CPUID:
		put_string(b, "some text");
		break;
	case HEADER_NRCPUS:
		put_u32(b, 4); put_u32(b, 2);
		break;
	case HEADER_TOTAL_MEM: case HEADER_CLOCKID: case HEADER_DIR_FORMAT:
		put_u64(b, 123456);
		break;
	case HEADER_SAMPLE_TIME:
		put_u64(b, 1); put_u64(b, 2);
		break;
	case HEADER_AUXTRACE:
		put_u64(b, 1); put_u64(b, 0x1000); put_u64(b, 0x200);
		break;
	case HEADER_MEM_TOPOLOGY:
		put_u64(b, 1); put_u64(b, 0x8000000); put_u64(b, 1);
		put_u64(b, 0); put_u64(b, 0x8000000); put_u64(b, 64); put_u64(b, 0xff);
		break;
	case HEADER_CMDLINE:
		put_u32(b, 3); put_string(b, "perf"); put_string(b, "record"); put_string(b, "ls");
		break;
	case HEADER_CPU_PMU_CAPS:
		put_u32(b, 2);
		put_string(b, "branches"); put_string(b, "32");
		put_string(b, "pmu_name"); put_string(b, "zen");
		break;
	case HEADER_EVENT_DESC:
		put_u32(b, 2); put_u32(b, sizeof(a));
		for (int i = 0; i < 2; i++) {
			a.config = (u64)i;
			put(b, &a, sizeof(a));
			put_u32(b, 2); put_string(b, i ? "task-clock" : "cpu-clock");
			put_u64(b, 10 + i); put_u64(b, 20 + i);
		}
		break;
	case HEADER_CPU_TOPOLOGY:
		put_u32(b, 1); put_string(b, "0-3");
		put_u32(b, 2); put_string(b, "0-1"); put_string(b, "2-3");
		for (u32 cpu = 0; cpu < 4; cpu++) {
			put_u32(b, cpu / 2); put_u32(b, 0);
		}
		if (dies) {
			put_u32(b, 1); put_string(b, "0-3");
			for (u32 cpu = 0; cpu < 4; cpu++)
				put_u32(b, 0);
		}
		break;
	case HEADER_NUMA_TOPOLOGY:
		put_u32(b, 2);
		for (u32 n = 0; n < 2; n++) {
			put_u32(b, n); put_u64(b, 1000); put_u64(b, 500); put_string(b, "0-1");
		}
		break;
	case HEADER_PMU_MAPPINGS:
		put_u32(b, 2); put_u32(b, 1); put_string(b, "software");
		put_u32(b, 2); put_string(b, "tracepoint");
		break;
	case HEADER_GROUP_DESC:
		put_u32(b, 1); put_string(b, "{cycles,instructions}"); put_u32(b, 0); put_u32(b, 2);
		break;
	case HEADER_CACHE:
		put_u32(b, 1); put_u32(b, 1);
		put_u32(b, 1); put_u32(b, 64); put_u32(b, 64); put_u32(b, 8);
		put_string(b, "Data"); put_string(b, "32K"); put_string(b, "0-1");
		break;
	case HEADER_BPF_PROG_INFO:
		put_u32(b, 1); put_u32(b, 8); put_u32(b, 8); put_u64(b, 1); put_u64(b, 2);
		break;
	case HEADER_BPF_BTF:
		put_u32(b, 1); put_u32(b, 5); put_u32(b, 8); put_u64(b, 0x0102);
		break;
	case HEADER_COMPRESSED:
		put_u32(b, 0); put_u32(b, 1); put_u32(b, 1); put_u32(b, 3); put_u32(b, 0x81000);
		break;
	case HEADER_CLOCK_DATA:
		put_u32(b, 1); put_u32(b, 1); put_u64(b, 1700000000000000000ULL); put_u64(b, 5);
		break;
	case HEADER_HYBRID_TOPOLOGY:
		put_u32(b, 1); put_string(b, "cpu_core"); put_string(b, "0-7");
		break;
	case HEADER_PMU_CAPS:
		put_u32(b, 1); put_u32(b, 1); put_string(b, "max_precise"); put_string(b, "3");
		put_string(b, "ibs_op");
		break;
	}
}

Test(swap, features_roundtrip)
{
	struct buf b;

	for (int feat = HEADER_BUILD_ID; feat < HEADER_LAST_FEATURE; feat++) {
		if (feat == HEADER_BRANCH_STACK || feat == HEADER_STAT)
			continue;
		build_feature(&b, feat, false);
		roundtrip_feature(feat, &b);
	}
	build_feature(&b, HEADER_CPU_TOPOLOGY, true);
	roundtrip_feature(HEADER_CPU_TOPOLOGY, &b);
}

Test(swap, cpu_topology_finds_the_die_part)
{
	struct buf b;
	u8 *g;
	size_t die_ids;

	build_feature(&b, HEADER_CPU_TOPOLOGY, true);
	die_ids = b.len - 16;
	g = guarded_copy(b.data, b.len);
	cr_assert_eq(swap_feature(HEADER_CPU_TOPOLOGY, g + GUARD, b.len, false), 0);
	/* the die count before the die strings was swapped as a u32 */
	cr_assert_eq(rd32(g + GUARD + die_ids - 16), __builtin_bswap32(1));
	free(g);
}

Test(swap, header_feature_record_swaps_contents)
{
	struct buf b;
	u8 *f;

	build_user_record(&b, PERF_RECORD_HEADER_FEATURE);
	f = roundtrip_record(&b, NULL);
	cr_assert_eq(rd64(f + 8), __builtin_bswap64(HEADER_HOSTNAME));
	cr_assert_eq(rd32(f + 16), __builtin_bswap32(8));
	cr_assert_eq(memcmp(f + 20, "myhost", 6), 0);
	free(f);
}

/* ---- malformed input ---- */

static void expect_bad_record(const struct buf *b, const struct perf_event_attr *attr,
			      bool to_native)
{
	u8 *g = guarded_copy(b->data, b->len);

	cr_assert_eq(swap_event_body((struct perf_event_header *)(g + GUARD), attr, to_native),
		     -1, "type %u accepted", ((const struct perf_event_header *)b->data)->type);
	check_guards(g, b->len);
	free(g);
}

Test(swap, malformed_records)
{
	struct perf_event_attr attr = test_attr(), chain = { 0 };
	struct buf b;

	/* FORK cut short: body plus trailer do not fit */
	build_kernel_record(&b, PERF_RECORD_FORK);
	b.len -= 16;
	end_record(&b);
	expect_bad_record(&b, &attr, false);

	/* record smaller than the trailer alone */
	begin_record(&b, PERF_RECORD_EXIT, 0);
	put_u64(&b, 0);
	end_record(&b);
	expect_bad_record(&b, &attr, true);

	/* callchain nr far beyond the record, foreign order */
	chain.size = sizeof(chain);
	chain.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	begin_record(&b, PERF_RECORD_SAMPLE, 0);
	put_u64(&b, __builtin_bswap64(0x401000));
	put_u64(&b, __builtin_bswap64(1000000));
	put_u64(&b, 0);
	end_record(&b);
	expect_bad_record(&b, &chain, true);

	/* raw size past the end */
	chain.sample_type = PERF_SAMPLE_RAW;
	begin_record(&b, PERF_RECORD_SAMPLE, 0);
	put_u32(&b, 4000); put_u32(&b, 0);
	end_record(&b);
	expect_bad_record(&b, &chain, false);

	/* namespaces count too large */
	attr.sample_id_all = 0;
	begin_record(&b, PERF_RECORD_NAMESPACES, 0);
	put_u32(&b, 1); put_u32(&b, 1); put_u64(&b, 1ULL << 40);
	end_record(&b);
	expect_bad_record(&b, &attr, false);

	/* thread map count too large */
	begin_record(&b, PERF_RECORD_THREAD_MAP, 0);
	put_u64(&b, __builtin_bswap64(5));
	put_u64(&b, 0);
	end_record(&b);
	expect_bad_record(&b, NULL, true);

	/* STAT shorter than its fields */
	begin_record(&b, PERF_RECORD_STAT, 0);
	put_u64(&b, 1);
	end_record(&b);
	expect_bad_record(&b, NULL, false);

	/* header size smaller than a header */
	begin_record(&b, PERF_RECORD_MMAP, 0);
	((struct perf_event_header *)b.data)->size = 4;
	b.len = 8;
	expect_bad_record(&b, NULL, false);
}

static void expect_bad_feature(int feat, const struct buf *b, bool to_native)
{
	u8 *g = guarded_copy(b->data, b->len);

	cr_assert_eq(swap_feature(feat, g + GUARD, b->len, to_native), -1, "feature %d", feat);
	check_guards(g, b->len);
	free(g);
}

Test(swap, malformed_features)
{
	struct buf b;

	/* string length past the end (native input: length read before swapping) */
	b.len = 0;
	put_u32(&b, 100);
	put(&b, "abc\0", 4);
	expect_bad_feature(HEADER_HOSTNAME, &b, false);

	/* same, foreign input */
	b.len = 0;
	put_u32(&b, __builtin_bswap32(100));
	put(&b, "abc\0", 4);
	expect_bad_feature(HEADER_OSRELEASE, &b, true);

	/* cmdline claims more strings than fit */
	b.len = 0;
	put_u32(&b, 0x10000000);
	put_string(&b, "perf");
	expect_bad_feature(HEADER_CMDLINE, &b, false);

	/* every prefix of a well-formed EVENT_DESC is rejected, never overrun */
	build_feature(&b, HEADER_EVENT_DESC, false);
	for (size_t cut = 1; cut < b.len; cut++) {
		struct buf p = { .len = cut };

		memcpy(p.data, b.data, cut);
		expect_bad_feature(HEADER_EVENT_DESC, &p, false);
	}

	/* build-id record whose size runs past the section */
	build_feature(&b, HEADER_BUILD_ID, false);
	b.len -= 8;
	expect_bad_feature(HEADER_BUILD_ID, &b, false);

	/* u64 features with a partial word */
	b.len = 0;
	put_u32(&b, 1);
	expect_bad_feature(HEADER_TOTAL_MEM, &b, false);
}

Test(swap, truncated_records_never_overrun)
{
	struct perf_event_attr attr = test_attr();
	struct buf b;

	/* every record type cut at every 8-byte boundary: 0 or -1, guards intact */
	for (u32 type = PERF_RECORD_MMAP; type < PERF_RECORD_HEADER_MAX; type++) {
		if (type == PERF_RECORD_SAMPLE || (type > PERF_RECORD_AUX_OUTPUT_HW_ID &&
						   type < PERF_RECORD_USER_TYPE_START))
			continue;
		if (type < PERF_RECORD_USER_TYPE_START)
			build_kernel_record(&b, type);
		else
			build_user_record(&b, type);
		for (size_t cut = 8; cut < b.len; cut += 8) {
			u8 *g = guarded_copy(b.data, cut);

			((struct perf_event_header *)(g + GUARD))->size = (u16)cut;
			swap_event_body((struct perf_event_header *)(g + GUARD),
					type < PERF_RECORD_USER_TYPE_START ? &attr : NULL, false);
			check_guards(g, cut);
			free(g);
		}
	}
}
