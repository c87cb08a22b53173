/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switchd's warning about missed slot boundaries: the decision, from the
 * fabric's counters at the start and the end of a window, whether it
 * missed too many boundaries and what the warning says. No EAL, no clock:
 * the counters are made up.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "switchd/swd.h"

enum {
	T_SLOT_NS = 345280,	/* the lab's slot (--bulk-gbps 0.05) */
	T_WINDOW_NS = 1000000000,
};

/* A window of one second from 10 s: `slots` arbitrated, `skipped` missed. */
static void t_window(struct swd_slot_counts *a, struct swd_slot_counts *b,
		     uint64_t slots, uint64_t skipped)
{
	*a = (struct swd_slot_counts){ .t_ns = 10ull * T_WINDOW_NS, .slots = 5000, .skipped = 40 };
	*b = (struct swd_slot_counts){ .t_ns = a->t_ns + T_WINDOW_NS,
				       .slots = a->slots + slots, .skipped = a->skipped + skipped };
}

/* The verdict on that window, with back-off on; the warning in msg. */
static bool t_warns(uint64_t slots, uint64_t skipped, char *msg, size_t len)
{
	struct swd_slot_counts a, b;

	t_window(&a, &b, slots, skipped);
	msg[0] = '\0';
	return swd_slots_missed_warning(&a, &b, T_SLOT_NS, true, msg, len);
}

Test(swd_report, a_window_over_the_threshold_warns_with_share_window_slot_and_remedies)
{
	char msg[SWD_MISSED_MSG_LEN];

	/* 300 of 3000 boundaries due: 10 % */
	cr_assert(t_warns(2700, 300, msg, sizeof(msg)));
	cr_expect(strstr(msg, "missed 10.0% of the slot boundaries due in 1.0 s (300 of 3000, slots of 345280 ns)"),
		  "%s", msg);
	cr_expect(strstr(msg, "a core of its own and busy poll there (--idle-after-us 0"), "%s", msg);
	/* the whole of it: the remedies come last */
	cr_expect(strstr(msg, "or use a lower --bulk-gbps (longer slots)"), "%s", msg);
}

Test(swd_report, the_threshold_is_a_share_strictly_over_it)
{
	char msg[SWD_MISSED_MSG_LEN];
	/* SWD_MISSED_WARN_PCT % of 4000 due, and one more */
	uint64_t at = 4000 * SWD_MISSED_WARN_PCT / 100;

	cr_assert_geq(at, SWD_MISSED_WARN_MIN);
	cr_expect_not(t_warns(4000 - at, at, msg, sizeof(msg)), "%s", msg);
	cr_expect(t_warns(4000 - at - 1, at + 1, msg, sizeof(msg)));
	/* a lab's ordinary second: 0.3 % */
	cr_expect_not(t_warns(2890, 9, msg, sizeof(msg)), "%s", msg);
}

Test(swd_report, few_missed_boundaries_do_not_warn_however_large_their_share)
{
	char msg[SWD_MISSED_MSG_LEN];

	/* idle nodes: few boundaries due (keepalives), a hiccup misses some */
	cr_expect_not(t_warns(100, SWD_MISSED_WARN_MIN - 1, msg, sizeof(msg)), "%s", msg);
	cr_expect(t_warns(100, SWD_MISSED_WARN_MIN, msg, sizeof(msg)));
}

Test(swd_report, a_window_with_nothing_due_or_counters_that_went_back_does_not_warn)
{
	struct swd_slot_counts a, b;
	char msg[SWD_MISSED_MSG_LEN] = "";

	/* nobody up: nothing arbitrated, nothing missed */
	t_window(&a, &b, 0, 0);
	cr_expect_not(swd_slots_missed_warning(&a, &b, T_SLOT_NS, true, msg, sizeof(msg)));
	/* counters that went back (wrapped, or another fabric's) */
	t_window(&a, &b, 0, 1000);
	b.slots = a.slots - 1;
	cr_expect_not(swd_slots_missed_warning(&a, &b, T_SLOT_NS, true, msg, sizeof(msg)));
	t_window(&a, &b, 1000, 0);
	b.skipped = a.skipped - 1;
	cr_expect_not(swd_slots_missed_warning(&a, &b, T_SLOT_NS, true, msg, sizeof(msg)));
	/* a clock that went back */
	t_window(&a, &b, 1000, 1000);
	b.t_ns = a.t_ns - 1;
	cr_expect_not(swd_slots_missed_warning(&a, &b, T_SLOT_NS, true, msg, sizeof(msg)));
	cr_expect_str_empty(msg);
}

Test(swd_report, with_busy_polling_it_does_not_suggest_busy_polling)
{
	struct swd_slot_counts a, b;
	char msg[SWD_MISSED_MSG_LEN];

	t_window(&a, &b, 500, 500);
	cr_assert(swd_slots_missed_warning(&a, &b, 3453, false, msg, sizeof(msg)));
	cr_expect(strstr(msg, "missed 50.0% of the slot boundaries due in 1.0 s (500 of 1000, slots of 3453 ns)"),
		  "%s", msg);
	cr_expect_null(strstr(msg, "--idle-after-us"), "%s", msg);
	cr_expect(strstr(msg, "a core of its own"), "%s", msg);
	cr_expect(strstr(msg, "or use a lower --bulk-gbps (longer slots)"), "%s", msg);
}

/*
 * The watch over a run: a window each second from 5 s, each with 2900
 * boundaries due, 300 of them missed in those over the threshold (from
 * second 59 to 130). A warning at most once a minute, counted from the
 * one before: the first at 59 s, the next at 119 s with the 59 windows
 * left out between. (The limit's window once began with the watch: a
 * warning late in the first minute was followed by another as it ended,
 * 6 s later.)
 */
Test(swd_report, the_watch_warns_at_most_once_a_minute_from_its_first_warning)
{
	struct swd_slot_counts c = { .t_ns = 5ull * T_WINDOW_NS, .slots = 1000, .skipped = 0 };
	struct swd_slot_watch w;
	char msg[SWD_MISSED_MSG_LEN], last[SWD_MISSED_MSG_LEN] = "";
	uint64_t warned[4], n = 0;

	swd_slot_watch_begin(&w, &c, true);
	for (uint64_t s = 6; s <= 130; s++) {
		uint64_t missed = s >= 59 ? 300 : 0;

		c.t_ns = s * T_WINDOW_NS;
		c.slots += 2900 - missed;
		c.skipped += missed;
		cr_assert_eq(w.next_ns, c.t_ns, "the window ends a second after the last");
		if (!swd_slot_watch_window(&w, &c, T_SLOT_NS, msg, sizeof(msg)))
			continue;
		cr_log_info("warning at %llu s: %s", (unsigned long long)s, msg);
		cr_assert_lt(n, 4);
		warned[n++] = s;
		memcpy(last, msg, sizeof(last));
	}
	cr_assert_eq(n, 2, "warnings: %llu", (unsigned long long)n);
	cr_expect_eq(warned[0], 59);
	cr_expect_eq(warned[1], 119);
	cr_expect(strstr(last, "missed 10.3% of the slot boundaries due in 1.0 s (300 of 2900"), "%s", last);
	cr_expect(strstr(last, "or use a lower --bulk-gbps (longer slots) (59 more windows of 1000 ms over 5% since the last warning)"),
		  "the whole of it: %s", last);
}
