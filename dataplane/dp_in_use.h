/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Before the EAL starts: is what these EAL arguments would take held by a
 * running process? Another primary process on the same --file-prefix (the
 * EAL's config lock), or a server socket another process listens on (a
 * memif server's socket=, a vhost-user server's iface=), or a file at such
 * a socket's path that no process listens on (a socket file left by a
 * process killed before it removed it). The EAL and the drivers would fail
 * on those with messages that point elsewhere ("Invalid argument", "its
 * driver did not create the device", a queue set-up's "Operation not
 * permitted", memif's "Address already in use"); this says what is in the
 * way, and by whom.
 */
#ifndef SEGNET_DP_IN_USE_H
#define SEGNET_DP_IN_USE_H

#include <stddef.h>

/*
 * Check the EAL arguments argv[1 .. argc-1]: 0 when nothing they name is
 * in the way, else -EADDRINUSE (held by a running process) or -EEXIST (a
 * file left at a server socket's path) with a message in err (a condition
 * at run time, not a bad argument).
 */
int dp_in_use_check(int argc, char **argv, char *err, size_t errlen);

#endif
