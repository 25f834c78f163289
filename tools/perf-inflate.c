/*
 * perf-inflate: a developer tool for the benchmark. Inflates every COMPRESSED record of a
 * perf.data file or --threads directory with analyze's reader on one thread and prints the
 * rate; with -x PREFIX, also writes each file's raw zstd payloads, in order, to PREFIX.N.zst
 * (one zstd stream per data file), so `zstd -d` can be timed on exactly the same bytes.
 *   perf-inflate [-x PREFIX] PATH
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/error.h"
#include "readers/reader.h"
#include "readers/session.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int inflate_region(const char *path, u8 *map, u64 off, u64 size, const char *prefix,
			  int index, u64 *in_bytes, u64 *out_bytes)
{
	struct reader rd;
	FILE *out = NULL;
	char name[4096];
	struct reader_record rec;
	int ret;

	if (prefix) {
		snprintf(name, sizeof(name), "%s.%d.zst", prefix, index);
		out = fopen(name, "w");
		if (!out) {
			error_set("%s: cannot write", name);
			return -1;
		}
	}
	reader__init_map(&rd, path, map, off, size, false);
	while ((ret = reader__next(&rd, &rec)) > 0) {
		if (rec.event->type == PERF_RECORD_COMPRESSED) {
			u32 len = rec.event->size - sizeof(*rec.event);

			*in_bytes += len;
			if (out && fwrite(rec.event + 1, 1, len, out) != len)
				ret = -1;
		} else if (rec.inflated) {
			*out_bytes += rec.event->size;
		}
	}
	reader__exit(&rd);
	if (out)
		fclose(out);
	return ret;
}

int main(int argc, char **argv)
{
	struct perf_session s;
	const char *xpath = NULL, *path;
	u64 in_bytes = 0, out_bytes = 0;
	double t0, t;
	int ret = 0;

	if (argc == 4 && !strcmp(argv[1], "-x")) {
		xpath = argv[2];
		path = argv[3];
	} else if (argc == 2) {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: perf-inflate [-x OUT.zst] PATH\n");
		return 2;
	}
	if (perf_session__open(&s, path) || s.is_pipe) {
		fprintf(stderr, "perf-inflate: %s\n", s.is_pipe ? "pipe mode is not supported" : error_get());
		return 1;
	}
	t0 = now();
	ret = inflate_region(s.data_path, s.base, s.header.data.offset, s.header.data.size, xpath,
			     0, &in_bytes, &out_bytes);
	for (size_t i = 0; !ret && i < s.nr_dir_files; i++) {
		FILE *f = fopen(s.dir_files[i].path, "r");
		u8 *buf = malloc(s.dir_files[i].size + 1);

		if (!f || fread(buf, 1, s.dir_files[i].size, f) != s.dir_files[i].size)
			ret = -1;
		else
			ret = inflate_region(s.dir_files[i].path, buf, 0, s.dir_files[i].size,
					     xpath, (int)i + 1, &in_bytes, &out_bytes);
		if (f)
			fclose(f);
		free(buf);
	}
	t = now() - t0;
	if (ret < 0) {
		fprintf(stderr, "perf-inflate: %s\n", error_get());
		return 1;
	}
	printf("%llu %llu %.3f\n", (unsigned long long)in_bytes, (unsigned long long)out_bytes, t);
	perf_session__close(&s);
	return 0;
}
