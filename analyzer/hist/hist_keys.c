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
	{ "socket", SORT_SOCKET }, { "srcline", SORT_SRCLINE }, { "srcfile", SORT_SRCFILE },
	{ "local_weight", SORT_LOCAL_WEIGHT }, { "weight", SORT_WEIGHT },
	{ "transaction", SORT_TRANSACTION },	{ "trace", -1 },
	{ "symbol_size", SORT_SYM_SIZE },	{ "dso_size", SORT_DSO_SIZE },
	{ "cgroup", -1 },	{ "cgroup_id", -1 },	   { "ipc_null", SORT_IPC_NULL },
	{ "time", -1 },		{ "code_page_size", SORT_CODE_PAGE_SIZE },
	{ "local_ins_lat", SORT_LOCAL_INS_LAT }, { "ins_lat", SORT_INS_LAT },
	{ "local_p_stage_cyc", SORT_LOCAL_P_STAGE_CYC }, { "p_stage_cyc", SORT_P_STAGE_CYC },
	{ "addr", SORT_ADDR },
};

/* perf's bstack dimensions (branch mode's), looked up after the others (-2: none) */
static const struct {
	const char *name;
	int key;
} branch_dimensions[] = {
	{ "dso_from", SORT_DSO_FROM },	 { "dso_to", SORT_DSO_TO },
	{ "symbol_from", SORT_SYM_FROM }, { "symbol_to", SORT_SYM_TO },
	{ "mispredict", SORT_MISPREDICT }, { "abort", SORT_ABORT },
	{ "in_tx", SORT_IN_TX },	 { "cycles", SORT_CYCLES },
	{ "srcline_from", -1 },		 { "srcline_to", -1 },
	{ "ipc_lbr", -1 },		 { "addr_from", SORT_ADDR_FROM },
	{ "addr_to", SORT_ADDR_TO },
};

/* and perf's memory dimensions, after those */
static const struct {
	const char *name;
	int key;
} mem_dimensions[] = {
	{ "symbol_daddr", SORT_SYM_DADDR }, { "dso_daddr", SORT_DSO_DADDR },
	{ "locked", SORT_LOCKED },	    { "tlb", SORT_TLB },
	{ "mem", SORT_MEM },		    { "snoop", SORT_SNOOP },
	{ "dcacheline", -1 },		    { "symbol_iaddr", SORT_SYM_IADDR },
	{ "phys_daddr", SORT_PHYS_DADDR },  { "data_page_size", SORT_DATA_PAGE_SIZE },
	{ "blocked", SORT_BLOCKED },
};

static int branch_lookup(const char *tok)
{
	for (size_t i = 0; i < ARRAY_SIZE(branch_dimensions); i++)
		if (!strncasecmp(tok, branch_dimensions[i].name, strlen(tok)))
			return branch_dimensions[i].key;
	for (size_t i = 0; i < ARRAY_SIZE(mem_dimensions); i++)
		if (!strncasecmp(tok, mem_dimensions[i].name, strlen(tok)))
			return mem_dimensions[i].key;
	return -2;
}

bool sort_key__is_mem(enum sort_key key)
{
	return key >= SORT_SYM_DADDR && key <= SORT_BLOCKED;
}

bool sort_key__is_branch(enum sort_key key)
{
	return key >= SORT_DSO_FROM && key <= SORT_ADDR_TO;
}

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
		/* perf's arch_specific_sort_keys, by their whole names: x86 has none of them */
		if (!strcmp(tok, "p_stage_cyc") || !strcmp(tok, "local_p_stage_cyc"))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(dimensions); i++) {
			if (strncasecmp(tok, dimensions[i].name, strlen(tok)) == 0) {
				key = dimensions[i].key;
				break;
			}
		}
		if (key == -2)
			key = branch_lookup(tok);
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

bool sort_list__elided(const struct sort_list *list, enum sort_key key)
{
	for (int i = 0; i < list->nr; i++)
		if (list->keys[i] == key)
			return list->elide[i];
	return false;
}

/* perf's hpp dimensions, in its lookup order after the sort keys' */
static const struct {
	const char *name;
	int field;	/* enum hpp_field, or -1 for those we do not support */
} hpp_dimensions[] = {
	{ "overhead", HPP_OVERHEAD },	     { "overhead_sys", -1 },
	{ "overhead_us", -1 },		     { "overhead_guest_sys", -1 },
	{ "overhead_guest_us", -1 },	     { "overhead_children", HPP_OVERHEAD_CHILDREN },
	{ "sample", HPP_SAMPLE },	     { "period", HPP_PERIOD },
};

static bool field_list__has(const struct field_list *list, int id)
{
	for (int i = 0; i < list->nr; i++)
		if (list->ids[i] == id)
			return true;
	return false;
}

static void field_list__add(struct field_list *list, int id)
{
	if (!field_list__has(list, id) && list->nr < MAX_FIELDS)
		list->ids[list->nr++] = id;
}

/*
 * perf's output_field_add: the sort keys first, then the hpp dimensions, by prefix. -1 for
 * a field perf has that is not supported, -2 for none.
 */
static int field_lookup(const char *tok)
{
	size_t len = strlen(tok);

	for (size_t i = 0; i < ARRAY_SIZE(dimensions); i++)
		if (!strncasecmp(tok, dimensions[i].name, len))
			return dimensions[i].key;
	for (size_t i = 0; i < ARRAY_SIZE(hpp_dimensions); i++)
		if (!strncasecmp(tok, hpp_dimensions[i].name, len))
			return hpp_dimensions[i].field;
	return branch_lookup(tok);
}

int field_list__parse(struct field_list *list, const char *str, char *bad, size_t bad_size)
{
	char *copy, *save = NULL;
	int ret = 0;

	list->nr = 0;
	list->strict = *str != '+';
	if (!list->strict && !*++str)
		return -2;
	copy = xstrdup(str);
	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int id = field_lookup(tok);

		if (id < 0) {
			snprintf(bad, bad_size, "%s", tok);
			ret = id == -1 ? -3 : -1;
			break;
		}
		field_list__add(list, id);
	}
	free(copy);
	return ret;
}

void field_list__add_keys(struct field_list *fields, struct sort_list *sort)
{
	fields->nr_sort_keys = sort->nr;
	for (int i = 0; i < fields->nr; i++) {
		int id = fields->ids[i];

		if (id < SORT_NR_KEYS && !sort_list__has(sort, id) && sort->nr < MAX_SORT_KEYS)
			sort->keys[sort->nr++] = id;
	}
	sort->sym_by_dso = !sort_list__has(sort, SORT_DSO);
}

void field_list__layout(const struct field_list *user, const struct sort_list *sort,
			const struct field_setup *setup, struct field_list *columns,
			struct field_list *order)
{
	bool strict = user && user->strict;

	columns->nr = order->nr = 0;
	if (!strict) {	/* perf_hpp__init's columns; setup_overhead's order */
		if (setup->cumulate) {
			field_list__add(columns, HPP_OVERHEAD_CHILDREN);
			field_list__add(order, HPP_OVERHEAD_CHILDREN);
		}
		field_list__add(columns, HPP_OVERHEAD);
		field_list__add(order, HPP_OVERHEAD);
		if (setup->show_nr_samples)
			field_list__add(columns, HPP_SAMPLE);
		if (setup->show_total_period)
			field_list__add(columns, HPP_PERIOD);
	}
	for (int i = 0; user && i < user->nr; i++)
		field_list__add(columns, user->ids[i]);
	for (int i = 0; i < sort->nr; i++) {
		field_list__add(columns, sort->keys[i]);	/* perf_hpp__setup_output_field */
		/* the sort keys of -s (or perf's default), not those -F appended */
		if (!user || i < user->nr_sort_keys)
			field_list__add(order, sort->keys[i]);
	}
	for (int i = 0; i < columns->nr; i++)	/* perf_hpp__append_sort_keys */
		field_list__add(order, columns->ids[i]);
}
