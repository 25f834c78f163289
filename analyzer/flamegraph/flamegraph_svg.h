/*
 * flamegraph_svg: a flame graph tree (flamegraph_tree.h) as one self-contained interactive
 * SVG, laid out as flamegraph.pl lays out its graphs: a box per frame, as wide as its
 * samples, the root ("all") at the bottom, children left to right in name order; frames
 * narrower than minwidth pixels left out (with everything above them). Its embedded script
 * zooms on a click (Reset Zoom), searches by regular expression (matches highlighted, the
 * share of samples they cover shown) and shows a frame's details under the graph; a URL
 * fragment `#zoom=NAME&search=REGEX` does the same on load. Deterministic: the same tree
 * gives the same bytes (colours come from the names). Names may hold any byte: what is not
 * UTF-8 or is a control character becomes '?', and XML's special characters are escaped.
 */
#ifndef ANALYZER_FLAMEGRAPH_SVG_H
#define ANALYZER_FLAMEGRAPH_SVG_H

#include <stdio.h>

#include "analyzer/flamegraph/flamegraph_tree.h"

#define FLAME_SVG_WIDTH 1200	/* flamegraph.pl's defaults */
#define FLAME_SVG_MINWIDTH 0.1

struct flame_svg_opts {
	const char *title;	/* NULL: "Flame Graph" */
	unsigned int width;	/* of the image, pixels: 0 for FLAME_SVG_WIDTH */
	double minwidth;	/* pixels */
};

/*
 * Write the SVG of tree (finished here: flame_tree__finish) to out. Returns 0, or -1 on a
 * write error (errno set).
 */
int flame_svg__write(struct flame_tree *tree, const struct flame_svg_opts *opts, FILE *out);

#endif
