/*
 * unwind: perf 6.1's dwarf unwinding of a sample's user stack, as Debian's perf does it:
 * util/unwind-libunwind-local.c driving libunwind's unw_step (x86-64: dwarf_step, and its
 * frame-chain guesses where no CFI covers the pc), with the memory and registers perf gives
 * it. The CFI rows come from libdw (dwarf_getcfi_elf / dwarf_getcfi, dwarf_cfi_addrframe);
 * which FDE perf's lookup through .eh_frame_hdr finds, and whether it can read it at all
 * through the recorded maps, is worked out here as perf and libunwind do it.
 * Runs on the thread that keeps the model; never changes it. The rules and DWARF
 * expressions: unwind_cfi.c; here the dso files, memory, registers, steps and the unwinder.
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

#include "lib/containers/hashmap.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "machine/unwind_internal.h"
#include "readers/decode/sample.h"
#include "readers/session.h"
#include "symtab/symtab_elf.h"

#define PATH_BUF 4096

/* perf's x86 PERF_REG_X86_*: each DWARF register's bit in sample_regs_user */
static const u8 perf_reg_of[NR_REGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
#define PERF_REG_IP 8

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

struct unwind_dso *unwind_dso(struct unwinder *u, struct machine *m, struct dso *dso)
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
int unwind_read_word(struct cursor *c, u64 addr, u64 *val)
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
		return unwind_read_word(c, l.v, val) < 0 ? E_FAIL : 0;
	}
}

/* libunwind's unw_get_reg for x86-64: the stack pointer is the CFA. */
int unwind_reg_get(struct cursor *c, u64 reg, u64 *val)
{
	if (reg == REG_RSP) {
		*val = c->cfa;
		return 0;
	}
	if (reg >= NR_REGS)
		return E_FAIL;
	return loc_get(c, c->loc[reg], val);
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
		else if (unwind_reg_get(c, r->cfa_reg, &cfa))
			return E_FAIL;
		cfa += (u64)r->cfa_off;
	} else if (r->cfa_kind == CFA_EXPR) {
		struct loc l;

		if (unwind_eval_expr(c, ud->ops + r->cfa_ops, r->cfa_nops, &l) || l.kind == LOC_REG)
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
			if (unwind_eval_expr(c, ud->ops + rr->ops, rr->nops, &new_loc[i]))
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

	if (unwind_read_word(c, c->ip, &w0) < 0 || unwind_read_word(c, c->ip + 8, &w1) < 0)
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
		invalid_prev_rip = unwind_read_word(c, prev_ip, &not_used);
		if (rbp || invalid_prev_rip) {
			if (invalid_prev_rip) {
				u64 rsp = 0, new_ip;

				loc_get(c, c->loc[REG_RSP], &rsp);
				if (!unwind_read_word(c, rsp, &new_ip) &&
				    !unwind_read_word(c, new_ip, &not_used)) {
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
				if (unwind_read_word(c, rbp, &rbp1) < 0 || rbp < c->cfa ||
				    rbp - c->cfa > 0x4000)
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
	int ret = unwind_find_rule(c, c->ip - c->use_prev_instr, &r, &ud);

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
