/* The Gavel-family LPs (policy/lp_alloc.c) against answers worked out by hand, plus their
 * determinism on degenerate problems and their answers to empty or malformed input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "solve/lp_alloc.h"
#include "util/rng.h"

#define TOL 1e-6

/* sum_j x_ij <= 1 and sum_i sf_i x_ij <= N_j, within tol. */
static void check_feasible(const struct berth__lp_problem *p, const double *x)
{
    for (size_t i = 0; i < p->n; i++) {
        double s = 0;
        for (size_t j = 0; j < p->m; j++) {
            CHECK(x[i * p->m + j] >= 0);
            s += x[i * p->m + j];
        }
        CHECK(s <= 1 + TOL);
    }
    for (size_t j = 0; j < p->m; j++) {
        double s = 0;
        for (size_t i = 0; i < p->n; i++)
            s += p->sf[i] * x[i * p->m + j];
        CHECK(s <= p->ngpus[j] + TOL);
    }
}

/* A finish-time-fairness problem (weights all 1). */
static struct berth__lp_problem ftf_problem(size_t n, size_t m, const double *sf, const double *t,
                                            const double *ng, const double *el, const double *iso,
                                            const double *rem)
{
    struct berth__lp_problem p = {.n = n, .m = m, .sf = sf, .tput = t, .ngpus = ng};
    p.elapsed = el;
    p.iso_time = iso;
    p.remaining = rem;
    return p;
}

/* Two 1-GPU jobs on one GPU: half each. */
static void max_min_two_jobs_one_gpu(void)
{
    double sf[] = {1, 1}, t[] = {1, 1}, n[] = {1}, x[2];
    struct berth__lp_problem p = {.n = 2, .m = 1, .sf = sf, .tput = t, .ngpus = n};
    struct berth__lp_stats st;
    struct berth_err err = {0};
    CHECK_I64(berth__lp_max_min(&p, 0, x, &st, &err), 0);
    CHECK_DBL(x[0], 0.5, TOL);
    CHECK_DBL(x[1], 0.5, TOL);
    CHECK_DBL(st.objective, 0.5, TOL);
    CHECK(st.solves >= 2);
}

/* Gangs of 1 and 2 GPUs on 2 GPUs: max min(x0, 2 x1) with x0 + 2 x1 <= 2 gives x0 = 1 and
 * x1 = 1/2 (each holds one GPU's worth of time); the min is 1. */
static void max_min_gang_sizes(void)
{
    double sf[] = {1, 2}, t[] = {1, 1}, n[] = {2}, x[2];
    struct berth__lp_problem p = {.n = 2, .m = 1, .sf = sf, .tput = t, .ngpus = n};
    struct berth__lp_stats st;
    struct berth_err err = {0};
    CHECK_I64(berth__lp_max_min(&p, 0, x, &st, &err), 0);
    CHECK_DBL(x[0], 1, TOL);
    CHECK_DBL(x[1], 0.5, TOL);
    CHECK_DBL(st.objective, 1, TOL);
}

/* Weights: w = (1, 3) on one GPU: max min(x0, x1 / 3), x0 + x1 <= 1: x0 = 1/4, x1 = 3/4. */
static void max_min_weights(void)
{
    double sf[] = {1, 1}, w[] = {1, 3}, t[] = {1, 1}, n[] = {1}, x[2];
    struct berth__lp_problem p = {.n = 2, .m = 1, .sf = sf, .w = w, .tput = t, .ngpus = n};
    struct berth_err err = {0};
    CHECK_I64(berth__lp_max_min(&p, 0, x, NULL, &err), 0);
    CHECK_DBL(x[0], 0.25, TOL);
    CHECK_DBL(x[1], 0.75, TOL);
}

/* Types A and B with 2 GPUs each; J0 (1 GPU) runs at 3 on A and 1 on B, J1 (1 GPU) at 1 and
 * 2, J2 (2 GPUs) at 2 on both. P = (2, 1.5, 2), so the fairness coefficients are
 * c0 = (1.5, 0.5), c1 = (2/3, 4/3), c2 = (2, 2). J1 can reach at most 4/3 (all of B), and
 * 4/3 is feasible for everyone (J1 all of B, J0 8/9 of A, J2 2/3 spread), so z* = 4/3 with
 * J1 on B. The tie-break then maximises sum c x: per GPU-time J0 is worth 1.5 on A and 0.5 on
 * B, J2 1 on either, so J0 takes all of A's first GPU, J2 the rest: half its time on each. */
static void max_min_perf_split(void)
{
    double sf[] = {1, 1, 2}, t[] = {3, 1, 1, 2, 2, 2}, n[] = {2, 2}, x[6];
    struct berth__lp_problem p = {.n = 3, .m = 2, .sf = sf, .tput = t, .ngpus = n};
    struct berth__lp_stats st;
    struct berth_err err = {0};
    CHECK_I64(berth__lp_max_min(&p, 1, x, &st, &err), 0);
    const double want[] = {1, 0, 0, 1, 0.5, 0.5};
    for (int k = 0; k < 6; k++)
        CHECK_DBL(x[k], want[k], TOL);
    CHECK_DBL(st.objective, 4.0 / 3, TOL);
    check_feasible(&p, x);
}

/* The same jobs under plain max-min (throughputs only say where a job may run): the min is
 * 1 (J0 and J1 cannot have more than all their time), and the tie-break fills all four GPUs,
 * but how J1 and J2 split A and B is degenerate. The answer must still be the same on every
 * run, bit for bit. */
static void max_min_degenerate_deterministic(void)
{
    double sf[] = {1, 1, 2}, t[] = {3, 1, 1, 2, 2, 2}, n[] = {2, 2}, x[6], y[6];
    struct berth__lp_problem p = {.n = 3, .m = 2, .sf = sf, .tput = t, .ngpus = n};
    struct berth__lp_stats st;
    struct berth_err err = {0};
    CHECK_I64(berth__lp_max_min(&p, 0, x, &st, &err), 0);
    CHECK_DBL(st.objective, 1, TOL);
    for (int i = 0; i < 3; i++)
        CHECK_DBL(x[2 * i] + x[2 * i + 1], 1, TOL);
    CHECK_DBL(x[0] + x[2] + 2 * x[4], 2, TOL); /* A full */
    CHECK_DBL(x[1] + x[3] + 2 * x[5], 2, TOL); /* B full */
    check_feasible(&p, x);
    for (int r = 0; r < 3; r++) {
        CHECK_I64(berth__lp_max_min(&p, 0, y, NULL, &err), 0);
        CHECK(!memcmp(x, y, sizeof x));
    }
}

/* Three identical jobs on two GPUs: a vertex of the LP would give two of them all the time
 * and the third a third of it; identical jobs are solved as one group, so each gets 2/3. */
static void max_min_identical_jobs_equal(void)
{
    double sf[] = {1, 1, 1, 2}, t[] = {1, 1, 1, 1}, n[] = {4}, x[4];
    struct berth__lp_problem p = {.n = 3, .m = 1, .sf = sf, .tput = t, .ngpus = n};
    struct berth_err err = {0};
    n[0] = 2;
    CHECK_I64(berth__lp_max_min(&p, 1, x, NULL, &err), 0);
    for (int i = 0; i < 3; i++)
        CHECK_DBL(x[i], 2.0 / 3, TOL);
    /* with a 2-GPU job besides, on 4 GPUs: max min(x1, x2, x3, 2 x4), x1+x2+x3+2x4 <= 4:
     * z = 1 with x1 = x2 = x3 = 1 and x4 = 1/2 */
    p.n = 4;
    n[0] = 4;
    CHECK_I64(berth__lp_max_min(&p, 0, x, NULL, &err), 0);
    CHECK_DBL(x[0], x[1], 0);
    CHECK_DBL(x[1], x[2], 0);
    CHECK_DBL(x[3], 0.5, TOL);
}

/* A job that cannot run anywhere (throughput 0, or a gang larger than every type) gets
 * nothing and does not drag the min down to 0. */
static void max_min_unrunnable_jobs(void)
{
    double sf[] = {1, 8, 1}, t[] = {1, 1, 0}, n[] = {4}, x[3];
    struct berth__lp_problem p = {.n = 3, .m = 1, .sf = sf, .tput = t, .ngpus = n};
    struct berth__lp_stats st;
    struct berth_err err = {0};
    CHECK_I64(berth__lp_max_min(&p, 1, x, &st, &err), 0);
    CHECK_DBL(x[0], 1, TOL);
    CHECK_DBL(x[1], 0, 0);
    CHECK_DBL(x[2], 0, 0);
    CHECK_DBL(st.objective, 1, TOL);
    /* nobody can run: all zeros, no solve */
    double t0[] = {0, 0, 0};
    p.tput = t0;
    x[0] = 7;
    CHECK_I64(berth__lp_max_min(&p, 0, x, &st, &err), 0);
    CHECK_DBL(x[0] + x[1] + x[2], 0, 0);
    CHECK_I64(st.solves, 0);
}

static void empty_and_bad_input(void)
{
    double sf[] = {1}, t[] = {1}, n[] = {1}, x[1] = {0}, zero[] = {0};
    struct berth__lp_problem p = {.n = 0, .m = 1, .sf = sf, .tput = t, .ngpus = n};
    struct berth_err err = {0};
    CHECK_I64(berth__lp_max_min(&p, 0, x, NULL, &err), 0);
    p.elapsed = p.iso_time = p.remaining = zero;
    CHECK_I64(berth__lp_ftf(&p, x, NULL, &err), 0);
    p.n = 1;
    p.m = 0;
    CHECK_I64(berth__lp_max_min(&p, 1, x, NULL, &err), 0);
    p.m = 1;
    double bad_sf[] = {-1};
    p.sf = bad_sf;
    CHECK_I64(berth__lp_max_min(&p, 0, x, NULL, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "scale factor");
    p.sf = sf;
    double nan_t[] = {NAN};
    p.tput = nan_t;
    CHECK_I64(berth__lp_max_min(&p, 0, x, NULL, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "throughput");
    p.tput = t;
    double neg[] = {-5};
    p.remaining = neg;
    CHECK_I64(berth__lp_ftf(&p, x, NULL, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "remaining");
    p.remaining = NULL;
    CHECK_I64(berth__lp_ftf(&p, x, NULL, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "missing");
}

/* Isolated rates: a 1/n share of each usable type, capped at all of the job's time. */
static void iso_rates(void)
{
    /* 2 jobs, A 4 GPUs B 2 GPUs. J0 (1 GPU, rates 2 and 1): shares 2 and 1, 3 in all,
     * scaled to 2/3 and 1/3: 2*2/3 + 1/3 = 5/3. J1 (4 GPUs, only A): 4/(2*4) = 1/2 of A at
     * rate 6: 3 (and B is too small for its gang). */
    double sf[] = {1, 4}, t[] = {2, 1, 6, 6}, n[] = {4, 2}, r[2];
    struct berth__lp_problem p = {.n = 2, .m = 2, .sf = sf, .tput = t, .ngpus = n};
    berth__lp_iso_rates(&p, r);
    CHECK_DBL(r[0], 5.0 / 3, TOL);
    CHECK_DBL(r[1], 3, TOL);
}

/* Finish-time fairness on one GPU, two 1-GPU jobs, rate 1, isolated rate 1/2 each, 10 s of
 * work left each. A arrived 10 s ago (and has done nothing), B just now; both have D = 20.
 *   rho_A = (10 + 10 / a) / 20, rho_B = (10 / b) / 20, a + b <= 1.
 * Equal rhos: 1 + 1/a = 1/(1 - a), a^2 + a - 1 = 0, a = (sqrt 5 - 1)/2 = 0.618...,
 * rho* = 1 / (2 (1 - a)) = (3 + sqrt 5) / 4 = 1.309... */
static void ftf_golden(void)
{
    double sf[] = {1, 1}, t[] = {1, 1}, n[] = {1}, x[2];
    double el[] = {10, 0}, iso[] = {0, 0}, rem[] = {10, 10};
    struct berth__lp_problem p = ftf_problem(2, 1, sf, t, n, el, iso, rem);
    struct berth__lp_stats st;
    struct berth_err err = {0};
    CHECK_I64(berth__lp_ftf(&p, x, &st, &err), 0);
    double a = (sqrt(5) - 1) / 2, rho = (3 + sqrt(5)) / 4;
    CHECK_DBL(st.objective, rho, BERTH_LP_FTF_TOL * rho);
    CHECK(st.objective >= rho - 1e-9);
    CHECK_DBL(x[0], a, 1e-3);
    CHECK_DBL(x[1], 1 - a, 1e-3);
    /* the allocation meets the rho it reports */
    double ra = (10 + 10 / x[0]) / 20, rb = (10 / x[1]) / 20;
    CHECK(ra <= st.objective * (1 + 1e-6) && rb <= st.objective * (1 + 1e-6));
    CHECK(st.solves > 10); /* lo = 1 and hi = 1.5 were bisected */
    double y[2];
    CHECK_I64(berth__lp_ftf(&p, y, NULL, &err), 0);
    CHECK(!memcmp(x, y, sizeof x));
}

/* Heterogeneous finish-time fairness: every job's rho under the answer is at most the one
 * reported, the bracket's lower end (each job alone on its fastest type) is not beaten, and
 * jobs with nothing left or no usable type get nothing. */
static void ftf_heterogeneous(void)
{
    enum { N = 6, M = 2 };
    double sf[N] = {1, 2, 1, 4, 1, 1};
    double t[N * M] = {3, 1, 1, 2, 2, 2, 5, 0, 1, 1, 0, 0};
    double ng[M] = {4, 4};
    double el[N] = {100, 50, 0, 300, 10, 0}, iso[N] = {20, 10, 0, 100, 0, 0};
    double rem[N] = {500, 800, 200, 1000, 0, 50};
    struct berth__lp_problem p = ftf_problem(N, M, sf, t, ng, el, iso, rem);
    double x[N * M], I[N];
    struct berth__lp_stats st;
    struct berth_err err = {0};
    CHECK_I64(berth__lp_ftf(&p, x, &st, &err), 0);
    check_feasible(&p, x);
    berth__lp_iso_rates(&p, I);
    double worst = 0, lo = 0;
    for (int i = 0; i < N; i++) {
        if (rem[i] <= 0 || I[i] <= 0) {
            CHECK_DBL(x[i * M] + x[i * M + 1], 0, 0);
            continue;
        }
        double rate = t[i * M] * x[i * M] + t[i * M + 1] * x[i * M + 1];
        CHECK(rate > 0);
        double rho = (el[i] + rem[i] / rate) / (iso[i] + rem[i] / I[i]);
        worst = fmax(worst, rho);
        double fastest = fmax(sf[i] <= ng[0] ? t[i * M] : 0, sf[i] <= ng[1] ? t[i * M + 1] : 0);
        lo = fmax(lo, (el[i] + rem[i] / fastest) / (iso[i] + rem[i] / I[i]));
    }
    CHECK(worst <= st.objective * (1 + 1e-6));
    CHECK(st.objective >= lo * (1 - 1e-9));
}

/* One GPU type: the closed-form check (berth__lp_ftf) against GLPK's simplex on every step
 * (berth__lp_ftf_simplex) on random problems: the same rho within the bisection's
 * tolerance, and an allocation that is feasible and meets the rho it reports. */
static void ftf_one_type_matches_simplex(void)
{
    enum { N = 60 };
    static const double gangs[] = {0.5, 1, 1, 2, 4, 8, 16, 32};
    struct berth__rng rs; /* seeded: every run checks the same problems */
    berth__rng_seed(&rs, 0x9e3779b97f4a7c15ull);
    int equal_x = 0;
    for (int t = 0; t < 400; t++) {
        size_t n = 1 + (size_t)(berth__rng_unit(&rs) * N);
        double sf[N], tp[N], el[N], iso[N], rem[N], ng[1] = {1 + (int)(berth__rng_unit(&rs) * 64)};
        for (size_t i = 0; i < n; i++) {
            sf[i] = gangs[(int)(berth__rng_unit(&rs) * 8)];
            tp[i] = berth__rng_unit(&rs) < 0.05 ? 0 : 0.5 + berth__rng_unit(&rs) * 3;
            el[i] = berth__rng_unit(&rs) * 1000;
            iso[i] = berth__rng_unit(&rs) * el[i];
            rem[i] = berth__rng_unit(&rs) < 0.1 ? 0 : 1 + berth__rng_unit(&rs) * 5000;
        }
        struct berth__lp_problem p = ftf_problem(n, 1, sf, tp, ng, el, iso, rem);
        double x[N], y[N], I[N];
        struct berth__lp_stats a, b;
        struct berth_err err = {0};
        CHECK_I64(berth__lp_ftf(&p, x, &a, &err), 0);
        CHECK_I64(berth__lp_ftf_simplex(&p, y, &b, &err), 0);
        CHECK(fabs(a.objective - b.objective) <=
              2 * BERTH_LP_FTF_TOL * fmax(a.objective, b.objective));
        check_feasible(&p, x);
        berth__lp_iso_rates(&p, I);
        for (size_t i = 0; i < n; i++) {
            if (rem[i] <= 0 || I[i] <= 0) {
                CHECK_DBL(x[i], 0, 0);
                continue;
            }
            CHECK(tp[i] * x[i] > 0);
            double rho = (el[i] + rem[i] / (tp[i] * x[i])) / (iso[i] + rem[i] / I[i]);
            CHECK(rho <= a.objective * (1 + 1e-6));
        }
        equal_x += !memcmp(x, y, n * sizeof *x);
    }
    CHECK(equal_x > 0); /* the simplex, too, mostly ends at the least-time vertex */
}

static const struct check_test tests[] = {
    {"max_min_two_jobs_one_gpu", max_min_two_jobs_one_gpu},
    {"max_min_gang_sizes", max_min_gang_sizes},
    {"max_min_weights", max_min_weights},
    {"max_min_perf_split", max_min_perf_split},
    {"max_min_degenerate_deterministic", max_min_degenerate_deterministic},
    {"max_min_identical_jobs_equal", max_min_identical_jobs_equal},
    {"max_min_unrunnable_jobs", max_min_unrunnable_jobs},
    {"empty_and_bad_input", empty_and_bad_input},
    {"iso_rates", iso_rates},
    {"ftf_golden", ftf_golden},
    {"ftf_heterogeneous", ftf_heterogeneous},
    {"ftf_one_type_matches_simplex", ftf_one_type_matches_simplex},
};

CHECK_MAIN(tests)
