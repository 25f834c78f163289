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

static void strip_to_name(char *s)
{
	size_t len;
	char *clone;
	long open, i;
	int angle = 0, paren = 0, brace = 0;
	long last_space = -1;

	/* " [clone .cold]" and friends go entirely. */
	while ((clone = strstr(s, " [clone ")) != NULL)
		*clone = '\0';
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
	for (i = 0; i < open; i++) {
		char c = s[i];

		if (c == '<')
			angle++;
		else if (c == '>')
			angle--;
		else if (c == '(')
			paren++;
		else if (c == ')')
			paren--;
		else if (c == '{')
			brace++;
		else if (c == '}')
			brace--;
		else if (c == ' ' && !angle && !paren && !brace)
			last_space = i;
	}
	if (last_space > 0 && strncmp(s + last_space + 1, "operator", 8) &&
	    !(last_space >= 8 && !strncmp(s + last_space - 8, "operator", 8)))
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
