/*
 * main: the `analyze` command line. Global options (perf's --buildid-dir) come before the
 * command; each command parses its own options.
 */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/cli/options.h"
#include "analyzer/commands.h"
#include "lib/busy.h"
#include "lib/xalloc.h"
#include "symtab/symcache.h"
#include "version.h"

static const char usage[] =
	"usage: analyze [--buildid-dir DIR] [--symbol-cache DIR | --no-symbol-cache] COMMAND [ARGS]\n"
	"\n"
	"Commands:\n"
	"  report   perf report --stdio: histograms of samples by comm, dso, symbol...\n"
	"  tasks    perf report --tasks: the tree of recorded tasks (--mmaps: with their maps)\n"
	"  script   perf script: every sample, one line each (with its callchain under it)\n"
	"  annotate perf annotate --stdio: each sampled symbol's instructions with their samples\n"
	"  flamegraph  a flame graph of the samples: one self-contained interactive SVG\n"
	"  record   perf record: sample a command, processes or the whole system into perf.data\n"
	"  symbol-cache  the persistent symbol index: where it is, its size; --clear empties it\n"
	"  help     the manual page of a command (as analyze COMMAND --help)\n"
	"\n"
	"analyze COMMAND -h lists a command's options; man analyze-COMMAND describes them.\n";

/*
 * The model is millions of small objects reached at random (threads, maps, hash slots): with
 * 4 KB pages nearly every lookup misses the TLB, which costs most on virtual machines. glibc
 * backs its heap with transparent huge pages when told so by a tunable, which it reads only at
 * start: so analyze starts itself again once with glibc.malloc.hugetlb=1, unless the user set
 * GLIBC_TUNABLES (or ANALYZE_SMALL_PAGES), and then takes the variable out of its environment
 * again (a recorded workload does not inherit it). It does so once the command has settled
 * on its input (options__input_hook), and only for a very large one: a 2 MB page is faulted
 * whole, so the unused end of every growing array costs up to 2 MB, which a model of a few
 * hundred MB notices (a -g report of 1M samples: 3-7 MB more, and no faster on an AMD EPYC).
 */
#define REEXEC_MARK "ANALYZE_HUGE_HEAP"
#define LARGE_INPUT (32ull << 20)	/* bytes of input from which arrays get mappings */
#define HUGE_HEAP_INPUT (1ull << 30)	/* bytes of input from which the heap goes huge */
#define LARGE_MMAP_THRESHOLD (2 << 20)

static char **exec_argv;	/* main's arguments as given (commands reorder theirs) */
static bool may_reexec;		/* neither GLIBC_TUNABLES nor ANALYZE_SMALL_PAGES is set */

/*
 * Whether the command builds a model worth huge pages: tasks keeps a few words a task, and
 * record wants the smallest footprint; for them the second start would be pure cost.
 */
static bool wants_huge_heap(char **argv)
{
	for (int i = 1; argv[i]; i++) {
		if ((!strcmp(argv[i], "--buildid-dir") || !strcmp(argv[i], "--symbol-cache")) &&
		    argv[i + 1])
			i++;
		else if (argv[i][0] != '-')
			return strcmp(argv[i], "tasks") && strcmp(argv[i], "record");
	}
	return false;
}

/*
 * The bytes of a recording: a file's size, a data directory's files'. A pipe counts as
 * small: its size is unknown, and whatever the command printed while parsing its options
 * would come out twice.
 */
static u64 input_bytes(const char *path)
{
	struct stat st;
	u64 total = 0;
	DIR *dir;

	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? (u64)st.st_size : ~0ull;
	dir = opendir(path);
	for (struct dirent *d; dir && (d = readdir(dir));)
		if (!fstatat(dirfd(dir), d->d_name, &st, 0) && S_ISREG(st.st_mode))
			total += (u64)st.st_size;
	if (dir)
		closedir(dir);
	return total;
}

/* The heap for the command's input: see main and the comment above. */
static void input_heap(const char *input)
{
	u64 bytes = input_bytes(input);
	char self[4096];
	ssize_t len;

	if (bytes < LARGE_INPUT)
		return;
	mallopt(M_MMAP_THRESHOLD, LARGE_MMAP_THRESHOLD);
	if (bytes < HUGE_HEAP_INPUT || !may_reexec)
		return;
	/* the file itself, not /proc/self/exe: the process keeps its name ("analyze") */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0 || (size_t)len >= sizeof(self) - 1)
		return;
	self[len] = '\0';
	fflush(NULL);
	setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
	setenv(REEXEC_MARK, "1", 1);
	execv(self, exec_argv);
	unsetenv(REEXEC_MARK);	/* no /proc, or the file is gone: go on as we are */
	unsetenv("GLIBC_TUNABLES");
}

/* Whether this is the second start, for a very large input. */
static bool huge_heap_setup(int argc, char **argv)
{
	if (getenv(REEXEC_MARK)) {
		unsetenv(REEXEC_MARK);
		unsetenv("GLIBC_TUNABLES");
		return true;
	}
	if (!wants_huge_heap(argv))
		return false;
	may_reexec = !getenv("GLIBC_TUNABLES") && !getenv("ANALYZE_SMALL_PAGES");
	exec_argv = xmalloc((size_t)(argc + 1) * sizeof(*exec_argv));
	memcpy(exec_argv, argv, (size_t)(argc + 1) * sizeof(*exec_argv));
	options__input_hook = input_heap;
	return false;
}

/* The command argv[0], its arguments after it. */
static int run(int argc, const char **argv, const struct analyze_config *cfg)
{
	if (strcmp(argv[0], "report") == 0)
		return cmd_report(argc - 1, argv + 1, cfg);
	if (strcmp(argv[0], "script") == 0)
		return cmd_script(argc - 1, argv + 1, cfg);
	if (strcmp(argv[0], "annotate") == 0)
		return cmd_annotate(argc - 1, argv + 1, cfg);
	if (strcmp(argv[0], "flamegraph") == 0)
		return cmd_flamegraph(argc - 1, argv + 1, cfg);
	if (strcmp(argv[0], "record") == 0)
		return cmd_record(argc - 1, argv + 1, cfg);
	if (strcmp(argv[0], "tasks") == 0)
		return cmd_tasks(argc - 1, argv + 1);
	if (strcmp(argv[0], "symbol-cache") == 0)
		return cmd_symbol_cache(argc - 1, argv + 1, cfg);
	fprintf(stderr, "analyze: '%s' is not an analyze command.\n\n%s", argv[0], usage);
	return 1;
}

int main(int argc, const char **argv)
{
	struct analyze_config cfg = { .tasks = cmd_tasks };
	static char default_dir[4096];
	const char *env, *home;
	int i = 1, ret;
	bool large = huge_heap_setup(argc, (char **)argv);

	busy__init();

	env = getenv("PERF_BUILDID_DIR");
	home = getenv("HOME");

	/*
	 * Readers allocate and free an inflate buffer per COMPRESSED record (256 KB to 1 MB):
	 * keep such buffers in the heap and the heap's top mapped, so the pages are reused
	 * rather than faulted in and zeroed again for every record. On a large input, arrays
	 * of 2 MB and more (histogram entries, callchains, the after-run temporaries) get
	 * mappings of their own: realloc grows them by mremap, without a second copy, and free
	 * gives their pages back, where the heap would keep them resident to the end (input_heap
	 * sets that once it knows the input). On a small one they stay in the heap, whose top
	 * grows them in place: moving one into a mapping of its own takes fresh pages while the
	 * heap keeps the old (report on 1000 dsos: 1.2 MB more).
	 */
	mallopt(M_MMAP_THRESHOLD, large ? LARGE_MMAP_THRESHOLD : 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	/*
	 * One heap for every thread: another thread's first malloc would make it a heap of its
	 * own, whose free memory the others never reuse (report's aggregator: 3 MB of a 40 MB
	 * report). The threads allocate seldom, so they hardly wait on each other for it.
	 */
	mallopt(M_ARENA_MAX, 1);
	if (env && *env) {
		cfg.buildid_dir = env;
	} else {
		snprintf(default_dir, sizeof(default_dir), "%s/.debug", home ? home : "");
		cfg.buildid_dir = default_dir;
	}
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--buildid-dir") == 0 && i + 1 < argc) {
			cfg.buildid_dir = argv[++i];
		} else if (strncmp(argv[i], "--buildid-dir=", 14) == 0) {
			cfg.buildid_dir = argv[i] + 14;
		} else if (strcmp(argv[i], "--symbol-cache") == 0 && i + 1 < argc) {
			cfg.symcache_dir = argv[++i];
		} else if (strncmp(argv[i], "--symbol-cache=", 15) == 0) {
			cfg.symcache_dir = argv[i] + 15;
		} else if (strcmp(argv[i], "--no-symbol-cache") == 0) {
			cfg.no_symcache = true;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-v") == 0) {
			printf("analyze version %s\n", ANALYZE_VERSION);
			return 0;
		} else {
			fprintf(stderr, "analyze: unknown option '%s'\n\n%s", argv[i], usage);
			return 129;
		}
	}
	if (i >= argc) {
		fputs(usage, stderr);
		return 129;
	}
	/* perf's `help COMMAND`: the command's own --help */
	if (strcmp(argv[i], "help") == 0) {
		static const char *help_argv[] = { NULL, "--help", NULL };

		if (i + 1 >= argc) {
			fputs(usage, stdout);
			return 0;
		}
		help_argv[0] = argv[i + 1];
		argv = help_argv;
		argc = 2;
		i = 0;
	}
	cfg.symcache = symcache__from_env(cfg.symcache_dir, cfg.no_symcache);
	ret = run(argc - i, argv + i, &cfg);
	symcache__delete(cfg.symcache);
	return ret;
}
