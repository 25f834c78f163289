/* report: the `analyze report` command (perf report --stdio). */
#ifndef ANALYZER_REPORT_H
#define ANALYZER_REPORT_H

struct report_config {
	const char *buildid_dir;
};

int cmd_report(int argc, const char **argv, const struct report_config *cfg);

#endif
