/*
 * srcline: objdump -l's lines from libdw (see srcline.h). bfd's find_nearest_line gives the
 * innermost function containing the address (an inlined subroutine's name is its origin's)
 * and the line table's row for it; show_line prints the function when it changes and the
 * line when it or its discriminator changes, and after a new function always.
 */
#include "analyzer/annotate/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"

struct srcline {
	int fd;
	Dwarf *dbg;
	char *prev_func;
	int prev_line;
	unsigned int prev_disc;
	char func_buf[1024];
	char file_buf[4096];
};

struct srcline *srcline__new(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct srcline *s;
	Dwarf *dbg;

	if (fd < 0)
		return NULL;
	dbg = dwarf_begin(fd, DWARF_C_READ);
	if (!dbg) {
		close(fd);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->dbg = dbg;
	srcline__reset(s);
	return s;
}

void srcline__delete(struct srcline *s)
{
	if (!s)
		return;
	dwarf_end(s->dbg);
	close(s->fd);
	free(s->prev_func);
	free(s);
}

void srcline__reset(struct srcline *s)
{
	free(s->prev_func);
	s->prev_func = NULL;
	s->prev_line = -1;
	s->prev_disc = 0;
}

/* The name of the innermost function at addr in cu, or NULL. */
static const char *innermost_function(Dwarf_Die *cu, u64 addr)
{
	Dwarf_Die *scopes = NULL;
	const char *name = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);

	for (int i = 0; i < n && !name; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute attr;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		if (dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr))
			name = dwarf_formstring(&attr);
	}
	free(scopes);
	return name;
}

void srcline__at(struct srcline *s, u64 addr, const char **func, const char **file,
		 unsigned int *line, unsigned int *discriminator)
{
	Dwarf_Die cu;
	Dwarf_Line *row;
	const char *name = NULL, *src = NULL;
	int lineno = 0;
	unsigned int disc = 0;

	*func = NULL;
	*file = NULL;
	*line = 0;
	*discriminator = 0;
	if (!dwarf_addrdie(s->dbg, addr, &cu))
		return;
	name = innermost_function(&cu, addr);
	row = dwarf_getsrc_die(&cu, addr);
	if (row) {
		src = dwarf_linesrc(row, NULL, NULL);
		if (dwarf_lineno(row, &lineno))
			lineno = 0;
		if (dwarf_linediscriminator(row, &disc))
			disc = 0;
	}
	if (name && *name && (!s->prev_func || strcmp(name, s->prev_func))) {
		snprintf(s->func_buf, sizeof(s->func_buf), "%s()", name);
		*func = s->func_buf;
		s->prev_line = -1;
	}
	if (lineno > 0 && (lineno != s->prev_line || disc != s->prev_disc)) {
		*file = src ? src : "???";
		if (src && src[0] != '/') {	/* bfd joins it to the unit's directory */
			Dwarf_Attribute attr;
			const char *dir = dwarf_attr(&cu, DW_AT_comp_dir, &attr) ?
						  dwarf_formstring(&attr) : NULL;

			if (dir) {
				snprintf(s->file_buf, sizeof(s->file_buf), "%s/%s", dir, src);
				*file = s->file_buf;
			}
		}
		*line = (unsigned int)lineno;
		*discriminator = disc;
	}
	if (name && *name && (!s->prev_func || strcmp(name, s->prev_func))) {
		free(s->prev_func);
		s->prev_func = xstrdup(name);
	}
	if (lineno > 0)
		s->prev_line = lineno;
	s->prev_disc = disc;
}
