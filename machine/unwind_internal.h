/*
 * unwind_internal: what unwind.c (the dso files, the memory and registers perf gives
 * libunwind, its steps, the unwinder) and unwind_cfi.c (the CFI rules of a pc, DWARF
 * expressions) share. Not for use outside machine/.
 */
#ifndef MACHINE_UNWIND_INTERNAL_H
#define MACHINE_UNWIND_INTERNAL_H

#include <elfutils/libdw.h>
#include <stdbool.h>

#include "lib/compiler.h"
#include "lib/containers/hashmap.h"

struct dso;
struct machine;
struct perf_session;
struct thread;

#define NR_REGS 17	/* DWARF x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, 16: rip */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16

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

/* unwind.c: a dso's unwinding state (made on first use), a word of memory as perf's
 * access_mem reads it, a register as libunwind's unw_get_reg gives it */
struct unwind_dso *unwind_dso(struct unwinder *u, struct machine *m, struct dso *dso);
int unwind_read_word(struct cursor *c, u64 addr, u64 *val);
int unwind_reg_get(struct cursor *c, u64 reg, u64 *val);

/* unwind_cfi.c: a DWARF expression's location (libunwind's dwarf_eval_expr); the rules at
 * ip and their dso (perf's find_proc_info) */
int unwind_eval_expr(struct cursor *c, const Dwarf_Op *ops, size_t nops, struct loc *out);
int unwind_find_rule(struct cursor *c, u64 ip, struct frame_rule **out, struct unwind_dso **udp);

#endif
