/* name_list: see name_list.h. */
#include "analyzer/cli/name_list.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

void name_list__parse(struct name_list *list, const char *str)
{
	char *copy, *save = NULL;

	if (!str)
		return;
	copy = xstrdup(str);
	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		bool dup = false;

		/* perf's strlists hold each name once */
		for (size_t i = 0; i < list->nr; i++)
			dup |= strcmp(list->names[i], tok) == 0;
		if (dup)
			continue;
		list->names = xreallocarray(list->names, list->nr + 1, sizeof(char *));
		list->names[list->nr++] = xstrdup(tok);
	}
	free(copy);
}

bool name_list__has(const struct name_list *list, const char *name)
{
	for (size_t i = 0; i < list->nr; i++)
		if (strcmp(list->names[i], name) == 0)
			return true;
	return false;
}

bool int_list__has(const struct name_list *list, long v)
{
	for (size_t i = 0; i < list->nr; i++)
		if (strtol(list->names[i], NULL, 0) == v)
			return true;
	return false;
}

void name_list__free(struct name_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		free(list->names[i]);
	free(list->names);
}
