/*
 * Unit tests for analyzer/dump: perf report -D's hex dump and the decoded text of synthetic
 * records (formats as perf 6.1 prints them), captured through open_memstream.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/dump.h"

/* Run fn on a memory stream and return what it printed (caller frees). */
#define CAPTURE(out, call)                                   \
	do {                                                 \
		size_t len_;                                 \
		FILE *fp = open_memstream(&(out), &len_);    \
		cr_assert_not_null(fp);                      \
		call;                                        \
		fclose(fp);                                  \
	} while (0)

/* Write a record header at the start of a u64 buffer. */
static void set_header(u64 *rec, u32 type, u16 misc, u16 size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	memcpy(rec, &h, sizeof(h));
}

Test(dump, hex_full_and_partial_lines)
{
	u8 rec[24] = { 0x44, 0, 0, 0, 0, 0, 24, 0, 'h', 'e', 'l', 'l', 'o', 0, 0x7f, 0x80,
		       'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H' };
	char *out = NULL;

	CAPTURE(out, dump_fprintf_hex(fp, (const struct perf_event_header *)rec));
	cr_assert_str_eq(out,
		".\n"
		". ... raw event: size 24 bytes\n"
		".  0000:  44 00 00 00 00 00 18 00 68 65 6c 6c 6f 00 7f 80  D.......hello...\n"
		".  0010:  41 42 43 44 45 46 47 48                          ABCDEFGH        \n"
		"\n");
	free(out);
}

Test(dump, hex_header_only)
{
	struct perf_event_header h = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	char *out = NULL;

	CAPTURE(out, dump_fprintf_hex(fp, &h));
	cr_assert_str_eq(out,
		".\n"
		". ... raw event: size 8 bytes\n"
		".  0000:  44 00 00 00 00 00 08 00                          D.......        \n"
		"\n");
	free(out);
}

Test(dump, mmap2_inode_and_build_id)
{
	union {
		struct perf_record_mmap2 ev;
		u8 bytes[128];
	} u;
	char *out = NULL;

	memset(&u, 0, sizeof(u));
	u.ev.header = (struct perf_event_header){ .type = PERF_RECORD_MMAP2, .misc = 2,
						  .size = sizeof(u.ev) + 16 };
	u.ev.pid = 18290;
	u.ev.tid = 18290;
	u.ev.start = 0x5611d6582000;
	u.ev.len = 0x16000;
	u.ev.pgoff = 0x4000;
	u.ev.maj = 0xfe;
	u.ev.min = 0;
	u.ev.ino = 247728;
	u.ev.prot = 5;	/* read, exec */
	u.ev.flags = 2;	/* private */
	strcpy(u.ev.filename, "/usr/bin/ls");
	CAPTURE(out, dump_fprintf_details(fp, &u.ev.header));
	cr_assert_str_eq(out, " 18290/18290: [0x5611d6582000(0x16000) @ 0x4000 fe:00 247728 0]: "
			      "r-xp /usr/bin/ls\n");
	free(out);

	u.ev.header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	u.ev.build_id_size = 4;
	u.ev.reserved_1 = 0;
	u.ev.reserved_2 = 0;
	memcpy(u.ev.build_id, "\xde\xad\xbe\xef", 4);
	u.ev.pgoff = 0;
	CAPTURE(out, dump_fprintf_details(fp, &u.ev.header));
	cr_assert_str_eq(out, " 18290/18290: [0x5611d6582000(0x16000) @ 0 <deadbeef>]: "
			      "r-xp /usr/bin/ls\n");
	free(out);
}

Test(dump, comm_exec_and_task)
{
	union {
		struct perf_record_comm ev;
		u8 bytes[40];
	} c;
	struct perf_record_fork f = {
		.header = { .type = PERF_RECORD_EXIT, .size = sizeof(f) },
		.pid = 18290, .ppid = 18289, .tid = 18290, .ptid = 18289,
	};
	char *out = NULL;

	memset(&c, 0, sizeof(c));
	c.ev.header = (struct perf_event_header){ .type = PERF_RECORD_COMM,
						  .misc = PERF_RECORD_MISC_COMM_EXEC, .size = 40 };
	c.ev.pid = c.ev.tid = 7;
	strcpy(c.ev.comm, "ls");
	CAPTURE(out, dump_fprintf_details(fp, &c.ev.header));
	cr_assert_str_eq(out, " exec: ls:7/7\n");
	free(out);

	CAPTURE(out, dump_fprintf_details(fp, &f.header));
	cr_assert_str_eq(out, "(18290:18290):(18289:18289)\n");
	free(out);
}

Test(dump, cpu_map_range_and_list)
{
	/* RANGE_CPUS 0-1, as perf record 6.1 writes it */
	u8 range[16] = { 0x4a, 0, 0, 0, 0, 0, 16, 0, 2, 0, 0, 0, 0, 0, 1, 0 };
	/* CPUS list 0,1,2,5,7,8 */
	u8 list[24] = { 0x4a, 0, 0, 0, 0, 0, 24, 0, 0, 0, 6, 0, 0, 0, 1, 0, 2, 0, 5, 0, 7, 0, 8, 0 };
	char *out = NULL;

	CAPTURE(out, dump_fprintf_details(fp, (const struct perf_event_header *)range));
	cr_assert_str_eq(out, ": 0-1\n: unhandled!\n");
	free(out);
	CAPTURE(out, dump_fprintf_details(fp, (const struct perf_event_header *)list));
	cr_assert_str_eq(out, ": 0-2,5,7-8\n: unhandled!\n");
	free(out);
}

Test(dump, id_index_and_event_update)
{
	u64 idx[2 + 8] = { 0 };
	u64 upd[6] = { 0 };
	double scale = 0.000001;
	char *out = NULL;

	set_header(idx, PERF_RECORD_ID_INDEX, 0, 80);
	idx[1] = 2;
	idx[2] = 5205, idx[3] = 0, idx[4] = 0, idx[5] = 18290;
	idx[6] = 5206, idx[7] = 1, idx[8] = 1, idx[9] = 18290;
	CAPTURE(out, dump_fprintf_details(fp, (const struct perf_event_header *)idx));
	cr_assert_str_eq(out, " nr: 2\n"
			      " ... id: 5205  idx: 0  cpu: 0  tid: 18290\n"
			      " ... id: 5206  idx: 1  cpu: 1  tid: 18290\n");
	free(out);

	set_header(upd, PERF_RECORD_EVENT_UPDATE, 0, 48);
	upd[1] = 1;	/* SCALE */
	upd[2] = 5205;
	memcpy(&upd[3], &scale, sizeof(scale));
	CAPTURE(out, dump_fprintf_details(fp, (const struct perf_event_header *)upd));
	cr_assert_str_eq(out, "\n... id:    5205\n... scale: 0.000001\n");
	free(out);
}

Test(dump, thread_map_and_stubs)
{
	u64 tm[5] = { 0 };
	struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_INIT, .size = 8 };
	struct perf_event_header attr = { .type = PERF_RECORD_HEADER_ATTR, .size = 8 };
	char *out = NULL;

	set_header(tm, PERF_RECORD_THREAD_MAP, 0, 40);
	tm[1] = 1;
	tm[2] = 18290;
	CAPTURE(out, dump_fprintf_details(fp, (const struct perf_event_header *)tm));
	cr_assert_str_eq(out, " nr: 1 thread: 18290\n: unhandled!\n");
	free(out);
	CAPTURE(out, dump_fprintf_details(fp, &fin));
	cr_assert_str_eq(out, ": unhandled!\n");
	free(out);
	/* perf report prints nothing after an ATTR record's name */
	CAPTURE(out, dump_fprintf_details(fp, &attr));
	cr_assert_str_eq(out, "");
	free(out);
}

Test(dump, sample_with_callchain)
{
	u64 rec[8] = { 0 };
	u64 chain[3] = { 2, (u64)PERF_CONTEXT_USER, 0x7fcdef06a3e0 };
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
	};
	struct perf_sample s = {
		.ip = 0x7fcdef06a3e0, .pid = 18361, .tid = 18361, .period = 250000,
		.callchain = chain,
	};
	char *out = NULL;

	set_header(rec, PERF_RECORD_SAMPLE, 2, 64);
	CAPTURE(out, dump_fprintf_sample(fp, (const struct perf_event_header *)rec, &s, &attr));
	cr_assert_str_eq(out,
		"(IP, 0x2): 18361/18361: 0x7fcdef06a3e0 period: 250000 addr: 0\n"
		"... FP chain: nr:2\n"
		".....  0: fffffffffffffe00\n"
		".....  1: 00007fcdef06a3e0\n");
	free(out);
}
