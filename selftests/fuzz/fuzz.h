/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - pmc-fuzz, the seeded /dev/pmc fuzzer: its random source, the
 * state shared by the worker processes and threads, and the op generators.
 *
 * One run: the master forks --procs workers (some as uid 65534); each runs
 * --threads threads; each thread draws --ops / (procs * threads) ops from
 * its own random stream (seed, worker, thread), so a run with one worker and
 * one thread replays exactly; with more, each thread's sequence is the same
 * and only the interleaving differs.
 */
#ifndef _PMC_FUZZ_H
#define _PMC_FUZZ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmc/hwpmc.h>

/* ---------------------------------------------------------------- random */

struct fz_rng {
	uint64_t s;
};

/* splitmix64: a full-period 64-bit stream per seed. */
static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0). */
static inline uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return (uint32_t)(((fz_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* True with probability pct/100. */
static inline bool fz_chance(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

/* The seed of stream @a.@b derived from the run's seed. */
uint64_t fz_derive(uint64_t seed, uint64_t a, uint64_t b);
/* A 64-bit value near a boundary (0, 1, 2^k +- 1, ~0, ...) or random. */
uint64_t fz_u64(struct fz_rng *r);
/* The same for 32 bits. */
uint32_t fz_u32(struct fz_rng *r);

/* ---------------------------------------------------------------- shared */

#define FZ_SHARED_IDS	256
#define FZ_SHARED_PIDS	64
#define FZ_MAX_PROCS	32
#define FZ_NOPS		48
#define FZ_NERRNO	140
#define FZ_MSG		4096

/* In a MAP_SHARED page set up by the master before forking. */
struct fz_shared {
	uint64_t seed;
	int verbose;
	int ncpu;		/* possible CPUs (GETCPUINFO pm_ncpu) */
	uint32_t nrows;		/* rows per CPU */
	uint32_t mincount;
	bool unpriv_sys;	/* uid 65534 may get system PMCs */
	int faults;		/* --faults: workers run with make-it-fail */
	_Atomic uint32_t ids[FZ_SHARED_IDS];	/* ids any worker allocated */
	_Atomic int pids[FZ_SHARED_PIDS];	/* workers, targets, reaped pids */
	_Atomic uint64_t ops;
	_Atomic uint64_t op_calls[FZ_NOPS];
	_Atomic uint64_t op_ok[FZ_NOPS];
	_Atomic uint64_t op_ns[FZ_NOPS];	/* time spent in each op */
	_Atomic uint64_t proc_ops[FZ_MAX_PROCS];	/* ops done by each worker */
	_Atomic uint64_t errnos[FZ_NERRNO];
	_Atomic uint64_t bad_pointers;		/* calls made with a bad pointer */
	_Atomic uint64_t forks, execs, kills, thread_exits, maps, logs;
	_Atomic uint64_t records;		/* ring records parsed */
	_Atomic int failures;
	_Atomic int stop;
	pthread_mutex_t msg_lock;		/* PTHREAD_PROCESS_SHARED */
	char msg[FZ_MSG];			/* the first failures, for the report */
	size_t msg_len;
};

extern struct fz_shared *fz_sh;

static inline bool fz_sh_unpriv_sys(void)
{
	return fz_sh->unpriv_sys;
}

/* A failure: counted, printed with the seed and kept for the summary. */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * With --faults, keep injected faults from making the kernel kill the
 * calling thread with SIGSEGV (fuzz_main.c): no rseq area, and a signal
 * stack of its own. Returns that stack (NULL without --faults, or when
 * none could be set up) for fz_fault_guard_off() at the thread's end.
 */
void *fz_fault_guard_on(void);
void fz_fault_guard_off(void *stack);

/* ---------------------------------------------------------------- workers */

#define FZ_NFD		4	/* /dev/pmc descriptors per worker */
#define FZ_NMAP		8	/* ring mappings per worker */
#define FZ_NSINK	8	/* log sinks per worker */
#define FZ_NCHILD	8	/* target children per worker */
#define FZ_NID		32	/* ids remembered per thread */

struct fz_map {
	void *addr;
	size_t len;
	bool ring;		/* offset 0, RW shared: a ring we may read */
	bool damaged;		/* partly unmapped: only munmap it */
	bool untrusted;		/* we wrote a bogus tail: resync first */
};

/* A log destination: its reading end, drained by the sink thread. */
struct fz_sink {
	int wfd;		/* given to CONFIGURELOG (closed after) */
	int rfd;		/* -1: a file, or the reader is gone */
	int kind;
	uint64_t stall_until;	/* ns: not drained before */
	uint64_t close_at;	/* ns: read end closed then (0: never) */
};

struct fz_child {
	pid_t pid;
	int go_fd;		/* write a byte: the child goes on */
};

/* Bogus ring tails remembered: a ring may keep one while others get theirs. */
#define FZ_NBOGUS	64

struct fz_proc {
	int index;
	bool unpriv;
	pid_t pid;
	_Atomic int fds[FZ_NFD];
	_Atomic unsigned int fd_gen[FZ_NFD];	/* bumped when fds[i] is reopened */
	pthread_rwlock_t map_lock;	/* maps[]: readers touch, writers unmap */
	struct fz_map maps[FZ_NMAP];
	pthread_mutex_t lock;		/* sinks[], children[], ring reads, bogus[] */
	uint64_t bogus[FZ_NBOGUS];	/* ring tails we wrote on purpose (never 0) */
	unsigned int nbogus;
	struct fz_sink sinks[FZ_NSINK];
	struct fz_child children[FZ_NCHILD];
	_Atomic int tids[16];		/* live fuzzing threads */
	_Atomic bool done;
	void *protnone;		/* an inaccessible page */
	size_t page;
};

struct fz_id {
	uint32_t id;
	int slot;		/* the descriptor (fds[]) it was allocated on */
	unsigned int gen;	/* fd_gen[slot] then: another gen, owner gone */
	bool live;
};

struct fz_thread {
	struct fz_rng rng;
	struct fz_proc *p;
	int index;
	uint64_t budget;
	struct fz_id ids[FZ_NID];
	unsigned int nids;
	int id_slot;		/* slot of the id the op picked, -1: none */
	int fd_slot;		/* slot fz_fd() gave last */
	pid_t tid;
};

/* The op table (fuzz_ops.c): runs one random op. */
void fz_op(struct fz_thread *t);
/* Name of op @i (statistics). */
const char *fz_op_name(unsigned int i);
unsigned int fz_nops(void);

/* Per-worker setup and teardown (fuzz_ops.c). */
int fz_proc_init(struct fz_proc *p);
/* Per-thread setup: the thread's buffers for bad placements. */
int fz_thread_init(struct fz_thread *t);
void fz_proc_fini(struct fz_proc *p);
/* The sink thread's work: drain, stall, close (fuzz_ops.c). */
void fz_sinks_service(struct fz_proc *p);
/* Reap exited children without blocking (fuzz_ops.c). */
void fz_children_reap(struct fz_proc *p, bool all);

uint64_t fz_now_ns(void);
pid_t fz_gettid(void);

#endif /* _PMC_FUZZ_H */
