/*
 * commands: what main.c calls, one function a command, and the global options given before
 * the command. Every command's folder implements its cmd_*; none includes another's.
 */
#ifndef ANALYZER_COMMANDS_H
#define ANALYZER_COMMANDS_H

#include <stdbool.h>

struct symcache;

/* The options before the command (perf's --buildid-dir, the symbol cache's). */
struct analyze_config {
	const char *buildid_dir;
	const char *symcache_dir;	/* --symbol-cache DIR, or NULL */
	bool no_symcache;		/* --no-symbol-cache */
	struct symcache *symcache;	/* what those and the environment make: NULL for none */
	/* `analyze tasks` (its arguments without the command), for report --tasks and --mmaps */
	int (*tasks)(int argc, const char **argv);
};

int cmd_report(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_script(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_annotate(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_flamegraph(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_record(int argc, const char **argv, const struct analyze_config *cfg);
int cmd_tasks(int argc, const char **argv);
int cmd_symbol_cache(int argc, const char **argv, const struct analyze_config *cfg);

#endif
