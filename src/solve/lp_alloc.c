/* The Gavel-family LPs on GLPK's simplex (see lp_alloc.h for the models and the tie-break).
 *
 * Layout of every problem, built in job order then type order so that the same input always
 * gives GLPK the same problem: one column per (job, type) where the job can run (x_ij), rows
 * 1..n the fairness rows of the jobs, rows n+1..2n "sum_j x_ij <= 1", rows 2n+1..2n+m the
 * GPU count of each type. Max-min adds a column z (the min). GLPK's terminal output is off;
 * presolve is off so that a basis carries from one solve to the next (max-min's second
 * objective and every bisection step of finish-time fairness start from the last basis).
 *
 * Two things keep the solves short at a thousand jobs:
 * - max-min solves one row set per group of identical jobs (same gang, weight and
 *   throughputs: in practice one group per job class and gang size). That is exact: averaging
 *   an optimal allocation over the jobs of a group keeps it feasible and keeps both
 *   objectives (the min cannot drop, the total is linear), so some optimum treats identical
 *   jobs alike; unpack() then hands the group's time to its jobs;
 * - the first simplex starts from a guessed basis (crash_*) instead of the slack basis. */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/lp_alloc.h"
#include "solve/lp_scale.h"
#include "util/hash.h"

#define MAX_TYPES 64

/* T_ij as the models see it: 0 where the job cannot run or its gang exceeds the type. */
static double teff(const struct berth__lp_problem *p, size_t i, size_t j)
{
    double t = p->tput[i * p->m + j];
    return t > 0 && p->sf[i] <= p->ngpus[j] ? t : 0;
}

static int bad_num(double v)
{
    return !isfinite(v) || v < 0;
}

static int check(const struct berth__lp_problem *p, int ftf, struct berth_err *err)
{
    if (!p)
        return berth_err_set(err, BERTH_EINPUT, "lp: no problem");
    if (!p->n || !p->m)
        return 0;
    if (p->m > MAX_TYPES)
        return berth_err_set(err, BERTH_EINPUT, "lp: %zu GPU types (at most %d)", p->m, MAX_TYPES);
    /* GLPK counts rows, columns and matrix entries in int */
    if (p->n > (size_t)INT_MAX / 4 / (p->m + 2))
        return berth_err_set(err, BERTH_EINPUT, "lp: %zu jobs x %zu types is too large", p->n,
                             p->m);
    if (!p->sf || !p->tput || !p->ngpus || (ftf && (!p->elapsed || !p->iso_time || !p->remaining)))
        return berth_err_set(err, BERTH_EINPUT, "lp: missing input array");
    for (size_t j = 0; j < p->m; j++)
        if (bad_num(p->ngpus[j]))
            return berth_err_set(err, BERTH_EINPUT, "lp: type %zu: GPU count %g", j, p->ngpus[j]);
    for (size_t i = 0; i < p->n; i++) {
        if (bad_num(p->sf[i]) || p->sf[i] <= 0)
            return berth_err_set(err, BERTH_EINPUT, "lp: job %zu: scale factor %g", i, p->sf[i]);
        if (p->w && (bad_num(p->w[i]) || p->w[i] <= 0))
            return berth_err_set(err, BERTH_EINPUT, "lp: job %zu: weight %g", i, p->w[i]);
        for (size_t j = 0; j < p->m; j++)
            if (bad_num(p->tput[i * p->m + j]))
                return berth_err_set(err, BERTH_EINPUT, "lp: job %zu: throughput %g on type %zu", i,
                                     p->tput[i * p->m + j], j);
        if (ftf && (bad_num(p->elapsed[i]) || bad_num(p->iso_time[i]) || bad_num(p->remaining[i])))
            return berth_err_set(err, BERTH_EINPUT,
                                 "lp: job %zu: elapsed %g, isolated time %g, remaining %g", i,
                                 p->elapsed[i], p->iso_time[i], p->remaining[i]);
    }
    return 0;
}

void berth__lp_iso_rates(const struct berth__lp_problem *p, double *rate)
{
    for (size_t i = 0; i < p->n; i++) {
        double share = 0, r = 0;
        for (size_t j = 0; j < p->m; j++)
            if (teff(p, i, j) > 0) {
                double x = p->ngpus[j] / ((double)p->n * p->sf[i]);
                share += x;
                r += teff(p, i, j) * x;
            }
        rate[i] = share > 1 ? r / share : r;
    }
}

/* ---- one GLPK problem with the shared layout ----------------------------------------- */

struct lp {
    glp_prob *P;
    const struct berth__lp_problem *p;
    const double *mult; /* [n] jobs each row stands for (max-min groups), NULL = 1 */
    int *col;           /* [n*m]: GLPK column of x_ij, 0 when the job cannot run there */
    int ncols;          /* x columns */
    int *ia, *ja;       /* the matrix, 1-based as GLPK wants it */
    double *ar;
    int nz;
    struct berth__lp_stats st;
};

static void lp_free(struct lp *l)
{
    if (l->P)
        glp_delete_prob(l->P);
    free(l->col);
    free(l->ia);
    free(l->ja);
    free(l->ar);
}

/* Numbers the x columns of the jobs in use (use[i] != 0; NULL = all) and allocates the
 * matrix: one fairness entry per column, the two other row families, and extra entries. */
static int lp_init(struct lp *l, const struct berth__lp_problem *p, const double *mult,
                   const unsigned char *use, int extra, struct berth_err *err)
{
    memset(l, 0, sizeof *l);
    l->p = p;
    l->mult = mult;
    l->col = calloc(p->n * p->m, sizeof *l->col);
    if (!l->col)
        return berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->m; j++)
            if ((!use || use[i]) && teff(p, i, j) > 0)
                l->col[i * p->m + j] = ++l->ncols;
    size_t cap = 3 * (size_t)l->ncols + (size_t)extra + 1;
    l->ia = malloc(cap * sizeof *l->ia);
    l->ja = malloc(cap * sizeof *l->ja);
    l->ar = malloc(cap * sizeof *l->ar);
    if (!l->ia || !l->ja || !l->ar)
        return berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
    return 0;
}

static void put(struct lp *l, int row, int col, double v)
{
    l->nz++;
    l->ia[l->nz] = row;
    l->ja[l->nz] = col;
    l->ar[l->nz] = v;
}

/* GLPK's automatic scaling (glp_scale_prob(P, GLP_SF_AUTO)), computed on the flat matrix
 * (lp_scale.h: the same factors, several times faster). */
static int lp_scale(struct lp *l, int nrows, int ncols, struct berth_err *err)
{
    double *r = malloc(((size_t)nrows + (size_t)ncols + 2) * sizeof *r);
    double *s = r ? r + nrows + 1 : NULL;
    if (!r || berth__lp_scale(nrows, ncols, l->nz, l->ia, l->ja, l->ar, r, s)) {
        free(r);
        return berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
    }
    for (int i = 1; i <= nrows; i++)
        glp_set_rii(l->P, i, r[i]);
    for (int j = 1; j <= ncols; j++)
        glp_set_sjj(l->P, j, s[j]);
    free(r);
    return 0;
}

/* Creates the GLPK problem (the caller has put its fairness entries): the job and type rows,
 * columns x >= 0 and ncols_extra more after them. Fairness rows start free. */
static int lp_build(struct lp *l, int ncols_extra, struct berth_err *err)
{
    const struct berth__lp_problem *p = l->p;
    int n = (int)p->n, m = (int)p->m;
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->m; j++) {
            int c = l->col[i * p->m + j];
            if (c) {
                put(l, n + (int)i + 1, c, 1.0);
                put(l, 2 * n + (int)j + 1, c, p->sf[i] * (l->mult ? l->mult[i] : 1));
            }
        }
    glp_term_out(GLP_OFF);
    l->P = glp_create_prob();
    if (!l->P)
        return berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
    glp_set_obj_dir(l->P, GLP_MAX);
    glp_add_rows(l->P, 2 * n + m);
    glp_add_cols(l->P, l->ncols + ncols_extra);
    for (int i = 0; i < n; i++) {
        glp_set_row_bnds(l->P, i + 1, GLP_FR, 0, 0);
        glp_set_row_bnds(l->P, n + i + 1, GLP_UP, 0, 1);
    }
    for (int j = 0; j < m; j++)
        glp_set_row_bnds(l->P, 2 * n + j + 1, GLP_UP, 0, p->ngpus[j]);
    for (int c = 1; c <= l->ncols + ncols_extra; c++)
        glp_set_col_bnds(l->P, c, GLP_LO, 0, 0);
    glp_load_matrix(l->P, l->nz, l->ia, l->ja, l->ar);
    return lp_scale(l, 2 * n + m, l->ncols + ncols_extra, err);
}

enum { SOLVED = 0, NO_SOLUTION = 1 };

/* Runs the simplex from the current basis (dual first when dual = 1); SOLVED, NO_SOLUTION
 * (primal infeasible), or a BERTH_E* code when GLPK fails even from the slack basis. */
static int lp_solve(struct lp *l, int dual, struct berth_err *err)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_OFF;
    parm.meth = dual ? GLP_DUALP : GLP_PRIMAL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) { /* a bad or singular basis: start again from the slack basis */
            glp_std_basis(l->P);
            parm.meth = GLP_PRIMAL;
        }
        int rc = glp_simplex(l->P, &parm);
        l->st.solves++;
        if (rc)
            continue;
        int s = glp_get_status(l->P);
        if (s == GLP_OPT)
            return SOLVED;
        if (s == GLP_NOFEAS)
            return NO_SOLUTION;
    }
    return berth_err_set(err, BERTH_EINTERNAL,
                         "lp: GLPK simplex failed (status %d) on %zu jobs x %zu types",
                         glp_get_status(l->P), l->p->n, l->p->m);
}

/* Copies the x columns into x[n*m], clipped to [0, 1]. */
static void lp_read(const struct lp *l, double *x)
{
    const struct berth__lp_problem *p = l->p;
    for (size_t k = 0; k < p->n * p->m; k++) {
        double v = l->col[k] ? glp_get_col_prim(l->P, l->col[k]) : 0;
        x[k] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
}

static void lp_done(struct lp *l, struct berth__lp_stats *st)
{
    if (st) {
        *st = l->st;
        st->iterations = l->P ? glp_get_it_cnt(l->P) : 0;
    }
    lp_free(l);
}

/* ---- the starting basis ----------------------------------------------------------------
 *
 * From the slack basis the simplex brings the jobs in one pivot at a time: n pivots at the
 * least, each costing O(n) here. Both models start instead from a basis with each job on one
 * type, its x basic and its fairness (max-min) or rate (finish-time fairness) row tight, so
 * that only the jobs the guess got wrong have to move. The guess is a greedy list schedule in
 * job order: job i costs a_ij GPU-time on type j (per unit of z, or for its needed rate) and
 * goes where the type's relative load after it is least, ties to the lower type. */

/* Fills type[i] (-1: the job has no column); returns the most loaded type, -1 if none. */
static int crash_assign(const struct lp *l, const double *a, int *type)
{
    const struct berth__lp_problem *p = l->p;
    double load[MAX_TYPES] = {0};
    for (size_t i = 0; i < p->n; i++) {
        double best = 0;
        type[i] = -1;
        for (size_t j = 0; j < p->m; j++) {
            size_t k = i * p->m + j;
            if (!l->col[k])
                continue;
            double v = (load[j] + a[k]) / p->ngpus[j];
            if (type[i] < 0 || v < best) {
                type[i] = (int)j;
                best = v;
            }
        }
        if (type[i] >= 0)
            load[type[i]] += a[i * p->m + (size_t)type[i]];
    }
    int busiest = -1;
    for (size_t j = 0; j < p->m; j++)
        if (load[j] > 0 &&
            (busiest < 0 || load[j] / p->ngpus[j] > load[busiest] / p->ngpus[busiest]))
            busiest = (int)j;
    return busiest;
}

/* Guesses a basis from the costs a[n*m] and sets it: each job's chosen x basic and its row
 * tight, every other row basic; with a z column, z basic and the busiest type's row tight.
 * The counts always make a square basis; should GLPK still find it singular, lp_solve
 * restarts from the slack basis. */
static int crash(struct lp *l, const double *a, int z, struct berth_err *err)
{
    const struct berth__lp_problem *p = l->p;
    int *type = malloc(p->n * sizeof *type);
    if (!type)
        return berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
    int busiest = crash_assign(l, a, type);
    if (busiest >= 0) {
        glp_prob *P = l->P;
        for (int r = 1; r <= glp_get_num_rows(P); r++)
            glp_set_row_stat(P, r, GLP_BS);
        for (int k = 1; k <= glp_get_num_cols(P); k++)
            glp_set_col_stat(P, k, GLP_NL);
        for (size_t i = 0; i < p->n; i++)
            if (type[i] >= 0) {
                glp_set_col_stat(P, l->col[i * p->m + (size_t)type[i]], GLP_BS);
                glp_set_row_stat(P, (int)i + 1, GLP_NL);
            }
        if (z) {
            glp_set_col_stat(P, z, GLP_BS);
            glp_set_row_stat(P, 2 * (int)p->n + busiest + 1, GLP_NU);
        }
    }
    free(type);
    return 0;
}

/* ---- max-min fairness ------------------------------------------------------------------ */

/* Solves max-min on p whose rows stand for mult[i] identical jobs each; also writes the
 * fairness coefficients c[n*m] (0 where a job cannot run). */
static int max_min_rows(const struct berth__lp_problem *p, const double *mult, int perf, double *c,
                        double *x, struct berth__lp_stats *st, struct berth_err *err)
{
    double total = 0;
    for (size_t j = 0; j < p->m; j++)
        total += p->ngpus[j];
    struct lp l;
    double *a = NULL; /* crash costs */
    int rc = lp_init(&l, p, mult, NULL, (int)p->n, err);
    if (rc || !l.ncols) /* an error, or nothing can run anywhere */
        goto out;
    int z = l.ncols + 1;
    a = malloc(p->n * p->m * sizeof *a);
    if (!a) {
        rc = berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
        goto out;
    }
    /* fairness rows: sum_j c_ij x_ij - z >= 0 */
    for (size_t i = 0; i < p->n; i++) {
        double norm = 1, w = p->w ? p->w[i] : 1;
        if (perf) { /* P_i: the job's rate under an equal split of every type */
            norm = 0;
            for (size_t j = 0; j < p->m; j++)
                norm += teff(p, i, j) * p->ngpus[j] / total;
        }
        int any = 0;
        for (size_t j = 0; j < p->m; j++) {
            size_t k = i * p->m + j;
            c[k] = a[k] = 0;
            if (!l.col[k])
                continue;
            c[k] = (perf ? teff(p, i, j) / norm : 1.0) * p->sf[i] / w;
            a[k] = p->sf[i] * (mult ? mult[i] : 1) / c[k]; /* GPU-time per unit of z */
            put(&l, (int)i + 1, l.col[k], c[k]);
            any = 1;
        }
        if (any)
            put(&l, (int)i + 1, z, -1.0);
    }
    if ((rc = lp_build(&l, 1, err)))
        goto out;
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->m; j++)
            if (l.col[i * p->m + j]) {
                glp_set_row_bnds(l.P, (int)i + 1, GLP_LO, 0, 0);
                break;
            }
    /* 1: maximise z */
    glp_set_obj_coef(l.P, z, 1.0);
    if ((rc = crash(&l, a, z, err)) || (rc = lp_solve(&l, 0, err)))
        goto out;
    double zstar = glp_get_col_prim(l.P, z);
    /* 2: hold z at its optimum, maximise the total normalised throughput */
    glp_set_col_bnds(l.P, z, GLP_LO, zstar > 0 ? zstar * (1 - 1e-7) : 0, 0);
    glp_set_obj_coef(l.P, z, 0.0);
    for (size_t k = 0; k < p->n * p->m; k++)
        if (l.col[k])
            glp_set_obj_coef(l.P, l.col[k], c[k] * (mult ? mult[k / p->m] : 1));
    if ((rc = lp_solve(&l, 0, err)))
        goto out;
    lp_read(&l, x);
    l.st.objective = zstar;
out:
    if (rc == NO_SOLUTION) /* x = 0, z = 0 is always feasible */
        rc = berth_err_set(err, BERTH_EINTERNAL, "lp: max-min LP reported infeasible");
    free(a);
    lp_done(&l, st);
    return rc;
}

/* Group of each job: jobs with the same gang, weight and throughputs share one, numbered in
 * order of first appearance (an open-addressing table over a hash of those numbers). */
static size_t group_jobs(const struct berth__lp_problem *p, uint32_t *grp, uint32_t *first,
                         uint32_t *slot, size_t cap)
{
    size_t ng = 0;
    for (size_t s = 0; s < cap; s++)
        slot[s] = UINT32_MAX;
    for (size_t i = 0; i < p->n; i++) {
        double w = p->w ? p->w[i] : 1;
        uint64_t h = berth__hash_bytes(BERTH_HASH_INIT, &p->sf[i], sizeof(double));
        h = berth__hash_bytes(h, &w, sizeof w);
        h = berth__hash_bytes(h, &p->tput[i * p->m], p->m * sizeof(double));
        for (size_t s = h & (cap - 1);; s = (s + 1) & (cap - 1)) {
            if (slot[s] == UINT32_MAX) {
                slot[s] = (uint32_t)ng;
                first[ng] = (uint32_t)i;
                grp[i] = (uint32_t)ng++;
                break;
            }
            size_t f = first[slot[s]];
            if (p->sf[f] == p->sf[i] && (p->w ? p->w[f] : 1) == w &&
                !memcmp(&p->tput[f * p->m], &p->tput[i * p->m], p->m * sizeof(double))) {
                grp[i] = slot[s];
                break;
            }
        }
    }
    return ng;
}

/* Hands each group's allocation to its jobs. Giving every job the group's x would be exact,
 * but a job would then hold a slice of every type it may use, and rounds would move
 * identical jobs back and forth between types for nothing. So each group's time on each type
 * (mult * x_gj) is packed onto its jobs in job order instead: a job takes the group's value
 * per job, sum_j c_gj x_gj, from the types in order, as much as each has left. Every job gets
 * the same value, and each type the same total time, so both objectives and the GPU counts
 * are unchanged, and a job spans few types. Should a job then need more than all its time
 * (the slow types left to the last jobs), the group keeps the even split. left[ng*m] and
 * bad[ng] are scratch. */
static void unpack(const struct berth__lp_problem *p, const uint32_t *grp, size_t ng,
                   const double *mult, const double *c, const double *gx, double *left,
                   uint32_t *bad, double *x)
{
    size_t m = p->m;
    for (size_t g = 0; g < ng; g++) {
        bad[g] = 0;
        for (size_t j = 0; j < m; j++)
            left[g * m + j] = mult[g] * gx[g * m + j];
    }
    for (size_t i = 0; i < p->n; i++) {
        size_t g = grp[i];
        double want = 0, got = 0, time = 0;
        for (size_t j = 0; j < m; j++)
            want += c[g * m + j] * gx[g * m + j];
        for (size_t j = 0; j < m; j++) {
            double need = c[g * m + j] > 0 ? (want - got) / c[g * m + j] : 0;
            double take = fmin(need, left[g * m + j]);
            if (!(take > 1e-12))
                take = 0;
            x[i * m + j] = take;
            left[g * m + j] -= take;
            got += take * c[g * m + j];
            time += take;
        }
        if (time > 1 + 1e-9 || got < want * (1 - 1e-9))
            bad[g] = 1;
    }
    for (size_t i = 0; i < p->n; i++)
        if (bad[grp[i]])
            memcpy(&x[i * m], &gx[grp[i] * m], m * sizeof *x);
}

int berth__lp_max_min(const struct berth__lp_problem *p, int perf, double *x,
                      struct berth__lp_stats *st, struct berth_err *err)
{
    if (st)
        memset(st, 0, sizeof *st);
    int rc = check(p, 0, err);
    if (rc)
        return rc;
    if (!p->n || !p->m)
        return 0;
    struct berth__lp_problem in = *p; /* what groups are made of */
    size_t n = p->n, m = p->m, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *grp = malloc(n * sizeof *grp), *first = malloc(n * sizeof *first);
    uint32_t *slot = malloc(cap * sizeof *slot);
    double *gsf = malloc(n * sizeof *gsf), *gw = malloc(n * sizeof *gw);
    double *gt = malloc(n * m * sizeof *gt), *mult = calloc(n, sizeof *mult);
    double *gx = malloc(n * m * sizeof *gx), *gc = calloc(n * m, sizeof *gc);
    if (!grp || !first || !slot || !gsf || !gw || !gt || !mult || !gx || !gc) {
        rc = berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
        goto out;
    }
    if (!perf) { /* throughputs only say where a job can run: group by that alone */
        double *mask = malloc(n * m * sizeof *mask);
        if (!mask) {
            rc = berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
            goto out;
        }
        for (size_t k = 0; k < n * m; k++)
            mask[k] = teff(p, k / m, k % m) > 0;
        in.tput = mask;
    }
    size_t ng = group_jobs(&in, grp, first, slot, cap);
    for (size_t g = 0; g < ng; g++) {
        size_t f = first[g];
        gsf[g] = p->sf[f];
        gw[g] = p->w ? p->w[f] : 1;
        memcpy(&gt[g * m], &in.tput[f * m], m * sizeof *gt);
    }
    for (size_t i = 0; i < n; i++)
        mult[grp[i]] += 1;
    struct berth__lp_problem q = {
        .n = ng, .m = m, .sf = gsf, .w = gw, .tput = gt, .ngpus = p->ngpus};
    memset(gx, 0, ng * m * sizeof *gx);
    if ((rc = max_min_rows(&q, mult, perf, gc, gx, st, err)))
        goto out;
    unpack(p, grp, ng, mult, gc, gx, gt, slot, x);
out:
    if (in.tput != p->tput)
        free((void *)in.tput);
    free(grp);
    free(first);
    free(slot);
    free(gsf);
    free(gw);
    free(gt);
    free(mult);
    free(gx);
    free(gc);
    return rc;
}

/* ---- finish-time fairness ---------------------------------------------------------------- */

struct ftf {
    struct lp l;
    const struct berth__lp_problem *p;
    unsigned char *use; /* jobs with work left and a rate */
    double *iso;        /* I_i */
    double *den;        /* D_i = iso_time_i + remaining_i / I_i */
    double *y;          /* one type: [n] the step's allocation (NULL: the LP is solved) */
    int feasible;       /* some step was feasible (x holds its allocation) */
};

/* The rate job i needs for rho (rho * D_i > elapsed_i for every rho the bisection tries). */
static double ftf_need(const struct ftf *f, size_t i, double rho)
{
    return f->p->remaining[i] / (rho * f->den[i] - f->p->elapsed[i]);
}

/* Row bounds for rho: sum_j (T_ij / I_i) x_ij >= need_i(rho) / I_i. */
static void ftf_set_rho(struct ftf *f, double rho)
{
    for (size_t i = 0; i < f->p->n; i++)
        if (f->use[i])
            glp_set_row_bnds(f->l.P, (int)i + 1, GLP_LO, ftf_need(f, i, rho) / f->iso[i], 0);
}

/* Relative slack of the one-type check (GLPK's own primal tolerance is 1e-7). */
#define ONE_TYPE_TOL 1e-9

/* One GPU type: the rows are independent, so rho can be met exactly when the least time
 * each job needs for it, x_i = need_i(rho) / T_i, is at most all of its time and the gangs
 * fit: sum_i sf_i x_i <= N. That least x is the allocation; no LP is built. */
static int ftf_one_type(struct ftf *f, double rho, double *x)
{
    const struct berth__lp_problem *p = f->p;
    double gpus = 0;
    f->l.st.solves++;
    for (size_t i = 0; i < p->n; i++) {
        f->y[i] = 0;
        if (!f->use[i])
            continue;
        double t = ftf_need(f, i, rho) / teff(p, i, 0);
        if (!(t <= 1 + ONE_TYPE_TOL))
            return 0;
        f->y[i] = fmin(t, 1);
        gpus += p->sf[i] * f->y[i];
    }
    if (!(gpus <= p->ngpus[0] * (1 + ONE_TYPE_TOL)))
        return 0;
    memcpy(x, f->y, p->n * sizeof *x);
    f->feasible = 1;
    return 1;
}

/* 1 when rho can be met (x then holds the allocation), 0 when not, or a BERTH_E* code. With
 * a zero objective every basis is dual feasible, so each step is a warm dual simplex. */
static int ftf_feasible(struct ftf *f, double rho, double *x, struct berth_err *err)
{
    if (f->y)
        return ftf_one_type(f, rho, x);
    ftf_set_rho(f, rho);
    int rc = lp_solve(&f->l, 1, err);
    if (rc != SOLVED)
        return rc == NO_SOLUTION ? 0 : rc;
    lp_read(&f->l, x);
    f->feasible = 1;
    return 1;
}

/* The starting basis for the first step: a_ij = sf_i * need_i(rho) / T_ij, the GPU-time
 * job i needs on type j to meet rho. */
static int ftf_crash(struct ftf *f, double rho, struct berth_err *err)
{
    const struct berth__lp_problem *p = f->p;
    double *a = malloc(p->n * p->m * sizeof *a);
    if (!a)
        return berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->m; j++) {
            size_t k = i * p->m + j;
            a[k] = f->l.col[k] ? p->sf[i] * ftf_need(f, i, rho) / teff(p, i, j) : 0;
        }
    int rc = crash(&f->l, a, 0, err);
    free(a);
    return rc;
}

/* Finish-time fairness; simplex = 1 solves every step with GLPK even on one type. */
static int ftf_solve(const struct berth__lp_problem *p, int simplex, double *x,
                     struct berth__lp_stats *st, struct berth_err *err)
{
    if (st)
        memset(st, 0, sizeof *st);
    int rc = check(p, 1, err);
    if (rc)
        return rc;
    if (!p->n || !p->m)
        return 0;
    memset(x, 0, p->n * p->m * sizeof *x);
    struct ftf f = {.p = p};
    memset(&f.l, 0, sizeof f.l);
    f.use = calloc(p->n, 1);
    f.iso = malloc(p->n * sizeof *f.iso);
    f.den = malloc(p->n * sizeof *f.den);
    if (!f.use || !f.iso || !f.den) {
        rc = berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
        goto out;
    }
    berth__lp_iso_rates(p, f.iso);
    /* the bracket: rho >= each job's rho alone on its fastest type; the isolated allocation
     * meets the largest rho it gives */
    double lo = 0, hi = 0;
    size_t nuse = 0;
    for (size_t i = 0; i < p->n; i++) {
        double best = 0;
        for (size_t j = 0; j < p->m; j++)
            best = fmax(best, teff(p, i, j));
        if (!(p->remaining[i] > 0) || !(f.iso[i] > 0))
            continue;
        f.use[i] = 1;
        nuse++;
        f.den[i] = p->iso_time[i] + p->remaining[i] / f.iso[i];
        lo = fmax(lo, (p->elapsed[i] + p->remaining[i] / best) / f.den[i]);
        hi = fmax(hi, (p->elapsed[i] + p->remaining[i] / f.iso[i]) / f.den[i]);
    }
    if (!nuse)
        goto out;
    if (lo > hi)
        lo = hi;
    if (p->m == 1 && !simplex) {
        if (!(f.y = malloc(p->n * sizeof *f.y))) {
            rc = berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
            goto out;
        }
    } else if ((rc = lp_init(&f.l, p, NULL, f.use, 0, err))) {
        goto out;
    }
    if (!f.y) {
        for (size_t i = 0; i < p->n; i++)
            for (size_t j = 0; j < p->m; j++) {
                int c = f.l.col[i * p->m + j];
                if (c)
                    put(&f.l, (int)i + 1, c, teff(p, i, j) / f.iso[i]);
            }
        if ((rc = lp_build(&f.l, 0, err)) || (rc = ftf_crash(&f, hi, err)))
            goto out;
    }
    /* hi is feasible (the isolated allocation meets it), lo may be. The dual simplex proves
     * a rho feasible or not cheaply near the last basis and dearly far from it (hundreds of
     * pivots), so the search gallops down from hi in doubling steps, then bisects the
     * bracket the gallop found. */
    if ((rc = ftf_feasible(&f, hi, x, err)) < 0)
        goto out;
    if (rc == 1) {
        for (double d = (hi - lo) / 16; hi - lo > BERTH_LP_FTF_TOL * hi; d *= 2) {
            double rho = fmax(lo, hi - d);
            if ((rc = ftf_feasible(&f, rho, x, err)) < 0)
                goto out;
            if (rc == 0) {
                lo = rho;
                break;
            }
            hi = rho;
        }
        for (int it = 0; it < 200 && hi - lo > BERTH_LP_FTF_TOL * hi; it++) {
            double mid = lo + (hi - lo) / 2;
            if ((rc = ftf_feasible(&f, mid, x, err)) < 0)
                goto out;
            if (rc == 1)
                hi = mid;
            else
                lo = mid;
        }
    }
    rc = 0;
    if (!f.feasible) { /* the solver disagrees that hi is feasible (rounding at its edge):
                        * the isolated allocation meets it by construction */
        for (size_t i = 0; i < p->n; i++) {
            double share = 0;
            for (size_t j = 0; j < p->m; j++) {
                size_t k = i * p->m + j;
                x[k] = f.use[i] && teff(p, i, j) > 0 ? p->ngpus[j] / ((double)p->n * p->sf[i]) : 0;
                share += x[k];
            }
            for (size_t j = 0; share > 1 && j < p->m; j++)
                x[i * p->m + j] /= share;
        }
    }
    f.l.st.objective = hi;
out:
    lp_done(&f.l, st);
    free(f.use);
    free(f.iso);
    free(f.den);
    free(f.y);
    return rc;
}

int berth__lp_ftf(const struct berth__lp_problem *p, double *x, struct berth__lp_stats *st,
                  struct berth_err *err)
{
    return ftf_solve(p, 0, x, st, err);
}

int berth__lp_ftf_simplex(const struct berth__lp_problem *p, double *x, struct berth__lp_stats *st,
                          struct berth_err *err)
{
    return ftf_solve(p, 1, x, st, err);
}

void berth__lp_thread_done(void)
{
    glp_free_env();
}
