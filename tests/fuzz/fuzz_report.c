/*
 * Fuzz target: the record walker, sample parsing, the machine model and the histograms
 * (analyze report on the input, one thread). Its seeds include compressed recordings, so it
 * also covers the COMPRESSED path; fuzz_compressed runs it from those seeds only.
 */
#include "analyzer/report.h"
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
			       "--stdio", "-j1" };

	cmd_report(ARRAY_SIZE(argv), argv, &cfg);
	return 0;
}
