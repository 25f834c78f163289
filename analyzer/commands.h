/*
 * commands: what main.c calls, one function a command, and the global options given before
 * the command. Every command's folder implements its cmd_*; none includes another's.
 */
#ifndef ANALYZER_COMMANDS_H
#define ANALYZER_COMMANDS_H

/* The options before the command (perf's --buildid-dir). */
struct analyze_config {
	const char *buildid_dir;
};

int cmd_report(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_script(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_flamegraph(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_record(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_tasks(int argc, const char **argv);

#endif
