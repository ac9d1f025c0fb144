/* The Gavel-family LPs on GLPK's simplex (see lp_alloc.h for the models and the tie-break).
 *
 * Layout of every problem, built in job order then type order so that the same input always
 * gives GLPK the same problem: one column per (job, type) where the job can run (x_ij), rows
 * 1..n the fairness rows of the jobs, rows n+1..2n "sum_j x_ij <= 1", rows 2n+1..2n+m the
 * GPU count of each type. Max-min adds a column z (the min). GLPK's terminal output is off;
 * presolve is off so that a basis survives from one solve to the next (the second objective
 * of max-min, the bisection steps of finish-time fairness all start from the last basis). */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lp_alloc.h"

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

/* One GLPK problem with the shared layout. */
struct lp {
    glp_prob *P;
    const struct berth__lp_problem *p;
    int *col;     /* [n*m]: GLPK column of x_ij, 0 when the job cannot run there */
    int ncols;    /* x columns */
    int *ia, *ja; /* the matrix, 1-based as GLPK wants it */
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

/* Numbers the x columns of the jobs in use (use[i] != 0; NULL = jobs with any type) and
 * allocates the matrix for the fairness coefficients (one per column), the two other row
 * families and extra entries. Returns 0 or BERTH_ENOMEM. */
static int lp_init(struct lp *l, const struct berth__lp_problem *p, const unsigned char *use,
                   int extra, struct berth_err *err)
{
    memset(l, 0, sizeof *l);
    l->p = p;
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

/* Creates the GLPK problem: rows and columns, the job and type capacity rows, and the
 * matrix (the caller has put its fairness entries first). Columns are x >= 0; ncols_extra
 * more columns follow the x columns. */
static int lp_build(struct lp *l, int ncols_extra, struct berth_err *err)
{
    const struct berth__lp_problem *p = l->p;
    int n = (int)p->n, m = (int)p->m;
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->m; j++) {
            int c = l->col[i * p->m + j];
            if (c) {
                put(l, n + (int)i + 1, c, 1.0);
                put(l, 2 * n + (int)j + 1, c, p->sf[i]);
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
        glp_set_row_bnds(l->P, i + 1, GLP_FR, 0, 0); /* the caller bounds the rows it uses */
        glp_set_row_bnds(l->P, n + i + 1, GLP_UP, 0, 1);
    }
    for (int j = 0; j < m; j++)
        glp_set_row_bnds(l->P, 2 * n + j + 1, GLP_UP, 0, p->ngpus[j]);
    for (int c = 1; c <= l->ncols + ncols_extra; c++)
        glp_set_col_bnds(l->P, c, GLP_LO, 0, 0);
    glp_load_matrix(l->P, l->nz, l->ia, l->ja, l->ar);
    glp_scale_prob(l->P, GLP_SF_AUTO);
    return 0;
}

enum { SOLVED = 0, NO_SOLUTION = 1 };

/* Runs the simplex from the current basis (dual first when dual = 1); SOLVED, NO_SOLUTION
 * (primal infeasible), or a BERTH_E* code when GLPK fails even from a fresh basis. */
static int lp_solve(struct lp *l, int dual, struct berth_err *err)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_OFF;
    parm.meth = dual ? GLP_DUALP : GLP_PRIMAL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) { /* a singular or stalled basis: start again from the slack basis */
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

int berth__lp_max_min(const struct berth__lp_problem *p, int perf, double *x,
                      struct berth__lp_stats *st, struct berth_err *err)
{
    if (st)
        memset(st, 0, sizeof *st);
    int rc = check(p, 0, err);
    if (rc)
        return rc;
    if (p->n && p->m)
        memset(x, 0, p->n * p->m * sizeof *x);
    if (!p->n || !p->m)
        return 0;
    double total = 0;
    for (size_t j = 0; j < p->m; j++)
        total += p->ngpus[j];
    struct lp l;
    double *c = NULL; /* c_ij, the fairness coefficients */
    if ((rc = lp_init(&l, p, NULL, (int)p->n, err)))
        goto out;
    if (!l.ncols)
        goto out; /* nothing can run anywhere */
    int z = l.ncols + 1;
    /* fairness rows: sum_j c_ij x_ij - z >= 0 */
    if (!(c = malloc(p->n * p->m * sizeof *c))) {
        rc = berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
        goto out;
    }
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
            c[k] = 0;
            if (!l.col[k])
                continue;
            c[k] = (perf ? teff(p, i, j) / norm : 1.0) * p->sf[i] / w;
            put(&l, (int)i + 1, l.col[k], c[k]);
            any = 1;
        }
        if (any)
            put(&l, (int)i + 1, z, -1.0);
    }
    if ((rc = lp_build(&l, 1, err)))
        goto out;
    for (size_t i = 0; i < p->n; i++) {
        int any = 0;
        for (size_t j = 0; j < p->m; j++)
            any |= l.col[i * p->m + j] != 0;
        if (any)
            glp_set_row_bnds(l.P, (int)i + 1, GLP_LO, 0, 0);
    }
    /* 1: maximise z */
    glp_set_obj_coef(l.P, z, 1.0);
    rc = lp_solve(&l, 0, err);
    if (rc == SOLVED) {
        double zstar = glp_get_col_prim(l.P, z);
        /* 2: hold z at its optimum, maximise the total normalised throughput */
        glp_set_col_bnds(l.P, z, GLP_LO, zstar > 0 ? zstar * (1 - 1e-7) : 0, 0);
        glp_set_obj_coef(l.P, z, 0.0);
        for (size_t k = 0; k < p->n * p->m; k++)
            if (l.col[k])
                glp_set_obj_coef(l.P, l.col[k], c[k]);
        rc = lp_solve(&l, 0, err);
        if (rc == SOLVED) {
            lp_read(&l, x);
            l.st.objective = zstar;
        }
    }
    if (rc == NO_SOLUTION) /* x = 0, z = 0 is always feasible */
        rc = berth_err_set(err, BERTH_EINTERNAL, "lp: max-min LP reported infeasible");
out:
    free(c);
    lp_done(&l, st);
    return rc;
}

/* ---- finish-time fairness ------------------------------------------------------------ */

struct ftf {
    struct lp l;
    const struct berth__lp_problem *p;
    unsigned char *use; /* jobs with work left and a rate */
    double *iso;        /* I_i */
    double *den;        /* D_i = iso_time_i + remaining_i / I_i */
};

/* Row bounds for rho: sum_j (T_ij / I_i) x_ij >= remaining_i / (rho D_i - elapsed_i) / I_i. */
static void ftf_set_rho(struct ftf *f, double rho)
{
    const struct berth__lp_problem *p = f->p;
    for (size_t i = 0; i < p->n; i++)
        if (f->use[i]) {
            double need = p->remaining[i] / (rho * f->den[i] - p->elapsed[i]) / f->iso[i];
            glp_set_row_bnds(f->l.P, (int)i + 1, GLP_LO, need, 0);
        }
}

/* 1 when rho can be met (x then holds the allocation), 0 when not, or a BERTH_E* code. */
static int ftf_feasible(struct ftf *f, double rho, double *x, struct berth_err *err)
{
    ftf_set_rho(f, rho);
    int rc = lp_solve(&f->l, 1, err);
    if (rc == SOLVED)
        lp_read(&f->l, x);
    return rc == SOLVED ? 1 : rc == NO_SOLUTION ? 0 : rc;
}

int berth__lp_ftf(const struct berth__lp_problem *p, double *x, struct berth__lp_stats *st,
                  struct berth_err *err)
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
    double *xiso = malloc(p->n * p->m * sizeof *xiso);
    if (!f.use || !f.iso || !f.den || !xiso) {
        rc = berth_err_set(err, BERTH_ENOMEM, "lp: out of memory");
        goto out;
    }
    berth__lp_iso_rates(p, f.iso);
    /* the bracket: rho >= each job's rho alone on its fastest type; the isolated
     * allocation meets the largest rho it gives */
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
    if ((rc = lp_init(&f.l, p, f.use, 0, err)))
        goto out;
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->m; j++) {
            int c = f.l.col[i * p->m + j];
            if (c)
                put(&f.l, (int)i + 1, c, teff(p, i, j) / f.iso[i]);
        }
    if ((rc = lp_build(&f.l, 0, err)))
        goto out;
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->m; j++) {
            int c = f.l.col[i * p->m + j];
            if (c) /* the tie-break: total throughput relative to the isolated rates */
                glp_set_obj_coef(f.l.P, c, teff(p, i, j) / f.iso[i]);
        }
    /* the isolated allocation, the answer should the solver disagree that hi is feasible */
    for (size_t i = 0; i < p->n; i++) {
        double share = 0;
        for (size_t j = 0; j < p->m; j++) {
            size_t k = i * p->m + j;
            xiso[k] = f.l.col[k] ? p->ngpus[j] / ((double)p->n * p->sf[i]) : 0;
            share += xiso[k];
        }
        for (size_t j = 0; share > 1 && j < p->m; j++)
            xiso[i * p->m + j] /= share;
    }
    rc = ftf_feasible(&f, hi, x, err);
    if (rc < 0)
        goto out;
    if (rc == 0) { /* rounding at the edge of feasibility */
        memcpy(x, xiso, p->n * p->m * sizeof *x);
        rc = 0;
        f.l.st.objective = hi;
        goto out;
    }
    if (hi - lo > BERTH_LP_FTF_TOL * hi) {
        double *xt = xiso; /* scratch from here on */
        rc = ftf_feasible(&f, lo, xt, err);
        if (rc < 0)
            goto out;
        if (rc == 1) {
            hi = lo;
            memcpy(x, xt, p->n * p->m * sizeof *x);
        }
        for (int it = 0; it < 200 && hi - lo > BERTH_LP_FTF_TOL * hi; it++) {
            double mid = lo + (hi - lo) / 2;
            rc = ftf_feasible(&f, mid, xt, err);
            if (rc < 0)
                goto out;
            if (rc == 1) {
                hi = mid;
                memcpy(x, xt, p->n * p->m * sizeof *x);
            } else {
                lo = mid;
            }
        }
    }
    rc = 0;
    f.l.st.objective = hi;
out:
    lp_done(&f.l, st);
    free(f.use);
    free(f.iso);
    free(f.den);
    free(xiso);
    return rc;
}
