/*
 * sweep: truncation and mutation sweeps over perf.data files, run in-process (no exec per
 * case, so tens of thousands of cases take seconds). For each file:
 *   - cut at every byte offset of its header, attrs and feature sections, and at every
 *     STRIDE-th byte of its data section (a cut file must give exit status 1 and one error
 *     line naming the file and an offset; a pipe-mode file, read as a stream, may instead
 *     give the output of what could be read, status 0);
 *   - flip single bytes at FLIPS offsets spread over the file (and every byte of the first
 *     104), each run through `report` and `script`: status 0, or 1 with one error line
 *     naming the file and an offset.
 * A `perf record --threads` data directory is swept file by file the same way, on a copy: its
 * header file `data` cut and changed as a file is, each `data.N` (records only) cut at every
 * STRIDE-th byte and at every byte of its first and last 64, a cut `data.N` allowed to read
 * (a cut between two records is a shorter stream), errors naming a file of the directory.
 * Never a crash or a hang (each case has an alarm). Sanitizer builds check memory safety.
 *
 *   sweep [--stride N] [--flips N] [--quiet] FILE|DIR...
 * Prints a summary line per file (not with --quiet) and one in all; exits 1 if any case failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/commands.h"
#include "analyzer/script/script.h"
#include "lib/compiler.h"
#include "readers/format.h"

static const char *current_case = "";
static int report_fd = -1;	/* the real stdout: the commands' own goes to /dev/null */
static FILE *report;

static void on_alarm(int sig)
{
	static const char msg[] = "sweep: a case hung (over 20 s): ";

	(void)sig;
	if (write(report_fd, msg, sizeof(msg) - 1) < 0 ||
	    write(report_fd, current_case, strlen(current_case)) < 0 || write(report_fd, "\n", 1) < 0)
		_exit(2);
	_exit(2);
}

struct sweep {
	int input;	/* memfd holding the file under test */
	char kallsyms[64];	/* an empty kallsyms: see main */
	int err;	/* memfd that stands in for stderr during a case */
	int saved_err;	/* the real stderr */
	char path[4096];	/* what the commands read: the memfd, or a directory's copy */
	char want[4200];	/* what an error line must start with, up to the offset */
	bool quiet;	/* no line per file */
	unsigned long pass, fail;
};

enum cmd { CMD_REPORT, CMD_SCRIPT };

/* Run one command on the input as it is now; 0 if it behaved. */
static int run_case(struct sweep *sw, enum cmd cmd, bool must_fail, const char *what)
{
	static const struct analyze_config cfg = { .buildid_dir = "/nonexistent" };
	const char *report_argv[] = { "-i", sw->path, "--symfs", "/nonexistent", "--kallsyms",
				      sw->kallsyms, "--stdio", "-j1" };
	const char *script_argv[] = { "-i", sw->path, "--symfs", "/nonexistent", "--kallsyms",
				      sw->kallsyms, "--show-task-events", "--show-mmap-events",
				      "--show-switch-events", "--show-lost-events", "-j1" };
	char err[4096];
	ssize_t n;
	int status, lines = 0;

	current_case = what;
	fflush(stderr);
	if (ftruncate(sw->err, 0) || lseek(sw->err, 0, SEEK_SET) || dup2(sw->err, 2) < 0)
		abort();
	alarm(20);
	status = cmd == CMD_REPORT
			 ? cmd_report(ARRAY_SIZE(report_argv), report_argv, &cfg)
			 : cmd_script(ARRAY_SIZE(script_argv), script_argv, &cfg);
	alarm(0);
	fflush(stdout);
	fflush(stderr);
	dup2(sw->saved_err, 2);
	n = pread(sw->err, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = 0;
	for (char *p = err; (p = strchr(p, '\n')); p++)
		lines++;
	if ((status == 0 && !must_fail) ||
	    (status == 1 && lines == 1 && strstr(err, sw->want) && strstr(err, ": offset ") &&
	     !strstr(err, ": \n"))) {
		sw->pass++;
		return 0;
	}
	sw->fail++;
	fprintf(report, "FAIL %s (%s): status %d, %d error lines: %.300s\n", what,
	       cmd == CMD_REPORT ? "report" : "script", status, lines, err);
	return -1;
}

static int load(struct sweep *sw, const unsigned char *bytes, size_t size)
{
	if (ftruncate(sw->input, 0) || pwrite(sw->input, bytes, size, 0) != (ssize_t)size)
		return -1;
	return 0;
}

static void sweep_file(struct sweep *sw, const char *file, size_t stride, size_t flips)
{
	unsigned long pass0 = sw->pass, fail0 = sw->fail;
	struct perf_file_header h = { 0 };
	unsigned char *bytes;
	char what[512];
	bool pipe;
	size_t size, data_start, data_end;
	struct stat st;
	int fd = open(file, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(report, "FAIL %s: cannot read it as a file\n", file);
		sw->fail++;
		if (fd >= 0)
			close(fd);
		return;
	}
	size = (size_t)st.st_size;
	bytes = malloc(size + 1);
	if (!bytes || pread(fd, bytes, size, 0) != (ssize_t)size)
		abort();
	close(fd);
	memcpy(&h, bytes, MIN(size, sizeof(h)));
	pipe = h.size == 16;
	data_start = pipe ? 16 : MIN(h.data.offset, size);
	data_end = pipe ? size : MIN(h.data.offset + h.data.size, size);

	/* cuts, from the end down: shrinking the file needs no rewriting */
	if (load(sw, bytes, size))
		abort();
	for (size_t cut = size; cut-- > 0;) {
		bool dense = cut < data_start + 64 || cut >= data_end;

		if (!dense && (cut - data_start) % stride)
			continue;
		if (ftruncate(sw->input, (off_t)cut))
			abort();
		snprintf(what, sizeof(what), "%s cut at %zu", file, cut);
		run_case(sw, CMD_REPORT, !pipe, what);
	}
	/* flips: every byte of the file header, then evenly spread */
	if (load(sw, bytes, size))
		abort();
	for (size_t i = 0; i < 104 + flips && i < size + 104; i++) {
		size_t at = i < 104 ? i : (i - 104) * size / flips + (i * 7919) % MAX(size / flips, 1);
		unsigned char b;

		if (at >= size || (i >= 104 && at < 104))
			continue;
		b = bytes[at] ^ (unsigned char)(0x5a + i);
		if (b == bytes[at])
			b ^= 0xff;
		if (pwrite(sw->input, &b, 1, (off_t)at) != 1)
			abort();
		snprintf(what, sizeof(what), "%s with byte %zu changed to %#x", file, at, b);
		run_case(sw, CMD_REPORT, false, what);
		run_case(sw, CMD_SCRIPT, false, what);
		if (pwrite(sw->input, &bytes[at], 1, (off_t)at) != 1)
			abort();
	}
	free(bytes);
	if (!sw->quiet)
		fprintf(report, "sweep: %s: %lu cases, %lu failed\n", file, sw->pass - pass0 + sw->fail - fail0,
	       sw->fail - fail0);
}

/* The bytes of a file, whole ("size" of them); NULL if it cannot be read. */
static unsigned char *read_whole(const char *file, size_t *size)
{
	struct stat st;
	unsigned char *bytes;
	int fd = open(file, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*size = (size_t)st.st_size;
	bytes = malloc(*size + 1);
	if (!bytes || pread(fd, bytes, *size, 0) != (ssize_t)*size)
		abort();
	close(fd);
	return bytes;
}

static void write_whole(const char *file, const unsigned char *bytes, size_t size)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, bytes, size) != (ssize_t)size || close(fd))
		abort();
}

/* One file of a directory's copy (at path), cut and changed; the others stay whole. */
static void sweep_dir_file(struct sweep *sw, const char *dir, const char *name, const char *path,
			   size_t stride, size_t flips)
{
	bool header = strcmp(name, "data") == 0;
	size_t size, dense = 64, data_start = 0;
	unsigned char *bytes = read_whole(path, &size);
	char what[8300];

	if (!bytes)
		abort();
	if (header) {	/* the header file: dense up to the end of its sections' start */
		struct perf_file_header h = { 0 };

		memcpy(&h, bytes, MIN(size, sizeof(h)));
		data_start = MIN(h.data.offset, size);
		dense = data_start + 64;
	}
	for (size_t cut = size; cut-- > 0;) {
		if (cut >= dense && cut + 64 < size && (cut - dense) % stride)
			continue;
		if (truncate(path, (off_t)cut))
			abort();
		snprintf(what, sizeof(what), "%.4000s/%.255s cut at %zu", dir, name, cut);
		run_case(sw, CMD_REPORT, header, what);
	}
	write_whole(path, bytes, size);
	for (size_t i = 0; i < (header ? 104 : 0) + flips; i++) {
		size_t at = header && i < 104 ? i : (i * 7919) % MAX(size, 1);
		int fd;
		unsigned char b;

		if (at >= size)
			continue;
		b = bytes[at] ^ (unsigned char)(0x5a + i);
		if (b == bytes[at])
			b ^= 0xff;
		fd = open(path, O_WRONLY);
		if (fd < 0 || pwrite(fd, &b, 1, (off_t)at) != 1 || close(fd))
			abort();
		snprintf(what, sizeof(what), "%.4000s/%.255s with byte %zu changed to %#x", dir,
			 name, at, b);
		run_case(sw, CMD_REPORT, false, what);
		run_case(sw, CMD_SCRIPT, false, what);
		write_whole(path, bytes, size);
	}
	free(bytes);
}

/* A data directory: copied to a temporary one, whose files are swept one at a time. */
static void sweep_dir(struct sweep *sw, const char *dir, size_t stride, size_t flips)
{
	unsigned long pass0 = sw->pass, fail0 = sw->fail;
	char tmp[] = "/tmp/sweep-dir.XXXXXX", names[64][256], from[4400], to[4400];
	size_t nr = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d || !mkdtemp(tmp))
		abort();
	while ((de = readdir(d)) && nr < ARRAY_SIZE(names)) {
		unsigned char *bytes;
		size_t size;

		snprintf(from, sizeof(from), "%.4000s/%.255s", dir, de->d_name);
		if (de->d_name[0] == '.' || !(bytes = read_whole(from, &size)))
			continue;
		snprintf(names[nr++], sizeof(names[0]), "%s", de->d_name);
		snprintf(to, sizeof(to), "%s/%.255s", tmp, de->d_name);
		write_whole(to, bytes, size);
		free(bytes);
	}
	closedir(d);
	snprintf(sw->path, sizeof(sw->path), "%s", tmp);
	snprintf(sw->want, sizeof(sw->want), "%s/", tmp);
	for (size_t i = 0; i < nr; i++) {
		snprintf(to, sizeof(to), "%s/%.255s", tmp, names[i]);
		sweep_dir_file(sw, dir, names[i], to, stride, flips);
	}
	for (size_t i = 0; i < nr; i++) {
		snprintf(to, sizeof(to), "%s/%.255s", tmp, names[i]);
		unlink(to);
	}
	rmdir(tmp);
	snprintf(sw->path, sizeof(sw->path), "/proc/self/fd/%d", sw->input);
	snprintf(sw->want, sizeof(sw->want), "%s: offset ", sw->path);
	if (!sw->quiet)
		fprintf(report, "sweep: %s: %lu cases, %lu failed\n", dir,
			sw->pass - pass0 + sw->fail - fail0, sw->fail - fail0);
}

int main(int argc, char **argv)
{
	struct sweep sw = { .input = -1 };
	size_t stride = 97, flips = 64;
	int i = 1, kallsyms;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--stride") && i + 1 < argc)
			stride = MAX(strtoul(argv[++i], NULL, 0), 1ul);
		else if (!strcmp(argv[i], "--flips") && i + 1 < argc)
			flips = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--quiet"))
			sw.quiet = true;
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: sweep [--stride N] [--flips N] [--quiet] FILE|DIR...\n");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	sw.input = memfd_create("sweep-input", 0);
	sw.err = memfd_create("sweep-stderr", 0);
	sw.saved_err = dup(2);
	if (sw.input < 0 || sw.err < 0 || sw.saved_err < 0) {
		perror("sweep");
		return 2;
	}
	snprintf(sw.path, sizeof(sw.path), "/proc/self/fd/%d", sw.input);
	snprintf(sw.want, sizeof(sw.want), "%s: offset ", sw.path);
	/*
	 * No kernel symbols: a kallsyms of one empty line, not /dev/null, whose size of 0 is
	 * /proc/kallsyms's and has analyze reserve a large kernel's table (16 MB) every run.
	 * Under ASan that mapping and its freeing were 80% of the sweep; the reports are the same.
	 */
	kallsyms = memfd_create("sweep-kallsyms", 0);
	if (kallsyms < 0 || write(kallsyms, "\n", 1) != 1) {
		perror("sweep: kallsyms");
		return 2;
	}
	snprintf(sw.kallsyms, sizeof(sw.kallsyms), "/proc/self/fd/%d", kallsyms);
	/* the commands' output is not what is checked; ours goes to the real stdout */
	report_fd = dup(1);
	report = report_fd >= 0 ? fdopen(report_fd, "w") : NULL;
	if (!report || !freopen("/dev/null", "w", stdout)) {
		perror("sweep: stdout");
		return 2;
	}
	setvbuf(report, NULL, _IOLBF, 0);
	for (; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			sweep_dir(&sw, argv[i], stride, flips);
		else
			sweep_file(&sw, argv[i], stride, flips);
	}
	fprintf(report, "sweep: %lu cases, %lu failed\n", sw.pass + sw.fail, sw.fail);
	return sw.fail ? 1 : 0;
}
