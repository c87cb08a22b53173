/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asking a vhost-user server whether it answers, without waiting: a
 * connection of its own that sends VHOST_USER_GET_FEATURES (the first
 * request a virtio-user client sends) and looks for the reply later.
 * DPDK 22.11's virtio-user driver creates its device only by connecting
 * and reading its server's replies without a time-out; dp_ethdev creates
 * one again only once its server answered this, so a server that takes
 * connections and does not answer yet (one that has just started, or a
 * stopped one) never holds the caller. No DPDK in here.
 */
#ifndef SEGNET_DP_VHOST_PROBE_H
#define SEGNET_DP_VHOST_PROBE_H

/*
 * Connect to the vhost-user server at path without waiting and send it
 * VHOST_USER_GET_FEATURES: the connected socket (close it when done), or
 * -errno: -ENOENT or -ECONNREFUSED when no server listens there, -EAGAIN
 * when its backlog is full (it takes no connections), -ENAMETOOLONG, or
 * another socket error.
 */
int dp_vhost_probe_start(const char *path);

/*
 * Whether the server answered on fd (from dp_vhost_probe_start), waiting
 * up to wait_ms for it (0: only look): 1 a reply to the request, 0 not
 * yet, -ECONNRESET it closed the connection, -EPROTO it sent something
 * else, or another -errno. Call it again after 0 only.
 */
int dp_vhost_probe_answered(int fd, int wait_ms);

#endif
