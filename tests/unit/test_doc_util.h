/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helper of the tests that check a page of doc/ against the code (built
 * with doc_test_dep, which gives SEGNET_DOC_DIR).
 */
#ifndef SEGNET_TEST_DOC_UTIL_H
#define SEGNET_TEST_DOC_UTIL_H

#include <criterion/criterion.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether line is a Markdown heading of level 1 to level ("##": 2). */
static inline bool t_doc_heading(const char *line, size_t level)
{
	size_t n = strspn(line, "#");

	return n >= 1 && n <= level && line[n] == ' ';
}

/*
 * The first line of doc/page that starts with head (malloc'd), or NULL;
 * with a section, the first in that section: from the heading that starts
 * with it ("## The arbiters") to the next heading of its level or above.
 */
static inline char *t_doc_section_line(const char *page, const char *section, const char *head)
{
	size_t cap = 0, level = section ? strspn(section, "#") : 0;
	char path[512], *line = NULL;
	bool in = !section;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SEGNET_DOC_DIR, page);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: cannot open", path);
	while (getline(&line, &cap, f) > 0) {
		if (section && t_doc_heading(line, level))
			in = !strncmp(line, section, strlen(section));
		if (in && !strncmp(line, head, strlen(head))) {
			fclose(f);
			return line;
		}
	}
	fclose(f);
	free(line);
	return NULL;
}

/* The first line of doc/page that starts with head (malloc'd), or NULL. */
static inline char *t_doc_line(const char *page, const char *head)
{
	return t_doc_section_line(page, NULL, head);
}

/* Where in a man page (doc/man/page) to look for names set in bold. */
struct t_man_where {
	const char *sh;		/* the section (.SH line's title) */
	const char *ss;		/* its subsection (.SS title), or NULL: anywhere in sh */
	const char *entry;	/* only .TP entries whose tag line holds this, or NULL */
	bool tags_only;		/* only the tag lines of .TP entries (an entry of its own) */
};

/*
 * Append what line sets in bold to o: its arguments after a bold macro, \fB
 * spans; a hyphen written \- is written -.
 */
static inline void t_man_line_bold(FILE *o, const char *raw)
{
	static const char *const macros[] = { ".B ", ".BR ", ".RB ", ".BI ", ".IB " };
	char line[4096];
	size_t n = 0;

	for (const char *c = raw; *c && n < sizeof(line) - 1; c++)
		if (c[0] != '\\' || c[1] != '-')
			line[n++] = *c;
	line[n] = '\0';

	for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++)
		if (!strncmp(line, macros[i], strlen(macros[i])))
			fputs(line + strlen(macros[i]), o);
	for (const char *b = strstr(line, "\\fB"); b; b = strstr(b, "\\fB")) {
		const char *e = strstr(b += 3, "\\f");

		fprintf(o, "%.*s\n", (int)(e ? e - b : (long)strlen(b)), b);
	}
}

/* Whether a man page line starting with macro (".SH") has title (quotes aside). */
static inline bool t_man_heading(const char *line, const char *macro, const char *title)
{
	size_t m = strlen(macro), t = strlen(title);

	if (strncmp(line, macro, m) || line[m] != ' ')
		return false;
	line += m + 1 + (line[m + 1] == '"');
	return !strncmp(line, title, t) && (line[t] == '\n' || line[t] == '"' || !line[t]);
}

/* Set *text to what doc/man/page sets in bold at w, one span a line (malloc'd). */
static inline void t_man_bold(const char *page, const struct t_man_where *w, char **text)
{
	char path[512], *line = NULL;
	bool in_sh = false, in_ss = false, in_entry = false, tag = false, after_tp = false;
	size_t cap = 0, len = 0;
	FILE *f, *o = open_memstream(text, &len);

	cr_assert_not_null(o, "open_memstream: out of memory");
	snprintf(path, sizeof(path), "%s/man/%s", SEGNET_DOC_DIR, page);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: cannot open", path);
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, ".SH", 3)) {
			in_sh = t_man_heading(line, ".SH", w->sh);
			in_ss = !w->ss;
			in_entry = false;
		} else if (!strncmp(line, ".SS", 3)) {
			in_ss = !w->ss || t_man_heading(line, ".SS", w->ss);
			in_entry = false;
		} else if (!strncmp(line, ".PP", 3) || !strncmp(line, ".LP", 3) ||
			   !strncmp(line, ".P\n", 3)) {
			in_entry = false;
		}
		tag = after_tp;
		after_tp = !strncmp(line, ".TP", 3);
		if (tag)
			in_entry = !w->entry || strstr(line, w->entry);
		if (in_sh && in_ss && (tag || !w->tags_only) && (!w->entry || in_entry))
			t_man_line_bold(o, line);
	}
	fclose(f);
	fclose(o);
	free(line);
}

/* Whether c belongs to a word: a name (letters, digits, '_', '-') or a path ('/'). */
static inline bool t_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '/';
}

/* Whether name is a whole word of text (so "nodes" is not in "/segnet/switch/nodes"). */
static inline bool t_has_word(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		bool start = p == text || !t_word_char(p[-1]);
		bool end = !t_word_char(p[n]);

		if (start && end)
			return true;
	}
	return false;
}

#endif
