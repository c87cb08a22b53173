/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mode table of segnet-replay. A mode is a struct replay_mode in a file
 * of its own and one line here.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pcap/replay/replay.h"

/* Frames mode (replay_frames_mode.c). */
extern const struct replay_mode replay_mode_frames;

/* Messages mode (replay_messages.c). */
extern const struct replay_mode replay_mode_messages;

/* Every mode, NULL-terminated. */
static const struct replay_mode *const replay_modes[] = {
	&replay_mode_frames,
	&replay_mode_messages,
	NULL,
};

const struct replay_mode *const *replay_mode_list(void)
{
	return replay_modes;
}

int replay_trace_ethernet(const struct trace *t, const char *what, char *err, size_t errlen)
{
	char lt[96];

	if (t->info.linktype == REPLAY_LINKTYPE_ETHERNET)
		return 0;
	snprintf(err, errlen, "link type %s is not Ethernet (%d): %s",
		 trace_linktype_str(t->info.linktype, lt, sizeof(lt)), REPLAY_LINKTYPE_ETHERNET,
		 what);
	return -EPROTONOSUPPORT;
}

const struct replay_mode *replay_mode_find(const char *name)
{
	for (const struct replay_mode *const *m = replay_modes; *m; m++)
		if (!strcmp((*m)->name, name))
			return *m;
	return NULL;
}
