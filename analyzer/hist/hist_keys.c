/*
 * perf's --sort list parsed (its dimensions, each by any prefix of its name). The keys'
 * comparisons, hashes and equality are hist_keys_internal.h's; this knows nothing of
 * entries.
 */
#include "analyzer/hist/hist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/xalloc.h"

/* perf's common sort dimensions, in perf's lookup order (a key matches by prefix). */
static const struct {
	const char *name;
	int key;	/* enum sort_key, or -1 for dimensions we do not support */
} dimensions[] = {
	{ "pid", SORT_PID },	{ "comm", SORT_COMM },	   { "dso", SORT_DSO },
	{ "symbol", SORT_SYM }, { "parent", SORT_PARENT }, { "cpu", SORT_CPU },
	{ "socket", SORT_SOCKET }, { "srcline", -1 },	   { "srcfile", -1 },
	{ "local_weight", -1 }, { "weight", -1 },	   { "transaction", -1 },
	{ "trace", -1 },	{ "symbol_size", SORT_SYM_SIZE }, { "dso_size", SORT_DSO_SIZE },
	{ "cgroup", -1 },	{ "cgroup_id", -1 },	   { "ipc_null", SORT_IPC_NULL },
};

bool sort_list__has(const struct sort_list *list, enum sort_key key)
{
	for (int i = 0; i < list->nr; i++)
		if (list->keys[i] == key)
			return true;
	return false;
}

int sort_list__parse(struct sort_list *list, const char *str, char *bad, size_t bad_size)
{
	char *copy = xstrdup(str), *save = NULL;
	int ret = 0;

	list->nr = 0;
	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int key = -2;

		/* overhead-like hpp dimensions are always shown; accept them */
		if (strncasecmp(tok, "overhead", strlen(tok)) == 0)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(dimensions); i++) {
			if (strncasecmp(tok, dimensions[i].name, strlen(tok)) == 0) {
				key = dimensions[i].key;
				break;
			}
		}
		if (key < 0) {
			snprintf(bad, bad_size, "%s", tok);
			ret = -1;
			break;
		}
		if (sort_list__has(list, key) || list->nr == MAX_SORT_KEYS)
			continue;
		list->keys[list->nr++] = key;
	}
	list->sym_by_dso = !sort_list__has(list, SORT_DSO);
	free(copy);
	return ret;
}
