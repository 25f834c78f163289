/*
 * analyze symbol-cache: the persistent symbol index (symtab/symcache.h) as its user sees it:
 * where it is, how many indexes and bytes it holds, and --clear to empty it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/cli/options.h"
#include "analyzer/commands.h"
#include "symtab/symcache.h"

static const char *const symbol_cache_usage = "analyze symbol-cache [<options>]";

static void print_bytes(u64 bytes)
{
	if (bytes >= 10ull << 20)
		printf("%llu MiB", (unsigned long long)(bytes >> 20));
	else
		printf("%llu KiB", (unsigned long long)((bytes + 1023) >> 10));
}

int cmd_symbol_cache(int argc, const char **argv, const struct analyze_config *cfg)
{
	bool clear = false;
	const struct option opts[] = {
		{ 0, "clear", OPT_BOOL, &clear, NULL, "remove every index of the cache" },
		OPT_END_MARK,
	};
	struct symcache *c = cfg->symcache;
	u64 files, bytes;
	int nr_args = parse_options(argc, argv, opts, symbol_cache_usage);

	if (nr_args < 0)
		return 129;
	if (nr_args > 0) {
		fprintf(stderr, "  Error: unknown argument '%s'\n", argv[0]);
		usage_with_options(symbol_cache_usage, opts);
		return 129;
	}
	if (!c) {
		printf("symbol cache: off (--no-symbol-cache or ANALYZE_SYMBOL_CACHE=off)\n");
		return 0;
	}
	if (clear && symcache__clear(c)) {
		fprintf(stderr, "analyze: cannot empty the symbol cache %s: %s\n", symcache__dir(c),
			strerror(errno));
		return 1;
	}
	if (symcache__usage(c, &files, &bytes)) {
		fprintf(stderr, "analyze: cannot read the symbol cache %s: %s\n", symcache__dir(c),
			strerror(errno));
		return 1;
	}
	printf("symbol cache: %s\n", symcache__dir(c));
	printf("indexes:      %llu\n", (unsigned long long)files);
	printf("size:         ");
	print_bytes(bytes);
	printf(" of at most ");
	print_bytes(symcache__max_bytes(c));
	printf("\n");
	return 0;
}
