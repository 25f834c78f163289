/*
 * report_modes: perf report's branch and memory modes. Branch mode (perf 6.1's
 * hist_iter_branch): a sample with a branch stack adds one entry a branch, of period 1, keyed
 * by the branch's ends and flags, and perf's branch statistics of those entries. Memory mode
 * (--mem-mode, hist_iter_mem): a sample's entry weighs its weight, keyed by its data address
 * and source too. Both run on the reading thread, with no aggregator.
 */
#include "analyzer/report/report_internal.h"

#include <stdio.h>
#include <string.h>

#include "analyzer/output/dump.h"
#include "analyzer/output/header.h"
#include "lib/xalloc.h"

static const char default_branch_sort[] = "comm,dso_from,symbol_from,symbol_to,cycles";

/* perf's "Invalid --sort key" (or --fields key) for a key of another mode: 0, or -1 */
static int check_mode_keys(const struct report *rep, const struct report_args *a)
{
	for (int i = 0; i < rep->sort.nr; i++) {
		/* -F's keys follow --sort's (field_list__add_keys) */
		bool field = a->fields && (!a->sort_str || i >= rep->fields.nr_sort_keys);
		enum sort_key key = rep->sort.keys[i];

		if ((sort_key__is_branch(key) && !rep->sort.branch) ||
		    (sort_key__is_mem(key) && !rep->sort.mem)) {
			fprintf(stderr, "Error:\nInvalid --%s key: `%s'\n", field ? "fields" : "sort",
				field ? a->fields : a->sort_str);
			return 0;	/* perf 6.1's status */
		}
	}
	return -1;
}

int report__setup_modes(struct report *rep, const struct report_args *a)
{
	bool has_br_stack = perf_session__has_feat(&rep->session, HEADER_BRANCH_STACK);
	bool default_sort = !a->sort_str && (!a->fields || *a->fields == '+');
	char bad[64];

	/* perf's branch_mode: -1 unless -b (1) or --no-branch-stack (0) */
	rep->sort.branch = a->branch_stack > 1 || (a->branch_stack == 1 && has_br_stack);
	if (a->mem_mode && rep->sort.branch) {
		fprintf(stderr, "branch and mem mode incompatible\n");
		return 0;	/* perf 6.1's status */
	}
	rep->sort.mem = a->mem_mode;
	if (check_mode_keys(rep, a) >= 0)
		return 0;
	/* an entry keeps its branch or memory access where others keep their extra (hist.h) */
	if ((rep->sort.branch || rep->sort.mem) && sort_list__has_extra(&rep->sort)) {
		fprintf(stderr, "analyze report: the sample values' and source lines' keys in branch or memory mode are not supported yet\n");
		return 1;
	}
	if (rep->sort.mem && default_sort) {
		fprintf(stderr, "analyze report: --mem-mode's default sort order (local_weight, local_ins_lat) is not supported yet: give --sort\n");
		return 1;
	}
	if (!rep->sort.branch)
		return -1;
	/* perf appends ipc_lbr to such a --sort and annotates every branch's symbols */
	if (a->sort_str && strstr(a->sort_str, "symbol")) {
		fprintf(stderr, "analyze report: --sort naming symbol in branch mode (perf adds ipc_lbr) is not supported yet\n");
		return 1;
	}
	if (default_sort) {
		sort_list__parse(&rep->sort, default_branch_sort, bad, sizeof(bad));
		if (a->fields)
			field_list__add_keys(&rep->fields, &rep->sort);
	}
	return -1;
}

bool report__stitch_lbr_unsupported(const struct report *rep, const struct report_args *a)
{
	u64 type = 0;

	if (!a->stitch_lbr)
		return false;
	for (size_t i = 0; i < rep->session.nr_evsels; i++)
		type |= rep->session.evsels[i].attr.sample_type;
	/* perf's callchain_param_setup: LBR call graphs, of callchains used with branch stacks */
	if (rep->chains && (type & PERF_SAMPLE_BRANCH_STACK) &&
	    !((type & PERF_SAMPLE_REGS_USER) && (type & PERF_SAMPLE_STACK_USER))) {
		fprintf(stderr, "analyze report: --stitch-lbr with LBR call graphs is not supported yet\n");
		return true;
	}
	/* else perf switches it off, and it changes nothing */
	fprintf(stderr, "Warning:\nCan't find LBR callchain. Switch off --stitch-lbr.\nPlease apply --call-graph lbr when recording.\n");
	return false;
}

/* perf's ip__resolve_ams: the first address space, user then kernel, that maps ip */
static void resolve_end(struct report *rep, struct thread *t, u64 ip, struct addr_location *al)
{
	static const u8 cpumodes[] = { PERF_RECORD_MISC_USER, PERF_RECORD_MISC_KERNEL };

	for (size_t i = 0; i < ARRAY_SIZE(cpumodes); i++) {
		machine__find_symbol(&rep->machine, t, cpumodes[i], ip, al);
		if (al->map)
			return;
	}
	al->level = 'H';	/* the guests' modes, perf_guest off: no map */
	al->addr = ip;
}

/*
 * One entry a branch (perf's iter_add_next_branch_entry): the target's map and symbol as the
 * entry's (its raw address as ip), the sample's level, period 1.
 */
static void add_branch(struct report *rep, struct hists *hists, struct hist_entry *proto,
		       struct hist_branch *b, struct thread *t)
{
	struct addr_location from, to;
	struct hist_entry *he;

	resolve_end(rep, t, b->from, &from);
	resolve_end(rep, t, b->to, &to);
	if (rep->hide_unresolved && !(from.sym && to.sym))
		return;	/* -U: neither added nor counted */
	b->from_dso = from.dso;
	b->from_sym = from.sym;
	b->from_symtab = from.symtab;
	b->from_addr = from.addr;
	b->from_level = from.level;
	b->to_dso = to.dso;
	b->to_sym = to.sym;
	b->to_symtab = to.symtab;
	b->to_addr = to.addr;
	b->to_level = to.level;
	proto->thread = thread__get(t);
	proto->map = map__get(to.map);
	proto->dso = to.dso;
	proto->sym = to.sym;
	proto->symtab = to.symtab;
	proto->ip = b->to;
	proto->period = 1;
	proto->hash = 0;
	hists__add(hists, proto, CC_NO_CHAIN, map__base(to.map));
	thread__put(proto->thread);	/* what the histogram did not take */
	map__put(proto->map);
	/* perf counts the entry's branch, which may be an earlier one with the same keys */
	he = &hists->entries[hists->last - 1];
	branch_stats__count(&rep->branch_stats, he->branch);
}

int report_branch_sample(struct report *rep, struct event_ctx *ctx, struct thread *t)
{
	const struct perf_sample *s = &ctx->sample;
	const struct perf_event_attr *attr = &ctx->evsel->attr;
	struct hists *hists = &rep->hists[ctx->evsel->idx];
	const u64 *e;
	struct addr_location al;
	struct hist_entry proto;
	struct hist_branch b;
	bool filtered;

	if (!s->branch_stack || !(attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return 0;	/* perf's iter_prepare_branch_entry: nothing to add */
	/* the sample's own address: its level and the dso and symbol filters */
	machine__resolve_map(&rep->machine, t, s->misc & PERF_RECORD_MISC_CPUMODE_MASK, s->ip, &al);
	machine__resolve_symbol(&rep->machine, &al);
	if (rep->hide_unresolved && !al.sym)
		return 0;	/* perf's process_sample_event drops it */
	/* -x: these entries have no parent (perf looks for one in callchains only) */
	filtered = thread_filtered(rep, t) || symbol_filtered(rep, &al) || rep->exclude_other;
	if (!rep->sockets_read) {
		header__cpu_sockets(&rep->session, &rep->sockets, &rep->nr_cpus);
		rep->sockets_read = true;
	}
	/* nr, then hw_idx when the attr asks for it, then from, to, flags a branch */
	e = s->branch_stack + 1 + !!(attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	for (u64 i = 0; i < s->branch_stack[0]; i++, e += 3) {
		hist_entry__clear(&proto);
		proto.comm = t->comm_set ? final_comm(rep, comm__str(t->comm)) : t->comm;
		proto.cpu = (s32)s->cpu;
		proto.socket = proto.cpu >= 0 && proto.cpu < rep->nr_cpus ? rep->sockets[proto.cpu]
									    : -1;
		proto.level = al.level;
		proto.filtered = filtered;
		b = (struct hist_branch){ .from = e[0], .to = e[1], .flags = e[2] };
		proto.branch = &b;
		add_branch(rep, hists, &proto, &b, t);
	}
	return 0;
}

/* One entry a sample, of its weight (perf's iter_add_single_mem_entry) */
int report_mem_sample(struct report *rep, struct event_ctx *ctx, struct thread *t)
{
	const struct perf_sample *s = &ctx->sample;
	const struct perf_event_attr *attr = &ctx->evsel->attr;
	u8 cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct addr_location al, iaddr, daddr;
	struct hist_entry proto;
	struct hist_mem m;
	u64 weight = s->weight;

	machine__resolve_map(&rep->machine, t, cpumode, s->ip, &al);
	machine__resolve_symbol(&rep->machine, &al);
	if (rep->hide_unresolved && !al.sym)
		return 0;	/* perf's process_sample_event drops it */
	if (!rep->sockets_read) {
		header__cpu_sockets(&rep->session, &rep->sockets, &rep->nr_cpus);
		rep->sockets_read = true;
	}
	/* evsel__parse_sample: a WEIGHT_STRUCT's weight is its first 32 bits */
	if (!(attr->sample_type & PERF_SAMPLE_WEIGHT) &&
	    (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		weight = (u32)weight;
	/* perf's sample__resolve_mem: the ip in any address space, the data in the sample's */
	resolve_end(rep, t, s->ip, &iaddr);
	machine__find_symbol(&rep->machine, t, cpumode, s->addr, &daddr);
	m = (struct hist_mem){
		.daddr_dso = daddr.dso, .daddr_sym = daddr.sym, .daddr_symtab = daddr.symtab,
		.iaddr_dso = iaddr.dso, .iaddr_sym = iaddr.sym, .iaddr_symtab = iaddr.symtab,
		.daddr = s->addr, .iaddr = s->ip, .daddr_base = map__base(daddr.map),
		.iaddr_base = map__base(iaddr.map), .phys_addr = s->phys_addr,
		.data_page_size = s->data_page_size, .data_src = s->data_src };
	hist_entry__clear(&proto);
	proto.thread = thread__get(t);
	proto.comm = t->comm_set ? final_comm(rep, comm__str(t->comm)) : t->comm;
	proto.map = map__get(al.map);
	proto.dso = al.dso;
	proto.sym = al.sym;
	proto.symtab = al.symtab;
	proto.ip = al.addr;
	proto.level = al.level;
	proto.cpu = (s32)s->cpu;
	proto.socket = proto.cpu >= 0 && proto.cpu < rep->nr_cpus ? rep->sockets[proto.cpu] : -1;
	proto.period = weight ? weight : 1;	/* the cost */
	proto.filtered = thread_filtered(rep, t) || symbol_filtered(rep, &al) ||
			 rep->exclude_other;
	proto.mem = &m;
	hists__add(&rep->hists[ctx->evsel->idx], &proto, CC_NO_CHAIN, map__base(al.map));
	thread__put(proto.thread);	/* what the histogram did not take */
	map__put(proto.map);
	return 0;
}

/* perf's cross_area: the two addresses in different aligned blocks of size bytes */
static bool cross_area(u64 a, u64 b, u64 size)
{
	return (a & ~(size - 1)) != (b & ~(size - 1));
}

#define BRANCH_EXTEND_ABI 15	/* perf_event.h's PERF_BR_EXTEND_ABI: the type is new_type */

/* perf's branch_type_count */
void branch_stats__count(struct branch_stats *st, const struct hist_branch *b)
{
	unsigned int type = BRANCH_TYPE(b->flags);

	if (type == 0 || b->from == 0)	/* PERF_BR_UNKNOWN */
		return;
	if (type == BRANCH_EXTEND_ABI)
		st->new_counts[BRANCH_NEW_TYPE(b->flags)]++;
	else
		st->counts[type]++;
	if (type == 1 && b->to > b->from)	/* PERF_BR_COND */
		st->cond_fwd++;
	else if (type == 1)
		st->cond_bwd++;
	if (cross_area(b->from, b->to, 2 << 20))
		st->cross_2m++;
	else if (cross_area(b->from, b->to, 4096))
		st->cross_4k++;
}

static void stat_line(FILE *fp, const char *name, u64 n, u64 total)
{
	if (n)
		fprintf(fp, "\n%8s: %5.1f%%", name, 100.0 * (double)n / (double)total);
}

/* perf's branch_type_stat_display: the new types' shares are of the others' total */
void branch_stats__fprintf(const struct branch_stats *st, FILE *fp)
{
	u64 total = 0;

	for (size_t i = 0; i < ARRAY_SIZE(st->counts); i++)
		total += st->counts[i];
	if (!total)
		return;
	fprintf(fp, "\n#\n# Branch Statistics:\n#");
	stat_line(fp, "COND_FWD", st->cond_fwd, total);
	stat_line(fp, "COND_BWD", st->cond_bwd, total);
	stat_line(fp, "CROSS_4K", st->cross_4k, total);
	stat_line(fp, "CROSS_2M", st->cross_2m, total);
	/* the names dump.h gives the flags: type bits 20-23, new_type bits 26-29 */
	for (u64 i = 0; i < ARRAY_SIZE(st->counts); i++)
		stat_line(fp, branch_flags__type_name(i << 20), st->counts[i], total);
	for (u64 i = 0; i < 8; i++)	/* perf's PERF_BR_NEW_MAX */
		stat_line(fp, branch_flags__type_name((u64)BRANCH_EXTEND_ABI << 20 | i << 26),
			  st->new_counts[i], total);
}
