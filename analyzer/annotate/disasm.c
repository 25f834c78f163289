/*
 * disasm: capstone's decoding, objdump's spelling (see disasm.h). The operands are made from
 * capstone's details, not rewritten from its text: its text differs from objdump's in
 * nearly every operand (separators, decimal numbers, omitted scales and zero displacements).
 */
#include "analyzer/annotate/disasm.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/annotate/labels.h"
#include "lib/capstone.h"
#include "lib/xalloc.h"

struct disasm {
	const struct capstone *cs;
	csh handle;
	cs_insn *insn;	/* capstone's, reused */
};

struct disasm *disasm__new(void)
{
	const struct capstone *cs = capstone_get();
	struct disasm *d;

	if (!cs)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->cs = cs;
	if (cs->open(CS_ARCH_X86, CS_MODE_64, &d->handle) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	cs->option(d->handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs->option(d->handle, CS_OPT_DETAIL, CS_OPT_ON);
	return d;
}

void disasm__delete(struct disasm *d)
{
	if (!d)
		return;
	d->cs->close(&d->handle);
	free(d);
}

/* An output buffer that never overflows: what does not fit is cut. */
struct out {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3))) static void out_add(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + (size_t)n < o->size ? o->len + (size_t)n : o->size - 1;
}

static bool in_group(const cs_insn *insn, u8 group)
{
	const cs_detail *dt = insn->detail;

	for (u8 i = 0; i < dt->groups_count; i++)
		if (dt->groups[i] == group)
			return true;
	return false;
}

/* movs, cmps, stos, lods, scas, ins, outs (one-byte opcodes): objdump shows their implicit
 * segments (%es:(%rdi), %ds:(%rsi)) and stos's register */
static bool string_insn(const cs_x86 *x)
{
	u8 op = x->opcode[0];

	return !x->opcode[1] && ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
				 (op >= 0x6c && op <= 0x6f));
}

/* Whether the ModRM (and SIB) encode a displacement (objdump prints a zero one then). */
static bool has_disp(const cs_x86 *x)
{
	u8 mod = x->modrm >> 6, rm = x->modrm & 7;

	return mod == 1 || mod == 2 || (mod == 0 && rm == 5) ||
	       (mod == 0 && rm == 4 && (x->sib & 7) == 5);
}

static void hex_signed(struct out *o, s64 v)
{
	if (v < 0)
		out_add(o, "-0x%llx", (unsigned long long)-(u64)v);
	else
		out_add(o, "0x%llx", (unsigned long long)v);
}

struct operand_ctx {
	struct disasm *d;
	const cs_insn *insn;
	bool branch;	/* call, jmp, jcc: immediates are targets, others take a '*' */
	bool string;
	const char *base;
	u64 rip_target;	/* of a RIP-relative operand, for the comment */
	bool rip;
	const struct labels *labels;
	u32 sec;
};

static void target(struct out *o, const struct operand_ctx *c, u64 addr)
{
	char name[512];

	labels__format(c->labels, addr, c->sec, name, sizeof(name));
	if (*name)
		out_add(o, "%llx <%s>", (unsigned long long)addr, name);
	else
		out_add(o, "%llx", (unsigned long long)addr);
}

static void mem_operand(struct out *o, struct operand_ctx *c, const cs_x86_op *op)
{
	const cs_x86 *x = &c->insn->detail->x86;
	const struct capstone *cs = c->d->cs;
	unsigned int seg = op->mem.segment, base = op->mem.base, index = op->mem.index;

	if (c->branch)
		out_add(o, "*");
	if (seg == X86_REG_FS || seg == X86_REG_GS)
		out_add(o, "%%%s:", cs->reg_name(c->d->handle, seg));
	else if (c->string && (base == X86_REG_RDI || base == X86_REG_EDI))
		out_add(o, "%%es:");
	else if (c->string && (base == X86_REG_RSI || base == X86_REG_ESI))
		out_add(o, "%%ds:");
	if (base == X86_REG_INVALID && index == X86_REG_INVALID)
		out_add(o, "0x%llx", (unsigned long long)op->mem.disp);
	else if (op->mem.disp || has_disp(x) || base == X86_REG_INVALID)
		hex_signed(o, op->mem.disp);
	if (base == X86_REG_RIP) {
		c->rip = true;
		c->rip_target = c->insn->address + c->insn->size + (u64)op->mem.disp;
	}
	if (base == X86_REG_INVALID && index == X86_REG_INVALID)
		return;
	out_add(o, "(");
	if (base != X86_REG_INVALID)
		out_add(o, "%%%s", cs->reg_name(c->d->handle, base));
	if (index != X86_REG_INVALID)
		out_add(o, ",%%%s,%d", cs->reg_name(c->d->handle, index), op->mem.scale);
	out_add(o, ")");
}

/*
 * An x87 %st(0): objdump writes the register a ModRM names "%st(0)", the implied top of the
 * stack "%st" (dc and de forms name theirs second, the others first)
 */
static const char *st0_name(const struct operand_ctx *c, u8 i)
{
	const cs_x86 *x = &c->insn->detail->x86;
	u8 modrm_op = x->opcode[0] == 0xdc || x->opcode[0] == 0xde ? 1 : 0;

	return x->op_count == 1 || i == modrm_op ? "st(0)" : "st";
}

static void operand(struct out *o, struct operand_ctx *c, const cs_x86_op *op, u8 i)
{
	u64 mask;

	switch (op->type) {
	case X86_OP_REG:
		out_add(o, "%s%%%s", c->branch ? "*" : "",
			op->reg == X86_REG_ST0 ? st0_name(c, i) :
						 c->d->cs->reg_name(c->d->handle, op->reg));
		break;
	case X86_OP_IMM:
		if (c->branch) {
			target(o, c, (u64)op->imm);
			break;
		}
		mask = op->size >= 1 && op->size < 8 ? (1ull << (op->size * 8)) - 1 : ~0ull;
		if (c->insn->detail->x86.opcode[0] == 0xc6 && c->insn->detail->x86.modrm == 0xf8)
			mask = 0xff;	/* xabort's imm8, which capstone sizes as 8 bytes */
		out_add(o, "$0x%llx", (unsigned long long)((u64)op->imm & mask));
		break;
	case X86_OP_MEM:
		mem_operand(o, c, op);
		break;
	default:
		break;
	}
}

/* Whether operand i is one objdump leaves out: the 1 of a shift by one (opcodes D0, D1). */
static bool implicit(const struct operand_ctx *c, u8 i)
{
	const cs_x86 *x = &c->insn->detail->x86;

	return x->operands[i].type == X86_OP_IMM && (x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1);
}

/* An x87 instruction on one %st(i) */
static bool st_alone(const cs_x86 *x)
{
	return x->op_count == 1 && x->modrm >= 0xc0 && x->operands[0].type == X86_OP_REG &&
	       x->operands[0].reg >= X86_REG_ST0 && x->operands[0].reg <= X86_REG_ST7;
}

static void operands(struct out *o, struct operand_ctx *c)
{
	const cs_x86 *x = &c->insn->detail->x86;
	/* xchg's one-byte form (90+r): objdump puts the accumulator first, capstone last */
	bool swap = x->op_count == 2 && x->opcode[0] >= 0x91 && x->opcode[0] <= 0x97;
	bool first = true;
	u8 op0 = x->opcode[0];

	/* stos: capstone leaves out the accumulator objdump shows */
	if (c->string && (op0 == 0xaa || op0 == 0xab)) {
		out_add(o, "%%%s,", op0 == 0xaa ? "al" : x->rex & 8 ? "rax" :
				     x->prefix[2] == X86_PREFIX_OPSIZE ? "ax" : "eax");
	}
	/* x87 register forms with one operand: objdump names %st too */
	if (st_alone(x) && (op0 == 0xdc || op0 == 0xde))
		out_add(o, "%%st,");
	for (u8 k = 0; k < x->op_count; k++) {
		u8 i = swap ? (u8)(x->op_count - 1 - k) : k;

		if (implicit(c, i))
			continue;
		if (!first)
			out_add(o, ",");
		first = false;
		operand(o, c, &x->operands[i], i);
	}
	if (st_alone(x) && (op0 == 0xd8 || op0 == 0xda || op0 == 0xdb || op0 == 0xdf))
		out_add(o, ",%%st");
}

static bool gpr64_operand(const struct operand_ctx *c)
{
	const cs_x86 *x = &c->insn->detail->x86;

	for (u8 i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG && x->operands[i].size == 8 &&
		    x->operands[i].reg >= X86_REG_RAX && x->operands[i].reg != X86_REG_RIP &&
		    strncmp(c->d->cs->reg_name(c->d->handle, x->operands[i].reg), "xmm", 3) &&
		    strncmp(c->d->cs->reg_name(c->d->handle, x->operands[i].reg), "mm", 2))
			return true;
	return false;
}

/*
 * objdump's mnemonic: capstone's AT&T one without its size suffix where objdump leaves it
 * out (a register operand gives the size, or the instruction has one size: branches, the
 * stack's), with the prefixes objdump names.
 */
static void mnemonic(struct out *o, const struct operand_ctx *c)
{
	const cs_insn *insn = c->insn;
	const cs_x86 *x = &insn->detail->x86;
	const char *name = c->d->cs->insn_name(c->d->handle, insn->id);
	size_t base_len = strlen(c->base), name_len = name ? strlen(name) : 0;
	bool has_reg = false, strip;
	size_t start = o->len;

	u8 nr_ops = 0;

	for (u8 i = 0; i < x->op_count; i++) {
		has_reg |= x->operands[i].type == X86_OP_REG;
		nr_ops += !implicit(c, i);
	}
	if (c->string && (x->opcode[0] == 0xaa || x->opcode[0] == 0xab))
		has_reg = true;	/* stos: the accumulator objdump adds */
	if (c->string && has_reg) {	/* stos, lods, scas with a register: no suffix */
		name = c->base;
		name_len = base_len - 1;
	}
	strip = name && base_len == name_len + 1 && !strncmp(c->base, name, name_len) &&
		strchr("bwlq", c->base[name_len]) &&
		(has_reg || !x->op_count || c->branch || in_group(insn, X86_GRP_RET) ||
		 !strcmp(name, "push") || !strcmp(name, "pop"));
	/* operand-size prefixes beyond the one that counts (padding nops) */
	for (size_t i = 0, n66 = 0; i < c->insn->size; i++) {
		u8 b = c->insn->bytes[i];

		if (b == 0x66 && ++n66 > 1)
			out_add(o, "data16 ");
		else if (b != 0x66 && b != 0x67 && b != 0xf0 && b != 0xf2 && b != 0xf3 &&
			 b != 0x2e && b != 0x36 && b != 0x3e && b != 0x26 && b != 0x64 && b != 0x65)
			break;
	}
	/* segment prefixes that select nothing in 64-bit mode, as objdump names them */
	for (u8 i = 0; i < x->op_count; i++) {
		unsigned int seg = x->operands[i].type == X86_OP_MEM ? x->operands[i].mem.segment
								     : X86_REG_INVALID;

		if (c->branch && seg == X86_REG_DS && x->operands[i].type == X86_OP_MEM)
			out_add(o, "notrack ");
		else if (seg == X86_REG_CS || seg == X86_REG_DS || seg == X86_REG_SS ||
			 (seg == X86_REG_ES && !c->string))
			out_add(o, "%s ", c->d->cs->reg_name(c->d->handle, seg));
	}
	if (c->branch && x->prefix[1] == X86_PREFIX_DS && x->op_count == 1 &&
	    x->operands[0].type == X86_OP_REG)
		out_add(o, "notrack ");
	if (x->prefix[0] == X86_PREFIX_LOCK)
		out_add(o, "lock ");
	else if (x->prefix[0] == X86_PREFIX_REP && c->string)
		out_add(o, !strncmp(c->base, "cmps", 4) || !strncmp(c->base, "scas", 4) ? "repz "
											  : "rep ");
	else if (x->prefix[0] == X86_PREFIX_REPNE && c->string)
		out_add(o, "repnz ");
	else if (x->prefix[0] == X86_PREFIX_REPNE && (c->branch || in_group(insn, X86_GRP_RET)))
		out_add(o, "bnd ");
	else if ((x->prefix[0] == X86_PREFIX_REP || insn->bytes[0] == 0xf3) &&
		 in_group(insn, X86_GRP_RET))
		out_add(o, "repz ");
	if (x->opcode[0] == 0x9b && !x->op_count)
		out_add(o, "fwait");	/* capstone: "wait" */
	else if (!strcmp(c->base, "movd") && gpr64_operand(c))
		out_add(o, "movq");	/* REX.W: objdump names the 64-bit form */
	else
		out_add(o, "%.*s", (int)(strip ? name_len : base_len), c->base);
	if (nr_ops)
		out_add(o, "%*s", o->len - start < 6 ? (int)(6 - (o->len - start)) + 1 : 1, "");
}

/*
 * The length of a VEX or EVEX instruction capstone 4 cannot decode (AVX-512 and its mask
 * instructions: kmovd, vpcmpeqb into %k0...), or 0: objdump decodes it, and with its length
 * the next instruction starts where objdump's does.
 */
static size_t vex_length(const u8 *code, size_t len)
{
	size_t i = 0, map, n;
	u8 opcode, modrm, mod, rm;

	if (len < 4)
		return 0;
	if (code[0] == 0x62) {	/* EVEX: 62 P0 P1 P2 */
		map = code[1] & 3;
		i = 4;
	} else if (code[0] == 0xc4) {	/* VEX3: c4 P0 P1 */
		map = code[1] & 0x1f;
		i = 3;
	} else if (code[0] == 0xc5) {	/* VEX2: c5 P0, map 0F */
		map = 1;
		i = 2;
	} else {
		return 0;
	}
	if (i + 2 > len || map < 1 || map > 3)
		return 0;
	opcode = code[i];
	modrm = code[i + 1];
	mod = modrm >> 6;
	rm = modrm & 7;
	n = i + 2;
	if (mod != 3 && rm == 4) {	/* SIB */
		if (n >= len)
			return 0;
		if (mod == 0 && (code[n] & 7) == 5)
			n += 4;
		n++;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		n += 4;
	if (map == 3 || (map == 1 && ((opcode >= 0x70 && opcode <= 0x73) || opcode == 0xc2 ||
				      (opcode >= 0xc4 && opcode <= 0xc6))))
		n += 1;	/* an imm8 */
	return n <= len ? n : 0;
}

size_t disasm__insn(struct disasm *d, const u8 *code, size_t len, u64 addr,
		    const struct labels *labels, u32 sec, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	struct operand_ctx c = { .d = d, .labels = labels, .sec = sec };
	const char *base;
	size_t n;

	if (size)
		*buf = '\0';
	if (!d->cs->disasm(d->handle, code, len, addr, 1, &d->insn)) {
		size_t n = vex_length(code, len);

		out_add(&o, "(bad)");
		return n ? n : 1;
	}
	c.insn = d->insn;
	base = strrchr(c.insn->mnemonic, ' ');	/* capstone's own prefixes: "rep stosq" */
	c.base = base ? base + 1 : c.insn->mnemonic;
	c.branch = in_group(c.insn, X86_GRP_JUMP) || in_group(c.insn, X86_GRP_CALL);
	c.string = string_insn(&c.insn->detail->x86);
	if (c.insn->size == 2 && code[0] == 0x66 && code[1] == 0x90) {
		out_add(&o, "xchg   %%ax,%%ax");	/* objdump's name of the 2-byte nop */
	} else {
		mnemonic(&o, &c);
		operands(&o, &c);
	}
	if (c.rip) {
		out_add(&o, "        # ");
		target(&o, &c, c.rip_target);
	}
	n = c.insn->size;
	d->cs->free(d->insn, 1);
	d->insn = NULL;
	return n;
}
