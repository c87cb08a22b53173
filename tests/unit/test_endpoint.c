/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The endpoint's shared-memory object (nicd/ep_shm.h) and keys
 * (nicd/keyfile.h): the layout (regions aligned, disjoint, inside the
 * object), the object's seals (a memfd nobody can resize, with no name in
 * /dev/shm), the checks libsegnet makes before trusting a header, the
 * views both sides build, key files and the constant-time comparison.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nicd/ep_shm.h"
#include "nicd/keyfile.h"

/* A name no other test run uses. */
static void t_name(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "segnet-ut.%d.%s", (int)getpid(), what);
}

/* 0 when fd cannot be resized: both directions fail with EPERM. */
static int t_resize_refused(int fd, uint64_t size)
{
	if (ftruncate(fd, 0) == 0 || errno != EPERM)
		return 1;
	if (ftruncate(fd, (off_t)size * 2) == 0 || errno != EPERM)
		return 2;
	return 0;
}

/* True when [a, a+alen) and [b, b+blen) do not overlap. */
static bool t_disjoint(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a + alen <= b || b + blen <= a;
}

Test(endpoint, layout)
{
	static const uint32_t counts[][2] = { { 1, 1 }, { 64, 64 }, { 100, 3 }, { 4096, 4096 } };

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct ep_layout l;
		uint64_t r[6][2];

		cr_assert_eq(ep_layout_compute(counts[i][0], counts[i][1], &l), 0);
		cr_assert(spsc_size_ok(l.send_slots) && l.send_slots >= counts[i][0]);
		cr_assert(spsc_size_ok(l.recv_slots) && l.recv_slots >= counts[i][1]);
		r[0][0] = l.off_send_ring;
		r[0][1] = sizeof(struct spsc_ring) + l.send_slots * sizeof(struct ep_send_desc);
		r[1][0] = l.off_comp_ring;
		r[1][1] = sizeof(struct spsc_ring) + l.send_slots * sizeof(struct ep_comp);
		r[2][0] = l.off_recv_ring;
		r[2][1] = sizeof(struct spsc_ring) + l.recv_slots * sizeof(struct ep_recv_desc);
		r[3][0] = l.off_rret_ring;
		r[3][1] = sizeof(struct spsc_ring) + l.recv_slots * sizeof(struct ep_rret);
		r[4][0] = l.off_send_bufs;
		r[4][1] = (uint64_t)counts[i][0] * EP_BUF_SIZE;
		r[5][0] = l.off_recv_bufs;
		r[5][1] = (uint64_t)counts[i][1] * EP_BUF_SIZE;
		for (int a = 0; a < 6; a++) {
			cr_assert_geq(r[a][0], EP_PAGE, "region %d after the header page", a);
			cr_assert_eq(r[a][0] % SPSC_CACHE_LINE, 0, "region %d cache-line aligned", a);
			cr_assert_leq(r[a][0] + r[a][1], l.size, "region %d inside the object", a);
			for (int b = 0; b < a; b++)
				cr_assert(t_disjoint(r[a][0], r[a][1], r[b][0], r[b][1]),
					  "regions %d and %d overlap", a, b);
		}
		cr_assert_eq(l.off_send_bufs % EP_PAGE, 0);
		cr_assert_eq(l.size % EP_PAGE, 0);
	}
	cr_assert_eq(ep_layout_compute(0, 1, &(struct ep_layout){ 0 }), -EINVAL);
	cr_assert_eq(ep_layout_compute(1, EP_MAX_BUFS + 1, &(struct ep_layout){ 0 }), -EINVAL);
}

Test(endpoint, object_is_a_sealed_memfd)
{
	char name[64], path[96], link[160], want[160];
	struct ep_layout l;
	struct stat st;
	unsigned char *base, *app;
	ssize_t n;
	int fd;

	t_name(name, sizeof(name), "seal");
	cr_assert_eq(ep_layout_compute(8, 8, &l), 0);
	cr_assert_eq(ep_shm_create(name, &l, &fd, (void **)&base), 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq((uint64_t)st.st_size, l.size);
	/* F_SEAL_EXEC as well where the kernel has it (6.3 and later). */
	cr_assert_eq(fcntl(fd, F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
		     F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	cr_assert_eq(t_resize_refused(fd, l.size), 0, "resized: %s", strerror(errno));
	cr_assert_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), -1, "the seals are sealed");
	cr_assert_eq(errno, EPERM);
	cr_assert_eq((uint64_t)lseek(fd, 0, SEEK_END), l.size, "still its size");
	/* No name anybody could open: only /proc shows it, for inspection. */
	snprintf(path, sizeof(path), "/dev/shm/%s", name);
	cr_assert_eq(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	cr_assert_gt(n, 0);
	link[n] = '\0';
	snprintf(want, sizeof(want), "/memfd:%s (deleted)", name);
	cr_assert_str_eq(link, want);
	/* The application's mapping of the descriptor is the same memory. */
	app = ep_shm_map(fd, l.size);
	cr_assert_not_null(app);
	base[l.size - 1] = 0x5a;
	cr_assert_eq(app[l.size - 1], 0x5a);
	munmap(app, l.size);
	munmap(base, l.size);
	close(fd);
}

Test(endpoint, object_mapped_by_another_uid_through_its_descriptor)
{
	char name[64];
	struct ep_layout l;
	unsigned char *base;
	pid_t child;
	int fd, st;

	if (geteuid() != 0)
		cr_skip_test("another uid needs root");
	t_name(name, sizeof(name), "uid");
	cr_assert_eq(ep_layout_compute(4, 4, &l), 0);
	cr_assert_eq(ep_shm_create(name, &l, &fd, (void **)&base), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		unsigned char *m;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		m = ep_shm_map(fd, l.size);
		if (!m)
			_exit(11);	/* the descriptor is all it takes */
		m[EP_PAGE] = 0xa5;
		_exit(t_resize_refused(fd, l.size) ? 12 : 0);
	}
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed with %d",
		  WEXITSTATUS(st));
	cr_assert_eq(base[EP_PAGE], 0xa5, "the child's write is in our mapping");
	munmap(base, l.size);
	close(fd);
}

Test(endpoint, header_checks_and_views)
{
	struct ep_layout l, got;
	struct ep_view nv, av;
	struct ep_send_desc sd = { .buf = 3, .dst_node = 1, .chan = 1 }, sd2;
	struct ep_comp c = { .buf = 3, .status = 0 }, c2;
	void *base = aligned_alloc(EP_PAGE, 1 << 20);
	struct ep_shm_hdr *h = base;

	cr_assert_eq(ep_layout_compute(16, 32, &l), 0);
	cr_assert_leq(l.size, 1u << 20);
	ep_shm_format(base, &l, 0x1234, 7, 9);
	cr_assert_eq(ep_shm_check(base, l.size, &got), 0);
	cr_assert_eq(got.size, l.size);
	cr_assert_eq(h->ep, 7);
	cr_assert_eq(h->vnet, 9);
	cr_assert_eq(atomic_load(&h->state), EP_STATE_OPEN);
	cr_assert_eq(ep_shm_check(base, l.size - 1, &got), -EINVAL, "mapping too small");
	h->version++;
	cr_assert_eq(ep_shm_check(base, l.size, &got), -EPROTO, "other version");
	h->version--;
	h->off_recv_bufs += 64;
	cr_assert_eq(ep_shm_check(base, l.size, &got), -EINVAL, "offsets must match the counts");
	h->off_recv_bufs -= 64;
	/* nicd's views and the application's see the same rings, roles swapped. */
	ep_view_init(&nv, base, &l, true);
	ep_view_init(&av, base, &l, false);
	cr_assert(spsc_push(&av.send, &sd));
	cr_assert(spsc_pop(&nv.send, &sd2));
	cr_assert_eq(sd2.buf, 3);
	cr_assert(spsc_push(&nv.comp, &c));
	cr_assert(spsc_pop(&av.comp, &c2));
	cr_assert_eq(c2.buf, 3);
	cr_assert_eq(av.recv_bufs - av.send_bufs, 16 * EP_BUF_SIZE);
	free(base);
}

/* Write len bytes of data to a fresh file; its path in buf. */
static void t_keyfile(char *buf, size_t len, const char *what, const void *data, size_t n)
{
	FILE *f;

	snprintf(buf, len, "/tmp/segnet-ut-key.%d.%s", (int)getpid(), what);
	f = fopen(buf, "w");
	cr_assert_not_null(f);
	fwrite(data, 1, n, f);
	fclose(f);
}

Test(endpoint, key_files)
{
	uint8_t key[KEY_MAX], big[KEY_MAX + 1];
	char path[128], err[256];

	t_keyfile(path, sizeof(path), "nl", "secret\n", 7);
	cr_assert_eq(key_read_file(path, key, err, sizeof(err)), 6, "one newline is dropped");
	cr_assert_eq(memcmp(key, "secret", 6), 0);
	cr_assert_eq(key[6], 0, "zero-padded");
	unlink(path);
	t_keyfile(path, sizeof(path), "bin", "a\0b\n\n", 5);
	cr_assert_eq(key_read_file(path, key, err, sizeof(err)), 4, "only one newline");
	unlink(path);
	t_keyfile(path, sizeof(path), "empty", "\n", 1);
	cr_assert_eq(key_read_file(path, key, err, sizeof(err)), -ENODATA);
	cr_assert(strstr(err, path), "the message names the file: %s", err);
	unlink(path);
	memset(big, 'x', sizeof(big));
	t_keyfile(path, sizeof(path), "big", big, sizeof(big));
	cr_assert_eq(key_read_file(path, key, err, sizeof(err)), -E2BIG);
	unlink(path);
	t_keyfile(path, sizeof(path), "max", big, KEY_MAX);
	cr_assert_eq(key_read_file(path, key, err, sizeof(err)), KEY_MAX);
	unlink(path);
	cr_assert_eq(key_read_file("/nonexistent/segnet.key", key, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "/nonexistent/segnet.key"), "%s", err);
}

Test(endpoint, key_compare)
{
	uint8_t a[KEY_MAX] = "secret", b[KEY_MAX] = "secret", c[KEY_MAX] = "secreT";

	cr_assert(key_equal(a, 6, b, 6));
	cr_assert_not(key_equal(a, 6, c, 6));
	cr_assert_not(key_equal(a, 6, b, 5), "lengths differ");
	cr_assert_not(key_equal(a, 5, b, 6));
	b[63] = 1;
	cr_assert_not(key_equal(a, 6, b, 6), "the padding counts too");
}
