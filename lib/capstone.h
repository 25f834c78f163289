/*
 * capstone: the disassembler library, loaded with dlopen when first needed: linked, its
 * relocated tables cost every command 3 MB of resident memory (analyze record true's whole
 * footprint, twice over). capstone_get() is thread safe; a handle is its user's.
 */
#ifndef LIB_CAPSTONE_H
#define LIB_CAPSTONE_H

#include <capstone/capstone.h>

struct capstone {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
	cs_err (*option)(csh handle, cs_opt_type type, size_t value);
	size_t (*disasm)(csh handle, const uint8_t *code, size_t size, uint64_t address,
			 size_t count, cs_insn **insn);
	void (*free)(cs_insn *insn, size_t count);
	cs_err (*close)(csh *handle);
	const char *(*reg_name)(csh handle, unsigned int reg_id);
	const char *(*insn_name)(csh handle, unsigned int insn_id);
};

/* The library's functions, or NULL when it cannot be loaded. */
const struct capstone *capstone_get(void);

#endif
