/*
 * unwind: perf 6.1's dwarf unwinding of a sample's user stack, as Debian's perf does it:
 * util/unwind-libunwind-local.c driving libunwind's unw_step (x86-64: dwarf_step, and its
 * frame-chain guesses where no CFI covers the pc), with the memory and registers perf gives
 * it. The CFI rows come from libdw (dwarf_getcfi_elf / dwarf_getcfi, dwarf_cfi_addrframe);
 * which FDE perf's lookup through .eh_frame_hdr finds, and whether it can read it at all
 * through the recorded maps, is worked out here as perf and libunwind do it.
 * Runs on the thread that keeps the model; never changes it.
 */
#include "machine/unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/hashmap.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "readers/sample.h"
#include "readers/session.h"
#include "symtab/symtab_elf.h"

#define NR_REGS 17	/* DWARF x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, 16: rip */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16
#define PATH_BUF 4096

/* perf's x86 PERF_REG_X86_*: each DWARF register's bit in sample_regs_user */
static const u8 perf_reg_of[NR_REGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
#define PERF_REG_IP 8

/* libunwind's error codes as its callers tell them apart */
#define E_NOINFO (-10)	/* -UNW_ENOINFO: no CFI for the pc: unw_step guesses the frame */
#define E_FAIL (-1)	/* anything else: unw_step fails, perf stops there */

/* ---- what libdw's CFI says for one pc, compiled once per pc and dso ---- */

enum rule_kind {
	RULE_SAME,	/* the register keeps its location */
	RULE_UNDEF,	/* not recoverable */
	RULE_CFA,	/* saved at CFA + off */
	RULE_VAL_CFA,	/* is CFA + off */
	RULE_REG,	/* is in register reg */
	RULE_EXPR,	/* a DWARF expression (ops), the CFA pushed first */
};

struct reg_rule {
	u8 kind;
	u8 reg;
	u16 nops;
	u32 ops;	/* index into the dso's op pool */
	s64 off;
};

enum cfa_kind { CFA_NONE, CFA_REG, CFA_EXPR };

enum rule_found { RULE_NONE, RULE_FOUND, RULE_BAD };

struct frame_rule {
	u8 found;	/* RULE_NONE: no FDE covers the pc (E_NOINFO); RULE_BAD: unusable */
	u8 ra;		/* the return address column */
	bool signal;	/* the CIE's 'S': a signal frame (the next lookup uses the exact pc) */
	u8 cfa_kind;
	u8 cfa_reg;
	u16 cfa_nops;
	u32 cfa_ops;
	s64 cfa_off;
	struct reg_rule regs[NR_REGS];
};

/* Rules come from an arena: as many as the distinct pcs unwinding meets. */
#define RULES_PER_BLOCK 256
struct rule_block {
	struct rule_block *next;
	size_t used;
	struct frame_rule rules[RULES_PER_BLOCK];
};

/* ---- a dso's data file, as perf's dso__data_get_fd finds it ---- */

struct unwind_dso {
	struct dso *dso;
	int fd;
	Elf *elf;
	const u8 *image;	/* the whole file (elf_rawfile), or NULL: no data file */
	size_t size;
	bool elf64;	/* perf's dso__type: DSO__TYPE_64BIT */
	bool is_exec;	/* ET_EXEC */
	/* .eh_frame_hdr as perf's read_unwind_spec_eh_frame reads it */
	bool has_hdr;
	u64 hdr_addr, hdr_offset;
	u64 elf_base;	/* the first PT_LOAD's p_vaddr, page aligned */
	u64 table_off;	/* the search table's offset in the header */
	u64 fde_count;
	Dwarf_CFI *cfi;	/* .eh_frame, through libdw */
	bool debug_tried;
	Dwarf *dwarf;
	Dwarf_CFI *debug_cfi;	/* .debug_frame */
	bool has_debug_frame;
	struct hashmap rules;	/* vaddr -> frame_rule (.eh_frame) */
	struct hashmap debug_rules;	/* vaddr -> frame_rule (.debug_frame) */
	Dwarf_Op *ops;	/* expressions the rules refer to */
	size_t nr_ops, ops_alloc;
};

struct unwinder {
	const struct perf_session *session;
	int max_stack;
	int arch;	/* -1 not read yet, 0 no unwinding, 1 x86 (64-bit dsos), 2 no ARCH: any */
	struct hashmap dsos;	/* struct dso * -> struct unwind_dso */
	struct rule_block *blocks;
	u64 *chain;	/* the answer: nr, entries */
	size_t chain_alloc;
	u64 *ips;	/* the unwound ips, max_stack of them */
	size_t user_at;	/* chain[1 + user_at]: the first unwound ip */
	const char *error;
};

/* ---- one sample's unwinding: perf's struct unwind_info and libunwind's cursor ---- */

enum loc_kind { LOC_NULL, LOC_REG, LOC_MEM, LOC_VAL };

struct loc {
	u8 kind;
	u64 v;	/* LOC_REG: a DWARF register (the sampled one); LOC_MEM: an address */
};

struct cursor {
	struct unwinder *u;
	struct machine *machine;
	struct thread *thread;
	const u64 *regs;	/* the sampled user registers, in mask order */
	u64 regs_mask;
	const u8 *stack;
	u64 stack_size;	/* perf's user_stack.size: the dumped size (dyn_size) */
	u64 sp;		/* the sampled stack pointer: where the copy starts */
	bool sp_ok;
	/* libunwind's dwarf_cursor */
	struct loc loc[NR_REGS];
	u64 ip, cfa;
	bool use_prev_instr;
	u64 new_cfa;	/* DW_OP_call_frame_cfa in a register's rule: the CFA being set */
	bool from_signal;	/* the last step left a signal frame (libunwind's sigcontext_format) */
};

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;

static void elf_init_once(void)
{
	elf_version(EV_CURRENT);
}

/* perf_reg_value(): a sampled register by its PERF_REG_X86_* number. */
static int perf_reg(const struct cursor *c, unsigned int id, u64 *val)
{
	if (id >= 64 || !(c->regs_mask >> id & 1))
		return E_FAIL;
	*val = c->regs[__builtin_popcountll(c->regs_mask & ((1ull << id) - 1))];
	return 0;
}

static int sampled_reg(const struct cursor *c, u64 dwarf_reg, u64 *val)
{
	if (dwarf_reg >= NR_REGS)
		return E_FAIL;
	return perf_reg(c, perf_reg_of[dwarf_reg], val);
}

/* ---- dso data files ---- */

static bool regular_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* perf's dso__data_get_fd: the build-id cache's copy, else the file at its path (--symfs). */
static int data_file(const struct symsrc_config *cfg, const struct dso *dso, char *buf,
		     size_t size)
{
	if (dso->kind == DSO_KIND_KERNEL)
		return -1;
	if (dso->build_id_size && cfg->buildid_dir) {
		char hex[2 * sizeof(dso->build_id) + 1];

		for (size_t i = 0; i < dso->build_id_size && i < sizeof(dso->build_id); i++)
			sprintf(hex + 2 * i, "%02x", dso->build_id[i]);
		/* an old-style cache links the file itself, a new one its directory */
		snprintf(buf, size, "%s/.build-id/%.2s/%s", cfg->buildid_dir, hex, hex + 2);
		if (regular_file(buf))
			return 0;
		snprintf(buf, size, "%s/.build-id/%.2s/%s/%s", cfg->buildid_dir, hex, hex + 2,
			 dso->kind == DSO_KIND_VDSO ? "vdso" : "elf");
		if (regular_file(buf))
			return 0;
	}
	if (cfg->symfs && cfg->symfs[0])
		snprintf(buf, size, "%s/%s", cfg->symfs, dso->long_name);
	else
		snprintf(buf, size, "%s", dso->long_name);
	return regular_file(buf) ? 0 : -1;
}

/* A DW_EH_PE_* value as perf's __dw_read_encoded_value reads the header's: -1 if it cannot. */
static int read_encoded(const u8 **p, const u8 *end, u8 enc, u64 *val)
{
	const u8 *cur = *p;
	u64 v = 0;
	size_t n;

	if (enc == 0xff) {	/* omit */
		*val = 0;
		return 0;
	}
	if (enc == 0x00) {	/* absptr, pointer-sized */
		n = 8;
	} else {
		u8 appl = enc & 0x70, fmt = enc & 0x0f;

		/* pcrel adds the address of perf's copy of the header: only its size matters
		 * (the eh_frame pointer, skipped); other applications perf refuses */
		if (appl != 0x00 && appl != 0x10)
			return -1;
		if ((fmt & 0x07) == 0)
			fmt |= 0x03;
		switch (fmt) {
		case 0x03:	/* udata4 */
		case 0x0b:	/* sdata4 */
			n = 4;
			break;
		case 0x04:	/* udata8 */
		case 0x0c:	/* sdata8 */
			n = 8;
			break;
		default:
			return -1;
		}
		if (n == 4 && (size_t)(end - cur) >= 4) {
			u32 w;
			s32 sw;

			memcpy(&w, cur, 4);
			memcpy(&sw, cur, 4);
			v = fmt == 0x0b ? (u64)(s64)sw : w;
		}
	}
	if ((size_t)(end - cur) < n)
		return -1;
	if (n == 8)
		memcpy(&v, cur, 8);
	*p = cur + n;
	*val = v;
	return 0;
}

static void dso_read_hdr(struct unwind_dso *ud)
{
	GElf_Shdr shdr;
	GElf_Phdr phdr;
	size_t nphdr = 0;
	u8 hdr[20];	/* perf's struct eh_frame_hdr: 4 bytes, then room for two values */
	const u8 *p = hdr + 4, *end = hdr + sizeof(hdr);
	u64 skip;

	if (elf_getphdrnum(ud->elf, &nphdr))
		nphdr = 0;
	for (size_t i = 0; i < nphdr; i++) {
		if (gelf_getphdr(ud->elf, (int)i, &phdr) && phdr.p_type == PT_LOAD) {
			ud->elf_base = phdr.p_vaddr & ~(u64)(sysconf(_SC_PAGESIZE) - 1);
			break;
		}
	}
	if (!symtab_elf_section_by_name(ud->elf, NULL, &shdr, ".eh_frame_hdr", NULL) ||
	    !shdr.sh_offset)
		return;
	ud->hdr_addr = shdr.sh_addr;
	ud->hdr_offset = shdr.sh_offset;
	/* dso__data_read_offset of the whole struct: short near the end of the file fails */
	if (ud->hdr_offset > ud->size || ud->size - ud->hdr_offset < sizeof(hdr))
		return;
	memcpy(hdr, ud->image + ud->hdr_offset, sizeof(hdr));
	if (read_encoded(&p, end, hdr[1], &skip) || read_encoded(&p, end, hdr[2], &ud->fde_count))
		return;
	ud->table_off = (u64)(p - hdr);
	ud->has_hdr = true;
}

static struct unwind_dso *unwind_dso(struct unwinder *u, struct machine *m, struct dso *dso)
{
	struct unwind_dso *ud = hashmap_find(&u->dsos, (u64)(uintptr_t)dso);
	char path[PATH_BUF];
	GElf_Ehdr ehdr;
	size_t size;
	char *image;

	if (ud)
		return ud;
	ud = xzalloc(sizeof(*ud));
	ud->dso = dso;
	ud->fd = -1;
	hashmap_init(&ud->rules);
	hashmap_init(&ud->debug_rules);
	hashmap_insert(&u->dsos, (u64)(uintptr_t)dso, ud);
	if (data_file(&m->symsrc, dso, path, sizeof(path)))
		return ud;
	pthread_once(&elf_once, elf_init_once);
	ud->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ud->fd < 0)
		return ud;
	ud->elf = elf_begin(ud->fd, ELF_C_READ_MMAP, NULL);
	if (!ud->elf)
		return ud;
	image = elf_rawfile(ud->elf, &size);
	ud->image = (const u8 *)image;
	ud->size = image ? size : 0;
	if (elf_kind(ud->elf) != ELF_K_ELF || !gelf_getehdr(ud->elf, &ehdr))
		return ud;
	ud->elf64 = gelf_getclass(ud->elf) == ELFCLASS64;
	ud->is_exec = ehdr.e_type == ET_EXEC;
	if (!ud->elf64 || ehdr.e_machine != EM_X86_64)
		return ud;
	dso_read_hdr(ud);
	ud->cfi = dwarf_getcfi_elf(ud->elf);
	return ud;
}

static void unwind_dso_free(struct unwind_dso *ud)
{
	if (ud->dwarf)
		dwarf_end(ud->dwarf);	/* frees debug_cfi too */
	if (ud->cfi)
		dwarf_cfi_end(ud->cfi);
	if (ud->elf)
		elf_end(ud->elf);
	if (ud->fd >= 0)
		close(ud->fd);
	hashmap_exit(&ud->rules);
	hashmap_exit(&ud->debug_rules);
	free(ud->ops);
	free(ud);
}

/* ---- memory: perf's access_mem ---- */

/*
 * perf's access_dso_mem: the word at addr in the file of the map holding it. 0 with the
 * word; 1 when the file has no such bytes (perf returns 1 and libunwind, which checks for
 * negative values, takes the 0 it gets); -1 when no map holds addr.
 */
static int read_dso_word(struct cursor *c, u64 addr, u64 *val)
{
	struct map *map = c->thread->maps ? maps__find(c->thread->maps, addr) : NULL;
	struct unwind_dso *ud;
	u64 off;

	*val = 0;
	if (!map)
		return -1;
	ud = unwind_dso(c->u, c->machine, map->dso);
	off = map__map_ip(map, addr);
	if (!ud->image || off > ud->size || ud->size - off < 8)
		return 1;
	memcpy(val, ud->image + off, 8);
	return 0;
}

/*
 * perf's access_mem: the stack copy holds [sp, sp + size), but perf takes a word from it
 * only when it ends before the copy's last byte (its `addr + 8 >= end` test); anything
 * else comes from the files.
 */
static int read_word(struct cursor *c, u64 addr, u64 *val)
{
	if (!c->sp_ok)
		return E_FAIL;
	if (addr + 8 < addr)
		return E_FAIL;
	if (addr < c->sp || addr + 8 >= c->sp + c->stack_size)
		return read_dso_word(c, addr, val);
	memcpy(val, c->stack + (addr - c->sp), 8);
	return 0;
}

/* libunwind's dwarf_get */
static int loc_get(struct cursor *c, struct loc l, u64 *val)
{
	switch (l.kind) {
	case LOC_NULL:
		return E_FAIL;
	case LOC_REG:
		return sampled_reg(c, l.v, val);
	case LOC_VAL:
		*val = l.v;
		return 0;
	default:
		return read_word(c, l.v, val) < 0 ? E_FAIL : 0;
	}
}

/* libunwind's unw_get_reg for x86-64: the stack pointer is the CFA. */
static int reg_get(struct cursor *c, u64 reg, u64 *val)
{
	if (reg == REG_RSP) {
		*val = c->cfa;
		return 0;
	}
	if (reg >= NR_REGS)
		return E_FAIL;
	return loc_get(c, c->loc[reg], val);
}

/* ---- DWARF expressions (libunwind's dwarf_eval_expr) ---- */

#define EXPR_STACK 64

static int eval_expr(struct cursor *c, const Dwarf_Op *ops, size_t nops, struct loc *out)
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
			if (reg_get(c, atom - DW_OP_breg0, &a))
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
			if (reg_get(c, op->number, &a))
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
			if (read_word(c, st[sp - 1], &a) < 0)
				return E_FAIL;
			st[sp - 1] = a;
			break;
		case DW_OP_deref_size:
			NEED(1);
			if (op->number == 0 || op->number > 8 || read_word(c, st[sp - 1], &a) < 0)
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
static int find_rule(struct cursor *c, u64 ip, struct frame_rule **out, struct unwind_dso **udp)
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

/* ---- libunwind's steps ---- */

/* libunwind's apply_reg_state: 1, 0 at the end of the stack, or an error. */
static int apply_rule(struct cursor *c, const struct frame_rule *r, struct unwind_dso *ud)
{
	u64 prev_ip = c->ip, prev_cfa = c->cfa, cfa;
	struct loc new_loc[NR_REGS];
	int ret;

	if (r->cfa_kind == CFA_REG) {
		if (r->cfa_reg == REG_RSP && r->regs[REG_RSP].kind == RULE_SAME)
			cfa = c->cfa;
		else if (reg_get(c, r->cfa_reg, &cfa))
			return E_FAIL;
		cfa += (u64)r->cfa_off;
	} else if (r->cfa_kind == CFA_EXPR) {
		struct loc l;

		if (eval_expr(c, ud->ops + r->cfa_ops, r->cfa_nops, &l) || l.kind == LOC_REG)
			return E_FAIL;
		cfa = l.v;
	} else {
		return E_FAIL;
	}
	memcpy(new_loc, c->loc, sizeof(new_loc));
	for (int i = 0; i < NR_REGS; i++) {
		const struct reg_rule *rr = &r->regs[i];

		switch (rr->kind) {
		case RULE_UNDEF:
			new_loc[i].kind = LOC_NULL;
			break;
		case RULE_CFA:
			new_loc[i] = (struct loc){ LOC_MEM, cfa + (u64)rr->off };
			break;
		case RULE_VAL_CFA:
			new_loc[i] = (struct loc){ LOC_VAL, cfa + (u64)rr->off };
			break;
		case RULE_REG:
			new_loc[i] = new_loc[rr->reg];
			break;
		case RULE_EXPR:
			c->new_cfa = cfa;
			if (eval_expr(c, ud->ops + rr->ops, rr->nops, &new_loc[i]))
				return E_FAIL;
			break;
		default:
			break;
		}
	}
	memcpy(c->loc, new_loc, sizeof(new_loc));
	c->cfa = cfa;
	if (c->loc[r->ra].kind == LOC_NULL) {
		c->ip = 0;
		ret = 0;
	} else {
		if (loc_get(c, c->loc[r->ra], &c->ip))
			return E_FAIL;
		ret = 1;
	}
	if (c->ip == prev_ip && c->cfa == prev_cfa)
		return E_FAIL;	/* -UNW_EBADFRAME */
	return ret;
}

/* libunwind's is_plt_entry: `jmpq *x(%rip); pushq $n; jmpq` */
static bool is_plt_entry(struct cursor *c)
{
	u64 w0, w1;

	if (read_word(c, c->ip, &w0) < 0 || read_word(c, c->ip + 8, &w1) < 0)
		return false;
	return (w0 & 0xffff) == 0x25ff && ((w0 >> 48) & 0xff) == 0x68 && ((w1 >> 24) & 0xff) == 0xe9;
}

/*
 * libunwind x86-64's unw_step where no CFI covers the pc: a PLT entry, or the frame-pointer
 * chain (with its check that the previous pc was readable), or the end. (Its signal-frame
 * case never applies here: unw_is_signal_frame asks whether the step left a CIE marked 'S',
 * and without CFI it did not.)
 */
static int guess_frame(struct cursor *c)
{
	u64 prev_ip = c->ip, prev_cfa = c->cfa, rbp, not_used;
	int ret = 1;

	if (is_plt_entry(c)) {
		c->loc[REG_RIP] = (struct loc){ LOC_MEM, c->cfa };
		c->cfa += 8;
	} else if (c->loc[REG_RBP].kind == LOC_NULL) {
		for (int i = 0; i < NR_REGS; i++)
			c->loc[i].kind = LOC_NULL;
	} else {
		struct loc rbp_loc = { LOC_NULL, 0 }, rsp_loc = { LOC_NULL, 0 }, rip_loc = { LOC_NULL, 0 };
		bool fixed = false;
		int invalid_prev_rip;

		if (loc_get(c, c->loc[REG_RBP], &rbp))
			return E_FAIL;
		invalid_prev_rip = read_word(c, prev_ip, &not_used);
		if (rbp || invalid_prev_rip) {
			if (invalid_prev_rip) {
				u64 rsp = 0, new_ip;

				loc_get(c, c->loc[REG_RSP], &rsp);
				if (!read_word(c, rsp, &new_ip) && !read_word(c, new_ip, &not_used)) {
					fixed = true;
					c->cfa += 8;
					rbp_loc = (struct loc){ LOC_MEM, rbp };
					rsp_loc = (struct loc){ LOC_MEM, rsp };
					rip_loc = (struct loc){ LOC_MEM, rsp };
				}
			}
			if (!fixed) {
				u64 rbp1;

				rbp_loc = (struct loc){ LOC_MEM, rbp };
				rsp_loc.kind = LOC_NULL;
				rip_loc = (struct loc){ LOC_MEM, rbp + 8 };
				if (read_word(c, rbp, &rbp1) < 0 || rbp < c->cfa || rbp - c->cfa > 0x4000)
					rip_loc.kind = rbp_loc.kind = LOC_NULL;
				c->cfa += 16;
			}
		}
		for (int i = 0; i < NR_REGS; i++)
			c->loc[i].kind = LOC_NULL;
		c->loc[REG_RBP] = rbp_loc;
		c->loc[REG_RSP] = rsp_loc;
		c->loc[REG_RIP] = rip_loc;
		c->use_prev_instr = true;
	}
	if (c->loc[REG_RBP].kind == LOC_NULL)
		return 0;
	if (c->loc[REG_RIP].kind == LOC_NULL) {
		c->ip = 0;
		ret = 0;
	} else if (loc_get(c, c->loc[REG_RIP], &c->ip)) {
		return E_FAIL;
	}
	if (c->ip == prev_ip && c->cfa == prev_cfa)
		return E_FAIL;
	return ret;	/* 1 even for a pc of 0 read from the stack, as libunwind */
}

/* libunwind x86-64's unw_step: > 0 with the caller's frame, 0 at the end, < 0 failed. */
static int step(struct cursor *c)
{
	struct frame_rule *r = NULL;
	struct unwind_dso *ud = NULL;
	int ret = find_rule(c, c->ip - c->use_prev_instr, &r, &ud);

	c->from_signal = false;
	if (ret == E_NOINFO)
		return guess_frame(c);
	if (ret < 0)
		return ret;
	c->from_signal = r->signal;
	ret = apply_rule(c, r, ud);
	if (ret < 0)
		return ret;
	c->use_prev_instr = !r->signal;
	/* the x86-64 ABI ends the chain with an undefined frame pointer */
	if (c->loc[REG_RBP].kind == LOC_NULL) {
		c->ip = 0;
		ret = 0;
	}
	return ret;
}

/* ---- the unwinder ---- */

struct unwinder *unwinder__new(const struct perf_session *session, int max_stack)
{
	struct unwinder *u = xzalloc(sizeof(*u));

	u->session = session;
	u->max_stack = max_stack;
	u->arch = -1;
	hashmap_init(&u->dsos);
	u->ips = xcalloc(max_stack > 0 ? (size_t)max_stack : 1, sizeof(*u->ips));
	return u;
}

void unwinder__delete(struct unwinder *u)
{
	u64 key;
	void *val;

	if (!u)
		return;
	for (size_t i = 0; hashmap_next(&u->dsos, &i, &key, &val);)
		unwind_dso_free(val);
	hashmap_exit(&u->dsos);
	while (u->blocks) {
		struct rule_block *next = u->blocks->next;

		free(u->blocks);
		u->blocks = next;
	}
	free(u->chain);
	free(u->ips);
	free(u);
}

size_t unwind__user_at(const struct unwinder *u)
{
	return u->user_at;
}

const char *unwind__strerror(const struct unwinder *u)
{
	return u->error ? u->error : "";
}

/*
 * perf's unwind__prepare_access, as it stands for the maps when the sample comes: perf
 * unwinds a process only once one of its maps' files was a 64-bit ELF (dso__type; x86
 * recordings), or always when the recording names no architecture. The ARCH feature: a
 * u32 length (either byte order), then the string.
 */
static int arch_rule(struct unwinder *u)
{
	size_t size;
	const u8 *feat;
	char arch[64];
	size_t n;

	if (u->arch >= 0)
		return u->arch;
	feat = perf_session__feat(u->session, HEADER_ARCH, &size);
	if (!feat || size <= 4) {
		/* a pipe's features may still come: ask again next time */
		return u->session->is_pipe ? 2 : (u->arch = 2);
	}
	n = strnlen((const char *)feat + 4, MIN(size - 4, sizeof(arch) - 1));
	memcpy(arch, feat + 4, n);
	arch[n] = '\0';
	/* perf_env__arch: x86_64, i386, i686 ... are "x86" */
	u->arch = !strcmp(arch, "x86_64") || !strcmp(arch, "x86") ||
		  (arch[0] == 'i' && !strcmp(arch + 2, "86"));
	return u->arch;
}

struct ready_search {
	struct unwinder *u;
	struct machine *machine;
};

static int map_is_elf64(struct map *map, void *data)
{
	struct ready_search *s = data;

	return unwind_dso(s->u, s->machine, map->dso)->elf64;
}

static bool process_unwinds(struct unwinder *u, struct machine *m, struct thread *t)
{
	struct ready_search s = { u, m };
	int arch = arch_rule(u);

	if (!t->maps || !arch)
		return false;
	return arch == 2 || maps__for_each_map(t->maps, map_is_elf64, &s);
}

static u64 *chain_room(struct unwinder *u, size_t n)
{
	ARRAY_GROW(u->chain, u->chain_alloc, n);
	return u->chain;
}

/*
 * The sample's own chain as thread__resolve_callchain_sample walks it (callee first): at most
 * max_stack addresses; an unknown context marker empties perf's cursor. Appended at *n.
 */
static void copy_sample_chain(struct unwinder *u, const u64 *chain, size_t *n)
{
	size_t start = *n;
	u64 nr = chain[0], frames = 0;
	u8 mode = PERF_RECORD_MISC_USER;

	for (u64 i = 0; i < nr && frames < (u64)u->max_stack; i++) {
		u64 ip = chain[1 + i];

		if (ip >= (u64)PERF_CONTEXT_MAX) {
			if (!machine__callchain_context(ip, &mode)) {
				*n = start;
				return;
			}
		} else {
			frames++;
		}
		chain_room(u, *n + 1)[*n] = ip;
		(*n)++;
	}
}

/* perf's get_entries: the sampled ip, then one per unw_step, each but the first minus 1. */
static int unwind_user(struct unwinder *u, struct cursor *c, int *nr_ips)
{
	int i = 0, ret;

	if (perf_reg(c, PERF_REG_IP, &u->ips[i++])) {
		u->error = "the sampled user registers have no instruction pointer";
		return -1;
	}
	if (u->max_stack > 1) {
		for (int r = 0; r < NR_REGS; r++)
			c->loc[r] = (struct loc){ LOC_REG, (u64)r };
		/* unw_init_remote reads the ip and the stack pointer */
		if (loc_get(c, c->loc[REG_RIP], &c->ip) || sampled_reg(c, REG_RSP, &c->cfa)) {
			u->error = "the sampled user registers have no stack pointer";
			return -1;
		}
		c->use_prev_instr = false;
		while ((ret = step(c)) > 0 && i < u->max_stack) {
			/* libunwind's unw_is_signal_frame: the step left a signal frame, this pc
			 * is where the signal came, not a return address */
			u->ips[i] = c->ip;
			if (!c->from_signal)
				u->ips[i]--;
			i++;
		}
	}
	*nr_ips = i;
	return 0;
}

const u64 *unwind__callchain(struct unwinder *u, struct machine *m, struct thread *t,
			     const struct perf_sample *sample)
{
	struct cursor c;
	size_t n = 1;
	int nr_ips = 0;

	u->error = NULL;
	/* perf's thread__resolve_callchain_unwind: nothing captured, nothing to unwind */
	if (!sample->callchain || !sample->user_regs.regs || !sample->user_stack.size ||
	    !sample->user_stack.dyn_size || !process_unwinds(u, m, t))
		return sample->callchain;
	/* (a frame-pointer sample does not pay for clearing the cursor's 800 bytes) */
	c = (struct cursor){ .u = u, .machine = m, .thread = t };
	if (u->max_stack <= 0) {
		u->error = "no room for frames (max-stack)";
		return NULL;
	}
	c.regs = sample->user_regs.regs;
	c.regs_mask = sample->user_regs.mask;
	c.stack = sample->user_stack.data;
	c.stack_size = sample->user_stack.dyn_size;
	c.sp_ok = !perf_reg(&c, perf_reg_of[REG_RSP], &c.sp);
	if (unwind_user(u, &c, &nr_ips))
		return NULL;
	copy_sample_chain(u, sample->callchain, &n);
	chain_room(u, n + 1 + (size_t)nr_ips)[n] = (u64)PERF_CONTEXT_USER;
	n++;
	u->user_at = n - 1;
	for (int i = 0; i < nr_ips; i++)
		if (u->ips[i])	/* perf skips a 0 */
			u->chain[n++] = u->ips[i];
	u->chain[0] = n - 1;
	return u->chain;
}
