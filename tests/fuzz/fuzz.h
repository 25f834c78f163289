/*
 * Shared by the libFuzzer targets (make fuzz): each input becomes a file the code under test
 * opens by path, as it opens a perf.data. One memfd per process, rewritten for every input.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/compiler.h"

/* The input as a file; returns its path (/proc/self/fd/N). */
static inline const char *fuzz_input_file(const uint8_t *prefix, size_t prefix_size,
					  const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) ||
	    (prefix_size && pwrite(fd, prefix, prefix_size, 0) != (ssize_t)prefix_size) ||
	    (size && pwrite(fd, data, size, (off_t)prefix_size) != (ssize_t)size)) {
		perror("fuzz input");
		abort();
	}
	return path;
}

/*
 * No symbol files from the host (a recording without build-ids names binaries by their
 * paths: reading the host's libc for every input would make the fuzzers crawl).
 */
#define FUZZ_SYMBOLS "--symfs", "/nonexistent", "--kallsyms", "/dev/null"

/* Output is not what is tested: send the commands' stdout to /dev/null. */
static inline void fuzz_quiet_stdout(void)
{
	if (!freopen("/dev/null", "w", stdout))
		abort();
}

/* The LLVMFuzzerInitialize of a target whose code under test prints. */
#define FUZZ_QUIET_INITIALIZE									\
	int LLVMFuzzerInitialize(int *argc, char ***argv)					\
	{											\
		fuzz_quiet_stdout();								\
		return 0;									\
	}

/*
 * Runs a command front end (cmd_report, cmd_script: its header included by the target) as
 * `analyze CMD -i INPUT ... -j1` on one thread, with no build-id cache and no host symbols;
 * the remaining arguments are the command's options.
 */
#define FUZZ_RUN_COMMAND(cmd, input, ...)							\
	do {											\
		const struct analyze_config fuzz_cfg_ = { .buildid_dir = "/nonexistent" };	\
		const char *fuzz_argv_[] = { "-i", (input), FUZZ_SYMBOLS, __VA_ARGS__, "-j1" };	\
		cmd(ARRAY_SIZE(fuzz_argv_), fuzz_argv_, &fuzz_cfg_);				\
	} while (0)

#endif
