/* Unit tests for readers/reader: inflating COMPRESSED records, straddling, bad frames, streams. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "lib/error.h"
#include "readers/reader.h"

/* A run of simple records: type 3 (COMM-like) of varying sizes, each tagged with its index. */
static size_t make_records(u8 *buf, int n)
{
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		struct perf_event_header h = { .type = PERF_RECORD_COMM, .size = (u16)(16 + 8 * (i % 7)) };
		u64 tag = (u64)i;

		memcpy(buf + off, &h, sizeof(h));
		memcpy(buf + off + 8, &tag, 8);
		memset(buf + off + 16, 0xab, h.size - 16);
		off += h.size;
	}
	return off;
}

/* Append a COMPRESSED record holding [src, src + len) of one zstd stream. */
static size_t put_compressed(u8 *out, ZSTD_CCtx *cctx, const u8 *src, size_t len, bool end)
{
	u8 tmp[65536];
	ZSTD_inBuffer in = { src, len, 0 };
	ZSTD_outBuffer o = { tmp, sizeof(tmp), 0 };
	struct perf_event_header h = { .type = PERF_RECORD_COMPRESSED };
	size_t rem;

	do {
		rem = ZSTD_compressStream2(cctx, &o, &in, end ? ZSTD_e_end : ZSTD_e_flush);
		cr_assert(!ZSTD_isError(rem));
	} while (rem);
	/* as perf writes them: no padding, so what follows may be unaligned */
	h.size = (u16)(sizeof(h) + o.pos);
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), tmp, o.pos);
	return h.size;
}

Test(reader, inflates_records_straddling_two_compressed_records)
{
	static u8 plain[64 * 1024], file[128 * 1024];
	size_t len = make_records(plain, 1000), cut = len / 2 + 3, off = 0;
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	struct reader rd;
	struct reader_record rec;
	int n = 0, compressed = 0, ret;

	off += put_compressed(file + off, cctx, plain, cut, false);	/* cuts a record */
	off += put_compressed(file + off, cctx, plain + cut, len - cut, true);
	ZSTD_freeCCtx(cctx);
	reader__init_map(&rd, "test.data", file, 0, off, false);
	while ((ret = reader__next(&rd, &rec)) > 0) {
		u64 tag;

		if (rec.event->type == PERF_RECORD_COMPRESSED) {
			cr_assert_not(rec.inflated);
			compressed++;
			continue;
		}
		cr_assert(rec.inflated);
		cr_assert_eq(rec.event->type, PERF_RECORD_COMM);
		memcpy(&tag, rec.event + 1, 8);
		cr_assert_eq(tag, (u64)n, "record %d came out as %llu", n, (unsigned long long)tag);
		cr_assert_eq(rec.event->size, 16 + 8 * (n % 7));
		n++;
	}
	cr_assert_eq(ret, 0, "%s", error_get());
	cr_assert_eq(n, 1000, "%d records", n);
	cr_assert_eq(compressed, 2);
	reader__exit(&rd);
}

Test(reader, corrupt_frame_is_an_error_with_offset)
{
	static u8 plain[8192], file[16384];
	size_t len = make_records(plain, 100), off;
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	struct reader rd;
	struct reader_record rec;
	int ret;

	off = put_compressed(file, cctx, plain, len, true);
	ZSTD_freeCCtx(cctx);
	memset(file + 8, 0x5a, 16);	/* garble the frame header */
	reader__init_map(&rd, "bad.data", file, 0, off, false);
	while ((ret = reader__next(&rd, &rec)) > 0)
		;
	cr_assert_eq(ret, -1);
	cr_assert(strstr(error_get(), "bad.data: offset 0: corrupt compressed data"), "%s", error_get());
	reader__exit(&rd);
}

Test(reader, truncated_frame_leaves_a_partial_record_error)
{
	static u8 plain[8192], file[16384];
	size_t len = make_records(plain, 100), off;
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	struct reader rd;
	struct reader_record rec;
	int ret, n = 0;

	/* only part of the records, flushed mid-record, and no further COMPRESSED record */
	off = put_compressed(file, cctx, plain, len - 5, false);
	ZSTD_freeCCtx(cctx);
	reader__init_map(&rd, "cut.data", file, 0, off, false);
	while ((ret = reader__next(&rd, &rec)) > 0)
		n++;
	cr_assert_eq(ret, -1);
	cr_assert(strstr(error_get(), "ends inside a record"), "%s", error_get());
	cr_assert_eq(n, 1 + 99);	/* the COMPRESSED record and every complete record */
	reader__exit(&rd);
}

Test(reader, inflating_past_the_bound_is_refused)
{
	static u8 zeros[1 << 20], file[65536];
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	struct reader rd;
	struct reader_record rec;
	size_t off;
	int ret;

	/* 1 MiB of zeros inflates from a few hundred bytes: a bomb for a 256 KiB bound */
	off = put_compressed(file, cctx, zeros, sizeof(zeros), true);
	ZSTD_freeCCtx(cctx);
	reader__init_map(&rd, "bomb.data", file, 0, off, false);
	rd.max_inflate = 256 * 1024;
	while ((ret = reader__next(&rd, &rec)) > 0)
		;
	cr_assert_eq(ret, -1);
	cr_assert(strstr(error_get(), "inflates to more than"), "%s", error_get());
	reader__exit(&rd);
}

Test(reader, stream_reads_records_across_blocks_and_reports_truncation)
{
	static u8 plain[1024 * 1024];	/* 20000 records of 16 to 64 bytes */
	size_t len = make_records(plain, 20000);
	int fds[2];
	FILE *w;
	struct reader rd;
	struct reader_record rec;
	int ret, n = 0;

	cr_assert_eq(pipe(fds), 0);
	cr_assert(len > 300 * 1024);
	if (fork() == 0) {
		close(fds[0]);
		w = fdopen(fds[1], "w");
		fwrite(plain, 1, len - 3, w);	/* the last record is cut */
		fclose(w);
		_exit(0);
	}
	close(fds[1]);
	reader__init_fd(&rd, "pipe", fds[0], 16, false);
	while ((ret = reader__next(&rd, &rec)) > 0) {
		u64 tag;

		memcpy(&tag, rec.event + 1, 8);
		cr_assert_eq(tag, (u64)n);
		n++;
	}
	cr_assert_eq(ret, -1);
	cr_assert_eq(n, 19999);
	cr_assert(strstr(error_get(), "truncated"), "%s", error_get());
	reader__exit(&rd);
	close(fds[0]);
}
