/* perf-style option parsing; see options.h. */
#include "analyzer/cli/options.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "symtab/symtab.h"

void usage_with_options(const char *usage, const struct option *opts)
{
	usage_with_options_fp(stderr, usage, opts);
}

/* One option's lines in a usage. */
static void option_fprintf(FILE *fp, const struct option *o)
{
	char buf[128];
	int n = 0;

	if (o->short_name)
		n += snprintf(buf + n, sizeof(buf) - n, "    -%c", o->short_name);
	else
		n += snprintf(buf + n, sizeof(buf) - n, "    ");
	if (o->long_name)
		n += snprintf(buf + n, sizeof(buf) - n, "%s--%s", o->short_name ? ", " : "    ",
			      o->long_name);
	if (o->argh)
		n += snprintf(buf + n, sizeof(buf) - n, " <%s>", o->argh);
	if (n <= 24)
		fprintf(fp, "%-26s%s\n", buf, o->help ? o->help : "");
	else
		fprintf(fp, "%s\n%26s%s\n", buf, "", o->help ? o->help : "");
}

void usage_with_options_fp(FILE *fp, const char *usage, const struct option *opts)
{
	fprintf(fp, "\n Usage: %s\n\n", usage);
	for (const struct option *o = opts; o->long_name || o->short_name; o++)
		if (o->type != OPT_REFUSED)
			option_fprintf(fp, o);
	fprintf(fp, "\n");
}

/*
 * perf's usage after an error about one option: the usage line, then the options arg names
 * (the one of that short letter, or those whose long names start with it, as typed).
 */
static int usage_of(const char *usage, const struct option *opts, const char *arg, bool short_opt)
{
	fprintf(stderr, " Usage: %s\n\n", usage);
	for (const struct option *o = opts; o->long_name || o->short_name; o++) {
		if (o->type == OPT_REFUSED)
			continue;
		if (short_opt ? o->short_name == *arg
			      : o->long_name && !strncmp(o->long_name, arg, strlen(arg)))
			option_fprintf(stderr, o);
	}
	return -1;
}

/* perf's error about one option: " Error: " (one space, unlike the unknown ones), its usage. */
static int fail_option(const char *usage, const struct option *opts, const char *arg,
		       bool short_opt, const char *fmt, const char *name)
{
	fprintf(stderr, " Error: ");
	fprintf(stderr, fmt, name);
	fprintf(stderr, "\n");
	return usage_of(usage, opts, arg, short_opt);
}

static int fail(const char *usage, const struct option *opts, const char *fmt, const char *arg)
{
	fprintf(stderr, "  Error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	usage_with_options(usage, opts);
	return -1;
}

static bool takes_arg(const struct option *o)
{
	return o->type == OPT_STRING || o->type == OPT_NOOP_ARG || o->type == OPT_CALLBACK;
}

/*
 * perf's PARSE_OPT_LASTARG_DEFAULT: an option whose value may be omitted takes the next
 * argument unless it is the last one or starts with '-'.
 */
static bool lastarg_default(const struct option *o, int argc, const char **argv, int i)
{
	return o->optional_arg && (i + 1 >= argc || argv[i + 1][0] == '-');
}

/* 0, or the callback's failure (it said why). */
static int set_value(const struct option *o, const char *arg, bool negated)
{
	switch (o->type) {
	case OPT_CALLBACK: {
		const struct option_callback *cb = o->value;

		return negated ? cb->unset(NULL, cb->data) : cb->fn(arg, cb->data);
	}
	case OPT_BOOL:
		*(bool *)o->value = !negated;
		break;
	case OPT_STRING:
		*(const char **)o->value = negated ? NULL : arg;
		break;
	case OPT_INCR:
		*(int *)o->value = negated ? 0 : *(int *)o->value + 1;
		break;
	case OPT_NOOP_ARG:
	case OPT_NOOP:
		if (o->value)
			*(bool *)o->value = !negated;
		break;
	case OPT_REFUSED:	/* refused before */
		break;
	}
	return 0;
}

/* A callback refused its value: perf prints the usage after the callback's own message. */
static int callback_failed(const char *usage, const struct option *opts)
{
	usage_with_options(usage, opts);
	return -1;
}

/* One of perf's options analyze does not take: why, on one line (the caller exits 129). */
static int refused(const struct option *o, const char *arg)
{
	if (o->long_name)
		fprintf(stderr, "  Error: --%s: %s\n", o->long_name, o->help);
	else
		fprintf(stderr, "  Error: -%s: %s\n", arg, o->help);
	return -1;
}

/*
 * Find a long option by exact name or unambiguous prefix. Ambiguous: NULL, and *pair the
 * last two it could be (perf names those).
 */
static const struct option *find_long(const struct option *opts, const char *name, size_t len,
				      const struct option **pair)
{
	const struct option *match = NULL;

	pair[0] = pair[1] = NULL;
	for (const struct option *o = opts; o->long_name || o->short_name; o++) {
		if (!o->long_name || strncmp(o->long_name, name, len))
			continue;
		if (strlen(o->long_name) == len) {
			pair[0] = NULL;
			return o;
		}
		if (match)
			pair[0] = match, pair[1] = o;
		match = o;
	}
	return pair[0] ? NULL : match;
}

/* The manual page of the command whose usage is "analyze CMD ...": "analyze-CMD". */
static void man_page_name(char *page, size_t size, const char *usage)
{
	const char *cmd = strchr(usage, ' ');
	size_t len;

	cmd = cmd ? cmd + 1 : usage;
	len = strcspn(cmd, " ");
	snprintf(page, size, "analyze-%.*s", (int)len, cmd);
}

/* Whether man(1) finds the page: `man -w PAGE`, quietly. */
static bool man_finds(const char *page)
{
	const char *argv[] = { "man", "-w", page, NULL };
	posix_spawn_file_actions_t fa;
	int status = -1;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "man", &fa, NULL, (char *const *)argv, environ) == 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	posix_spawn_file_actions_destroy(&fa);
	return status == 0;
}

/* --help: perf's, the manual page (man takes the process over), else the usage. */
__attribute__((noreturn)) static void show_help(const char *usage, const struct option *opts)
{
	char page[64];

	man_page_name(page, sizeof(page), usage);
	fflush(NULL);
	if (man_finds(page))
		execlp("man", "man", page, (char *)NULL);
	usage_with_options_fp(stdout, usage, opts);
	exit(0);
}

static int parse_long(const char *usage, const struct option *opts, int argc, const char **argv,
		      int *i)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	bool negated = false;
	const struct option *pair[2];
	const struct option *o = find_long(opts, arg, len, pair);

	if (!o && !strcmp(arg, "help"))
		show_help(usage, opts);

	if (!o && !pair[0] && len > 3 && strncmp(arg, "no-", 3) == 0) {
		o = find_long(opts, arg + 3, len - 3, pair);
		negated = o != NULL || pair[0];
		/* perf takes --no-NAME=value (to refuse the value) for a whole NAME only */
		if (eq && negated && !(o && strlen(o->long_name) == len - 3))
			o = pair[0] = NULL;
	}
	if (pair[0]) {
		fprintf(stderr, " Error: Ambiguous option: %s (could be --%s%s or --%s%s)\n\n", arg,
			negated ? "no-" : "", pair[0]->long_name, negated ? "no-" : "",
			pair[1]->long_name);
		return usage_of(usage, opts, arg, false);
	}
	if (!o)
		return fail(usage, opts, "unknown option `%s'", arg);
	if (o->type == OPT_REFUSED)
		return refused(o, arg);
	if (negated && eq)
		return fail_option(usage, opts, arg, false, "option `no-%s' takes no value",
				   o->long_name);
	if (negated && o->type == OPT_CALLBACK && !((struct option_callback *)o->value)->unset)
		return fail_option(usage, opts, arg, false, "option `no-%s' isn't available",
				   o->long_name);
	if (takes_arg(o) && !negated) {
		const char *value = eq ? eq + 1 : NULL;

		if (!value && !o->optarg && !lastarg_default(o, argc, argv, *i)) {
			if (*i + 1 >= argc)
				return fail_option(usage, opts, arg, false,
						   "option `%s' requires a value", o->long_name);
			value = argv[++*i];
		}
		return set_value(o, value, false) ? callback_failed(usage, opts) : 0;
	}
	if (eq)
		return fail_option(usage, opts, arg, false, "option `%s' takes no value",
				   o->long_name);
	return set_value(o, NULL, negated) ? callback_failed(usage, opts) : 0;
}

static int parse_short(const char *usage, const struct option *opts, int argc, const char **argv,
		       int *i)
{
	const char *p = argv[*i] + 1;

	while (*p) {
		const struct option *o = opts;
		char name[2] = { *p, 0 };

		for (; o->long_name || o->short_name; o++)
			if (o->short_name == *p)
				break;
		if (!o->long_name && !o->short_name && *p == 'h') {
			usage_with_options(usage, opts);	/* perf's -h: the usage, status 129 */
			return -1;
		}
		if (!o->long_name && !o->short_name)
			return fail(usage, opts, "unknown switch `%s'", name);
		if (o->type == OPT_REFUSED)
			return refused(o, name);
		if (takes_arg(o)) {
			const char *value = p[1] ? p + 1 : NULL;

			if (!value && !lastarg_default(o, argc, argv, *i)) {
				if (*i + 1 >= argc)
					return fail_option(usage, opts, name, true,
							   "switch `%s' requires a value", name);
				value = argv[++*i];
			}
			return set_value(o, value, false) ? callback_failed(usage, opts) : 0;
		}
		if (set_value(o, NULL, false))
			return callback_failed(usage, opts);
		p++;
	}
	return 0;
}

int parse_options(int argc, const char **argv, const struct option *opts, const char *usage)
{
	int nr_args = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int ret;

		if (strcmp(a, "--") == 0) {
			while (++i < argc)
				argv[nr_args++] = argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			argv[nr_args++] = a;
			continue;
		}
		ret = a[1] == '-' ? parse_long(usage, opts, argc, argv, &i)
				  : parse_short(usage, opts, argc, argv, &i);
		if (ret)
			return -1;
	}
	return nr_args;
}

void (*options__input_hook)(const char *input);

bool options__input(int nr_args, const char **argv, const char **input, const char *usage,
		    const struct option *opts)
{
	if (nr_args > 1 || (nr_args == 1 && *input)) {
		fprintf(stderr, "  Error: too many input files\n");
		usage_with_options(usage, opts);
		return false;
	}
	if (nr_args == 1)
		*input = argv[0];
	if (!*input)
		*input = "perf.data";
	if (options__input_hook)
		options__input_hook(*input);
	return true;
}

int options__jobs(const char *jobs, const char *usage, const struct option *opts)
{
	if (!jobs)
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (atoi(jobs) < 1 || atoi(jobs) > 1024) {
		fprintf(stderr, "  Error: --jobs needs a number of threads from 1 to 1024\n");
		usage_with_options(usage, opts);
		return -1;
	}
	return atoi(jobs);
}

char *options__symsrc(struct symsrc_config *symsrc, const char *buildid_dir, const char *symfs,
		      const char *kallsyms, struct symcache *cache)
{
	char *symfs_cache = NULL;

	symsrc->buildid_dir = buildid_dir;
	if (symfs) {
		/* perf skips the local cache for symfs/.debug when --symfs is given */
		symfs_cache = xmalloc(strlen(symfs) + 8);
		sprintf(symfs_cache, "%s/.debug", symfs);
		symsrc->buildid_dir = symfs_cache;
	}
	symsrc->symfs = symfs ? symfs : "";
	symsrc->kallsyms = kallsyms;
	symsrc->debug_dir = getenv("ANALYZE_DEBUG_DIR");
	symsrc->cache = cache;
	return symfs_cache;
}

int options__string(const char *arg, void *data)
{
	*(const char **)data = arg;
	return 0;
}

int options__max_stack_unset(const char *arg, void *data)
{
	(void)arg;
	*(const char **)data = "0";
	return 0;
}

u32 options__max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	int value = 127;

	if (f) {
		if (fscanf(f, "%d", &value) != 1 || value <= 0)
			value = 127;
		fclose(f);
	}
	return (u32)value;
}
