/*
 * annotate_print: one symbol's annotation as perf annotate --stdio 6.1 prints it
 * (annotate.c symbol__annotate_printf): the header, then objdump's lines for the symbol's
 * range (labels, objdump -l's function lines, the instructions with their percentages).
 */
#ifndef ANALYZER_ANNOTATE_ANNOTATE_H
#define ANALYZER_ANNOTATE_ANNOTATE_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/compiler.h"

struct disasm;
struct dso;
struct inlines;

/* The code of one dso's file, mapped once, with what names its addresses. */
struct ann_file;

struct ann_file *ann_file__open(const char *path);
void ann_file__close(struct ann_file *f);

/* A symbol's samples by offset from its start. */
struct ann_hist {
	u64 *period;
	u32 *nr;
	u64 size;
	u64 total_period, total_nr;
};

enum ann_percent { PERCENT_LOCAL_PERIOD, PERCENT_GLOBAL_PERIOD, PERCENT_LOCAL_HITS,
		   PERCENT_GLOBAL_HITS };

struct ann_print_opts {
	bool show_nr_samples;	/* -n */
	bool show_total_period;	/* --show-total-period */
	bool full_path;		/* -P: the dso's path in the header */
	enum ann_percent percent_type;
	bool asm_raw;		/* --asm-raw: the instructions' bytes */
	bool print_line;	/* -l: the srclines over 0.5 % and their summary */
	struct inlines *inlines;	/* -l: where srclines come from */
	struct dso *dso;	/* the symbol's */
	u64 event_period;	/* the event's, what global-period divides by */
	char *prev_path;	/* -l: the last srcline printed (perf's static prev_line) */
};

/* perf's annotate_parse_percent_type: "local-period" and the like, either order; -1: bad */
int ann_percent__parse(const char *str);

/*
 * Print the annotation of the symbol [start, start + size) (in the dso's symbol address
 * space: file offsets) of file f, dso_name its short name, event the event's name.
 * -1 when the code is not in the file.
 */
int ann_print(FILE *out, struct ann_file *f, struct disasm *d, u64 start, const struct ann_hist *h,
	      const char *dso_name, const char *event, struct ann_print_opts *opts);

#endif
