/* berth__lp_scale against GLPK's own glp_scale_prob(GLP_SF_AUTO): the same row and column
 * factors, bit for bit, on random matrices of the shapes the Gavel LPs have and of others
 * (empty rows and columns, wide and narrow value ranges, already well scaled). */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "solve/lp_scale.h"
#include "util/rng.h"

/* Seeded by each test: every run checks the same matrices. */
static struct berth__rng rng;

static double uniform(void)
{
    return berth__rng_unit(&rng);
}

/* Loads the matrix into GLPK, scales it both ways, and counts the factors that differ. */
static int compare(int m, int n, int nz, const int *ia, const int *ja, const double *ar)
{
    glp_term_out(GLP_OFF);
    glp_prob *P = glp_create_prob();
    glp_add_rows(P, m);
    glp_add_cols(P, n);
    glp_load_matrix(P, nz, ia, ja, ar);
    glp_scale_prob(P, GLP_SF_AUTO);
    double *r = malloc(((size_t)m + 1) * sizeof *r), *s = malloc(((size_t)n + 1) * sizeof *s);
    CHECK(r && s);
    CHECK_I64(berth__lp_scale(m, n, nz, ia, ja, ar, r, s), 0);
    int bad = 0;
    for (int i = 1; i <= m; i++)
        bad += memcmp(&r[i], &(double){glp_get_rii(P, i)}, sizeof(double)) != 0;
    for (int j = 1; j <= n; j++)
        bad += memcmp(&s[j], &(double){glp_get_sjj(P, j)}, sizeof(double)) != 0;
    free(r);
    free(s);
    glp_delete_prob(P);
    return bad;
}

/* Random sparse matrices: each (row, column) present with probability dens, values
 * spread over 10^-spread .. 10^spread with random signs. */
static void random_matrices(void)
{
    berth__rng_seed(&rng, 1);
    for (int t = 0; t < 300; t++) {
        int m = 1 + (int)(uniform() * 40), n = 1 + (int)(uniform() * 40);
        double dens = 0.02 + uniform() * 0.5, spread = (t % 4) * 2.0;
        size_t cap = (size_t)m * (size_t)n + 1;
        int *ia = malloc(cap * sizeof *ia), *ja = malloc(cap * sizeof *ja);
        double *ar = malloc(cap * sizeof *ar);
        CHECK(ia && ja && ar);
        int nz = 0;
        for (int i = 1; i <= m; i++)
            for (int j = 1; j <= n; j++)
                if (uniform() < dens) {
                    nz++;
                    ia[nz] = i;
                    ja[nz] = j;
                    ar[nz] = pow(10, spread * (2 * uniform() - 1)) * (uniform() < 0.3 ? -1 : 1);
                }
        CHECK_I64(compare(m, n, nz, ia, ja, ar), 0);
        free(ia);
        free(ja);
        free(ar);
    }
}

/* The finish-time-fairness layout: per job a column with T/I on its fairness row, 1 on its
 * time row and its gang on its type's row; some jobs left out (empty rows). */
static void ftf_layout(void)
{
    berth__rng_seed(&rng, 2);
    for (int t = 0; t < 50; t++) {
        int jobs = 1 + (int)(uniform() * 300), types = 1 + t % 3, m = 2 * jobs + types;
        size_t cap = 3 * (size_t)jobs * (size_t)types + 1;
        int *ia = malloc(cap * sizeof *ia), *ja = malloc(cap * sizeof *ja);
        double *ar = malloc(cap * sizeof *ar);
        CHECK(ia && ja && ar);
        int nz = 0, col = 0;
        for (int i = 0; i < jobs; i++) {
            if (uniform() < 0.1)
                continue;
            double gang = (double)(1 << (int)(uniform() * 6)), iso = 0.01 + uniform();
            for (int j = 0; j < types; j++) {
                double tp = 0.5 + uniform() * 3;
                col++;
                ia[++nz] = i + 1, ja[nz] = col, ar[nz] = tp / iso;
                ia[++nz] = jobs + i + 1, ja[nz] = col, ar[nz] = 1;
                ia[++nz] = 2 * jobs + j + 1, ja[nz] = col, ar[nz] = gang;
            }
        }
        if (col)
            CHECK_I64(compare(m, col, nz, ia, ja, ar), 0);
        free(ia);
        free(ja);
        free(ar);
    }
}

/* Every |a| within [0.1, 10]: GLPK leaves the factors at 1, and so must the copy. */
static void well_scaled_skipped(void)
{
    int ia[] = {0, 1, 1, 2}, ja[] = {0, 1, 2, 2};
    double ar[] = {0, 0.1, -10, 3}, r[3], s[3];
    CHECK_I64(berth__lp_scale(2, 2, 3, ia, ja, ar, r, s), 0);
    CHECK(r[1] == 1 && r[2] == 1 && s[1] == 1 && s[2] == 1);
    CHECK_I64(compare(2, 2, 3, ia, ja, ar), 0);
    ar[1] = 0.01; /* now it is not */
    CHECK_I64(berth__lp_scale(2, 2, 3, ia, ja, ar, r, s), 0);
    CHECK(r[1] != 1 || s[1] != 1);
    CHECK_I64(compare(2, 2, 3, ia, ja, ar), 0);
}

static const struct check_test tests[] = {
    {"random_matrices", random_matrices},
    {"ftf_layout", ftf_layout},
    {"well_scaled_skipped", well_scaled_skipped},
};

CHECK_MAIN(tests)
