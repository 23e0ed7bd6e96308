// SPDX-License-Identifier: GPL-2.0
/*
 * flame.c - a self-contained flame-graph SVG of the call tree: one box per
 * frame, width proportional to its samples, callers below callees; each box
 * carries a <title> (the browser's hover text) with the frame, its object,
 * its samples and its share of all samples. No script, no external file.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "report_out.h"
#include "strpool.h"

#define SVG_WIDTH	1200.0
#define SVG_PAD		10.0
#define FRAME_H		16.0
#define HEADER_H	40.0
#define CHAR_W		7.0	/* average glyph width at 12px monospace */
#define MIN_WIDTH	0.1	/* narrower frames are left out */

struct svg {
	FILE *fp;
	uint64_t all;
	double scale;		/* pixels per sample */
	double height;
};

static void xml_text(FILE *fp, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], fp);
		}
	}
}

static int tree_depth(const struct cg_node *node)
{
	int d = 0;

	for (const struct cg_node *c = node->children; c; c = c->next) {
		int cd = tree_depth(c);

		if (cd > d)
			d = cd;
	}
	return d + 1;
}

/* flamegraph.pl's "hot" palette, picked by the name so colors are stable. */
static void frame_color(const char *name, unsigned int *r, unsigned int *g, unsigned int *b)
{
	size_t h = str_hash(name);

	*r = 205 + (unsigned int)(h % 50);
	*g = (unsigned int)((h >> 8) % 230);
	*b = (unsigned int)((h >> 16) % 55);
}

static void draw(struct svg *s, const struct cg_node *node, double x, int depth)
{
	double w = (double)node->total * s->scale;
	double y = s->height - SVG_PAD - (depth + 1) * FRAME_H;
	const char *name = node->sym ? node->sym : "?";
	unsigned int r, g, b;
	size_t fit;

	if (w < MIN_WIDTH)
		return;
	frame_color(name, &r, &g, &b);
	fputs("<g><title>", s->fp);
	xml_text(s->fp, name, SIZE_MAX);
	if (node->dso) {
		fputs(" [", s->fp);
		xml_text(s->fp, node->dso, SIZE_MAX);
		fputc(']', s->fp);
	}
	fprintf(s->fp, " (%" PRIu64 " sample%s, %.2f%%)</title>", node->total,
		node->total == 1 ? "" : "s", pct(node->total, s->all));
	fprintf(s->fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>", x, y, w, FRAME_H - 1, r, g, b);
	fit = w > 6 ? (size_t)((w - 6) / CHAR_W) : 0;
	if (fit >= 3) {
		fprintf(s->fp, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + 11.5);
		if (strlen(name) <= fit) {
			xml_text(s->fp, name, SIZE_MAX);
		} else {
			xml_text(s->fp, name, fit - 2);
			fputs("..", s->fp);
		}
		fputs("</text>", s->fp);
	}
	fputs("</g>\n", s->fp);
	for (const struct cg_node *c = node->children; c; c = c->next) {
		draw(s, c, x, depth + 1);
		x += (double)c->total * s->scale;
	}
}

void report_svg(FILE *fp, const struct profile *prof, const char *title)
{
	struct cg_node all = { .sym = "all", .total = prof->root.total,
			       .children = prof->root.children };
	struct svg s = { .fp = fp, .all = prof->root.total };
	int depth = tree_depth(&all);

	s.scale = s.all ? (SVG_WIDTH - 2 * SVG_PAD) / (double)s.all : 0;
	s.height = HEADER_H + depth * FRAME_H + 2 * SVG_PAD;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n", fp);
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		SVG_WIDTH, s.height, SVG_WIDTH, s.height);
	fputs("<style>text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	      "g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      ".head { font-size: 17px; }</style>\n", fp);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f0\"/>\n",
		SVG_WIDTH, s.height);
	fprintf(fp, "<text class=\"head\" x=\"%.1f\" y=\"24\" text-anchor=\"middle\">",
		SVG_WIDTH / 2);
	xml_text(fp, title ? title : "Flame Graph", SIZE_MAX);
	fprintf(fp, " (%" PRIu64 " samples)</text>\n", s.all);
	if (s.all)
		draw(&s, &all, SVG_PAD, 0);
	fputs("</svg>\n", fp);
}
