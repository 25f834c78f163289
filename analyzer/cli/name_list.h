/*
 * name_list: the comma-separated lists of names or numbers that filter options take
 * (--comms, --pid, --tid, --dsos, --symbols), kept as perf's strlists keep them: each entry
 * once, in the order given. Small lists, linear lookups.
 */
#ifndef ANALYZER_NAME_LIST_H
#define ANALYZER_NAME_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct name_list {
	char **names;
	size_t nr;
};

/* Add the entries of str (split on commas and spaces); str NULL adds nothing. */
void name_list__parse(struct name_list *list, const char *str);
bool name_list__has(const struct name_list *list, const char *name);
/* Whether an entry, read as a number (strtol, base 0), is v. */
bool int_list__has(const struct name_list *list, long v);
void name_list__free(struct name_list *list);

#endif
