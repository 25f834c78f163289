/*
 * Unit tests for readers/writer: what it writes, readers/session reads back (attrs, ids,
 * names, records, features), at the offsets and sizes perf's layout puts them, and as a
 * pipe-mode stream; write errors are reported with the path.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/session.h"
#include "readers/writer.h"

#define SAMPLE_TYPE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD)

struct sample_rec {	/* SAMPLE_TYPE's fields in order */
	struct perf_event_header header;
	u64 ip;
	u32 pid, tid;
	u64 time, id, period;
};

struct comm_rec {	/* COMM "worker" with the trailer of SAMPLE_TYPE: TID, TIME, ID */
	struct perf_event_header header;
	u32 pid, tid;
	char comm[8];
	u32 s_pid, s_tid;
	u64 time, id;
};

static char *temp_path(void)
{
	char *path = xstrdup("/tmp/test_writer.XXXXXX");
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	return path;
}

static struct perf_event_attr make_attr(u64 config)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a) };

	a.config = config;
	a.sample_period = 1000 + config;
	a.sample_type = SAMPLE_TYPE;
	a.sample_id_all = 1;
	a.disabled = 1;
	return a;
}

struct seen {
	int nr, nr_samples, nr_comms, nr_rounds;
	u64 last_time;
	u64 ids_seen[2];
};

struct seen_consumer {
	struct event_consumer c;
	struct seen *seen;
};

static int deliver(struct event_consumer *c, struct event_ctx *ctx)
{
	struct seen *seen = container_of(c, struct seen_consumer, c)->seen;

	seen->nr++;
	switch (ctx->event->type) {
	case PERF_RECORD_SAMPLE:
		seen->nr_samples++;
		cr_assert_eq(ctx->sample.ip, 0x400000 + ctx->sample.time);
		cr_assert_eq(ctx->sample.pid, 42);
		cr_assert_eq(ctx->sample.tid, 43);
		cr_assert_eq(ctx->sample.period, 7);
		cr_assert(ctx->evsel);
		cr_assert_eq(ctx->evsel->idx, (int)(ctx->sample.id - 100));
		seen->ids_seen[ctx->evsel->idx]++;
		break;
	case PERF_RECORD_COMM:
		seen->nr_comms++;
		cr_assert_str_eq((const char *)ctx->event + 16, "worker");
		cr_assert_eq(ctx->sample.time, 5);
		break;
	case PERF_RECORD_FINISHED_ROUND:
		seen->nr_rounds++;
		return 0;
	}
	cr_assert_geq(ctx->sample.time, seen->last_time);
	seen->last_time = ctx->sample.time;
	return 0;
}

/* Two attrs, 1000 samples alternating between them, a COMM, rounds; features; into W. */
static void write_test_records(struct perf_writer *w, int nr_samples)
{
	struct perf_event_attr a0 = make_attr(0), a1 = make_attr(1);
	const u64 ids0[] = { 100 }, ids1[] = { 101 };
	const char *argv[] = { "/usr/bin/perf", "record", "-e", "cpu-clock" };
	struct comm_rec comm = {
		.header = { PERF_RECORD_COMM, 0, sizeof(comm) },
		.pid = 42, .tid = 43, .comm = "worker", .s_pid = 42, .s_tid = 43, .time = 5, .id = 100,
	};
	struct perf_event_header round = { PERF_RECORD_FINISHED_ROUND, 0, sizeof(round) };

	cr_assert(w, "%s", error_get());
	cr_assert_eq(perf_writer__add_attr(w, &a0, ids0, 1, "cpu-clock"), 0);
	cr_assert_eq(perf_writer__add_attr(w, &a1, ids1, 1, "task-clock"), 0);
	cr_assert_eq(perf_writer__set_string(w, HEADER_HOSTNAME, "testhost"), 0);
	cr_assert_eq(perf_writer__set_nrcpus(w, 8, 4), 0);
	cr_assert_eq(perf_writer__set_cmdline(w, 4, argv), 0);
	cr_assert_eq(perf_writer__write(w, &comm, sizeof(comm)), 0);
	for (int i = 0; i < nr_samples; i++) {
		struct sample_rec s = {
			.header = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
			.ip = 0x400000 + 10 + (u64)i, .pid = 42, .tid = 43, .time = 10 + (u64)i,
			.id = 100 + (u64)(i % 2), .period = 7,
		};

		cr_assert_eq(perf_writer__write(w, &s, sizeof(s)), 0);
		if (i % 100 == 99)
			cr_assert_eq(perf_writer__write(w, &round, sizeof(round)), 0);
	}
	/* set late, as a recorder knows the sample times only at the end */
	cr_assert_eq(perf_writer__set_sample_time(w, 10, 10 + (u64)nr_samples - 1), 0);
	cr_assert_eq(perf_writer__finish(w), 0, "%s", error_get());
	perf_writer__delete(w);
}

/* What write_test_records wrote (1000 samples), delivered in order. */
static void process_test_records(struct perf_session *s)
{
	struct seen seen = { 0 };
	struct seen_consumer consumer = { { .deliver = deliver }, &seen };

	cr_assert_eq(perf_session__process(s, &consumer.c), 0, "%s", error_get());
	cr_assert_eq(seen.nr_samples, 1000);
	cr_assert_eq(seen.nr_comms, 1);
	cr_assert_eq(seen.nr_rounds, 10);
	cr_assert(seen.ids_seen[0] == 500 && seen.ids_seen[1] == 500);
}

static void write_test_file(const char *path, int nr_samples)
{
	write_test_records(perf_writer__new(path), nr_samples);
}

Test(writer, session_reads_back_attrs_records_and_features)
{
	char *path = temp_path();
	struct perf_session s;
	const u8 *p;
	size_t size;
	u32 nr[2];
	u64 times[2];

	write_test_file(path, 1000);
	cr_assert_eq(perf_session__open(&s, path), 0, "%s", error_get());
	cr_assert_eq(s.nr_evsels, 2);
	cr_assert_eq(s.evsels[0].attr.config, 0);
	cr_assert_eq(s.evsels[1].attr.config, 1);
	cr_assert_eq(s.evsels[1].attr.sample_period, 1001);
	cr_assert_eq(s.evsels[0].attr.size, WRITER_ATTR_SIZE);
	cr_assert_eq(s.evsels[0].nr_ids, 1);
	cr_assert_eq(s.evsels[0].ids[0], 100);
	cr_assert_eq(s.evsels[1].ids[0], 101);
	cr_assert_str_eq(s.evsels[0].name, "cpu-clock");	/* from EVENT_DESC */
	cr_assert_str_eq(s.evsels[1].name, "task-clock");

	p = perf_session__feat(&s, HEADER_HOSTNAME, &size);
	cr_assert(p);
	cr_assert_eq(size, 4 + 64);	/* u32 len, then the name padded to 64 */
	cr_assert_str_eq((const char *)p + 4, "testhost");
	p = perf_session__feat(&s, HEADER_NRCPUS, &size);
	cr_assert(p && size == sizeof(nr));
	memcpy(nr, p, sizeof(nr));
	cr_assert(nr[0] == 8 && nr[1] == 4);
	p = perf_session__feat(&s, HEADER_CMDLINE, &size);
	cr_assert(p && size == 4 + 4 * (4 + 64));
	cr_assert_eq(*(const u32 *)p, 4);
	cr_assert_str_eq((const char *)p + 4 + 3 * 68 + 4, "cpu-clock");
	p = perf_session__feat(&s, HEADER_SAMPLE_TIME, &size);
	cr_assert(p && size == sizeof(times));
	memcpy(times, p, sizeof(times));
	cr_assert(times[0] == 10 && times[1] == 1009);
	cr_assert_not(perf_session__has_feat(&s, HEADER_BUILD_ID));

	process_test_records(&s);
	perf_session__close(&s);
	unlink(path);
	free(path);
}

Test(writer, pipe_mode_stream_is_read_back)
{
	char *path = temp_path();
	int fd = open(path, O_WRONLY | O_TRUNC);
	struct perf_session s;
	const u8 *p;
	size_t size;
	u64 magic[2];
	FILE *f;

	cr_assert(fd >= 0);
	write_test_records(perf_writer__new_pipe(fd), 1000);
	f = fopen(path, "r");
	cr_assert(f && fread(magic, sizeof(magic), 1, f) == 1);
	fclose(f);
	cr_assert(magic[0] == PERF_MAGIC2 && magic[1] == PERF_PIPE_HEADER_SIZE);
	cr_assert_eq(perf_session__open(&s, path), 0, "%s", error_get());
	cr_assert(s.is_pipe);
	process_test_records(&s);
	cr_assert_str_eq(s.evsels[0].name, "cpu-clock");	/* from the EVENT_DESC record */
	cr_assert_str_eq(s.evsels[1].name, "task-clock");
	p = perf_session__feat(&s, HEADER_HOSTNAME, &size);
	cr_assert(p && size == 4 + 64);
	cr_assert_str_eq((const char *)p + 4, "testhost");
	/* set after the first record: a pipe cannot go back for it */
	cr_assert_not(perf_session__has_feat(&s, HEADER_SAMPLE_TIME));
	perf_session__close(&s);
	unlink(path);
	free(path);
}

Test(writer, sizes_and_offsets_follow_perfs_layout)
{
	char *path = temp_path();
	struct perf_session s;
	struct stat st;
	u64 entry = WRITER_ATTR_SIZE + sizeof(struct perf_file_section), ids[2], feat_end = 0;
	u64 data_size = sizeof(struct comm_rec) + 250 * sizeof(struct sample_rec) + 2 * 8;
	int nr_feats = 0;

	write_test_file(path, 250);
	cr_assert_eq(perf_session__open(&s, path), 0, "%s", error_get());
	cr_assert_eq(s.header.size, 104);
	cr_assert_eq(s.header.attr_size, entry);
	/* header, then the ids of both attrs, then the attrs pointing at them */
	memcpy(ids, s.base + 104, sizeof(ids));
	cr_assert(ids[0] == 100 && ids[1] == 101);
	cr_assert_eq(s.header.attrs.offset, 104 + 16);
	cr_assert_eq(s.header.attrs.size, 2 * entry);
	cr_assert_eq(s.header.data.offset, 104 + 16 + 2 * entry);
	cr_assert_eq(s.header.data.size, data_size);
	/* the feature table right after the data, its sections after it, back to back */
	for (int bit = 1; bit < HEADER_FEAT_BITS; bit++) {
		if (!perf_session__has_feat(&s, bit))
			continue;
		if (!nr_feats)
			feat_end = s.header.data.offset + data_size;
		nr_feats++;
	}
	cr_assert_eq(nr_feats, 5);	/* HOSTNAME NRCPUS CMDLINE EVENT_DESC SAMPLE_TIME */
	feat_end += (u64)nr_feats * sizeof(struct perf_file_section);
	for (int bit = 1; bit < HEADER_FEAT_BITS; bit++) {
		if (!perf_session__has_feat(&s, bit))
			continue;
		cr_assert_eq(s.feat[bit].offset, feat_end, "feature %d", bit);
		feat_end += s.feat[bit].size;
	}
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq((u64)st.st_size, feat_end);
	perf_session__close(&s);
	unlink(path);
	free(path);
}

Test(writer, payload_bigger_than_the_buffer_goes_straight_through)
{
	char *path = temp_path();
	struct perf_writer *w = perf_writer__new(path);
	struct perf_event_attr a = make_attr(0);
	size_t big = 3u << 20;
	u8 *payload = xmalloc(big);
	struct perf_session s;

	for (size_t i = 0; i < big; i++)
		payload[i] = (u8)(i * 7);
	cr_assert_eq(perf_writer__add_attr(w, &a, NULL, 0, NULL), 0);
	cr_assert_eq(perf_writer__write(w, "12345678", 8), 0);	/* something buffered first */
	cr_assert_eq(perf_writer__write(w, payload, big), 0);
	cr_assert_eq(perf_writer__offset(w), 104 + WRITER_ATTR_SIZE + 16 + 8 + big);
	cr_assert_eq(perf_writer__finish(w), 0, "%s", error_get());
	perf_writer__delete(w);
	cr_assert_eq(perf_session__open(&s, path), 0, "%s", error_get());
	cr_assert_eq(s.header.data.size, 8 + big);
	cr_assert_eq(memcmp(s.base + s.header.data.offset, "12345678", 8), 0);
	cr_assert_eq(memcmp(s.base + s.header.data.offset + 8, payload, big), 0);
	cr_assert_not(perf_session__has_feat(&s, HEADER_EVENT_DESC));	/* no names given */
	cr_assert_eq(s.nr_evsels, 1);
	cr_assert_eq(s.evsels[0].nr_ids, 0);
	perf_session__close(&s);
	unlink(path);
	free(path);
	free(payload);
}

Test(writer, unwritable_path_is_a_clear_error)
{
	cr_assert_null(perf_writer__new("/nonexistent-dir/perf.data"));
	cr_assert_str_eq(error_get(), "/nonexistent-dir/perf.data: cannot create: No such file or directory");
}

Test(writer, failed_write_names_the_file_and_offset)
{
	struct perf_writer *w = perf_writer__new("/dev/full");
	struct perf_event_attr a = make_attr(0);

	cr_assert(w, "%s", error_get());
	cr_assert_eq(perf_writer__add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	cr_assert_eq(perf_writer__write(w, "12345678", 8), 0);	/* buffered: no error yet */
	cr_assert_eq(perf_writer__finish(w), -1);
	cr_assert_str_eq(error_get(), "/dev/full: offset 0: cannot write: No space left on device");
	cr_assert_eq(perf_writer__write(w, "12345678", 8), -1);	/* and it stays failed */
	perf_writer__delete(w);
}

Test(writer, misuse_is_refused)
{
	char *path = temp_path();
	struct perf_writer *w = perf_writer__new(path);
	struct perf_event_attr a = make_attr(0);

	cr_assert_eq(perf_writer__finish(w), -1);
	cr_assert(strstr(error_get(), "no event attrs"), "%s", error_get());
	cr_assert_eq(perf_writer__set_feature(w, 0, "x", 1), -1);
	cr_assert_eq(perf_writer__set_feature(w, HEADER_FEAT_BITS, "x", 1), -1);
	cr_assert_eq(perf_writer__add_attr(w, &a, NULL, 0, NULL), 0);
	cr_assert_eq(perf_writer__write(w, "12345678", 8), 0);
	cr_assert_eq(perf_writer__add_attr(w, &a, NULL, 0, NULL), -1);
	cr_assert(strstr(error_get(), "after the first record"), "%s", error_get());
	cr_assert_eq(perf_writer__finish(w), 0, "%s", error_get());
	cr_assert_eq(perf_writer__finish(w), -1);
	cr_assert(strstr(error_get(), "already finished"), "%s", error_get());
	cr_assert_eq(perf_writer__write(w, "12345678", 8), -1);
	perf_writer__delete(w);
	unlink(path);
	free(path);
}
