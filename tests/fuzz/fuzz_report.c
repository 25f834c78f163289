/*
 * Fuzz target: the record walker, sample parsing, the machine model and the histograms
 * (analyze report on the input, one thread). Its seeds include compressed recordings, so it
 * also covers the COMPRESSED path; fuzz_compressed runs it from those seeds only.
 */
#include "analyzer/commands.h"
#include "tests/fuzz/fuzz.h"

FUZZ_QUIET_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FUZZ_RUN_COMMAND(cmd_report, fuzz_input_file(NULL, 0, data, size), "--stdio");
	return 0;
}
