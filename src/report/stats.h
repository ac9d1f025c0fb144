/* The statistics of sweeps and tournaments: means, 95 % confidence intervals by Student's t,
 * paired t-tests between policies run on the same seeds, and Holm's correction for testing
 * several policies against one. Student's t comes from the regularised incomplete beta
 * function (a continued fraction, as in Numerical Recipes), so nothing beyond libm. */
#ifndef BERTH_REPORT_STATS_H
#define BERTH_REPORT_STATS_H

#include <stddef.h>

double berth__mean(const double *v, size_t n);
/* The sample standard deviation (n - 1 in the denominator); 0 when n < 2 or the values are
 * all equal. */
double berth__sd(const double *v, size_t n);
/* P(T <= t) for Student's t with df degrees of freedom. */
double berth__t_cdf(double t, double df);
/* The t with P(T <= t) = p, 0 < p < 1. */
double berth__t_quantile(double p, double df);
/* The half-width of the 95 % confidence interval of the mean: t(0.975, n-1) sd / sqrt(n);
 * NaN when n < 2. */
double berth__ci95(const double *v, size_t n);
/* Two-sided p-value of the paired t-test of a against b (n pairs). Differences that are all
 * equal: 1 when they are 0, else 0 (no variance: the difference is exact). NaN when n < 2
 * and the one difference is not 0. */
double berth__paired_p(const double *a, const double *b, size_t n);
/* Holm's step-down adjustment of n p-values (NaN ones are left NaN and not counted). */
void berth__holm(const double *p, size_t n, double *adj);

#endif
