/* GLPK's automatic scaling of an LP's constraint matrix (glp_scale_prob(P, GLP_SF_AUTO)),
 * recomputed on flat arrays: the same factors, bit for bit, in a fraction of the time GLPK
 * takes walking its linked rows and columns (it was a fifth of themis-ftf's run on Philly).
 * lp_alloc.c sets them with glp_set_rii / glp_set_sjj; tests/solve/test_lp_scale.c checks
 * them against glp_scale_prob on random matrices. */
#ifndef BERTH_SOLVE_LP_SCALE_H
#define BERTH_SOLVE_LP_SCALE_H

/* Scale factors of the nrows x ncols matrix given as nz entries (ia[k], ja[k], ar[k]),
 * k = 1..nz, 1-based as glp_load_matrix takes them (zero entries are ignored, as GLPK drops
 * them). Writes r[1..nrows] and s[1..ncols] (the caller's arrays, of nrows + 1 and ncols + 1).
 * Returns 0, or BERTH_ENOMEM. */
int berth__lp_scale(int nrows, int ncols, int nz, const int *ia, const int *ja, const double *ar,
                    double *r, double *s);

#endif
