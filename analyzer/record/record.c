/*
 * record: `analyze record`, perf record's options and messages: the command line, the
 * target (a workload, -a, -C, -p, -t), the workload's start and end, the main loop and the
 * summary. The events and buffers are record_stream.c's; the header record_header.c's.
 */
#include "analyzer/commands.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyzer/cli/options.h"
#include "analyzer/record/record_internal.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/writer.h"

static const char usage[] = "analyze record [<options>] [<command>]";

/*
 * SIGINT, SIGTERM and SIGCHLD stay blocked but while the main loop waits in ppoll, so they
 * interrupt the wait and nothing else (the streaming threads inherit the blocked mask).
 */
static volatile sig_atomic_t signaled, child_exited;

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_exited = 1;
	else
		signaled = sig;
}

struct record_options {
	struct recording *rec;
	const char *event_error;	/* set when -e failed: its message is printed */
	const char *pid, *tid, *cpus, *freq, *period, *pages, *call_graph, *threads, *zstd;
	bool g, a, z, threads_set;
};

static int opt_event(const char *arg, void *data)
{
	struct record_options *o = data;

	return arg ? record__parse_event(o->rec, arg) : 0;
}

static int opt_threads(const char *arg, void *data)
{
	struct record_options *o = data;

	o->threads_set = arg || !o->threads_set;
	o->threads = arg;
	return 0;
}

static int opt_zstd(const char *arg, void *data)
{
	struct record_options *o = data;

	o->z = true;
	o->zstd = arg;
	return 0;
}

/* The tasks to open the events on: -1 (every task), the workload, or -p/-t's threads. */
static int set_tids(struct recording *rec)
{
	if (rec->target_pid > 0) {
		char path[64];
		struct dirent *d;
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%d/task", rec->target_pid);
		dir = opendir(path);
		if (!dir)
			goto gone;
		while ((d = readdir(dir))) {
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			rec->tids = xreallocarray(rec->tids, rec->nr_tids + 1, sizeof(pid_t));
			rec->tids[rec->nr_tids++] = atoi(d->d_name);
		}
		closedir(dir);
		if (!rec->nr_tids)
			goto gone;
		return 0;
	}
	rec->tids = xcalloc(1, sizeof(pid_t));
	rec->nr_tids = 1;
	rec->tids[0] = -1;
	if (rec->target_tid > 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d", rec->target_tid);
		if (access(path, F_OK))
			goto gone;
		rec->tids[0] = rec->target_tid;
	}
	return 0;
gone:
	fprintf(stderr, "Couldn't create thread/CPU maps: No such process\n");
	return -1;
}

/*
 * The workload, forked and held on a pipe until the events are open (enable_on_exec starts
 * them at its exec). *go is the pipe's write end; an exec failure comes back on *err.
 */
static pid_t start_workload(struct recording *rec, int *go, int *err)
{
	int go_pipe[2], err_pipe[2];
	pid_t pid;

	if (pipe2(go_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) {
		perror("analyze record: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("analyze record: fork");
		return -1;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go_pipe[1]);
		close(err_pipe[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, &rec->unblocked, NULL);
		if (rec->pipe && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)	/* perf's: stdout is the data */
			_exit(127);
		if (read(go_pipe[0], &c, 1) != 1)
			_exit(127);
		execvp(rec->argv[0], (char *const *)rec->argv);
		e = errno;
		if (write(err_pipe[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go_pipe[0]);
	close(err_pipe[1]);
	*go = go_pipe[1];
	*err = err_pipe[0];
	return pid;
}

static void install_signals(struct recording *rec)
{
	struct sigaction sa = { 0 };
	sigset_t block;

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &rec->unblocked);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
}

/* Until the workload ends, a signal comes or (-p/-t) the target is gone. */
static void main_loop(struct recording *rec, pid_t child, int *status)
{
	struct rec_stream *s = &rec->streams[0];
	size_t nr = rec->threads ? 0 : s->nr_buffers;
	struct pollfd *pfd = xcalloc(nr + 1, sizeof(*pfd));
	/* -p/-t: look for the target's end now and then; a workload's end is a SIGCHLD */
	const struct timespec tick = { 0, 500 * 1000 * 1000 };

	for (size_t i = 0; i < nr; i++)
		pfd[i] = (struct pollfd){ .fd = s->buffers[i].fd, .events = POLLIN };
	for (;;) {
		if (!rec->threads && record__drain(s))
			break;
		if (signaled)
			break;
		if (child > 0 && child_exited && waitpid(child, status, WNOHANG) == child)
			break;
		if (child <= 0 && (rec->target_pid > 0 || rec->target_tid > 0) &&
		    kill(rec->target_pid > 0 ? rec->target_pid : rec->target_tid, 0) && errno == ESRCH)
			break;
		s->wakeups += !rec->threads;	/* perf counts every wait as a wakeup */
		if (ppoll(pfd, nr, child > 0 ? NULL : &tick, &rec->unblocked) > 0) {
			for (size_t i = 0; i < nr; i++) {	/* a task's end: perf stops polling it */
				if (pfd[i].revents & (POLLHUP | POLLERR))
					pfd[i].fd = -1;
			}
		}
	}
	free(pfd);
}

static int parse_number(const char *s, u64 *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

/* -m: pages (or a size with B/K/M/G), rounded up to a power of two as perf does. */
static int parse_pages(struct recording *rec, const char *arg)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 0), pages = v, p2 = 1;

	if (end == arg || *arg == '-')
		return -1;
	if (*end) {
		unsigned long long mult = 1;

		switch (*end == 0 ? 0 : end[0] | 0x20) {
		case 'b': mult = 1; break;
		case 'k': mult = 1ULL << 10; break;
		case 'm': mult = 1ULL << 20; break;
		case 'g': mult = 1ULL << 30; break;
		default: return -1;
		}
		if (end[1] && !((end[1] | 0x20) == 'b' && !end[2]))
			return -1;
		pages = v * mult / rec->page_size;
	}
	if (!pages || pages > (1ULL << 20))
		return -1;
	while (p2 < pages)
		p2 <<= 1;
	if (p2 != pages)
		fprintf(stderr, "rounding mmap pages size to %llu bytes (%llu pages)\n",
			p2 * rec->page_size, p2);
	rec->mmap_pages = (unsigned)p2;
	return 0;
}

static int bad_option(const struct option *opts, const char *what)
{
	fprintf(stderr, "  Error: %s\n", what);
	usage_with_options(usage, opts);
	return -1;
}

/* The options into rec; the workload's argv after them. 0, or -1 after perf's usage error. */
static int parse_args(struct recording *rec, struct record_options *o, int argc, const char **argv)
{
	struct option_callback ev = { opt_event, o }, th = { opt_threads, o, opt_threads };
	struct option_callback zs = { opt_zstd, o, opt_zstd };
	const struct option opts[] = {
		{ 'e', "event", OPT_CALLBACK, &ev, "event", "event selector. use 'perf list' to list available events" },
		{ 'a', "all-cpus", OPT_BOOL, &o->a, NULL, "system-wide collection from all CPUs" },
		{ 'p', "pid", OPT_STRING, &o->pid, "pid", "record events on existing process id" },
		{ 't', "tid", OPT_STRING, &o->tid, "tid", "record events on existing thread id" },
		{ 'C', "cpu", OPT_STRING, &o->cpus, "cpu", "list of cpus to monitor" },
		{ 'F', "freq", OPT_STRING, &o->freq, "freq or 'max'", "profile at this frequency" },
		{ 'c', "count", OPT_STRING, &o->period, "n", "event period to sample" },
		{ 'g', NULL, OPT_BOOL, &o->g, NULL, "enables call-graph recording" },
		{ 0, "call-graph", OPT_STRING, &o->call_graph, "record_mode[,record_size]", "setup and enables call-graph (stack chain/backtrace): fp dwarf" },
		{ 0, "no-inherit", OPT_BOOL, &rec->no_inherit, NULL, "child tasks do not inherit counters" },
		{ 0, "threads", OPT_CALLBACK, &th, "spec", "write collected trace data into several data files using parallel threads", true },
		{ 'z', "compression-level", OPT_CALLBACK, &zs, "n", "Compress records using specified level (default: 1 - fastest compression, 22 - greatest compression)", true },
		{ 'm', "mmap-pages", OPT_STRING, &o->pages, "pages", "number of mmap data pages" },
		{ 'o', "output", OPT_STRING, &rec->output, "file", "output file name" },
		OPT_END_MARK,
	};
	int nr = parse_options(argc, argv, opts, usage);
	u64 v;

	if (nr < 0)
		return -1;
	rec->argc = nr;
	rec->argv = xcalloc((size_t)nr + 1, sizeof(char *));	/* execvp's NULL-terminated argv */
	memcpy(rec->argv, argv, (size_t)nr * sizeof(char *));
	rec->system_wide = o->a;
	rec->have_cpu_list = o->cpus != NULL;
	rec->cpu_list = o->cpus;
	if (o->cpus && record__check_cpu_list(o->cpus))
		return bad_option(opts, "invalid CPU list");
	if ((o->pid && parse_number(o->pid, &v)) || (o->pid && (rec->target_pid = (pid_t)v) <= 0))
		return bad_option(opts, "invalid pid");
	if ((o->tid && parse_number(o->tid, &v)) || (o->tid && (rec->target_tid = (pid_t)v) <= 0))
		return bad_option(opts, "invalid tid");
	if ((o->pid || o->tid) && (o->a || o->cpus || nr))
		return bad_option(opts, "-p/-t cannot be used with -a, -C or a command");
	if (o->freq && o->period)
		return bad_option(opts, "-F and -c cannot be used together");
	if (o->freq && (parse_number(o->freq, &rec->freq) || !rec->freq))
		return bad_option(opts, "invalid frequency");
	if (o->period && (parse_number(o->period, &rec->period) || !rec->period))
		return bad_option(opts, "invalid period");
	if (o->pages && parse_pages(rec, o->pages))
		return bad_option(opts, "invalid number of mmap data pages");
	if (o->g)
		rec->callchain = CALLCHAIN_FP;
	if (o->call_graph) {
		const char *comma = strchr(o->call_graph, ',');
		size_t len = comma ? (size_t)(comma - o->call_graph) : strlen(o->call_graph);

		rec->stack_size = 8192;
		if (len == 2 && !strncmp(o->call_graph, "fp", 2) && !comma) {
			rec->callchain = CALLCHAIN_FP;
		} else if (len == 5 && !strncmp(o->call_graph, "dwarf", 5)) {
			rec->callchain = CALLCHAIN_DWARF;
			if (comma && (parse_number(comma + 1, &v) || !v || v > 65528)) {
				fprintf(stderr, "callchain: Incorrect stack dump size (max 65528): %s\n",
					comma + 1);
				return bad_option(opts, "invalid --call-graph");
			}
			if (comma)
				rec->stack_size = (u32)ALIGN_UP(v, 8);
		} else {
			fprintf(stderr, "callchain: Unknown --call-graph option value: %s\n",
				o->call_graph);
			return bad_option(opts, "invalid --call-graph");
		}
	}
	if (o->threads_set) {
		rec->threads = true;
		rec->threads_spec = o->threads;
	}
	if (o->z) {
		rec->zstd_level = 1;
		if (o->zstd && (parse_number(o->zstd, &v) || v < 1 || v > 22))
			return bad_option(opts, "compression level must be from 1 to 22");
		if (o->zstd)
			rec->zstd_level = (int)v;
	}
	/* perf: no command and no target is a system-wide recording */
	if (!nr && !o->pid && !o->tid && !o->cpus)
		rec->system_wide = true;
	if (o->cpus)	/* perf: -C records every task on its CPUs, with a command too */
		rec->system_wide = true;
	return 0;
}

/* A stale PATH.old: a file, or a directory of data files (perf removes either). */
static void remove_old(const char *old)
{
	struct stat st;
	struct dirent *d;
	char path[8300];
	DIR *dir;

	if (lstat(old, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(old);
		return;
	}
	dir = opendir(old);
	while (dir && (d = readdir(dir))) {
		if (!strncmp(d->d_name, "data", 4)) {
			snprintf(path, sizeof(path), "%s/%s", old, d->d_name);
			unlink(path);
		}
	}
	if (dir)
		closedir(dir);
	rmdir(old);
}

/*
 * The output's writer: a pipe-mode stream on stdout for `-o -`; else the file, or a
 * directory's `data`, perf keeping the previous file (or directory) as PATH.old.
 */
static struct perf_writer *open_output(struct recording *rec)
{
	char old[4096], data[4096];
	struct stat st;

	if (rec->pipe)
		return perf_writer__new_pipe(STDOUT_FILENO);
	if (!stat(rec->output, &st) && st.st_size > 0) {
		snprintf(old, sizeof(old), "%s.old", rec->output);
		remove_old(old);
		rename(rec->output, old);
	}
	if (!rec->threads)
		return perf_writer__new(rec->output);
	if (mkdir(rec->output, 0755) && errno != EEXIST) {
		error_set("cannot create the directory: %s", strerror(errno));
		return NULL;
	}
	snprintf(data, sizeof(data), "%s/data", rec->output);
	return perf_writer__new(data);
}

static int create_output(struct recording *rec)
{
	rec->writer = open_output(rec);
	if (!rec->writer) {
		fprintf(stderr, "Failed to open %s: %s\n", rec->output, error_get());
		return -1;
	}
	for (size_t i = 0; i < rec->nr_events; i++) {
		const struct rec_event *e = &rec->events[i];

		if (perf_writer__add_attr(rec->writer, &e->attr, e->ids, e->nr_ids, e->name)) {
			fprintf(stderr, "%s\n", error_get());
			return -1;
		}
	}
	return 0;
}

/* perf's closing lines: wakeups, then size and samples (or the compression ratio). */
static void summary(struct recording *rec)
{
	u64 wakeups = 0, samples = 0, lost = 0, in = 0, out = 0;
	double mb;

	for (size_t i = 0; i < rec->nr_streams; i++) {
		wakeups += rec->streams[i].wakeups;
		samples += rec->streams[i].samples;
		lost += rec->streams[i].lost;
		in += rec->streams[i].bytes_in;
		out += rec->streams[i].bytes_out;
	}
	/* the header file, and with --threads the data.N files */
	mb = (double)(perf_writer__offset(rec->writer) + (rec->threads ? out : 0)) / (1024 * 1024);
	if (lost)
		fprintf(stderr, "Warning:\n%llu events lost in the ring buffers: try a larger -m or "
			"--threads\n", (unsigned long long)lost);
	fprintf(stderr, "[ perf record: Woken up %llu times to write data ]\n",
		(unsigned long long)wakeups);
	if (rec->zstd_level)
		fprintf(stderr, "[ perf record: Captured and wrote %.3f MB %s, compressed (original "
			"%.3f MB, ratio is %.3f) ]\n", mb, rec->output, (double)in / (1024 * 1024),
			out ? (double)in / (double)out : 0.0);
	else
		fprintf(stderr, "[ perf record: Captured and wrote %.3f MB %s (%llu samples) ]\n", mb,
			rec->output, (unsigned long long)samples);
}

/* The exec of the workload failed: perf's message, with the event's name. */
static bool workload_failed(struct recording *rec, int err_fd)
{
	int e;

	if (read(err_fd, &e, sizeof(e)) != sizeof(e))
		return false;
	fprintf(stderr, "Failed to collect '%s' for the '%s' workload: %s\n", rec->events[0].name,
		rec->argv[0], strerror(e));
	return true;
}

static int record(struct recording *rec)
{
	int go = -1, err_fd = -1, status = 0, ret = 255;
	pid_t child = -1;

	ret = record__set_cpus(rec);
	if (!ret)
		ret = record__set_masks(rec);
	if (ret)
		return ret & 0xff;	/* perf exits with its -errno */
	ret = 255;
	if (set_tids(rec))
		return 255;
	install_signals(rec);
	if (rec->argc) {
		child = start_workload(rec, &go, &err_fd);
		if (child < 0)
			return 255;
		if (!rec->system_wide)	/* -a with a command: every task, until the command ends */
			rec->tids[0] = child;
	}
	if (record__open_events(rec) || record__set_ids(rec) || create_output(rec) ||
	    record__start_streams(rec))
		goto out;
	if (rec->pipe)	/* a pipe's features come before its records */
		record__write_features(rec);
	if (record__synthesize(rec)) {
		fprintf(stderr, "%s\n", error_get());
		goto out;
	}
	if (record__run_threads(rec))
		goto out;
	if (child > 0 && rec->system_wide)	/* perf enables CPU-wide events before the fork's exec */
		record__enable(rec, true);
	if (child > 0) {
		if (write(go, "", 1) != 1)
			goto out;
		close(go);
		go = -1;
		if (workload_failed(rec, err_fd)) {
			waitpid(child, NULL, 0);
			child = -1;
			goto out;
		}
		close(err_fd);
		err_fd = -1;
	}
	if (child <= 0)
		record__enable(rec, true);
	main_loop(rec, child, &status);
	record__enable(rec, false);
	record__stop_streams(rec);
	if (record__finish_streams(rec))
		goto out;
	record__write_features(rec);
	if (perf_writer__finish(rec->writer)) {
		fprintf(stderr, "%s\n", error_get());
		goto out;
	}
	record__cache_build_ids(rec);
	summary(rec);
	ret = 0;
	if (child > 0) {
		if (!WIFEXITED(status) && !WIFSIGNALED(status)) {	/* ended by a signal to us */
			kill(child, SIGTERM);
			waitpid(child, &status, 0);
		}
		child = -1;
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
out:
	if (go >= 0)
		close(go);
	if (err_fd >= 0)
		close(err_fd);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return ret;
}

int cmd_record(int argc, const char **argv, const struct analyze_config *cfg)
{
	struct recording rec = { 0 };
	struct record_options o = { .rec = &rec };
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret;

	rec.output = NULL;
	rec.buildid_dir = cfg->buildid_dir;
	rec.page_size = (size_t)sysconf(_SC_PAGESIZE);
	rec.mmap_pages = (512 * 1024) / rec.page_size;	/* perf's default for root: 512 KiB */
	exe[n > 0 ? n : 0] = 0;
	rec.cmdline_argv = xcalloc((size_t)argc + 2, sizeof(char *));
	rec.cmdline_argv[rec.cmdline_argc++] = n > 0 ? exe : "analyze";
	rec.cmdline_argv[rec.cmdline_argc++] = "record";
	for (int i = 0; i < argc; i++)
		rec.cmdline_argv[rec.cmdline_argc++] = argv[i];
	strpool_init(&rec.paths);
	pthread_mutex_init(&rec.paths_lock, NULL);
	rec.stop = -1;
	if (parse_args(&rec, &o, argc, argv)) {
		ret = 129;
		goto out;
	}
	if (!rec.output)
		rec.output = "perf.data";
	rec.pipe = !strcmp(rec.output, "-");
	if (rec.pipe && rec.threads) {
		fprintf(stderr, "Parallel trace streaming is not available in pipe mode.\n");
		ret = 255;
		goto out;
	}
	if (!rec.nr_events)
		record__default_event(&rec);
	if (rec.threads && (rec.stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		perror("analyze record: eventfd");
		ret = 255;
		goto out;
	}
	ret = record(&rec);
out:
	perf_writer__delete(rec.writer);
	record__close(&rec);
	if (rec.stop >= 0)
		close(rec.stop);
	free(rec.hit_dsos);
	free(rec.cpus);
	free(rec.masks);
	free(rec.tids);
	free(rec.cmdline_argv);
	free(rec.argv);
	strpool_exit(&rec.paths);
	pthread_mutex_destroy(&rec.paths_lock);
	return ret;
}
