/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON output helpers. */
#include <stdint.h>

#include "dp_json.h"

/*
 * The length of the well-formed UTF-8 sequence at s (lead byte >= 0x80),
 * or 0: a stray or cut-short sequence, an overlong form, a surrogate, a
 * code point past U+10FFFF (RFC 3629).
 */
static int dp_utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
	uint32_t cp;

	if (!n || s[0] > 0xF4)
		return 0;
	cp = s[0] & (0x7Fu >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

void dp_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		int n;

		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else if ((n = dp_utf8_len(p))) {
			fwrite(p, 1, (size_t)n, f);
			p += n;
		} else {
			fputs("\\ufffd", f);	/* not UTF-8: the replacement character */
			p++;
		}
	}
	fputc('"', f);
}
