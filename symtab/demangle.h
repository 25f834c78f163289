/* demangle: symbol names as perf 6.1 (libiberty, DMGL_NO_OPTS) shows them. */
#ifndef SYMTAB_DEMANGLE_H
#define SYMTAB_DEMANGLE_H

/* A malloc'ed demangled name, or NULL to keep the name as it is. */
char *symbol_demangle(const char *name);

#endif
