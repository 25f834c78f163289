/*
 * options: command-line parsing with perf's conventions: long options by any unambiguous
 * prefix, `--opt=value` or `--opt value`, short options `-x value` or `-xvalue`, `--no-opt`
 * for every option (a value option's: unset), `--` ends options. Errors are printed as perf
 * prints them.
 */
#ifndef ANALYZER_OPTIONS_H
#define ANALYZER_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/compiler.h"

/*
 * OPT_REFUSED: one of perf's options analyze does not take: its help says why (one line);
 * giving it stops with that reason. Listed in the table so that abbreviations are ambiguous
 * exactly where perf's are; not in the usage.
 */
enum option_type {
	OPT_BOOL, OPT_STRING, OPT_INCR, OPT_NOOP_ARG, OPT_NOOP, OPT_CALLBACK, OPT_REFUSED
};

/*
 * OPT_CALLBACK: value points to one of these; fn sees each value as it is parsed (an option
 * given several times: every one, in order). A non-zero return stops parsing: fn printed why,
 * parse_options adds the usage. unset does what perf's callback does for --no-OPT (it is
 * called with arg NULL); without one, --no-OPT is refused with perf's "isn't available":
 * perf 6.1 crashes on those (its callback takes the NULL value as a string).
 */
struct option_callback {
	int (*fn)(const char *arg, void *data);
	void *data;
	int (*unset)(const char *arg, void *data);
};

struct option {
	char short_name;
	const char *long_name;
	enum option_type type;
	void *value;		/* bool *, const char **, int *, struct option_callback * */
	const char *argh;	/* argument name in the usage text */
	const char *help;
	bool optional_arg;	/* value may be omitted: perf's PARSE_OPT_LASTARG_DEFAULT */
	bool optarg;		/* a value only as --opt=value, else NULL: perf's PARSE_OPT_OPTARG */
};

#define OPT_END_MARK { 0, NULL, OPT_BOOL, NULL, NULL, NULL, false, false }
#define OPT_REFUSE(s, l, why) { s, l, OPT_REFUSED, NULL, NULL, why, false, false }
/* the reasons OPT_REFUSE gives (the manuals' tables of perf's options say the same) */
#define REFUSED_UI "needs perf's interactive interface; analyze prints text (perf's --stdio)"
#define REFUSED_SCRIPTING "runs perf's Python or Perl scripts; analyze has no interpreter"
#define REFUSED_NOT_YET "not supported yet"
/*
 * --progress (the default) and --no-progress, for every command that reads a recording
 * (lib/progress.h): a boolean, so --no-p stays the ambiguous prefix it was
 */
#define OPT_PROGRESS(progress)                                                             \
	{ 0, "progress", OPT_BOOL, progress, NULL, "show a progress line on a terminal (default; --no-progress: none)" }

/*
 * Parse argv (without the command name). Non-option arguments are moved to the front of
 * argv; returns their count, or -1 after printing an error and the usage to stderr (the
 * caller exits with 129 as perf does). -h (unless the command has an -h of its own) prints
 * the usage so, as perf's does; --help shows the command's manual page (analyze-CMD(1), CMD
 * the usage's second word) through man(1) when man finds it, else prints the usage on
 * stdout, and exits 0.
 */
int parse_options(int argc, const char **argv, const struct option *opts, const char *usage);
void usage_with_options(const char *usage, const struct option *opts);
void usage_with_options_fp(FILE *fp, const char *usage, const struct option *opts);

/*
 * What every command that reads a recording takes. options__input: PATH (the one non-option
 * argument) or -i, default ./perf.data; false after perf's "too many input files" usage error.
 * options__jobs: -j N, N threads in all from 1 to 1024, default the online CPUs; -1 after the
 * usage error. The caller exits with 129 on either error.
 */
bool options__input(int nr_args, const char **argv, const char **input, const char *usage,
		    const struct option *opts);
/*
 * Called by options__input with the input it settled on, before anything is read: main's
 * way to start the program again with a heap on huge pages when the input is large.
 */
extern void (*options__input_hook)(const char *input);
int options__jobs(const char *jobs, const char *usage, const struct option *opts);
/* perf's sysctl__max_stack, the default of --max-stack: kernel.perf_event_max_stack, else 127 */
u32 options__max_stack(void);
/* An OPT_CALLBACK's fn that stores the value in the const char * data points to */
int options__string(const char *arg, void *data);
/* --no-max-stack: perf's OPT_INTEGER set to 0; data: the const char * of --max-stack's value */
int options__max_stack_unset(const char *arg, void *data);

struct symsrc_config;
struct symcache;
/*
 * Where symbols come from for --buildid-dir, --symfs and --kallsyms (and ANALYZE_DEBUG_DIR):
 * fills symsrc, pointing into the arguments; returns a string it allocated for it (or NULL),
 * which the caller frees after the last use of symsrc. cache: the symbol index (or NULL).
 */
char *options__symsrc(struct symsrc_config *symsrc, const char *buildid_dir, const char *symfs,
		      const char *kallsyms, struct symcache *cache);

#endif
