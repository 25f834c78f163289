/*
 * unwind_cfi: what libdw's CFI says for a pc, compiled once per pc and dso into a rule
 * (the FDE perf's lookup through .eh_frame_hdr finds, else .debug_frame's), and DWARF
 * expressions evaluated as libunwind's dwarf_eval_expr does. Reads memory through unwind.c.
 */
#include "machine/unwind_internal.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "machine/machine.h"
#include "symtab/symtab_elf.h"

/* ---- DWARF expressions (libunwind's dwarf_eval_expr) ---- */

#define EXPR_STACK 64

int unwind_eval_expr(struct cursor *c, const Dwarf_Op *ops, size_t nops, struct loc *out)
{
	u64 st[EXPR_STACK], a, b;
	size_t sp = 0, budget = 4096;
	bool is_reg = false, is_value = false;

#define NEED(n)                  \
	do {                     \
		if (sp < (n))    \
			return E_FAIL; \
	} while (0)
#define PUSH(v)                         \
	do {                            \
		u64 v_ = (v);           \
		if (sp == EXPR_STACK)   \
			return E_FAIL;  \
		st[sp++] = v_;          \
	} while (0)

	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		u8 atom = op->atom;

		if (!budget--)
			return E_FAIL;
		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			PUSH((u64)(atom - DW_OP_lit0));
			continue;
		}
		if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			if (unwind_reg_get(c, atom - DW_OP_breg0, &a))
				return E_FAIL;
			PUSH(a + op->number);
			continue;
		}
		if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			PUSH((u64)(atom - DW_OP_reg0));
			is_reg = true;
			continue;
		}
		switch (atom) {
		case DW_OP_call_frame_cfa:
			PUSH(c->new_cfa);
			break;
		case DW_OP_addr:
		case DW_OP_const1u:
		case DW_OP_const1s:
		case DW_OP_const2u:
		case DW_OP_const2s:
		case DW_OP_const4u:
		case DW_OP_const4s:
		case DW_OP_const8u:
		case DW_OP_const8s:
		case DW_OP_constu:
		case DW_OP_consts:
			PUSH(op->number);
			break;
		case DW_OP_bregx:
			if (unwind_reg_get(c, op->number, &a))
				return E_FAIL;
			PUSH(a + op->number2);
			break;
		case DW_OP_regx:
			PUSH(op->number);
			is_reg = true;
			break;
		case DW_OP_dup:
			NEED(1);
			PUSH(st[sp - 1]);
			break;
		case DW_OP_drop:
			NEED(1);
			sp--;
			break;
		case DW_OP_over:
			NEED(2);
			PUSH(st[sp - 2]);
			break;
		case DW_OP_pick:
			if (op->number >= sp)
				return E_FAIL;
			PUSH(st[sp - 1 - op->number]);
			break;
		case DW_OP_swap:
			NEED(2);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = a;
			break;
		case DW_OP_rot:
			NEED(3);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = a;
			break;
		case DW_OP_deref:
			NEED(1);
			if (unwind_read_word(c, st[sp - 1], &a) < 0)
				return E_FAIL;
			st[sp - 1] = a;
			break;
		case DW_OP_deref_size:
			NEED(1);
			if (op->number == 0 || op->number > 8 ||
			    unwind_read_word(c, st[sp - 1], &a) < 0)
				return E_FAIL;
			if (op->number < 8)
				a &= (1ull << (8 * op->number)) - 1;
			st[sp - 1] = a;
			break;
		case DW_OP_abs:
			NEED(1);
			if ((s64)st[sp - 1] < 0)
				st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_neg:
			NEED(1);
			st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_not:
			NEED(1);
			st[sp - 1] = ~st[sp - 1];
			break;
		case DW_OP_plus_uconst:
			NEED(1);
			st[sp - 1] += op->number;
			break;
		case DW_OP_and:
		case DW_OP_div:
		case DW_OP_minus:
		case DW_OP_mod:
		case DW_OP_mul:
		case DW_OP_or:
		case DW_OP_plus:
		case DW_OP_shl:
		case DW_OP_shr:
		case DW_OP_shra:
		case DW_OP_xor:
		case DW_OP_eq:
		case DW_OP_ge:
		case DW_OP_gt:
		case DW_OP_le:
		case DW_OP_lt:
		case DW_OP_ne:
			NEED(2);
			b = st[--sp];
			a = st[sp - 1];
			switch (atom) {
			case DW_OP_and: a &= b; break;
			case DW_OP_div:
				if (!b)
					return E_FAIL;
				a = b == (u64)-1 ? -a : (u64)((s64)a / (s64)b);
				break;
			case DW_OP_minus: a -= b; break;
			case DW_OP_mod:
				if (!b)
					return E_FAIL;
				a %= b;
				break;
			case DW_OP_mul: a *= b; break;
			case DW_OP_or: a |= b; break;
			case DW_OP_plus: a += b; break;
			case DW_OP_shl: a = b < 64 ? a << b : 0; break;
			case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
			case DW_OP_shra: a = (u64)((s64)a >> (b < 63 ? b : 63)); break;
			case DW_OP_xor: a ^= b; break;
			case DW_OP_eq: a = a == b; break;
			case DW_OP_ge: a = (s64)a >= (s64)b; break;
			case DW_OP_gt: a = (s64)a > (s64)b; break;
			case DW_OP_le: a = (s64)a <= (s64)b; break;
			case DW_OP_lt: a = (s64)a < (s64)b; break;
			default: a = a != b; break;
			}
			st[sp - 1] = a;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			u64 target = op->offset + 3 + (u64)(s64)(int16_t)op->number;
			size_t j;

			if (atom == DW_OP_bra) {
				NEED(1);
				if (!st[--sp])
					break;
			}
			/* the 2-byte offset counts from the next operation */
			for (j = 0; j < nops && ops[j].offset != target; j++)
				;
			if (j == nops)
				return E_FAIL;
			i = j - 1;
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			is_value = true;
			break;
		default:
			return E_FAIL;
		}
	}
#undef NEED
#undef PUSH
	if (!sp)
		return E_FAIL;
	out->kind = is_reg ? LOC_REG : is_value ? LOC_VAL : LOC_MEM;
	out->v = st[sp - 1];
	return 0;
}

/* ---- rules ---- */

static u32 keep_ops(struct unwind_dso *ud, const Dwarf_Op *ops, size_t nops)
{
	u32 at = (u32)ud->nr_ops;

	ARRAY_GROW(ud->ops, ud->ops_alloc, ud->nr_ops + nops);
	memcpy(ud->ops + ud->nr_ops, ops, nops * sizeof(*ops));
	ud->nr_ops += nops;
	return at;
}

static struct frame_rule *rule_new(struct unwinder *u)
{
	struct rule_block *b = u->blocks;

	if (!b || b->used == RULES_PER_BLOCK) {
		b = xmalloc(sizeof(*b));
		b->next = u->blocks;
		b->used = 0;
		u->blocks = b;
	}
	return memset(&b->rules[b->used++], 0, sizeof(struct frame_rule));
}

/* The caller-saved registers: libunwind's default rule for them is "same", libdw's "undefined". */
static bool caller_saved(int reg)
{
	return reg != 3 && reg != REG_RBP && reg != REG_RSP && !(reg >= 12 && reg <= 16);
}

static void compile_register(struct unwind_dso *ud, Dwarf_Frame *f, int reg, struct reg_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	r->kind = RULE_SAME;
	if (dwarf_frame_register(f, reg, mem, &ops, &nops))
		return;
	if (!nops) {
		/* libdw's undefined includes "not mentioned", which libunwind keeps as is */
		if (ops && !caller_saved(reg))
			r->kind = RULE_UNDEF;
		return;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa && nops <= 3) {
		size_t i = 1;
		s64 off = 0;

		if (i < nops && ops[i].atom == DW_OP_plus_uconst)
			off = (s64)ops[i++].number;
		if (i == nops) {
			r->kind = RULE_CFA;
			r->off = off;
			return;
		}
		if (i + 1 == nops && ops[i].atom == DW_OP_stack_value) {
			/* the stack pointer's "is the CFA" (libdw's ABI rule) is libunwind's "same" */
			r->kind = reg == REG_RSP && !off ? RULE_SAME : RULE_VAL_CFA;
			r->off = off;
			return;
		}
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number < NR_REGS) {
		r->kind = RULE_REG;
		r->reg = (u8)ops[0].number;
		return;
	}
	r->kind = RULE_EXPR;
	r->nops = (u16)MIN(nops, 0xffffu);
	r->ops = keep_ops(ud, ops, r->nops);
}

/* A libdw frame as libunwind would apply it: found, or bad (a column it has no room for). */
static void compile_frame(struct unwind_dso *ud, Dwarf_Frame *f, struct frame_rule *r)
{
	Dwarf_Op *ops;
	size_t nops;
	int ra = dwarf_frame_info(f, NULL, NULL, &r->signal);

	r->found = RULE_BAD;
	if (ra < 0 || ra >= NR_REGS)
		return;
	r->ra = (u8)ra;
	if (dwarf_frame_cfa(f, &ops, &nops) || !nops) {
		r->cfa_kind = CFA_NONE;
	} else if (nops == 1 && ops[0].atom == DW_OP_bregx && ops[0].number < NR_REGS) {
		r->cfa_kind = CFA_REG;
		r->cfa_reg = (u8)ops[0].number;
		r->cfa_off = (s64)ops[0].number2;
	} else {
		r->cfa_kind = CFA_EXPR;
		r->cfa_nops = (u16)MIN(nops, 0xffffu);
		r->cfa_ops = keep_ops(ud, ops, r->cfa_nops);
	}
	for (int reg = 0; reg < NR_REGS; reg++)
		compile_register(ud, f, reg, &r->regs[reg]);
	r->found = RULE_FOUND;
}

/* What the CFI says at vaddr (cached): 0 with *out, E_NOINFO (no FDE covers it), or E_FAIL. */
static int lookup_rule(struct unwinder *u, struct unwind_dso *ud, Dwarf_CFI *cfi,
		       struct hashmap *cache, u64 vaddr, struct frame_rule **out)
{
	struct frame_rule *r = hashmap_find(cache, vaddr);

	if (!r) {
		Dwarf_Frame *f = NULL;

		r = rule_new(u);
		hashmap_insert(cache, vaddr, r);
		if (cfi && !dwarf_cfi_addrframe(cfi, vaddr, &f))
			compile_frame(ud, f, r);
		free(f);
	}
	*out = r;
	return r->found == RULE_FOUND ? 0 : r->found == RULE_BAD ? E_FAIL : E_NOINFO;
}

struct base_search {
	struct dso *dso;
	u64 lowest;
};

static int lowest_map_of(struct map *map, void *data)
{
	struct base_search *s = data;

	if (map->dso == s->dso && map->start < s->lowest)
		s->lowest = map->start;
	return 0;
}

/* Whether perf reads the file's bytes at off when it reads memory at addr. */
static bool reads_file_at(struct cursor *c, struct unwind_dso *ud, u64 addr, u64 off)
{
	struct map *map = maps__find(c->thread->maps, addr);

	return map && map->dso == ud->dso && map__map_ip(map, addr) == off;
}

/*
 * perf's find_proc_info, .eh_frame part: the dso's load address from the lowest of its maps
 * and its first PT_LOAD, the .eh_frame_hdr search table read through the maps at that
 * address (libunwind's remote_lookup), the FDE it names read the same way. Where those reads
 * land on the file's own bytes, the FDE is the one libdw finds for the same vaddr; where they
 * land elsewhere (no map, or another part of a file) perf reads garbage or fails: we fail.
 */
static int eh_frame_rule(struct cursor *c, struct map *map, struct unwind_dso *ud, u64 ip,
			 struct frame_rule **out)
{
	struct base_search bs = { .dso = ud->dso, .lowest = UINT64_MAX };
	u64 base, segbase, table, lo = 0, hi = ud->fde_count, vaddr;
	const u8 *t;
	s32 rel, start, fde;

	maps__for_each_map(c->thread->maps, lowest_map_of, &bs);
	base = bs.lowest - ud->elf_base;
	segbase = base + ud->hdr_addr;
	table = segbase + ud->table_off;
	if (!ud->fde_count)
		return E_NOINFO;
	if (ud->fde_count > ud->size / 8 ||
	    ud->hdr_offset + ud->table_off + ud->fde_count * 8 > ud->size ||
	    !reads_file_at(c, ud, table, ud->hdr_offset + ud->table_off) ||
	    !reads_file_at(c, ud, table + ud->fde_count * 8 - 1,
			   ud->hdr_offset + ud->table_off + ud->fde_count * 8 - 1))
		return E_FAIL;
	t = ud->image + ud->hdr_offset + ud->table_off;
	rel = (s32)(ip - segbase);
	while (lo < hi) {
		u64 mid = (lo + hi) / 2;

		memcpy(&start, t + mid * 8, 4);
		if (rel < start)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!hi)
		return E_NOINFO;
	memcpy(&fde, t + (hi - 1) * 8 + 4, 4);
	if (!reads_file_at(c, ud, segbase + (u64)(s64)fde, ud->hdr_offset + (u64)(s64)fde))
		return E_FAIL;
	vaddr = ip - base;
	return lookup_rule(c->u, ud, ud->cfi, &ud->rules, vaddr, out);
}

/*
 * perf's find_proc_info, .debug_frame part (when .eh_frame gave nothing): from the data file
 * (perf also tries the symbol file and the debuglink: not here).
 */
static int debug_frame_rule(struct cursor *c, struct map *map, struct unwind_dso *ud, u64 ip,
			    struct frame_rule **out)
{
	GElf_Shdr shdr;
	u64 vaddr;

	if (!ud->debug_tried) {
		ud->debug_tried = true;
		if (ud->elf &&
		    symtab_elf_section_by_name(ud->elf, NULL, &shdr, ".debug_frame", NULL) &&
		    shdr.sh_offset) {
			ud->has_debug_frame = true;
			ud->dwarf = dwarf_begin_elf(ud->elf, DWARF_C_READ, NULL);
			ud->debug_cfi = ud->dwarf ? dwarf_getcfi(ud->dwarf) : NULL;
		}
	}
	if (!ud->has_debug_frame)
		return E_FAIL;
	/* libunwind looks an executable's pcs up as they are, a library's from its map */
	vaddr = ud->is_exec ? ip : ip - map->start + map->pgoff;
	return lookup_rule(c->u, ud, ud->debug_cfi, &ud->debug_rules, vaddr, out);
}

/* perf's find_proc_info: the rules at ip (the pc the lookup uses), and their dso. */
int unwind_find_rule(struct cursor *c, u64 ip, struct frame_rule **out, struct unwind_dso **udp)
{
	struct map *map = c->thread->maps ? maps__find(c->thread->maps, ip) : NULL;
	struct unwind_dso *ud;
	int ret = E_FAIL;

	if (!map)
		return E_FAIL;
	ud = unwind_dso(c->u, c->machine, map->dso);
	*udp = ud;
	if (ud->has_hdr)
		ret = eh_frame_rule(c, map, ud, ip, out);
	if (ret < 0 && ud->elf) {
		int dret = debug_frame_rule(c, map, ud, ip, out);

		if (dret != E_FAIL || ud->has_debug_frame)
			ret = dret;
	}
	return ret;
}
