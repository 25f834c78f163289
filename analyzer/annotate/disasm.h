/*
 * disasm: x86-64 instructions as objdump 2.40 prints them (`objdump -d --no-show-raw-insn`,
 * AT&T syntax), decoded by capstone and spelled by objdump's rules: suffixes only where no
 * register gives the size, hexadecimal immediates and displacements, `0x0(...)` for an
 * encoded zero displacement, the scale always, `TARGET <sym+off>` for branches and
 * `# ADDR <sym+off>` after RIP-relative operands (labels.h names them). One handle a
 * thread.
 */
#ifndef ANALYZER_ANNOTATE_DISASM_H
#define ANALYZER_ANNOTATE_DISASM_H

#include <stddef.h>

#include "lib/compiler.h"

struct disasm;
struct labels;

/* NULL when capstone cannot be loaded. */
struct disasm *disasm__new(void);
void disasm__delete(struct disasm *d);

/*
 * The instruction at addr, whose bytes are code[0..len): its text into buf (mnemonic padded
 * to objdump's column, operands, target and comment) and its length; "(bad)" and 1 where
 * capstone decodes nothing. sec: the ELF section the code is in (labels prefer it).
 */
size_t disasm__insn(struct disasm *d, const u8 *code, size_t len, u64 addr,
		    const struct labels *labels, u32 sec, char *buf, size_t size);

#endif
