/*
 * batch: runs analyze command lines in one process, one after another, for the test scripts
 * of the checking builds (tests/golden.sh's RUNNER). Under ASan a process's start and LSan's
 * scan at its exit cost as much as a small run; here they are paid once. Nothing is freed
 * for the commands at the end: a leak of any run is still unreachable at exit, where LSan
 * reports it and makes the exit status nonzero (the refcount checker's report likewise).
 *
 * Requests come on stdin, fields each ended by a NUL:
 *   OUT ERR NENV NAME=VALUE|NAME... ARGC ARG...
 * ARGs are what follows `analyze` on its command line; the run's stdout and stderr go to the
 * files OUT and ERR (stdin is /dev/null), each NAME=VALUE is set and each bare NAME unset
 * first. The reply, on stdout, is the run's exit status and a newline. A run that ends the
 * process (a sanitizer's report, an exit) leaves its status as the process's; with --timeout
 * S a run that takes over S seconds ends it with status 124, as timeout(1) would.
 *
 *   batch [--timeout S]
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/commands.h"
#include "symtab/symcache.h"

static unsigned timeout_s;	/* --timeout: 0 for none */

static void on_alarm(int sig)
{
	static const char msg[] = "batch: the run took too long (--timeout)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(124);
	_exit(124);
}

/* main.c's global options and dispatch, without its heap tuning (no effect on output) */
static int run(int argc, const char **argv)
{
	struct analyze_config cfg = { .tasks = cmd_tasks };
	static char default_dir[4096];
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME"), *cmd;
	int i = 0, ret;

	snprintf(default_dir, sizeof(default_dir), "%s/.debug", home ? home : "");
	cfg.buildid_dir = env && *env ? env : default_dir;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--buildid-dir") && i + 1 < argc)
			cfg.buildid_dir = argv[++i];
		else if (!strncmp(argv[i], "--buildid-dir=", 14))
			cfg.buildid_dir = argv[i] + 14;
		else if (!strcmp(argv[i], "--symbol-cache") && i + 1 < argc)
			cfg.symcache_dir = argv[++i];
		else if (!strncmp(argv[i], "--symbol-cache=", 15))
			cfg.symcache_dir = argv[i] + 15;
		else if (!strcmp(argv[i], "--no-symbol-cache"))
			cfg.no_symcache = true;
		else
			break;
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(stderr, "batch: no command, or a global option it does not know\n");
		return 129;
	}
	cmd = argv[i];
	argc -= i + 1;
	argv += i + 1;
	cfg.symcache = symcache__from_env(cfg.symcache_dir, cfg.no_symcache);
	if (!strcmp(cmd, "report"))
		ret = cmd_report(argc, argv, &cfg);
	else if (!strcmp(cmd, "script"))
		ret = cmd_script(argc, argv, &cfg);
	else if (!strcmp(cmd, "annotate"))
		ret = cmd_annotate(argc, argv, &cfg);
	else if (!strcmp(cmd, "flamegraph"))
		ret = cmd_flamegraph(argc, argv, &cfg);
	else if (!strcmp(cmd, "tasks"))
		ret = cmd_tasks(argc, argv);
	else if (!strcmp(cmd, "symbol-cache"))
		ret = cmd_symbol_cache(argc, argv, &cfg);
	else {
		fprintf(stderr, "batch: '%s' is not a command it runs\n", cmd);
		ret = 129;
	}
	symcache__delete(cfg.symcache);
	return ret;
}

/* The next field of the request, in *buf; -1 at the end of input. */
static int field(FILE *in, char **buf, size_t *cap)
{
	return getdelim(buf, cap, '\0', in) < 0 ? -1 : 0;
}

/* A count field: a small non-negative number. */
static int count(FILE *in, char **buf, size_t *cap, long *n)
{
	char *end;

	if (field(in, buf, cap))
		return -1;
	*n = strtol(*buf, &end, 10);
	return *end || *n < 0 || *n > 4096 ? -1 : 0;
}

static int open_out(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

/* One request: its environment set, the run made with its output in its files. */
static int serve(FILE *in, int saved_out, int saved_err)
{
	char *buf = NULL, *out = NULL, *err = NULL, **args = NULL;
	const char **argv = NULL;
	size_t cap = 0;
	long n, argc = 0;
	int fd, status = -1;

	if (field(in, &buf, &cap))
		goto out;	/* the end of input */
	if (!(out = strdup(buf)) || field(in, &buf, &cap) || !(err = strdup(buf)) ||
	    count(in, &buf, &cap, &n))
		goto bad;
	for (long i = 0; i < n; i++) {
		char *eq;

		if (field(in, &buf, &cap))
			goto bad;
		eq = strchr(buf, '=');
		if (eq) {
			*eq = '\0';
			setenv(buf, eq + 1, 1);
		} else {
			unsetenv(buf);
		}
	}
	/* the commands reorder their arguments: they get a copy of the array */
	if (count(in, &buf, &cap, &argc) || !(args = calloc((size_t)argc + 1, sizeof(*args))) ||
	    !(argv = calloc((size_t)argc + 1, sizeof(*argv))))
		goto bad;
	for (long i = 0; i < argc; i++)
		if (field(in, &buf, &cap) || !(argv[i] = args[i] = strdup(buf)))
			goto bad;
	fflush(stdout);
	fflush(stderr);
	fd = open_out(out);
	dup2(fd, 1);
	close(fd);
	fd = open_out(err);
	dup2(fd, 2);
	close(fd);
	clearerr(stdin);
	alarm(timeout_s);
	status = run((int)argc, argv) & 0xff;
	alarm(0);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	goto out;
bad:
	fprintf(stderr, "batch: a malformed request\n");
	exit(2);
out:
	for (long i = 0; args && i < argc; i++)
		free(args[i]);
	free(args);
	free(argv);
	free(out);
	free(err);
	free(buf);
	return status;
}

int main(int argc, char **argv)
{
	/* close-on-exec: a command that starts a process (man for --help) passes none on */
	int in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3), reply_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
	int saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3), null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	FILE *in, *reply;
	int status;

	if (argc == 3 && !strcmp(argv[1], "--timeout")) {
		timeout_s = (unsigned)strtoul(argv[2], NULL, 10);
		signal(SIGALRM, on_alarm);
	} else if (argc != 1) {
		fprintf(stderr, "usage: batch [--timeout SECONDS] <requests\n");
		return 2;
	}
	if (in_fd < 0 || reply_fd < 0 || null_fd < 0 || saved_err < 0 ||
	    !(in = fdopen(in_fd, "r")) || !(reply = fdopen(reply_fd, "w"))) {
		perror("batch");
		return 2;
	}
	/* the commands see /dev/null on stdin, and on stdout between runs */
	dup2(null_fd, 0);
	dup2(null_fd, 1);
	while ((status = serve(in, null_fd, saved_err)) >= 0) {
		fprintf(reply, "%d\n", status);
		fflush(reply);
	}
	return 0;
}
