/* record: `analyze record`, perf record's recorder (analyzer/record/). */
#ifndef ANALYZER_RECORD_H
#define ANALYZER_RECORD_H

#include "analyzer/report/report.h"

int cmd_record(int argc, const char **argv, const struct report_config *cfg);

#endif
