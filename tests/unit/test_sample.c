/* Unit tests for readers/decode/sample: every sample_type bit in order, trailers, bounds. */
#include <criterion/criterion.h>
#include <string.h>

#include "readers/decode/sample.h"

struct builder {
	u64 words[256];
	size_t n;
};

static void put(struct builder *b, u64 v)
{
	b->words[b->n++] = v;
}

static struct perf_event_header *finish(struct builder *b, u32 type)
{
	struct perf_event_header *h = (void *)b->words;

	h->type = type;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (u16)(b->n * 8);
	return h;
}

Test(sample, every_field_in_order)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			       PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
			       PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			       PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |
			       PERF_SAMPLE_AUX,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
		.sample_regs_user = 0x7,
		.sample_regs_intr = 0x3,
	};
	struct builder b = { .n = 1 };
	struct perf_sample s;
	u32 raw[4] = { 12, 0xaaaa, 0xbbbb, 0xcccc };	/* size 12 + 4 = 16 bytes */

	put(&b, 77);			/* identifier */
	put(&b, 0x401000);		/* ip */
	put(&b, ((u64)1235 << 32) | 1234);	/* pid, tid */
	put(&b, 999);			/* time */
	put(&b, 0xdead);		/* addr */
	put(&b, 77);			/* id */
	put(&b, 78);			/* stream id */
	put(&b, 3);			/* cpu, res */
	put(&b, 250000);		/* period */
	put(&b, 2); put(&b, 1000);	/* read: nr, enabled */
	put(&b, 5); put(&b, 77); put(&b, 6); put(&b, 78);
	put(&b, 2); put(&b, 0x401000); put(&b, 0x402000);	/* callchain */
	memcpy(&b.words[b.n], raw, 16); b.n += 2;		/* raw */
	put(&b, 1); put(&b, 1); put(&b, 2); put(&b, 0);		/* branch stack: nr 1 */
	put(&b, 2); put(&b, 10); put(&b, 11); put(&b, 12);	/* regs user: abi + 3 */
	put(&b, 16); put(&b, 0x1111); put(&b, 0x2222); put(&b, 8);	/* stack: size, data, dyn */
	put(&b, 40);			/* weight */
	put(&b, 41);			/* data src */
	put(&b, 42);			/* transaction */
	put(&b, 2); put(&b, 20); put(&b, 21);	/* regs intr */
	put(&b, 0x5000);		/* phys addr */
	put(&b, 9);			/* cgroup */
	put(&b, 4096);			/* data page size */
	put(&b, 2097152);		/* code page size */
	put(&b, 8); put(&b, 0xabcd);	/* aux */

	cr_assert_eq(sample_parse(&attr, finish(&b, PERF_RECORD_SAMPLE), &s), 0);
	cr_assert_eq(s.ip, 0x401000);
	cr_assert_eq(s.pid, 1234);
	cr_assert_eq(s.tid, 1235);
	cr_assert_eq(s.time, 999);
	cr_assert_eq(s.addr, 0xdead);
	cr_assert_eq(s.id, 77);
	cr_assert_eq(s.stream_id, 78);
	cr_assert_eq(s.cpu, 3);
	cr_assert_eq(s.period, 250000);
	cr_assert_eq(s.read[0], 2);
	cr_assert_eq(s.callchain[0], 2);
	cr_assert_eq(s.callchain[2], 0x402000);
	cr_assert_eq(s.raw_size, 12);
	cr_assert_eq(((const u32 *)s.raw_data)[2], 0xcccc);
	cr_assert_eq(s.branch_stack[0], 1);
	cr_assert_eq(s.user_regs.abi, 2);
	cr_assert_eq(s.user_regs.regs[2], 12);
	cr_assert_eq(s.user_stack.size, 16);
	cr_assert_eq(s.user_stack.dyn_size, 8);
	cr_assert_eq(s.weight, 40);
	cr_assert_eq(s.data_src, 41);
	cr_assert_eq(s.transaction, 42);
	cr_assert_eq(s.intr_regs.regs[1], 21);
	cr_assert_eq(s.phys_addr, 0x5000);
	cr_assert_eq(s.cgroup, 9);
	cr_assert_eq(s.data_page_size, 4096);
	cr_assert_eq(s.code_page_size, 2097152);
	cr_assert_eq(s.aux.size, 8);
	cr_assert_eq(sample_time(&attr, finish(&b, PERF_RECORD_SAMPLE)), 999);

	/* every shorter record fails instead of reading past its end */
	for (size_t words = 1; words < b.n; words++) {
		struct builder c = b;

		c.n = words;
		cr_assert_eq(sample_parse(&attr, finish(&c, PERF_RECORD_SAMPLE), &s), -1,
			     "record cut to %zu words parsed", words);
		cr_assert_eq(sample_check(&attr, finish(&c, PERF_RECORD_SAMPLE)), -1,
			     "record cut to %zu words passed the check", words);
	}
	cr_assert_eq(sample_check(&attr, finish(&b, PERF_RECORD_SAMPLE)), 0);
}

/* With BRANCH_HW_INDEX the stack's nr is followed by hw_idx, then the entries (perf 6.1). */
Test(sample, branch_stack_with_hw_index)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT_STRUCT,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
	};
	struct builder b = { .n = 1 };
	struct perf_sample s;

	put(&b, 0x401000);
	put(&b, 2); put(&b, 1);				/* nr 2, hw_idx 1 */
	put(&b, 0x10); put(&b, 0x20); put(&b, 0x30);	/* from, to, flags */
	put(&b, 0x40); put(&b, 0x50); put(&b, 0x60);
	put(&b, (u64)7 << 32 | 300);			/* weight struct: ins_lat 7, weight 300 */
	cr_assert_eq(sample_parse(&attr, finish(&b, PERF_RECORD_SAMPLE), &s), 0);
	cr_assert_eq(s.branch_stack[0], 2);
	cr_assert_eq(s.branch_stack[1], 1);
	cr_assert_eq(s.branch_stack[2 + 3], 0x40);
	cr_assert_eq(s.weight, (u64)7 << 32 | 300);
	/* without the index bit the same words are one branch short of the record */
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	b.n--;
	cr_assert_eq(sample_parse(&attr, finish(&b, PERF_RECORD_SAMPLE), &s), 0);
	cr_assert_eq(s.branch_stack[1], 1);
	cr_assert_eq(s.weight, 0x60);
	b.n -= 2;
	cr_assert_eq(sample_parse(&attr, finish(&b, PERF_RECORD_SAMPLE), &s), -1);
}

Test(sample, trailer_of_non_sample_records)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1,
	};
	struct builder b = { .n = 1 };
	struct perf_sample s;

	put(&b, 0x1111);	/* body of some record */
	put(&b, ((u64)8 << 32) | 7);
	put(&b, 5555);
	put(&b, 21);
	put(&b, 1);
	put(&b, 21);
	cr_assert_eq(sample_parse(&attr, finish(&b, PERF_RECORD_COMM), &s), 0);
	cr_assert_eq(s.pid, 7);
	cr_assert_eq(s.tid, 8);
	cr_assert_eq(s.time, 5555);
	cr_assert_eq(s.id, 21);
	cr_assert_eq(s.cpu, 1);
	cr_assert_eq(sample_time(&attr, finish(&b, PERF_RECORD_COMM)), 5555);
	cr_assert_eq(sample_is_pos(attr.sample_type), 1);
	cr_assert_eq(sample_check(&attr, finish(&b, PERF_RECORD_COMM)), 0);
	for (size_t words = 1; words < 6; words++) {	/* shorter than the trailer */
		struct builder c = b;

		c.n = words;
		cr_assert_eq(sample_parse(&attr, finish(&c, PERF_RECORD_COMM), &s), -1);
		cr_assert_eq(sample_check(&attr, finish(&c, PERF_RECORD_COMM)), -1,
			     "COMM of %zu words passed the check", words);
	}

	attr.sample_id_all = 0;
	cr_assert_eq(sample_parse(&attr, finish(&b, PERF_RECORD_COMM), &s), 0);
	cr_assert_eq(sample_check(&attr, finish(&(struct builder){ .n = 1 }, PERF_RECORD_COMM)), 0);
	cr_assert_eq(s.time, (u64)-1);
	cr_assert_eq(s.pid, (u32)-1);
	cr_assert_eq(sample_time(&attr, finish(&b, PERF_RECORD_COMM)), (u64)-1);
}

Test(sample, id_positions_and_default_period)
{
	u64 t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_IP, .sample_period = 1 };
	struct builder b = { .n = 1 };
	struct perf_sample s;

	cr_assert_eq(sample_id_pos(t), 3);
	cr_assert_eq(sample_is_pos(t), 2);
	cr_assert_eq(sample_id_pos(PERF_SAMPLE_IP), -1);
	cr_assert_eq(sample_id_trailer_size(t), 4 * 8);
	put(&b, 0x1234);
	cr_assert_eq(sample_parse(&attr, finish(&b, PERF_RECORD_SAMPLE), &s), 0);
	/* without PERF_SAMPLE_PERIOD the period is the attr's, as perf takes it */
	cr_assert_eq(s.period, 1);
}

/*
 * sample_check agrees with sample_parse on samples of fixed layout (its shortcut) at every
 * length, for sample_types with WEIGHT, WEIGHT_STRUCT, both, and bits perf 6.1 does not know.
 */
Test(sample, check_agrees_with_parse_on_fixed_layouts)
{
	const u64 base = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_CODE_PAGE_SIZE;
	const u64 types[] = { base, base | PERF_SAMPLE_WEIGHT, base | PERF_SAMPLE_WEIGHT_STRUCT,
			      base | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
			      base | 1ull << 40, PERF_SAMPLE_TIME };

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct perf_event_attr attr = { .sample_type = types[t] };
		struct perf_sample s;

		for (size_t words = 1; words < 16; words++) {
			struct builder b = { .n = words };

			for (size_t bytes = 0; bytes < 8; bytes += 4) {	/* and a ragged size */
				struct perf_event_header *ev = finish(&b, PERF_RECORD_SAMPLE);

				ev->size += (u16)bytes;
				cr_assert_eq(sample_check(&attr, ev), sample_parse(&attr, ev, &s),
					     "type %#llx, %zu words + %zu", (unsigned long long)types[t],
					     words, bytes);
			}
		}
	}
}

/*
 * The basic parse of a fixed layout gives the fields sample_parse gives, for every subset of
 * the fixed fields up to PERIOD (with others after them), at every record length; it takes
 * no variable layout and no record the full parse refuses.
 */
Test(sample, basic_parse_agrees_with_parse)
{
	const u64 bits[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
			     PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
			     PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD };

	for (u32 set = 0; set < 1u << 9; set++) {
		for (int extra = 0; extra < 3; extra++) {
			struct perf_event_attr attr = { .sample_period = 4000 };
			struct sample_layout l;

			for (int i = 0; i < 9; i++)
				if (set & (1u << i))
					attr.sample_type |= bits[i];
			attr.sample_type |= extra == 1 ? PERF_SAMPLE_DATA_SRC :
					    extra == 2 ? PERF_SAMPLE_CALLCHAIN : 0;
			sample_layout_init(&l, &attr);
			for (size_t words = 1; words < 14; words++) {
				struct builder b = { .n = words };
				struct perf_sample full, basic;
				struct perf_event_header *ev;
				bool took;

				for (size_t i = 1; i < words; i++)	/* each word its own value */
					b.words[i] = 0x1111111111111111ull * i + (i << 32);
				ev = finish(&b, PERF_RECORD_SAMPLE);
				took = sample_parse_basic(&l, &attr, ev, &basic);
				if (!took)
					continue;
				cr_assert(extra != 2, "a variable layout, type %#llx",
					  (unsigned long long)attr.sample_type);
				cr_assert_eq(sample_parse(&attr, ev, &full), 0, "type %#llx, %zu words",
					     (unsigned long long)attr.sample_type, words);
				cr_assert(full.ip == basic.ip && full.pid == basic.pid &&
					  full.tid == basic.tid && full.time == basic.time &&
					  full.cpu == basic.cpu && full.period == basic.period &&
					  full.misc == basic.misc,
					  "type %#llx, %zu words", (unsigned long long)attr.sample_type,
					  words);
			}
		}
	}
}
