/* Fuzz target: the file header, the attrs and the feature sections (report --header -I). */
#include "analyzer/output/header.h"
#include "readers/session.h"
#include "tests/fuzz/fuzz.h"

FUZZ_QUIET_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_session session;

	if (perf_session__open(&session, fuzz_input_file(NULL, 0, data, size)))
		return 0;
	header__fprintf(&session, stdout, true);
	perf_session__close(&session);
	return 0;
}
