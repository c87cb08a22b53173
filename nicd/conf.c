/* SPDX-License-Identifier: BSD-3-Clause */
/* The standard protocol configurations and their expansion into specs. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "stages/stages.h"

const struct conf_def conf_table[] = {
	{ "conf1", "",
	  "unreliable: no numbers, no acks, no retransmission" },
	{ "conf2", "build_acks,timer,genp",
	  "reliable, unordered, duplicates possible" },
	{ "conf3", "build_acks,dup_find,timer,genp",
	  "reliable, unordered, no duplicates" },
	{ "conf4-gbn", "build_acks,order:mode=gbn,dup_find,timer,genp:retx=gbn",
	  "reliable, ordered, no duplicates; go-back-N" },
	{ "conf4-sr", "build_acks,order:mode=sr,dup_find,timer,genp:retx=sr",
	  "reliable, ordered, no duplicates; selective repeat" },
	{ NULL, NULL, NULL },
};

/* True when known is name (len bytes, not NUL-terminated). */
static bool conf_name_is(const char *known, const char *name, size_t len)
{
	return strlen(known) == len && strncmp(known, name, len) == 0;
}

/* The configuration called name (len bytes), or NULL. */
static const struct conf_def *conf_find(const char *name, size_t len)
{
	for (const struct conf_def *c = conf_table; c->name; c++)
		if (conf_name_is(c->name, name, len))
			return c;
	return NULL;
}

/* True when name (len bytes) is a registered stage. */
static bool conf_is_stage(const char *name, size_t len)
{
	for (const struct stage_ops *const *o = stage_registry.ops; *o; o++)
		if (conf_name_is((*o)->name, name, len))
			return true;
	return false;
}

/* Append ":params" to stage's item in the list out, or add the stage on top. */
static int conf_override(char *out, size_t outlen, const char *stage,
			 const char *params, char *err, size_t errlen)
{
	size_t sl = strlen(stage);
	char *p = out;

	while (p && *p) {
		char *end = strchr(p, ',');
		size_t il = end ? (size_t)(end - p) : strlen(p);

		if ((il == sl || (il > sl && p[sl] == ':')) && strncmp(p, stage, sl) == 0) {
			size_t add = strlen(params) + 1, tail = strlen(p + il);

			if (strlen(out) + add >= outlen) {
				snprintf(err, errlen, "configuration too long");
				return -EINVAL;
			}
			memmove(p + il + add, p + il, tail + 1);
			p[il] = ':';
			memcpy(p + il + 1, params, add - 1);
			return 0;
		}
		p = end ? end + 1 : NULL;
	}
	/* A stage the configuration lacks is added at the top (e.g. rate). */
	if (strlen(out) + sl + strlen(params) + 3 >= outlen) {
		snprintf(err, errlen, "configuration too long");
		return -EINVAL;
	}
	{
		char *copy = strdup(out);

		if (!copy)
			return -ENOMEM;
		snprintf(out, outlen, "%s:%s%s%s", stage, params, *copy ? "," : "", copy);
		free(copy);
	}
	return 0;
}

int conf_expand(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *comma = strchr(in, ',');
	size_t nlen = comma ? (size_t)(comma - in) : strlen(in);
	const struct conf_def *c = conf_find(in, nlen);
	char *rest, *save = NULL, *item;
	int rc = 0;

	if (!c) {
		size_t slen = strcspn(in, ",:");

		if (*in && !conf_is_stage(in, slen)) {
			snprintf(err, errlen, "'%.*s' is neither a configuration (", (int)slen, in);
			for (const struct conf_def *d = conf_table; d->name; d++)
				snprintf(err + strlen(err), errlen - strlen(err), "%s%s",
					 d == conf_table ? "" : " ", d->name);
			snprintf(err + strlen(err), errlen - strlen(err), ") nor a stage (");
			for (const struct stage_ops *const *o = stage_registry.ops; *o; o++)
				snprintf(err + strlen(err), errlen - strlen(err), "%s%s",
					 o == stage_registry.ops ? "" : " ", (*o)->name);
			snprintf(err + strlen(err), errlen - strlen(err), ")");
			return -EINVAL;
		}
		if (strlen(in) >= outlen) {
			snprintf(err, errlen, "configuration too long");
			return -EINVAL;
		}
		strcpy(out, in);	/* a plain stage list */
		return 0;
	}
	if (strlen(c->spec) >= outlen) {
		snprintf(err, errlen, "configuration too long");
		return -EINVAL;
	}
	strcpy(out, c->spec);
	if (!comma)
		return 0;
	rest = strdup(comma + 1);
	if (!rest)
		return -ENOMEM;
	for (item = strtok_r(rest, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');

		if (!colon) {
			snprintf(err, errlen, "override '%s' must be stage:key=value", item);
			rc = -EINVAL;
			break;
		}
		*colon = '\0';
		rc = conf_override(out, outlen, item, colon + 1, err, errlen);
	}
	free(rest);
	return rc;
}
