/*
 * Fuzz target: the pipe-mode reader. Every input follows a pipe's 16-byte header (magic,
 * size 16), so it is always read as a stream: HEADER_ATTR, HEADER_FEATURE, tracing data and
 * build-id records as they come, then the records (analyze report, one thread).
 */
#include "analyzer/commands.h"
#include "tests/fuzz/fuzz.h"

FUZZ_QUIET_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t header[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };

	FUZZ_RUN_COMMAND(cmd_report, fuzz_input_file(header, sizeof(header), data, size),
			 "--stdio");
	return 0;
}
