/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What fuzz_fabric and fuzz_nic share: reading the fuzz input as a sequence
 * of records, building a frame from a record (mostly with proto_encode, so
 * that it passes the CRC and reaches the state machines), EAL and pool
 * set-up, and the checks that end a run.
 *
 * An input is a harness header (see each harness) then records, which
 * fuzz_run carries out:
 *
 *   op      bits 0-1: node (fabric) or target (nic); bit 2: the bulk port
 *           (else the quick port); bits 3-5: the action (enum fuzz_action);
 *           bits 6-7: the time-advance scale (enum fuzz_scale)
 *   adv     time advance, in units of the scale
 *   body    a frame: the fields of fuzz_records.c's fuzz_frame_read (the
 *           sel byte (enum fuzz_sel_byte: type, flags bits 10 to 13, as
 *           given), flags bits 0-7, nodes, vnet, endpoints, handler, deltas
 *           of packet number (a WELCOME's: of a boot nonce, fuzz_ctx.nonce),
 *           ack base and slot, ack mask, payload length, the
 *           epoch byte (enum fuzz_epoch_byte: flags bits 8-9 and the epoch
 *           field, two more bytes when it is given as is), then the CFG, GNT
 *           or HELLO body), or a length and raw bytes; a pool byte (enum
 *           fuzz_pool_op); the harness's own fields; or nothing
 *
 * After the body the clock advances, and the component is polled if it
 * moved (or the action was FUZZ_A_NEXT).
 *
 * Reading past the end gives zeros, so every input is a valid one.
 * tests/fuzz/seeds.py writes records in this format.
 */
#ifndef SEGNET_FUZZ_RECORDS_H
#define SEGNET_FUZZ_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/* What a record does (op bits 3-5). */
enum fuzz_action {
	FUZZ_A_FRAME,		/* 0 .. 3: queue a frame built from the record */
	FUZZ_A_RAW = 4,		/* queue the record's bytes as a frame, as they are */
	FUZZ_A_OWN = 5,		/* the harness's own action (else a frame) */
	FUZZ_A_POOL = 6,	/* one byte: enum fuzz_pool_op */
	FUZZ_A_NEXT = 7,	/* poll at the time the component asked for */
};

/* The byte of a FUZZ_A_POOL record. */
enum fuzz_pool_op {
	FUZZ_POOL_RELEASE = 1 << 7,		/* give the held frames back */
	FUZZ_POOL_UNITS = (1 << 6) - 1,		/* else hold FUZZ_POOL_UNIT frames per unit */
	FUZZ_POOL_UNIT = 64,			/* enough units empty any pool here */
};

enum {
	/* The farthest a FUZZ_A_NEXT record moves the clock, in slots. */
	FUZZ_NEXT_MAX_SLOTS = 1024,
	/* Payload bytes per unit of a length byte (255 units pass the largest). */
	FUZZ_PAYLOAD_UNIT = 9,
};

/*
 * A frame record's first byte: its type, the four header flags neither the
 * flags byte nor the epoch byte holds, and whether the fields are used as
 * given (else fuzz_records.c's fuzz_plausible makes them so).
 */
enum fuzz_sel_byte {
	FUZZ_SEL_TYPE = 0x07,		/* bits 0-2: the type, modulo PROTO_T_MAX, plus 1 */
	FUZZ_SEL_DUP_SHIFT = 3,		/* bit 3: flags bit 13 (DUP) */
	FUZZ_SEL_REFUSED_SHIFT = 4,	/* bit 4: flags bit 12 (REFUSED) */
	FUZZ_SEL_WELCOME_SHIFT = 5,	/* bit 5: flags bit 11 (WELCOME) */
	FUZZ_SEL_RESTART_SHIFT = 6,	/* bit 6: flags bit 10 (RESTART) */
	FUZZ_SEL_AS_GIVEN = 0x80,	/* bit 7: the fields as given, not made plausible */
};

/*
 * A frame record's epoch byte: the header flags above the flags byte and
 * the 16-bit epoch field, drawn near the epoch the harness believes the
 * connection has, so that frames of the current epoch, of one just before
 * or after (a reset on one side), of the tie half the range away and DOWN
 * notices of each kind all come often.
 */
enum fuzz_epoch_byte {
	FUZZ_E_DELTA = 0x0F,	/* bits 0-3: signed delta, -8 .. 7, added to the base */
	FUZZ_E_KIND = 0x03,	/* a DOWN notice's epoch: its kind 0 .. 3 (3 is refused) */
	FUZZ_E_BASE_SHIFT = 4,	/* bits 4-5: enum fuzz_epoch_base */
	FUZZ_E_FLAGS_SHIFT = 6,	/* bits 6-7: flags bits 8-9 (NO_VNET, FRESH) */
};

/* What the delta of an epoch byte counts from (its bits 4-5). */
enum fuzz_epoch_base {
	FUZZ_E_CONN,		/* the connection's epoch (fuzz_ctx.epoch) */
	FUZZ_E_ZERO,		/* 0: an epoch never moved on, or a boot nonce */
	FUZZ_E_HALF,		/* the connection's + 32768: the tie node ids break */
	FUZZ_E_GIVEN,		/* the next two bytes (big endian) */
};

/* The connections fuzz_ctx.epoch knows: vnets 0 .. 3 from node ids 0 .. 5. */
enum {
	FUZZ_EPOCH_VNETS = 4,
	FUZZ_EPOCH_NODES = 6,
};

/* How far a record moves the clock (op bits 6-7), in slots of the component. */
enum fuzz_scale {
	FUZZ_S_NONE,		/* the same instant: frames arrive together */
	FUZZ_S_FINE,		/* adv / 64 slot */
	FUZZ_S_SLOTS,		/* adv / 4 slot */
	FUZZ_S_LONG,		/* adv * 4 slots: nodes go down, NICs rejoin */
};

/* The fuzz input still to read. */
struct fuzz_in {
	const uint8_t *p;	/* next byte */
	size_t left;		/* bytes after it */
};

/* One record's op byte, taken apart. */
struct fuzz_op {
	uint8_t who;		/* node or target */
	bool bulk;		/* the bulk port */
	uint8_t action;		/* enum fuzz_action (0 .. 3 are FUZZ_A_FRAME) */
	uint64_t advance_ns;	/* how far the clock moves */
};

/*
 * What a frame's relative fields count from: the receiver's view of
 * slots, packet numbers and cluster size.
 */
struct fuzz_ctx {
	uint16_t n_nodes;	/* cluster size (CFG vectors, GNT n_nodes) */
	uint32_t slot;		/* slot a BREQ, BACK, CFG or GNT names, +- delta */
	uint32_t slot_ns;	/* slot length a GNT carries when the record says 0 */
	uint32_t pkt_num;	/* data packet numbers are this +- delta */
	uint16_t nonce;		/* a WELCOME's packet number (the nonce it took) is this +- delta */
	uint32_t ack_base;	/* ack bases are this +- delta */
	/* The epoch of the connection from node n on vnet v, [v][n], as the
	 * harness believes it: the last its component sent to n (else 0). */
	uint16_t epoch[FUZZ_EPOCH_VNETS][FUZZ_EPOCH_NODES];
};

/* libFuzzer's entry points, which each harness defines. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The harness's name in messages; each harness defines it. */
extern const char *const fuzz_name;

/* What a harness gives fuzz_run; run is its own state. */
struct fuzz_harness {
	struct rte_mempool *mp;		/* the pool its frames come from */
	uint64_t slot_ns;		/* the time unit of the records */
	/* Build the component the header describes; false: skip the input. */
	bool (*start)(void *run, struct fuzz_in *in);
	/* Poll at now, free what was sent, check; returns when to run next. */
	uint64_t (*poll)(void *run, uint64_t now);
	/* The port a record's frame goes to. */
	struct dp_port *(*port)(void *run, const struct fuzz_op *op);
	/* What the relative fields of a frame record count from, at now. */
	struct fuzz_ctx (*ctx)(void *run, uint64_t now);
	/* FUZZ_A_OWN, or NULL (it is then a frame record). */
	void (*own)(void *run, struct fuzz_in *in, const struct fuzz_op *op,
		    uint64_t now);
	/* Free the component and its ports (after a failed start too). */
	void (*stop)(void *run);
};

/*
 * Run one input: start, carry out every record, poll once more, stop, and
 * abort if a frame is missing from the pool.
 */
void fuzz_run(const struct fuzz_harness *h, void *run, const uint8_t *data,
	      size_t size);

/* Print the counters of each run: SEGNET_FUZZ_COUNTERS is set (fuzz_pool). */
extern bool fuzz_print_counters;

/* The next byte, or 0 at the end. */
uint8_t fuzz_u8(struct fuzz_in *in);

/* The next two bytes, big endian. */
uint16_t fuzz_u16(struct fuzz_in *in);

/* Abort with the harness's name and the broken invariant when ok is false. */
void fuzz_check(bool ok, const char *what);

/*
 * Start the EAL (once per process) and make a pool of n frames called name;
 * aborts when either fails: nothing can be fuzzed without them. Reads
 * SEGNET_FUZZ_COUNTERS into fuzz_print_counters.
 */
struct rte_mempool *fuzz_pool(const char *name, unsigned int n);

/* A new array port of cap frames each way; aborts when out of memory. */
struct dp_port *fuzz_port(const char *name, unsigned int cap);

/*
 * Free every frame sent on port; with check, each must decode OK (CRC
 * included): a component sends only valid frames.
 */
void fuzz_drain(struct dp_port *port, bool check);

#endif
