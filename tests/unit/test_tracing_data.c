/*
 * Unit tests for readers/decode/tracing_data: perf's tracing data layout (trace-event-read.c) split
 * into pieces, in either byte order, and every truncation or bad count refused with the file
 * and offset.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/decode/tracing_data.h"

struct blob {
	u8 *buf;
	size_t len, alloc;
	bool big_endian;
};

static void put(struct blob *b, const void *data, size_t n)
{
	ARRAY_GROW(b->buf, b->alloc, b->len + n + 1);
	memcpy(b->buf + b->len, data, n);
	b->len += n;
}

static void put_num(struct blob *b, u64 v, size_t n)
{
	u8 bytes[8];

	for (size_t i = 0; i < n; i++)
		bytes[b->big_endian ? n - 1 - i : i] = (u8)(v >> (8 * i));
	put(b, bytes, n);
}

static void put_piece(struct blob *b, const char *text, size_t n)
{
	put_num(b, strlen(text), n);
	put(b, text, strlen(text));
}

#define FORMAT_A "name: a\nID: 1\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n\nprint fmt: \"x=%d\", REC->x\n"
#define FORMAT_B "name: b\nID: 2\nformat:\n\nprint fmt: \"\"\n"

/* What perf 6.1's tracing_data_get writes: magic, "0.6", header, two systems. */
static void make_blob(struct blob *b, bool big_endian)
{
	static const u8 magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const u8 endian_and_long[2] = { big_endian, 8 };

	memset(b, 0, sizeof(*b));
	b->big_endian = big_endian;
	put(b, magic, sizeof(magic));
	put(b, "0.6", 4);
	put(b, endian_and_long, 2);
	put_num(b, 4096, 4);
	put(b, "header_page", 12);
	put_piece(b, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n", 8);
	put(b, "header_event", 13);
	put_piece(b, "# compressed entry header\n", 8);
	put_num(b, 1, 4);	/* ftrace formats */
	put_piece(b, FORMAT_B, 8);
	put_num(b, 2, 4);	/* systems */
	put(b, "sys1", 5);
	put_num(b, 1, 4);
	put_piece(b, FORMAT_A, 8);
	put(b, "sys2", 5);
	put_num(b, 0, 4);
	put_num(b, 0, 4);	/* kallsyms: none, as perf writes now */
	put_piece(b, "ffffffff81000000 : \"hello\\n\"\n", 4);
	put_piece(b, "1 init\n", 8);
}

static void check_blob(bool big_endian)
{
	struct blob b;
	struct tracing_data td;

	make_blob(&b, big_endian);
	cr_assert_eq(tracing_data__parse(&td, b.buf, b.len, 0x1000, "f.data"), 0, "%s", error_get());
	cr_assert_str_eq(td.version, "0.6");
	cr_assert_eq(td.big_endian, big_endian);
	cr_assert_eq(td.long_size, 8);
	cr_assert_eq(td.page_size, 4096);
	cr_assert_eq(td.header_page.size, strlen("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"));
	cr_assert_eq(td.header_page.offset, 0x1000 + 10 + 4 + 2 + 4 + 12 + 8);
	cr_assert_eq(td.nr_formats, 2);
	cr_assert_str_eq(td.formats[0].system, "ftrace");
	cr_assert_eq(td.formats[0].text.size, strlen(FORMAT_B));
	cr_assert_str_eq(td.formats[1].system, "sys1");
	cr_assert_eq(memcmp(td.formats[1].text.data, FORMAT_A, strlen(FORMAT_A)), 0);
	cr_assert_eq(td.kallsyms.size, 0);
	cr_assert_eq(memcmp(td.printk.data, "ffffffff81000000", 16), 0);
	cr_assert_eq(td.cmdlines.size, strlen("1 init\n"));
	cr_assert_eq(td.size, b.len);
	tracing_data__exit(&td);
	free(b.buf);
}

Test(tracing_data, splits_perfs_layout_in_either_byte_order)
{
	check_blob(false);
	check_blob(true);
}

Test(tracing_data, every_truncation_is_an_error_with_file_and_offset)
{
	struct blob b;
	struct tracing_data td;

	make_blob(&b, false);
	for (size_t cut = 0; cut < b.len; cut++) {
		u8 *copy = xmalloc(cut + 1);	/* exactly cut bytes: ASan sees any overread */

		memcpy(copy, b.buf, cut);
		cr_assert_eq(tracing_data__parse(&td, copy, cut, 0x40, "f.data"), -1, "cut %zu", cut);
		cr_assert(strncmp(error_get(), "f.data: offset 0x", 17) == 0, "cut %zu: %s", cut,
			  error_get());
		tracing_data__exit(&td);
		free(copy);
	}
	free(b.buf);
}

Test(tracing_data, bad_magic_counts_and_sizes)
{
	struct blob b;
	struct tracing_data td;
	size_t count_at;

	make_blob(&b, false);
	b.buf[3] = 'T';
	cr_assert_eq(tracing_data__parse(&td, b.buf, b.len, 0, "f.data"), -1);
	cr_assert_str_eq(error_get(), "f.data: offset 0xa: tracing data: no tracing magic");
	tracing_data__exit(&td);
	free(b.buf);

	/* page size 0: perf gives up there */
	make_blob(&b, false);
	memset(b.buf + 16, 0, 4);
	cr_assert_eq(tracing_data__parse(&td, b.buf, b.len, 0, "f.data"), -1);
	cr_assert_str_eq(error_get(), "f.data: offset 0x10: tracing data: page size 0");
	tracing_data__exit(&td);
	free(b.buf);

	/* a format count of 2^31 - 1: refused before anything is allocated for it */
	make_blob(&b, false);
	count_at = 20 + 12 + 8 + strlen("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n") +
		   13 + 8 + strlen("# compressed entry header\n");
	cr_assert_eq(b.buf[count_at], 1);
	memcpy(b.buf + count_at, "\xff\xff\xff\x7f", 4);
	cr_assert_eq(tracing_data__parse(&td, b.buf, b.len, 0, "f.data"), -1);
	cr_assert(strstr(error_get(), "format count larger than the data"), "%s", error_get());
	tracing_data__exit(&td);
	/* a format size past the end */
	memcpy(b.buf + count_at, "\x01\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\x7f", 12);
	cr_assert_eq(tracing_data__parse(&td, b.buf, b.len, 0, "f.data"), -1);
	cr_assert(strstr(error_get(), "event format does not fit"), "%s", error_get());
	tracing_data__exit(&td);
	free(b.buf);
}

Test(tracing_data, versions_before_0_6_have_no_saved_cmdlines)
{
	struct blob b;
	struct tracing_data td;

	make_blob(&b, false);
	b.buf[12] = '5';	/* "0.5" */
	b.len -= 8 + strlen("1 init\n");
	cr_assert_eq(tracing_data__parse(&td, b.buf, b.len, 0, "f.data"), 0, "%s", error_get());
	cr_assert_eq(td.cmdlines.size, 0);
	cr_assert_eq(td.size, b.len);
	tracing_data__exit(&td);
	free(b.buf);
}

Test(tracing_data, names_events_by_id_as_system_colon_name)
{
	struct blob b;
	struct tracing_data td;
	char name[16];

	make_blob(&b, false);
	cr_assert_eq(tracing_data__parse(&td, b.buf, b.len, 0, "f.data"), 0, "%s", error_get());
	cr_assert(tracing_data__event_name(&td, 1, name, sizeof(name)));
	cr_assert_str_eq(name, "sys1:a");
	cr_assert(tracing_data__event_name(&td, 2, name, sizeof(name)));
	cr_assert_str_eq(name, "ftrace:b");
	cr_assert_not(tracing_data__event_name(&td, 3, name, sizeof(name)));
	/* truncated as snprintf does */
	cr_assert(tracing_data__event_name(&td, 1, name, 4));
	cr_assert_str_eq(name, "sys");
	tracing_data__exit(&td);
	free(b.buf);
}
