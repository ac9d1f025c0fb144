/* Progress bars (see progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_start(struct cli_progress *p, const char *label, int quiet)
{
    memset(p, 0, sizeof *p);
    p->label = label;
    p->on = !quiet && isatty(STDERR_FILENO);
    p->t0 = now_s();
    p->last = -1;
}

/* "12.3k", "4.56M" */
static void human(char *b, size_t len, double v)
{
    if (v >= 1e9)
        snprintf(b, len, "%.2fG", v / 1e9);
    else if (v >= 1e6)
        snprintf(b, len, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(b, len, "%.1fk", v / 1e3);
    else
        snprintf(b, len, "%.0f", v);
}

static void clock_text(char *b, size_t len, double s)
{
    if (!(s >= 0) || s > 360000)
        snprintf(b, len, "--:--");
    else if (s >= 3600)
        snprintf(b, len, "%d:%02d:%02d", (int)s / 3600, (int)s / 60 % 60, (int)s % 60);
    else
        snprintf(b, len, "%d:%02d", (int)s / 60, (int)s % 60);
}

void cli_progress_update(void *ctx, double done, double total, const char *unit)
{
    struct cli_progress *p = ctx;
    if (!p->on)
        return;
    double t = now_s();
    if (p->last >= 0 && t - p->last < 0.1 && done < total)
        return;
    p->last = t;
    double f = total > 0 ? done / total : 0, el = t - p->t0;
    if (f > 1)
        f = 1;
    enum { W = 28 };
    char bar[W + 1];
    int full = (int)(f * W + 0.5);
    for (int i = 0; i < W; i++)
        bar[i] = i < full ? '#' : '.';
    bar[W] = '\0';
    char d[16], tt[16], rate[16], eta[16];
    human(d, sizeof d, done);
    human(tt, sizeof tt, total);
    human(rate, sizeof rate, el > 0 ? done / el : 0);
    clock_text(eta, sizeof eta, done > 0 && el > 0.5 ? el * (total - done) / done : -1);
    fprintf(stderr, "\r\033[K%s [%s] %3.0f%% %s/%s %s, %s %s/s, ETA %s", p->label, bar, 100 * f, d,
            tt, unit, rate, unit, eta);
    fflush(stderr);
    p->drawn = 1;
}

void cli_progress_end(struct cli_progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
}
