/* The LP allocations of the Gavel policy family, solved with GLPK: time fractions x_ij of
 * each job i on each GPU type j. Knows nothing of the engine: numbers in, numbers out, so
 * the solvers can be tested and benchmarked on their own (tests/solve/test_lp_alloc.c,
 * bench/lp_bench.c).
 *
 * Every allocation obeys x_ij >= 0, sum_j x_ij <= 1 (a job runs at most all the time) and
 * sum_i sf_i * x_ij <= N_j (no type holds more gangs than it has GPUs). A job cannot run on a
 * type where its throughput is 0 or whose GPU count is below its gang (sf_i > N_j): its x_ij
 * is 0 there, and a job that can run nowhere gets all zeros and is left out of the objective.
 *
 * Determinism: the LPs are degenerate (many optimal x for one optimal value), and Gavel's
 * answers move with the solver. Here max-min is lexicographic: the fairness objective first;
 * then, with it held at its optimum (to a relative 1e-7), a second objective takes the
 * slack: the total normalised throughput sum_ij c_ij * x_ij (the c of the fairness rows),
 * which hands capacity the bottleneck jobs cannot use to jobs that can use it (a max-min
 * optimum may leave GPUs idle). Identical jobs (same gang, weight and throughputs; for plain
 * max-min, same usable types) are solved as one group, which is exact, and get the same
 * value; the group's time on each type is packed onto its jobs in job order, so that a job
 * spans few types instead of holding a slice of each (the even split where packing would
 * need more than all of a job's time). Finish-time fairness keeps the allocation of its last
 * feasible bisection step: a second objective there cost as much as the whole bisection, and
 * spare capacity is the round mechanism's to hand out. What is still tied is settled by
 * GLPK's simplex, deterministic for a given problem: rows and columns are built in job order
 * then type order and the starting basis is a fixed function of the input. Same input, same
 * output, bit for bit. */
#ifndef BERTH_POLICY_LP_ALLOC_H
#define BERTH_POLICY_LP_ALLOC_H

#include <stddef.h>

#include "berth/err.h"

/* Relative tolerance of the finish-time-fairness bisection: the max rho returned is within
 * this fraction of the optimum (and the allocation meets it). */
#define BERTH_LP_FTF_TOL 1e-4

struct berth__lp_problem {
    size_t n;            /* jobs */
    size_t m;            /* GPU types */
    const double *sf;    /* [n] scale factor: GPUs of the gang (> 0; fractions allowed) */
    const double *w;     /* [n] priority weights (> 0), NULL = all 1 */
    const double *tput;  /* [n*m] row-major: T_ij >= 0 work per second, 0 = cannot run */
    const double *ngpus; /* [m] N_j >= 0 GPUs of each type */
    /* finish-time fairness only: */
    const double *elapsed;   /* [n] seconds since the job arrived */
    const double *iso_time;  /* [n] isolated-equivalent seconds of the work already done */
    const double *remaining; /* [n] work left, in T's unit of work (>= 0) */
};

struct berth__lp_stats {
    double objective; /* max-min: the optimal min; ftf: the max rho reached */
    int solves;       /* feasibility checks: glp_simplex calls (ftf on one type: sums) */
    int iterations;   /* simplex iterations over all calls */
};

/* Max-min fairness. perf = 0 (Gavel's max_min_fairness, its "LAS"): maximise
 * min_i (sf_i / w_i) * sum_j x_ij, throughputs used only to say where a job can run.
 * perf = 1 (max_min_fairness_perf): maximise min_i sum_j T_ij * x_ij * sf_i / (w_i * P_i),
 * with P_i = sum_j T_ij * N_j / sum_k N_k, the job's throughput under an equal split of every
 * type. Writes x[n*m] (caller's array). Returns 0, BERTH_EINPUT for a malformed problem,
 * BERTH_ENOMEM, or BERTH_EINTERNAL when the solver fails; err says which. */
int berth__lp_max_min(const struct berth__lp_problem *p, int perf, double *x,
                      struct berth__lp_stats *st, struct berth_err *err);

/* Finish-time fairness (Themis, as Gavel's finish_time_fairness_perf): minimise max_i rho_i,
 *   rho_i = (elapsed_i + remaining_i / sum_j T_ij x_ij) / (iso_time_i + remaining_i / I_i),
 * I_i the isolated rate (berth__lp_iso_rates). Not an LP: for a fixed rho the constraint is
 * linear (sum_j T_ij x_ij >= remaining_i / (rho * D_i - elapsed_i)), so rho is bisected
 * between a lower bound (every job alone on its fastest type) and an upper bound met by the
 * isolated allocation, one warm-started dual-simplex feasibility check per step, until the
 * bracket is within BERTH_LP_FTF_TOL of rho; x is the allocation found at the bracket's
 * feasible end. With one GPU type a step needs no LP: rho is feasible exactly when the least
 * time each job needs, need_i / T_i, is at most 1 and the gangs fit (sum_i sf_i x_i <= N),
 * and x is that least time (the simplex would end at some vertex of the same feasible set). Jobs
 * with no work left or no rate get x = 0. Errors as above. */
int berth__lp_ftf(const struct berth__lp_problem *p, double *x, struct berth__lp_stats *st,
                  struct berth_err *err);

/* The same search with every step on GLPK's simplex, also on one type (where berth__lp_ftf
 * checks a step in closed form): the reference tests/solve/test_lp_alloc.c compares it with. */
int berth__lp_ftf_simplex(const struct berth__lp_problem *p, double *x, struct berth__lp_stats *st,
                          struct berth_err *err);

/* Isolated rates I_i: job i's throughput with a 1/n share of every type it can use,
 * x_ij = N_j / (n * sf_i), scaled down so that sum_j x_ij <= 1. rate[n], caller's array. */
void berth__lp_iso_rates(const struct berth__lp_problem *p, double *rate);

/* GLPK keeps an environment per thread, made by its first call there: a thread other than
 * main's that may have solved an LP (berthd's estimate thread) calls this before it exits. */
void berth__lp_thread_done(void);

#endif
