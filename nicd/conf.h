/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The standard protocol configurations. A configuration is a pipeline spec
 * (see dataplane/stage.h); these are the named ones a virtual network picks
 * from. A name may be followed by overrides of its stages' parameters:
 * "conf4-sr,timer:timeout_ns=30000,genp:window=16".
 */
#ifndef SEGNET_CONF_H
#define SEGNET_CONF_H

#include <stddef.h>

/* A named configuration. */
struct conf_def {
	const char *name;	/* "conf4-sr" */
	const char *spec;	/* its stages, top to bottom */
	const char *what;	/* one line: the guarantees it gives */
};

/* The standard configurations, NULL-terminated. */
extern const struct conf_def conf_table[];

/*
 * Turn a configuration name with optional overrides, or a plain stage list,
 * into a pipeline spec in out. 0, or -EINVAL with a message in err.
 */
int conf_expand(const char *in, char *out, size_t outlen, char *err, size_t errlen);

#endif
