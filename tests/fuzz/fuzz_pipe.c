/*
 * Fuzz target: the pipe-mode reader. Every input follows a pipe's 16-byte header (magic,
 * size 16), so it is always read as a stream: HEADER_ATTR, HEADER_FEATURE, tracing data and
 * build-id records as they come, then the records (analyze report, one thread).
 */
#include <string.h>

#include "analyzer/report.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet_stdout();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t header[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };
	const struct report_config cfg = { .buildid_dir = "/nonexistent" };
	const char *argv[] = { "-i", fuzz_input_file(header, sizeof(header), data, size),
			       FUZZ_SYMBOLS, "--stdio", "-j1" };

	cmd_report(ARRAY_SIZE(argv), argv, &cfg);
	return 0;
}
