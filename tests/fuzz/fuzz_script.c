/*
 * Fuzz target: analyze script on the input (samples, callchains, side-band lines, tracepoint
 * fields through the recording's tracing data), one thread.
 */
#include "analyzer/commands.h"
#include "analyzer/script/script.h"
#include "tests/fuzz/fuzz.h"

FUZZ_QUIET_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FUZZ_RUN_COMMAND(cmd_script, fuzz_input_file(NULL, 0, data, size), "--show-task-events",
			 "--show-mmap-events", "--show-switch-events", "--show-lost-events");
	return 0;
}
