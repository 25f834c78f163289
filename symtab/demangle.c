/*
 * demangle: C++ and Rust names as perf 6.1 on Debian prints them. That perf demangles with
 * libiberty's cplus_demangle(name, DMGL_NO_OPTS), whose automatic style tries Rust (legacy
 * names lose their hash) and then the C++ ABI's, without parameters or return types. The same
 * two libiberty calls here, linked statically (Debian's libiberty-dev ships only the archive).
 * Thread safe: both allocate what they return and keep no state.
 */
#include <libiberty/demangle.h>
#include <string.h>

#include "symtab/demangle.h"

/*
 * The C++ demangler keeps its work on the stack, about 72 bytes for each byte of the name:
 * a longer name (from a broken or hostile file; real ones stay under a few KB) stays mangled
 * rather than overflow a thread's stack.
 */
#define DEMANGLE_MAX_LEN (32u << 10)

char *symbol_demangle(const char *name)
{
	char *out;

	/* the mangled names both styles know start "_Z", "_R" or "_GLOBAL_" */
	if (name[0] != '_' || strnlen(name, DEMANGLE_MAX_LEN + 1) > DEMANGLE_MAX_LEN)
		return NULL;
	out = rust_demangle(name, DMGL_AUTO);
	return out ? out : cplus_demangle_v3(name, DMGL_AUTO);
}
