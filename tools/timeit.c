/*
 * timeit: the benchmarks' stopwatch. Runs a command with its standard output in a file and
 * its standard error discarded, and prints "SECONDS PEAK-KB": the wall time from just before
 * the fork to the reaping of the child (to the microsecond), and the child's peak resident set
 * (ru_maxrss of wait4). A shell's `date` + /usr/bin/time around a command add a few
 * milliseconds of their own; this adds a fork and an exec, the same for every command timed.
 *
 *   timeit OUT CMD [ARG...]     exit status: the command's (128 + signal if it was killed)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double start;
	int out, status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: timeit OUT CMD [ARG...]\n");
		return 2;
	}
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		fprintf(stderr, "timeit: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	start = now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "timeit: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (dup2(out, STDOUT_FILENO) < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(127);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		fprintf(stderr, "timeit: wait4: %s\n", strerror(errno));
		return 2;
	}
	printf("%.3f %ld\n", now() - start, ru.ru_maxrss);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
