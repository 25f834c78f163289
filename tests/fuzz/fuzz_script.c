/*
 * Fuzz target: analyze script on the input (samples, callchains, side-band lines, tracepoint
 * fields through the recording's tracing data), one thread.
 */
#include "analyzer/script.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet_stdout();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct report_config cfg = { .buildid_dir = "/nonexistent" };
	const char *argv[] = { "-i", fuzz_input_file(NULL, 0, data, size), FUZZ_SYMBOLS,
			       "--show-task-events", "--show-mmap-events", "--show-switch-events",
			       "--show-lost-events", "-j1" };

	cmd_script(ARRAY_SIZE(argv), argv, &cfg);
	return 0;
}
