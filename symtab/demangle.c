/*
 * demangle: C++ names as perf 6.1 on Debian prints them. That perf demangles with libiberty's
 * cplus_demangle(name, DMGL_NO_OPTS): Rust legacy names lose their hash, C++ names lose
 * parameters, return types, cv-qualifiers and " [clone ...]" suffixes. We ask libstdc++'s
 * __cxa_demangle (loaded at run time: the build does not link libstdc++) for the full form
 * and cut it down to that. Thread safe.
 */
#include <ctype.h>
#include <stdbool.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "symtab/demangle.h"

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	if (h)
		cxa_demangle = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
}

/* Index of the '(' matching the ')' at close, or -1. */
static long match_open(const char *s, long close)
{
	int depth = 0;

	for (long i = close; i >= 0; i--) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return -1;
}

static bool strip_suffix(char *s, size_t *len, const char *suffix)
{
	size_t n = strlen(suffix);

	if (*len >= n && !memcmp(s + *len - n, suffix, n)) {
		*len -= n;
		s[*len] = '\0';
		return true;
	}
	return false;
}

/* Rust legacy: the last path element is "h" and 16 hex digits. */
static void strip_rust_hash(char *s)
{
	size_t len = strlen(s);

	if (len < 20 || memcmp(s + len - 19, "::h", 3))
		return;
	for (size_t i = len - 16; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return;
	s[len - 19] = '\0';
}

/* The operators' spellings after "operator", longest first within each prefix. */
static const char *const operator_tokens[] = {
	"new[]", "delete[]", "new", "delete", "co_await", "()", "[]", "->*", "->", "<=>", "<<=",
	">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=", "*=",
	"/=", "%=", "&=", "|=", "^=", "+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=",
	"<", ">", ",",
};

/*
 * At s + i, "operator" as a name of its own (not the tail of "my_operator"): the length of it
 * with its operator's spelling (and the space __cxa_demangle puts after a word or before
 * template arguments), so that a scan steps over brackets and spaces that are the name's.
 */
static size_t operator_len(const char *s, size_t i)
{
	size_t n = 8;

	if (strncmp(s + i, "operator", 8) ||
	    (i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')))
		return 0;
	if (s[i + n] == ' ')	/* "operator new", a conversion "operator int" */
		return n + 1;
	for (size_t k = 0; k < sizeof(operator_tokens) / sizeof(operator_tokens[0]); k++) {
		size_t len = strlen(operator_tokens[k]);

		if (!strncmp(s + i + n, operator_tokens[k], len)) {
			n += len;
			break;
		}
	}
	if (s[i + n] == ' ')	/* "operator<< <char>" */
		n++;
	return n;
}

/*
 * Special names: libiberty demangles a thunk's or a clone's target function with its
 * parameters (and return type) even without DMGL_PARAMS, and the others name a type or an
 * object, whose text may end in ')' ("typeinfo for decltype(nullptr)"): all come whole.
 */
static const char *const whole_targets[] = {
	"virtual thunk to ", "non-virtual thunk to ", "covariant return thunk to ",
	"hidden alias for ", "transaction clone for ", "non-transaction clone for ",
	"typeinfo for ", "typeinfo name for ", "typeinfo fn for ", "vtable for ", "VTT for ",
	"construction vtable for ", "guard variable for ", "TLS init function for ",
	"TLS wrapper function for ", "reference temporary #", "template parameter object for ",
};

static void strip_to_name(char *s)
{
	size_t len, i;
	char *clone;
	long open, last_space = -1;
	int depth = 0;

	/* " [clone .cold]" and friends go entirely. */
	while ((clone = strstr(s, " [clone ")) != NULL)
		*clone = '\0';
	/* a thunk's or a clone's target comes whole, as perf's demangler prints it */
	for (size_t k = 0; k < sizeof(whole_targets) / sizeof(whole_targets[0]); k++)
		if (!strncmp(s, whole_targets[k], strlen(whole_targets[k])))
			return;
	len = strlen(s);
	while (strip_suffix(s, &len, " const") || strip_suffix(s, &len, " volatile") ||
	       strip_suffix(s, &len, " &&") || strip_suffix(s, &len, " &") ||
	       strip_suffix(s, &len, " restrict"))
		;
	if (!len || s[len - 1] != ')')
		return;
	open = match_open(s, (long)len - 1);
	if (open <= 0)
		return;
	s[open] = '\0';
	/* A template function's return type comes first: drop it. */
	if (s[open - 1] != '>')
		return;
	for (i = 0; i < (size_t)open; i++) {
		size_t op = operator_len(s, i);
		char c = s[i];

		if (op) {
			i += op - 1;
		} else if (c == '<' || c == '(' || c == '{' || c == '[') {
			depth++;
		} else if (c == '>' || c == ')' || c == '}' || c == ']') {
			depth--;
		} else if (c == ' ' && !depth) {
			last_space = (long)i;
		}
	}
	if (last_space > 0)
		memmove(s, s + last_space + 1, strlen(s + last_space + 1) + 1);
}

char *symbol_demangle(const char *name)
{
	char *out;
	int status = 0;

	if (strncmp(name, "_Z", 2))
		return NULL;
	pthread_once(&cxa_once, cxa_load);
	if (!cxa_demangle)
		return NULL;
	out = cxa_demangle(name, NULL, NULL, &status);
	if (!out || status) {
		free(out);
		return NULL;
	}
	strip_rust_hash(out);
	strip_to_name(out);
	return out;
}
