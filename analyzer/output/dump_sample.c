/*
 * dump_sample: perf's dump_sample (session.c), a sample's lines under its record in the raw
 * dump: ip, pid and period, then the callchain, branch stack, registers, ... the attr asks for.
 */
#include "analyzer/output/dump_internal.h"

#include <inttypes.h>

static const char *x86_reg_name(unsigned int id)
{
	static const char *const names[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
		"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
	};
	static char xmm[32][8];

	if (id < ARRAY_SIZE(names))
		return names[id];
	if (id >= 32 && id < 64) {
		/* XMM0..XMM15, two u64 halves each; perf names both halves alike */
		unsigned int n = (id - 32) / 2;

		snprintf(xmm[id - 32], sizeof(xmm[0]), "XMM%u", n);
		return xmm[id - 32];
	}
	return "unknown";
}

static void fprintf_regs(FILE *fp, const char *type, u64 abi, u64 mask, const u64 *regs)
{
	static const char *const abis[] = { "none", "32-bit", "64-bit" };
	unsigned int i = 0;

	fprintf(fp, "... %s regs: mask 0x%" PRIx64 " ABI %s\n", type, mask,
		abi < ARRAY_SIZE(abis) ? abis[abi] : "unknown");
	for (unsigned int rid = 0; rid < 64; rid++)
		if (mask & (1ull << rid))
			fprintf(fp, ".... %-5s 0x%016" PRIx64 "\n", x86_reg_name(rid), regs[i++]);
}

/* util/units.c unit_number__scnprintf via get_page_size_name */
static const char *page_size_name(u64 size, char *buf, size_t len)
{
	static const char units[] = "BKMG";
	int i = 0;

	if (!size) {
		snprintf(buf, len, "N/A");
		return buf;
	}
	while (size / 1024 > 1 && i < 3) {
		size /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", size, units[i]);
	return buf;
}

static void fprintf_callchain(FILE *fp, const struct perf_sample *s,
			      const struct perf_event_attr *attr)
{
	const u64 *chain = s->callchain;
	u64 nr = chain[0];

	if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) && s->branch_stack) {
		/* LBR call stack: the kernel part of the chain, then the LBR entries */
		const u64 *br = s->branch_stack;
		const u64 *entries = br + 1 + !!(attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
		u64 i;

		for (i = 0; i < nr; i++)
			if (chain[1 + i] == (u64)PERF_CONTEXT_USER)
				break;
		if (i != nr && br[0]) {
			u64 knr = i + 1;

			fprintf(fp, "... LBR call chain: nr:%" PRIu64 "\n", i + 1 + br[0] + 1);
			for (i = 0; i < knr; i++)
				fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)i, chain[1 + i]);
			fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)knr, entries[1]);
			for (i = 0; i < br[0]; i++)
				fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)(i + knr + 1),
					entries[i * 3]);
		}
	}
	fprintf(fp, "... FP chain: nr:%" PRIu64 "\n", nr);
	for (u64 i = 0; i < nr; i++)
		fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)i, chain[1 + i]);
}

const char *branch_flags__type_name(u64 flags)
{
	static const char *const names[] = { "", "COND", "UNCOND", "IND", "CALL", "IND_CALL",
					     "RET", "SYSCALL", "SYSRET", "COND_CALL", "COND_RET",
					     "ERET", "IRQ", "SERROR", "NO_TX" };
	static const char *const new_names[] = { "FAULT_ALGN", "FAULT_DATA", "FAULT_INST",
						 "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5" };
	u64 type = (flags >> 20) & 0xf, new_type = (flags >> 26) & 0xf;

	if (type == PERF_BR_EXTEND_ABI)
		return new_type < ARRAY_SIZE(new_names) ? new_names[new_type] : "";
	return names[type];
}

static void fprintf_branch_stack(FILE *fp, const struct perf_sample *s,
				 const struct perf_event_attr *attr)
{
	const u64 *br = s->branch_stack;
	const u64 *e = br + 1 + !!(attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	bool callstack = attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK;

	if (!callstack)
		fprintf(fp, "... branch stack: nr:%" PRIu64 "\n", br[0]);
	else
		fprintf(fp, "... branch callstack: nr:%" PRIu64 "\n", br[0] + 1);
	for (u64 i = 0; i < br[0]; i++) {
		u64 from = e[i * 3], to = e[i * 3 + 1], flags = e[i * 3 + 2];

		if (!callstack) {
			/*
			 * perf_branch_entry flags: mispred, predicted, in_tx, abort, cycles:16,
			 * type:4, spec:2, new_type:4, priv:3, reserved:31
			 */
			fprintf(fp, "..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64
				" %hu cycles %s%s%s%s %x %s\n", i, from, to,
				(unsigned short)((flags >> 4) & 0xffff), flags & 1 ? "M" : " ",
				flags & 2 ? "P" : " ", flags & 8 ? "A" : " ", flags & 4 ? "T" : " ",
				(unsigned)(flags >> 33), branch_flags__type_name(flags));
		} else if (i == 0) {
			fprintf(fp, "..... %2" PRIu64 ": %016" PRIx64 "\n..... %2" PRIu64
				": %016" PRIx64 "\n", i, to, i + 1, from);
		} else {
			fprintf(fp, "..... %2" PRIu64 ": %016" PRIx64 "\n", i + 1, from);
		}
	}
}

static void fprintf_sample_read(FILE *fp, const struct perf_sample *s, u64 fmt)
{
	const u64 *r = s->read;
	size_t k = 0;

	fputs("... sample_read:\n", fp);
	if (fmt & PERF_FORMAT_GROUP) {
		u64 nr = r[k++];

		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			fprintf(fp, "...... time enabled %016" PRIx64 "\n", r[k++]);
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			fprintf(fp, "...... time running %016" PRIx64 "\n", r[k++]);
		fprintf(fp, ".... group nr %" PRIu64 "\n", nr);
		for (u64 i = 0; i < nr; i++) {
			u64 value = r[k++], id = fmt & PERF_FORMAT_ID ? r[k++] : 0;

			fprintf(fp, "..... id %016" PRIx64 ", value %016" PRIx64, id, value);
			if (fmt & PERF_FORMAT_LOST)
				fprintf(fp, ", lost %" PRIu64, r[k++]);
			fputc('\n', fp);
		}
	} else {
		u64 value = r[k++], id = 0, lost = 0;

		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			fprintf(fp, "...... time enabled %016" PRIx64 "\n", r[k++]);
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			fprintf(fp, "...... time running %016" PRIx64 "\n", r[k++]);
		if (fmt & PERF_FORMAT_ID)
			id = r[k++];
		if (fmt & PERF_FORMAT_LOST)
			lost = r[k++];
		fprintf(fp, "..... id %016" PRIx64 ", value %016" PRIx64, id, value);
		if (fmt & PERF_FORMAT_LOST)
			fprintf(fp, ", lost %" PRIu64, lost);
		fputc('\n', fp);
	}
}

void dump_fprintf_sample(FILE *fp, const struct perf_event_header *event,
			 const struct perf_sample *s, const struct perf_event_attr *attr)
{
	u64 type = attr->sample_type;
	char buf[32];

	fprintf(fp, "(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n",
		event->misc, (s32)s->pid, (s32)s->tid, s->ip, s->period, s->addr);
	if ((type & PERF_SAMPLE_CALLCHAIN) && s->callchain)
		fprintf_callchain(fp, s, attr);
	if ((type & PERF_SAMPLE_BRANCH_STACK) && s->branch_stack)
		fprintf_branch_stack(fp, s, attr);
	if ((type & PERF_SAMPLE_REGS_USER) && s->user_regs.regs)
		fprintf_regs(fp, "user", s->user_regs.abi, s->user_regs.mask, s->user_regs.regs);
	if ((type & PERF_SAMPLE_REGS_INTR) && s->intr_regs.regs)
		fprintf_regs(fp, "intr", s->intr_regs.abi, s->intr_regs.mask, s->intr_regs.regs);
	if (type & PERF_SAMPLE_STACK_USER) {
		/* perf's offset is where the size field sits in the record */
		u64 off = s->user_stack.data ?
			(u64)((const u8 *)s->user_stack.data - 8 - (const u8 *)event) : 0;

		fprintf(fp, "... ustack: size %" PRIu64 ", offset 0x%x\n",
			s->user_stack.size ? s->user_stack.dyn_size : 0, (unsigned)off);
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		/* x86 perf's arch_perf_parse_sample_weight: no p_stage_cyc (powerpc's), 0 */
		if (type & PERF_SAMPLE_WEIGHT_STRUCT)
			fprintf(fp, "... weight: %" PRIu64 ",0x%x,0x0\n", s->weight & 0xffffffff,
				(unsigned)((s->weight >> 32) & 0xffff));
		else
			fprintf(fp, "... weight: %" PRIu64 "\n", s->weight);
	}
	if (type & PERF_SAMPLE_DATA_SRC)
		fprintf(fp, " . data_src: 0x%" PRIx64 "\n", s->data_src);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		fprintf(fp, " .. phys_addr: 0x%" PRIx64 "\n", s->phys_addr);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		fprintf(fp, " .. data page size: %s\n",
			page_size_name(s->data_page_size, buf, sizeof(buf)));
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		fprintf(fp, " .. code page size: %s\n",
			page_size_name(s->code_page_size, buf, sizeof(buf)));
	if (type & PERF_SAMPLE_TRANSACTION)
		fprintf(fp, "... transaction: %" PRIx64 "\n", s->transaction);
	if ((type & PERF_SAMPLE_READ) && s->read)
		fprintf_sample_read(fp, s, attr->read_format);
}
