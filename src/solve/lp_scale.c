/* GLPK's automatic scaling on flat arrays (see lp_scale.h). GLP_SF_AUTO is geometric-mean
 * scaling iterated (at most 15 passes, while the max/min ratio of the scaled |a_ij| improves
 * by 10 % or more), then equilibration, skipped entirely when every |a_ij| is already within
 * [0.1, 10]. GLPK's own order of operations is kept where it matters for the bits: a scaled
 * entry is |a_ij| * (r_i * s_j), a row is divided by sqrt(min * max) (then by its max), an
 * empty row or column counts as min = max = 1. Minima and maxima do not depend on the order
 * entries are visited in, and a row pass reads only its own row's factor (a column pass its
 * column's), so one sweep over the entries per pass gives what GLPK's row-by-row walk gives. */
#include <math.h>
#include <stdlib.h>

#include "berth/err.h"
#include "solve/lp_scale.h"

struct scale {
    int nrows, ncols, nz;
    const int *ia, *ja;
    double *av;           /* [nz] |a| */
    double *r, *s;        /* the factors, 1-based */
    double *lo, *hi;      /* [n + 1] per row (or column) min and max of the scaled |a| */
    unsigned char *empty; /* [n + 1] no entry seen */
};

/* Min and max of the scaled entries of every row (cols = 0) or column (cols = 1). */
static void sweep(struct scale *c, int cols)
{
    int n = cols ? c->ncols : c->nrows;
    const int *at = cols ? c->ja : c->ia;
    for (int i = 1; i <= n; i++)
        c->empty[i] = 1;
    for (int k = 0; k < c->nz; k++) {
        double t = c->av[k] * (c->r[c->ia[k]] * c->s[c->ja[k]]);
        int i = at[k];
        if (c->empty[i]) {
            c->empty[i] = 0;
            c->lo[i] = c->hi[i] = t;
            continue;
        }
        if (c->lo[i] > t)
            c->lo[i] = t;
        if (c->hi[i] < t)
            c->hi[i] = t;
    }
    for (int i = 1; i <= n; i++)
        if (c->empty[i])
            c->lo[i] = c->hi[i] = 1.0;
}

/* max_i hi_i / lo_i over what the last sweep saw (GLPK's max_row_ratio / max_col_ratio). */
static double worst_ratio(const struct scale *c, int n)
{
    double ratio = 1.0;
    for (int i = 1; i <= n; i++) {
        double t = c->hi[i] / c->lo[i];
        if (i == 1 || ratio < t)
            ratio = t;
    }
    return ratio;
}

/* max |a| / min |a| over the rows of the last row sweep (GLPK's max_mat_aij / min_mat_aij). */
static double mat_ratio(const struct scale *c, double *lo, double *hi)
{
    double a = 1.0, b = 1.0;
    for (int i = 1; i <= c->nrows; i++) {
        if (i == 1 || a > c->lo[i])
            a = c->lo[i];
        if (i == 1 || b < c->hi[i])
            b = c->hi[i];
    }
    *lo = a;
    *hi = b;
    return b / a;
}

/* Divides each row's (cols = 0) or column's factor by sqrt(min * max) (gm = 1) or by its max,
 * from the sweep just made. */
static void divide(struct scale *c, int cols, int gm)
{
    int n = cols ? c->ncols : c->nrows;
    double *f = cols ? c->s : c->r;
    for (int i = 1; i <= n; i++)
        f[i] = gm ? f[i] / sqrt(c->lo[i] * c->hi[i]) : f[i] / c->hi[i];
}

/* One geometric-mean pass, rows first unless cols_first (rows_swept: the row sweep of the
 * current factors is already made). */
static void gm_pass(struct scale *c, int cols_first, int rows_swept)
{
    for (int pass = 0; pass <= 1; pass++) {
        int cols = pass != cols_first; /* GLPK: rows when pass == flag */
        if (cols || !rows_swept || pass)
            sweep(c, cols);
        divide(c, cols, 1);
    }
}

/* Rows vs columns first: 1 when the rows' worst ratio exceeds the columns'. */
static int rows_worse(struct scale *c)
{
    sweep(c, 0);
    double rr = worst_ratio(c, c->nrows);
    sweep(c, 1);
    return rr > worst_ratio(c, c->ncols);
}

static void run(struct scale *c)
{
    double lo, hi;
    sweep(c, 0);
    mat_ratio(c, &lo, &hi);
    if (lo >= 0.10 && hi <= 10.0)
        return; /* well scaled: GLP_SF_SKIP */
    /* geometric mean, iterated */
    int flag = rows_worse(c);
    double ratio = 0.0;
    for (int k = 1; k <= 15; k++) {
        double r_old = ratio;
        sweep(c, 0);
        ratio = mat_ratio(c, &lo, &hi);
        if (k > 1 && ratio > 0.90 * r_old)
            break;
        gm_pass(c, flag, 1);
    }
    /* equilibration */
    flag = rows_worse(c);
    for (int pass = 0; pass <= 1; pass++) {
        int cols = pass != flag;
        sweep(c, cols);
        divide(c, cols, 0);
    }
}

int berth__lp_scale(int nrows, int ncols, int nz, const int *ia, const int *ja, const double *ar,
                    double *r, double *s)
{
    int big = nrows > ncols ? nrows : ncols;
    struct scale c = {.nrows = nrows, .ncols = ncols, .r = r, .s = s};
    int *ib = malloc(((size_t)nz + 1) * 2 * sizeof *ib);
    c.av = malloc(((size_t)nz + 1) * sizeof *c.av);
    c.lo = malloc(((size_t)big + 1) * sizeof *c.lo);
    c.hi = malloc(((size_t)big + 1) * sizeof *c.hi);
    c.empty = malloc((size_t)big + 1);
    int rc = 0;
    if (!ib || !c.av || !c.lo || !c.hi || !c.empty) {
        rc = BERTH_ENOMEM;
        goto out;
    }
    for (int i = 1; i <= nrows; i++)
        r[i] = 1.0;
    for (int j = 1; j <= ncols; j++)
        s[j] = 1.0;
    int *ib2 = ib + nz + 1;
    for (int k = 1; k <= nz; k++)
        if (ar[k] != 0) {
            ib[c.nz] = ia[k];
            ib2[c.nz] = ja[k];
            c.av[c.nz++] = fabs(ar[k]);
        }
    c.ia = ib;
    c.ja = ib2;
    run(&c);
out:
    free(ib);
    free(c.av);
    free(c.lo);
    free(c.hi);
    free(c.empty);
    return rc;
}
