/*
 * script_hw_fields: the -F fields of hardware samples, as perf 6.1 prints them: branch stacks
 * (brstack, brstacksym, brstackoff) and memory accesses (weight, ins_lat, data_src, phys_addr,
 * page sizes). The branches' maps are found on the reading thread (the model as it is at the
 * sample), their symbols where the line is printed.
 */
#include "analyzer/script/script_internal.h"

#include <stdio.h>
#include <string.h>

#include "analyzer/output/dump.h"
#include "readers/decode/data_src.h"
#include "lib/fmt.h"

/* perf_event.h's perf_branch_entry flags, after from and to */
#define BR_MISPRED(f) ((f) & 1)
#define BR_PREDICTED(f) (((f) >> 1) & 1)
#define BR_IN_TX(f) (((f) >> 2) & 1)
#define BR_ABORT(f) (((f) >> 3) & 1)
#define BR_CYCLES(f) (((f) >> 4) & 0xffff)

void script_item_memory(struct line_item *item, const struct perf_event_attr *attr,
			const struct perf_sample *sample)
{
	item->misc = sample->misc;
	/* evsel__parse_sample: a WEIGHT_STRUCT's first word is the weight, its second ins_lat */
	item->weight = sample->weight;
	item->ins_lat = 0;
	if (!(attr->sample_type & PERF_SAMPLE_WEIGHT) &&
	    (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
		item->weight = (u32)sample->weight;
		item->ins_lat = (u16)(sample->weight >> 32);
	}
	item->data_src = sample->data_src;
	item->phys_addr = sample->phys_addr;
	item->data_page_size = sample->data_page_size;
	item->code_page_size = sample->code_page_size;
}

/*
 * An end of a branch: its map as perf's thread__find_map_fb finds it, and brstackoff's offset
 * (map__map_ip; for the kernel's map, whose symbols analyze keeps absolute, from its start).
 */
static void resolve_branch_end(struct script *s, struct thread *t, u8 cpumode, u64 ip,
			       struct sample_frame *at, u64 *off)
{
	struct addr_location al;

	machine__resolve_map(&s->machine, t, cpumode, ip, &al);
	at->dso = al.map ? al.map->dso : NULL;
	at->addr = al.addr;
	*off = !al.map ? ip : al.map == s->machine.kernel_map ? ip - al.map->start : al.addr;
}

void script_resolve_branches(struct script *s, struct thread *t, const struct perf_sample *sample,
			     struct line_item *item)
{
	const struct perf_event_attr *attr = &item->evsel->attr;
	/* nr, then hw_idx when the attr asks for it, then from, to, flags a branch */
	const u64 *e = sample->branch_stack + 1 +
		       !!(attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	struct line_branch *b = line_item_branches(item);
	u8 cpumode = sample->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	for (u32 i = 0; i < item->nr_branches; i++, e += 3, b++) {
		b->from = e[0];
		b->to = e[1];
		b->flags = e[2];
		resolve_branch_end(s, t, cpumode, b->from, &b->from_at, &b->from_off);
		resolve_branch_end(s, t, cpumode, b->to, &b->to_at, &b->to_off);
	}
}

/* print_bstack_flags: "/%c/%c/%c/%d/%s " */
static void print_branch_flags(struct outbuf *ob, u64 f)
{
	outbuf_putc(ob, '/');
	outbuf_putc(ob, !(BR_MISPRED(f) || BR_PREDICTED(f)) ? '-' : BR_PREDICTED(f) ? 'P' : 'M');
	outbuf_putc(ob, '/');
	outbuf_putc(ob, BR_IN_TX(f) ? 'X' : '-');
	outbuf_putc(ob, '/');
	outbuf_putc(ob, BR_ABORT(f) ? 'A' : '-');
	outbuf_putc(ob, '/');
	fmt_put_u64(ob, BR_CYCLES(f), 0);
	outbuf_putc(ob, '/');
	fmt_put_str(ob, branch_flags__type_name(f));
	outbuf_putc(ob, ' ');
}

/* map__fprintf_dsoname: "(dso)", or "([unknown])" without a map */
static void print_dsoname(struct outbuf *ob, const struct dso *dso)
{
	outbuf_putc(ob, '(');
	fmt_put_str(ob, dso ? dso->long_name : "[unknown]");
	outbuf_putc(ob, ')');
}

/* symbol__fprintf_symname_offs: "name+0xoff", "[unknown]" */
static void print_symname_offs(struct script_printer *pr, const struct sample_frame *at)
{
	struct addr_location al = { .dso = at->dso, .addr = at->addr };

	script_resolve_symbol(pr, &al);
	if (!al.sym) {
		fmt_put_str(&pr->out, "[unknown]");
		return;
	}
	fmt_put_str(&pr->out, symbol__name(al.symtab, al.sym));
	fmt_put_str(&pr->out, "+0x");
	fmt_put_hex(&pr->out, al.addr - al.sym->start, 0);
}

/* perf_sample__fprintf_brstack, _brstacksym and _brstackoff: the first of them -F asks for */
void script_print_branches(struct script_printer *pr, const struct line_item *item, u32 fields)
{
	const struct line_branch *b = line_item_branches(item);
	struct outbuf *ob = &pr->out;
	bool dso = fields & SF_DSO;

	for (u32 i = 0; i < item->nr_branches; i++, b++) {
		if (!(fields & SF_BRSTACK) && (fields & SF_BRSTACKSYM)) {
			print_symname_offs(pr, &b->from_at);
			if (dso)
				print_dsoname(ob, b->from_at.dso);
			outbuf_putc(ob, '/');
			print_symname_offs(pr, &b->to_at);
			if (dso)
				print_dsoname(ob, b->to_at.dso);
		} else {
			bool off = !(fields & SF_BRSTACK);

			fmt_put_str(ob, " 0x");
			fmt_put_hex(ob, off ? b->from_off : b->from, 0);
			if (dso)
				print_dsoname(ob, b->from_at.dso);
			fmt_put_str(ob, "/0x");
			fmt_put_hex(ob, off ? b->to_off : b->to, 0);
			if (dso)
				print_dsoname(ob, b->to_at.dso);
		}
		print_branch_flags(ob, b->flags);
	}
}

/*
 * data_src__fprintf: "%16llx %s" (at most 99 characters), left-aligned in a column as wide
 * as the widest printed so far.
 */
static void print_data_src(struct script_printer *pr, u64 data_src)
{
	char decode[200], out[100];
	int len;

	data_src__meminfo(decode, 100, data_src);
	len = snprintf(out, sizeof(out), "%16llx %s", (unsigned long long)data_src, decode);
	len = MIN(MAX(len, 0), (int)sizeof(out) - 1);	/* scnprintf's */
	if (len > pr->data_src_width)
		pr->data_src_width = len;
	fmt_put_padded(&pr->out, out, (size_t)len, pr->data_src_width, true);
}

/* get_page_size_name: unit_number__scnprintf's "%llu%c" (units B K M G), "N/A" for 0 */
static void print_page_size(struct outbuf *ob, u64 size)
{
	char name[32];

	outbuf_putc(ob, ' ');
	page_size__name(name, sizeof(name), size);
	fmt_put_str(ob, name);
}

void script_print_mem_early(struct script_printer *pr, const struct line_item *item, u32 fields)
{
	if (fields & SF_DATA_SRC)
		print_data_src(pr, item->data_src);
	if (fields & SF_WEIGHT)
		fmt_put_u64(&pr->out, item->weight, 16);
	if (fields & SF_INS_LAT)
		fmt_put_u64(&pr->out, item->ins_lat, 16);
}

void script_print_mem_late(struct script_printer *pr, const struct line_item *item, u32 fields)
{
	if (fields & SF_PHYS_ADDR)
		fmt_put_hex(&pr->out, item->phys_addr, 16);
	if (fields & SF_DATA_PAGE_SIZE)
		print_page_size(&pr->out, item->data_page_size);
	if (fields & SF_CODE_PAGE_SIZE)
		print_page_size(&pr->out, item->code_page_size);
}
