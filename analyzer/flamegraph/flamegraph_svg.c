/*
 * flamegraph_svg: writes a flame graph tree as a self-contained SVG (see flamegraph_svg.h).
 * Geometry as flamegraph.pl's: 16-pixel rows, 12-pixel text at 0.59 of its size a character,
 * 10 pixels of margin left and right, the title above and the details line below. Nothing
 * in the output comes from outside the file: no fonts, styles or scripts are fetched.
 */
#include "analyzer/flamegraph/flamegraph_svg.h"

#include <errno.h>
#include <string.h>

#define FRAME_HEIGHT 16
#define FONT_SIZE 12
#define FONT_WIDTH 0.59	/* of the font size: an average character's width */
#define XPAD 10
#define YPAD_TOP (FONT_SIZE * 3)	/* the title and the buttons */
#define YPAD_BOTTOM (FONT_SIZE * 2 + 10)	/* the details line */
#define SEARCH_COLOR "rgb(230,0,230)"

/*
 * The script: reads the frames' geometry from the document once (data-s: the frame's first
 * sample, data-n: its samples, counted from the root's left edge), then zooms, searches and
 * shows details by changing attributes and classes.
 */
static const char script[] =
	"\"use strict\";\n"
	"var XPAD = 10, FONT_SIZE = 12, FONT_WIDTH = 0.59, SEARCH_COLOR = \"" SEARCH_COLOR "\";\n"
	"var svg, width, total, frames = [], details, matched, searchbtn, unzoombtn;\n"
	"\n"
	"function init(evt) {\n"
	"\tsvg = document.documentElement;\n"
	"\twidth = parseFloat(svg.getAttribute(\"width\"));\n"
	"\ttotal = parseFloat(svg.getAttribute(\"data-total\"));\n"
	"\tdetails = document.getElementById(\"details\");\n"
	"\tmatched = document.getElementById(\"matched\");\n"
	"\tsearchbtn = document.getElementById(\"search\");\n"
	"\tunzoombtn = document.getElementById(\"unzoom\");\n"
	"\tvar gs = document.getElementById(\"frames\").getElementsByTagName(\"g\");\n"
	"\tfor (var i = 0; i < gs.length; i++) {\n"
	"\t\tvar g = gs[i], r = g.getElementsByTagName(\"rect\")[0];\n"
	"\t\tvar t = g.getElementsByTagName(\"text\")[0];\n"
	"\t\tvar info = g.getElementsByTagName(\"title\")[0].textContent;\n"
	"\t\tg.frame = frames.length;\n"
	"\t\tframes.push({ g: g, r: r, t: t, info: info,\n"
	"\t\t\tname: info.substring(0, info.lastIndexOf(\" (\")),\n"
	"\t\t\ts: parseFloat(g.getAttribute(\"data-s\")),\n"
	"\t\t\tn: parseFloat(g.getAttribute(\"data-n\")),\n"
	"\t\t\tx: r.getAttribute(\"x\"), w: r.getAttribute(\"width\"), tx: t.getAttribute(\"x\"),\n"
	"\t\t\ty: parseFloat(r.getAttribute(\"y\")), fill: r.getAttribute(\"fill\"),\n"
	"\t\t\tlabel: t.textContent });\n"
	"\t}\n"
	"\tsvg.addEventListener(\"mouseover\", function (e) {\n"
	"\t\tvar f = frame_of(e.target);\n"
	"\t\tif (f)\n"
	"\t\t\tdetails.textContent = \"Function: \" + f.info;\n"
	"\t});\n"
	"\tsvg.addEventListener(\"mouseout\", function (e) {\n"
	"\t\tif (frame_of(e.target))\n"
	"\t\t\tdetails.textContent = \" \";\n"
	"\t});\n"
	"\tsvg.addEventListener(\"click\", function (e) {\n"
	"\t\tvar f = frame_of(e.target);\n"
	"\t\tif (f)\n"
	"\t\t\tzoom(f);\n"
	"\t\telse if (e.target === unzoombtn)\n"
	"\t\t\tunzoom();\n"
	"\t\telse if (e.target === searchbtn)\n"
	"\t\t\tsearch_prompt();\n"
	"\t});\n"
	"\twindow.addEventListener(\"keydown\", function (e) {\n"
	"\t\tif (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
	"\t\t\te.preventDefault();\n"
	"\t\t\tsearch_prompt();\n"
	"\t\t} else if (e.keyCode === 27) {\n"
	"\t\t\treset_search();\n"
	"\t\t}\n"
	"\t});\n"
	"\tfrom_fragment();\n"
	"}\n"
	"\n"
	"function frame_of(el) {\n"
	"\tfor (; el && el !== svg; el = el.parentNode)\n"
	"\t\tif (el.frame !== undefined)\n"
	"\t\t\treturn frames[el.frame];\n"
	"\treturn null;\n"
	"}\n"
	"\n"
	"/* as the writer does: what fits of the name, \"..\" ending a cut one */\n"
	"function fit(name, w) {\n"
	"\tvar chars = Math.floor(w / (FONT_SIZE * FONT_WIDTH));\n"
	"\tif (chars < 3)\n"
	"\t\treturn \"\";\n"
	"\treturn name.length > chars ? name.substring(0, chars - 2) + \"..\" : name;\n"
	"}\n"
	"\n"
	"function place(f, x, w) {\n"
	"\tf.r.setAttribute(\"x\", x.toFixed(1));\n"
	"\tf.r.setAttribute(\"width\", w.toFixed(1));\n"
	"\tf.t.setAttribute(\"x\", (x + 3).toFixed(1));\n"
	"\tf.t.textContent = fit(f.name, w);\n"
	"}\n"
	"\n"
	"/* z fills the width; its callers, below it, are dimmed; everything else is hidden */\n"
	"function zoom(z) {\n"
	"\tvar scale = (width - 2 * XPAD) / z.n;\n"
	"\tfor (var i = 0; i < frames.length; i++) {\n"
	"\t\tvar f = frames[i], cl = f.g.classList;\n"
	"\t\tcl.remove(\"hide\", \"parent\");\n"
	"\t\tif (f.y > z.y && f.s <= z.s && f.s + f.n >= z.s + z.n) {\n"
	"\t\t\tcl.add(\"parent\");\n"
	"\t\t\tplace(f, XPAD, width - 2 * XPAD);\n"
	"\t\t} else if (f.y <= z.y && f.s >= z.s && f.s + f.n <= z.s + z.n) {\n"
	"\t\t\tplace(f, XPAD + (f.s - z.s) * scale, f.n * scale);\n"
	"\t\t} else {\n"
	"\t\t\tcl.add(\"hide\");\n"
	"\t\t}\n"
	"\t}\n"
	"\tunzoombtn.classList.remove(\"hide\");\n"
	"\tsvg.setAttribute(\"data-zoomed\", z.name);\n"
	"}\n"
	"\n"
	"function unzoom() {\n"
	"\tfor (var i = 0; i < frames.length; i++) {\n"
	"\t\tvar f = frames[i];\n"
	"\t\tf.g.classList.remove(\"hide\", \"parent\");\n"
	"\t\tf.r.setAttribute(\"x\", f.x);\n"
	"\t\tf.r.setAttribute(\"width\", f.w);\n"
	"\t\tf.t.setAttribute(\"x\", f.tx);\n"
	"\t\tf.t.textContent = f.label;\n"
	"\t}\n"
	"\tunzoombtn.classList.add(\"hide\");\n"
	"\tsvg.removeAttribute(\"data-zoomed\");\n"
	"}\n"
	"\n"
	"/* The frames whose name matches, highlighted; matched: the share of samples under them */\n"
	"function search(term) {\n"
	"\tvar re, hits = [], covered = 0, end = 0;\n"
	"\ttry {\n"
	"\t\tre = new RegExp(term);\n"
	"\t} catch (err) {\n"
	"\t\tmatched.textContent = \"Bad regular expression\";\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tfor (var i = 0; i < frames.length; i++) {\n"
	"\t\tvar f = frames[i];\n"
	"\t\tif (re.test(f.name)) {\n"
	"\t\t\tf.r.setAttribute(\"fill\", SEARCH_COLOR);\n"
	"\t\t\thits.push(f);\n"
	"\t\t} else {\n"
	"\t\t\tf.r.setAttribute(\"fill\", f.fill);\n"
	"\t\t}\n"
	"\t}\n"
	"\t/* a match inside another counts once */\n"
	"\thits.sort(function (a, b) { return a.s - b.s || b.n - a.n; });\n"
	"\tfor (var j = 0; j < hits.length; j++) {\n"
	"\t\tvar h = hits[j];\n"
	"\t\tif (h.s + h.n > end) {\n"
	"\t\t\tcovered += h.s + h.n - Math.max(h.s, end);\n"
	"\t\t\tend = h.s + h.n;\n"
	"\t\t}\n"
	"\t}\n"
	"\tsearchbtn.textContent = \"Reset Search\";\n"
	"\tsearchbtn.classList.add(\"show\");\n"
	"\tmatched.textContent = \"Matched: \" + (100 * covered / total).toFixed(2) + \"%\";\n"
	"\tsvg.setAttribute(\"data-matched\", String(covered));\n"
	"}\n"
	"\n"
	"function reset_search() {\n"
	"\tfor (var i = 0; i < frames.length; i++)\n"
	"\t\tframes[i].r.setAttribute(\"fill\", frames[i].fill);\n"
	"\tsearchbtn.textContent = \"Search\";\n"
	"\tsearchbtn.classList.remove(\"show\");\n"
	"\tmatched.textContent = \" \";\n"
	"\tsvg.removeAttribute(\"data-matched\");\n"
	"}\n"
	"\n"
	"function search_prompt() {\n"
	"\tif (svg.hasAttribute(\"data-matched\")) {\n"
	"\t\treset_search();\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tvar term = prompt(\"Search for (regular expression):\", \"\");\n"
	"\tif (term)\n"
	"\t\tsearch(term);\n"
	"}\n"
	"\n"
	"/* #zoom=NAME (the widest frame of that name) and #search=REGEX, in the order given */\n"
	"function from_fragment() {\n"
	"\tvar parts = location.hash.substring(1).split(\"&\");\n"
	"\tfor (var i = 0; i < parts.length; i++) {\n"
	"\t\tvar eq = parts[i].indexOf(\"=\"), key, value, best = null;\n"
	"\t\tif (eq < 0)\n"
	"\t\t\tcontinue;\n"
	"\t\tkey = parts[i].substring(0, eq);\n"
	"\t\ttry {\n"
	"\t\t\tvalue = decodeURIComponent(parts[i].substring(eq + 1));\n"
	"\t\t} catch (err) {\n"
	"\t\t\tcontinue;\n"
	"\t\t}\n"
	"\t\tif (key === \"search\" && value) {\n"
	"\t\t\tsearch(value);\n"
	"\t\t} else if (key === \"zoom\") {\n"
	"\t\t\tfor (var j = 0; j < frames.length; j++)\n"
	"\t\t\t\tif (frames[j].name === value && (!best || frames[j].n > best.n))\n"
	"\t\t\t\t\tbest = frames[j];\n"
	"\t\t\tif (best)\n"
	"\t\t\t\tzoom(best);\n"
	"\t\t}\n"
	"\t}\n"
	"}\n";

static const char style[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	"#title { text-anchor: middle; font-size: 17px; }\n"
	"#search, #unzoom { cursor: pointer; }\n"
	"#search { opacity: 0.1; }\n"
	"#search:hover, #search.show { opacity: 1; }\n"
	".f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
	".hide { display: none; }\n"
	".parent { opacity: 0.5; }\n";

/*
 * The length of the well-formed UTF-8 sequence XML allows at s (1 to 4), or 0: a stray or
 * overlong byte, a surrogate, U+FFFE/U+FFFF. Reads no further than a NUL.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
		    (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/* Characters of s as put_xml writes them: a bad byte is one ('?'). */
static size_t xml_chars(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
		size_t len = utf8_len(p);

		p += len ? len : 1;
	}
	return n;
}

/*
 * s as XML text or attribute value: at most limit characters of it (a longer s: limit - 2 and
 * ".."), control characters and bad UTF-8 as '?', & < > " ' escaped.
 */
static void put_xml(FILE *out, const char *s, size_t limit)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = xml_chars(s), keep = n > limit ? limit - 2 : n;

	for (size_t i = 0; i < keep; i++) {
		size_t len = utf8_len(p);

		if (!len || *p < 0x20) {
			putc('?', out);
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fwrite(p, 1, len, out);
		}
		p += len;
	}
	if (keep < n)
		fputs("..", out);
}

/* A count with thousands separators, as flamegraph.pl prints it: 1,234,567 */
static void put_count(FILE *out, u64 v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			putc(',', out);
		putc(digits[i], out);
	}
}

/*
 * flamegraph.pl's "hot" palette (red to yellow), the same colour for the same name:
 * red 205-254, green 0-229, blue 0-54 from three parts of the name's FNV-1a hash.
 */
static void put_color(FILE *out, const char *name)
{
	u64 h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	fprintf(out, "rgb(%u,%u,%u)", 205 + (unsigned)((h & 0xffff) * 50 >> 16),
		(unsigned)((h >> 16 & 0xffff) * 230 >> 16),
		(unsigned)((h >> 32 & 0xffff) * 55 >> 16));
}

struct layout {
	const struct flame_tree *tree;
	FILE *out;
	double per_sample;	/* pixels */
	double min_samples;	/* narrower frames are left out (flamegraph.pl's minwidth) */
	u64 total;
	u32 height;
	u32 max_depth;
};

/* The depth of the highest frame kept. */
static void measure(struct layout *l, u32 id, u32 depth)
{
	const struct flame_node *n = flame_tree__node(l->tree, id);

	if ((double)n->total < l->min_samples)
		return;
	if (depth > l->max_depth)
		l->max_depth = depth;
	for (u32 c = n->first_child; c != FLAME_NONE;) {
		measure(l, c, depth + 1);
		c = flame_tree__node(l->tree, c)->next_sibling;
	}
}

/* The frame of node id, starting start samples from the left, and those above it. */
static void draw(struct layout *l, u32 id, u32 depth, u64 start)
{
	const struct flame_node *n = flame_tree__node(l->tree, id);
	const char *name = flame_tree__name_str(l->tree, n->name);
	double x1 = XPAD + (double)start * l->per_sample;
	double x2 = XPAD + (double)(start + n->total) * l->per_sample;
	double y1 = l->height - YPAD_BOTTOM - (depth + 1) * FRAME_HEIGHT + 1;
	double y2 = l->height - YPAD_BOTTOM - depth * FRAME_HEIGHT;
	size_t chars = (size_t)((x2 - x1) / (FONT_SIZE * FONT_WIDTH));

	if ((double)n->total < l->min_samples)
		return;
	fprintf(l->out, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\"><title>",
		(unsigned long long)start, (unsigned long long)n->total);
	put_xml(l->out, name, (size_t)-1);
	fputs(" (", l->out);
	put_count(l->out, n->total);
	fprintf(l->out, " samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"", 100.0 * (double)n->total / (double)l->total, x1, y1,
		x2 - x1, y2 - y1);
	put_color(l->out, name);
	fprintf(l->out, "\" rx=\"2\" ry=\"2\"/><text x=\"%.1f\" y=\"%.1f\">", x1 + 3,
		3 + (y1 + y2) / 2);
	if (chars >= 3)
		put_xml(l->out, name, chars);
	fputs("</text></g>\n", l->out);
	for (u32 c = n->first_child; c != FLAME_NONE;) {
		const struct flame_node *child = flame_tree__node(l->tree, c);

		draw(l, c, depth + 1, start);
		start += child->total;
		c = child->next_sibling;
	}
}

int flame_svg__write(struct flame_tree *tree, const struct flame_svg_opts *opts, FILE *out)
{
	struct layout l = { .tree = tree, .out = out };
	unsigned int width = opts->width ? opts->width : FLAME_SVG_WIDTH;

	flame_tree__finish(tree);
	l.total = flame_tree__node(tree, FLAME_ROOT)->total;
	l.per_sample = l.total ? (double)(width - 2 * XPAD) / (double)l.total : 0;
	l.min_samples = l.total ? opts->minwidth / l.per_sample : 0;
	measure(&l, FLAME_ROOT, 0);
	l.height = (l.max_depth + 1) * FRAME_HEIGHT + YPAD_TOP + YPAD_BOTTOM;

	fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", out);
	fprintf(out, "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"onload=\"init(evt)\" data-total=\"%llu\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		width, l.height, width, l.height, (unsigned long long)l.total);
	fputs("<!-- Flame graph written by analyze flamegraph: click a frame to zoom, Search (or "
	      "Ctrl-F) for a regular expression; #zoom=NAME&search=REGEX in the URL on load. -->\n",
	      out);
	fputs("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" "
	      "offset=\"95%\"/></linearGradient></defs>\n", out);
	fprintf(out, "<style type=\"text/css\">\n%s</style>\n", style);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
		"fill=\"url(#background)\"/>\n", width, l.height);
	fprintf(out, "<text id=\"title\" x=\"%.1f\" y=\"%d\">", width / 2.0, FONT_SIZE * 2);
	put_xml(out, opts->title ? opts->title : "Flame Graph", (size_t)-1);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", XPAD,
		l.height - YPAD_BOTTOM / 2);
	fprintf(out, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n",
		XPAD, FONT_SIZE * 2);
	fprintf(out, "<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n", width - XPAD - 100,
		FONT_SIZE * 2);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n", width - XPAD - 100,
		l.height - YPAD_BOTTOM / 2);
	fputs("<g id=\"frames\">\n", out);
	if (l.total)
		draw(&l, FLAME_ROOT, 0, 0);
	fputs("</g>\n</svg>\n", out);
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
