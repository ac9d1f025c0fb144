/* Means, confidence intervals and tests (see stats.h). */
#include <math.h>
#include <stdlib.h>

#include "report/stats.h"

double berth__mean(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return n ? s / (double)n : NAN;
}

double berth__sd(const double *v, size_t n)
{
    if (n < 2)
        return 0;
    size_t same = 1;
    while (same < n && v[same] == v[0])
        same++;
    if (same == n) /* exactly equal: no rounding noise */
        return 0;
    double m = berth__mean(v, n), s = 0;
    for (size_t i = 0; i < n; i++)
        s += (v[i] - m) * (v[i] - m);
    return sqrt(s / (double)(n - 1));
}

/* One step of Lentz's method with coefficient aa: updates c and d, returns their product (the
 * factor the fraction's value takes). */
static double lentz_step(double aa, double *c, double *d)
{
    const double tiny = 1e-300;
    *d = 1 + aa * *d;
    if (fabs(*d) < tiny)
        *d = tiny;
    *c = 1 + aa / *c;
    if (fabs(*c) < tiny)
        *c = tiny;
    *d = 1 / *d;
    return *d * *c;
}

/* The continued fraction of the incomplete beta function (Lentz's method). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        int m2 = 2 * m;
        h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
        double del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

/* I_x(a, b), the regularised incomplete beta function. */
static double ibeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
    if (x < (a + 1) / (a + b + 2))
        return bt * betacf(a, b, x) / a;
    return 1 - bt * betacf(b, a, 1 - x) / b;
}

double berth__t_cdf(double t, double df)
{
    double x = df / (df + t * t);
    double tail = 0.5 * ibeta(df / 2, 0.5, x); /* P(T > |t|) */
    return t >= 0 ? 1 - tail : tail;
}

double berth__t_quantile(double p, double df)
{
    double lo = -1e3, hi = 1e3;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (berth__t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

double berth__ci95(const double *v, size_t n)
{
    if (n < 2)
        return NAN;
    return berth__t_quantile(0.975, (double)(n - 1)) * berth__sd(v, n) / sqrt((double)n);
}

double berth__paired_p(const double *a, const double *b, size_t n)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!d)
        return NAN;
    int same = 1;
    for (size_t i = 0; i < n; i++) {
        d[i] = a[i] - b[i];
        same &= fabs(d[i] - d[0]) <= 1e-12 * (fabs(d[0]) + fabs(a[i]) + 1e-300);
    }
    double p;
    int zero = n && fabs(d[0]) <= 1e-12 * (fabs(a[0]) + fabs(b[0]) + 1e-300);
    if (n == 0)
        p = NAN;
    else if (same)
        p = zero ? 1 : n >= 2 ? 0 : NAN;
    else {
        double m = berth__mean(d, n), sd = berth__sd(d, n);
        double t = m / (sd / sqrt((double)n));
        p = 2 * (1 - berth__t_cdf(fabs(t), (double)(n - 1)));
        if (p > 1)
            p = 1;
    }
    free(d);
    return p;
}

void berth__holm(const double *p, size_t n, double *adj)
{
    /* sort the valid p-values' indices ascending (n is small: the policies) */
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), m = 0;
    if (!idx) {
        for (size_t i = 0; i < n; i++)
            adj[i] = NAN;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        adj[i] = NAN;
        if (!isnan(p[i]))
            idx[m++] = i;
    }
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    double run = 0;
    for (size_t k = 0; k < m; k++) {
        double v = (double)(m - k) * p[idx[k]];
        if (v > 1)
            v = 1;
        if (v < run)
            v = run;
        run = v;
        adj[idx[k]] = v;
    }
    free(idx);
}
