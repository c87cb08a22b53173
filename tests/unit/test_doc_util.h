/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helper of the tests that check a page of doc/ against the code (built
 * with doc_test_dep, which gives SEGNET_DOC_DIR).
 */
#ifndef SEGNET_TEST_DOC_UTIL_H
#define SEGNET_TEST_DOC_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first line of doc/page that starts with head (malloc'd), or NULL. */
static inline char *t_doc_line(const char *page, const char *head)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SEGNET_DOC_DIR, page);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: cannot open", path);
	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, head, strlen(head))) {
			fclose(f);
			return line;
		}
	fclose(f);
	free(line);
	return NULL;
}

#endif
