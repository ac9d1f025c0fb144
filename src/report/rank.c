/* The tournament (berth compare): policies ranked on one metric over the same seeds, each
 * tested against the best by a paired t-test with Holm's correction, and a recommendation
 * with its reason (see berth/report.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_load.h"
#include "report/html.h"
#include "report/metric.h"
#include "report/rank.h"
#include "report/stats.h"
#include "report/table.h"

/* how close to the best a policy must be to win on fewer disruptions */
#define BERTH_RANK_NEAR_PCT 5.0

/* the group's values of metric k, one per seed (its rows, all ok) */
static void values(const struct berth_sweep_table *t, const struct berth__sweep_group *g, size_t k,
                   double *out)
{
    for (size_t i = 0; i < g->n; i++)
        out[i] = t->rows[g->first + i].m[k];
}

/* ranked ones first, by mean (lower first, or higher first), then by name */
static int cmp_entry(const struct berth__rank_entry *x, const struct berth__rank_entry *y,
                     int higher)
{
    if (x->ok != y->ok)
        return x->ok ? -1 : 1;
    if (x->ok && x->mean != y->mean)
        return (higher ? x->mean > y->mean : x->mean < y->mean) ? -1 : 1;
    return strcmp(x->policy, y->policy);
}

static int cmp_lower(const void *a, const void *b)
{
    return cmp_entry(a, b, 0);
}

static int cmp_higher(const void *a, const void *b)
{
    return cmp_entry(a, b, 1);
}

static void fmt_disrupt(char *b, size_t len, double v)
{
    berth__fmt_num(b, len, v, v < 10 && v != floor(v) ? 1 : 0); /* a mean: 0, 0.3, 12 */
}

/* Why the winner: one sentence or two. */
static void explain(struct berth_ranking *r, size_t win, size_t ntied)
{
    const struct berth__rank_entry *best = &r->e[0], *w = &r->e[win];
    const char *word = r->m->higher_better ? "highest" : "lowest";
    char mv[48], ci[48];
    berth__fmt_metric(mv, sizeof mv, r->m, best->mean);
    if (!isnan(best->ci)) {
        char c[40];
        berth__fmt_metric(c, sizeof c, r->m, best->ci);
        snprintf(ci, sizeof ci, " ± %s", c);
    } else {
        ci[0] = '\0';
    }
    if (r->nok == 1) {
        snprintf(r->reason, sizeof r->reason,
                 "%s is the only policy that ran on this trace and cluster (%s %s%s).",
                 best->policy, r->m->name, mv, ci);
        return;
    }
    const struct berth__rank_entry *second = &r->e[1];
    char dv[32];
    snprintf(dv, sizeof dv, "%.1f %%", fabs(second->delta_pct));
    if (r->seeds < 2) {
        snprintf(r->reason, sizeof r->reason,
                 "%s has the %s %s (%s), %s %s than %s; with one seed no difference can be "
                 "called significant (run more seeds).",
                 best->policy, word, r->m->name, mv, dv, r->m->higher_better ? "higher" : "lower",
                 second->policy);
        return;
    }
    if (ntied == 1) {
        snprintf(r->reason, sizeof r->reason,
                 "%s has the %s mean %s over %zu seeds (%s%s); every other policy is "
                 "significantly worse (%s, Holm-corrected, alpha %.2g); the runner-up, %s, is "
                 "%s worse (p = %.3g).",
                 best->policy, word, r->m->name, r->seeds, mv, ci,
                 r->exact ? "the runs do not vary with the seed: the differences are exact"
                          : "paired t-test over the seeds",
                 r->alpha, second->policy, dv, second->p_adj);
        return;
    }
    /* several are not significantly apart */
    const struct berth__rank_entry *close = NULL; /* the closest of the others */
    for (size_t i = 1; i < r->nok && !close; i++)
        if (r->e[i].tied)
            close = &r->e[i];
    char pc[32], dc[32];
    snprintf(pc, sizeof pc, "%.3g", close ? close->p_adj : NAN);
    snprintf(dc, sizeof dc, "%.1f %%", close ? fabs(close->delta_pct) : 0.0);
    const char *more = r->seeds < 10 ? " More seeds (--seeds) would tell them apart." : "";
    if (win == 0) {
        snprintf(r->reason, sizeof r->reason,
                 "%s has the %s mean %s over %zu seeds (%s%s); %zu other polic%s not "
                 "significantly worse (paired t-test, Holm-corrected, alpha %.2g), the closest, "
                 "%s, by %s (p = %s), but none is within %g %% of it and disrupts jobs less.%s",
                 best->policy, word, r->m->name, r->seeds, mv, ci, ntied - 1,
                 ntied == 2 ? "y is" : "ies are", r->alpha, close ? close->policy : "-", dc, pc,
                 BERTH_RANK_NEAR_PCT, more);
        return;
    }
    char d1[32], d2[32], dw[32];
    fmt_disrupt(d1, sizeof d1, w->disrupt);
    fmt_disrupt(d2, sizeof d2, best->disrupt);
    snprintf(dw, sizeof dw, "%.1f %%", fabs(w->delta_pct));
    snprintf(r->reason, sizeof r->reason,
             "%s is within %s of the best %s (%s, %s%s over %zu seeds) and not significantly "
             "worse (paired t-test, Holm-corrected, alpha %.2g, p = %.3g), and it disrupts jobs "
             "least of the policies that close (%s preemptions, migrations and resizes per run, "
             "against %s for %s).%s",
             w->policy, dw, r->m->name, best->policy, mv, ci, r->seeds, r->alpha, w->p_adj, d1, d2,
             best->policy, more);
}

int berth_compare_rank(const struct berth_sweep_table *t, int metric, double alpha,
                       struct berth_ranking **out, struct berth_err *err)
{
    *out = NULL;
    if (metric < 0 || (size_t)metric >= berth_metric_count())
        return berth_err_set(err, BERTH_EINPUT, "compare: no such metric");
    struct berth_ranking *r = calloc(1, sizeof *r);
    size_t n = t->ngroups, seeds = n ? t->groups[0].n : 0;
    double *best = malloc((seeds + 1) * sizeof *best), *v = malloc((seeds + 1) * sizeof *v);
    double *p = calloc(n + 1, sizeof *p), *adj = calloc(n + 1, sizeof *adj);
    if (!r || !best || !v || !p || !adj || !(r->e = calloc(n + 1, sizeof *r->e))) {
        free(best), free(v), free(p), free(adj);
        berth_ranking_free(r);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    r->m = berth_metric((size_t)metric);
    r->alpha = alpha;
    r->seeds = seeds;
    r->n = n;
    size_t k = (size_t)metric, kp = 10, km = 11, kr = 12; /* preemptions, migrations, resizes */
    r->exact = seeds >= 2;
    for (size_t i = 0; i < n; i++) {
        const struct berth__sweep_group *g = &t->groups[i];
        struct berth__rank_entry *e = &r->e[i];
        e->policy = g->policy;
        e->group = g;
        e->ok = g->nok == g->n && g->n > 0;
        e->p = e->p_adj = e->delta_pct = NAN;
        if (!e->ok) {
            for (size_t j = g->first; j < g->first + g->n; j++)
                if (!t->rows[j].ok) {
                    snprintf(e->why, sizeof e->why, "%s", t->rows[j].why);
                    break;
                }
            continue;
        }
        r->nok++;
        e->mean = g->mean[k];
        e->ci = g->ci[k];
        e->disrupt = g->mean[kp] + g->mean[km] + g->mean[kr];
        r->exact &= g->ci[k] == 0;
    }
    qsort(r->e, n, sizeof *r->e, r->m->higher_better ? cmp_higher : cmp_lower);
    if (r->nok) {
        values(t, r->e[0].group, k, best);
        for (size_t e = 1; e < r->nok; e++) {
            values(t, r->e[e].group, k, v);
            p[e - 1] = r->e[e].p = berth__paired_p(best, v, seeds);
            r->e[e].delta_pct =
                r->e[0].mean != 0 ? 100 * (r->e[e].mean - r->e[0].mean) / fabs(r->e[0].mean) : NAN;
        }
        berth__holm(p, r->nok - 1, adj);
        /* the tied: the best and those not significantly worse (none with one seed) */
        size_t ntied = 1, win = 0;
        for (size_t e = 1; e < r->nok; e++) {
            r->e[e].p_adj = adj[e - 1];
            r->e[e].significant = !isnan(adj[e - 1]) && adj[e - 1] < alpha;
            r->e[e].tied = seeds >= 2 && !r->e[e].significant;
            ntied += r->e[e].tied;
        }
        r->e[0].tied = 1;
        /* the least disruptive of those that are not significantly worse and within
         * BERTH_RANK_NEAR_PCT of the best's mean (no policy a lot worse on average is
         * recommended because the seeds were too few to tell), else the best */
        for (size_t e = 1; e < r->nok; e++)
            if (r->e[e].tied && fabs(r->e[e].delta_pct) <= BERTH_RANK_NEAR_PCT &&
                r->e[e].disrupt < r->e[win].disrupt)
                win = e;
        snprintf(r->winner, sizeof r->winner, "%s", r->e[win].policy);
        explain(r, win, ntied);
    } else {
        snprintf(r->reason, sizeof r->reason,
                 "no policy ran on this trace and cluster: see why each is not applicable");
    }
    free(best), free(v), free(p), free(adj);
    *out = r;
    return 0;
}

void berth_ranking_free(struct berth_ranking *r)
{
    if (!r)
        return;
    free(r->e);
    free(r);
}

const char *berth_ranking_winner(const struct berth_ranking *r)
{
    return r->winner;
}

const char *berth_ranking_reason(const struct berth_ranking *r)
{
    return r->reason;
}

static void p_text(char *b, size_t len, const struct berth__rank_entry *e)
{
    if (isnan(e->p_adj))
        snprintf(b, len, "-");
    else
        snprintf(b, len, "%.3g%s", e->p_adj, e->significant ? " *" : "");
}

int berth_ranking_print(const struct berth_ranking *r, FILE *f)
{
    fprintf(f, "%-4s  %-20s  %-28s  %9s  %-10s  %s\n", "rank", "policy", r->m->name, "vs best",
            "p (Holm)", "disruptions/run");
    for (size_t i = 0; i < r->nok; i++) {
        const struct berth__rank_entry *e = &r->e[i];
        char mv[48], ci[48], cell[100], d[32], pv[32], ds[32];
        berth__fmt_metric(mv, sizeof mv, r->m, e->mean);
        if (isnan(e->ci))
            snprintf(cell, sizeof cell, "%s", mv);
        else {
            berth__fmt_metric(ci, sizeof ci, r->m, e->ci);
            snprintf(cell, sizeof cell, "%s ± %s", mv, ci);
        }
        if (i == 0 || isnan(e->delta_pct))
            snprintf(d, sizeof d, "-");
        else
            snprintf(d, sizeof d, "%+.1f %%", e->delta_pct);
        p_text(pv, sizeof pv, e);
        fmt_disrupt(ds, sizeof ds, e->disrupt);
        fprintf(f, "%4zu  %-20s  %-28s  %9s  %-10s  %s%s\n", i + 1, e->policy, cell, d, pv, ds,
                !strcmp(e->policy, r->winner) ? "   <- recommended" : "");
    }
    for (size_t i = r->nok; i < r->n; i++)
        fprintf(f, "   -  %-20s  not applicable: %s\n", r->e[i].policy, r->e[i].why);
    fprintf(f,
            "\n* significantly worse than the best (paired t-test over %zu seeds, Holm, alpha "
            "%.2g)\n",
            r->seeds, r->alpha);
    if (r->winner[0])
        fprintf(f, "\nRecommendation: %s\n  %s\n", r->winner, r->reason);
    else
        fprintf(f, "\nNo recommendation: %s\n", r->reason);
    return ferror(f) ? -1 : 0;
}

static json_t *num(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

char *berth_ranking_json(const struct berth_ranking *r)
{
    json_t *rank = json_array(), *na = json_array();
    int bad = !rank || !na;
    for (size_t i = 0; !bad && i < r->nok; i++) {
        const struct berth__rank_entry *e = &r->e[i];
        bad |= json_array_append_new(
            rank,
            json_pack("{s:I,s:s,s:o,s:o,s:o,s:o,s:o,s:b,s:o}", "rank", (json_int_t)i + 1, "policy",
                      e->policy, "mean", num(e->mean), "ci95", num(e->ci), "delta_pct",
                      num(i ? e->delta_pct : NAN), "p", num(e->p), "p_holm", num(e->p_adj),
                      "significant", e->significant, "disruptions", num(e->disrupt)));
    }
    for (size_t i = r->nok; !bad && i < r->n; i++)
        bad |= json_array_append_new(
            na, json_pack("{s:s,s:s}", "policy", r->e[i].policy, "reason", r->e[i].why));
    json_t *o = bad ? NULL
                    : json_pack("{s:s,s:s,s:b,s:I,s:f,s:b,s:o,s:o,s:s?,s:s}", "metric",
                                r->m->option, "key", r->m->key, "higher_better",
                                r->m->higher_better, "seeds", (json_int_t)r->seeds, "alpha",
                                r->alpha, "exact", r->exact, "ranking", rank, "not_applicable", na,
                                "winner", r->winner[0] ? r->winner : NULL, "reason", r->reason);
    if (!o) {
        if (bad) {
            json_decref(rank);
            json_decref(na);
        }
        return NULL;
    }
    char *s = berth__json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(o);
    return s;
}

void berth__ranking_html(struct berth__svg *s, const struct berth_ranking *r)
{
    berth__svg_printf(s, "<h2 id=\"ranking\">Ranking on ");
    berth__svg_escape(s, r->m->name);
    berth__svg_printf(s, "</h2>\n<div class=\"rec\" id=\"recommendation\"><b>");
    berth__svg_escape(s, r->winner[0] ? "Recommendation: " : "No recommendation");
    berth__svg_escape(s, r->winner);
    berth__svg_printf(s, "</b><br>");
    berth__svg_escape(s, r->reason);
    berth__svg_printf(s, "</div>\n<table id=\"ranking-table\">\n<tr><th>rank</th><th "
                         "class=\"l\">policy</th><th>");
    berth__svg_escape(s, r->m->name);
    berth__svg_printf(s, " (mean ± 95 %% CI)</th><th>vs best</th><th>p (Holm)</th><th>"
                         "disruptions per run</th></tr>\n");
    for (size_t i = 0; i < r->n; i++) {
        const struct berth__rank_entry *e = &r->e[i];
        berth__svg_printf(s, "<tr%s><td>",
                          e->ok && !strcmp(e->policy, r->winner) ? " class=\"best\"" : "");
        if (e->ok)
            berth__svg_printf(s, "%zu", i + 1);
        else
            berth__svg_printf(s, "-");
        berth__svg_printf(s, "</td><td class=\"l\">");
        berth__svg_escape(s, e->policy);
        berth__svg_printf(s, "</td>");
        if (!e->ok) {
            berth__svg_printf(s, "<td class=\"l\" colspan=\"4\">not applicable: ");
            berth__svg_escape(s, e->why);
            berth__svg_printf(s, "</td></tr>\n");
            continue;
        }
        char mv[48], ci[48], cell[100], d[32], pv[32], ds[32];
        berth__fmt_metric(mv, sizeof mv, r->m, e->mean);
        berth__fmt_metric(ci, sizeof ci, r->m, e->ci);
        snprintf(cell, sizeof cell, isnan(e->ci) ? "%s" : "%s ± %s", mv, ci);
        snprintf(d, sizeof d, i == 0 || isnan(e->delta_pct) ? "-" : "%+.1f %%", e->delta_pct);
        p_text(pv, sizeof pv, e);
        fmt_disrupt(ds, sizeof ds, e->disrupt);
        const char *cells[] = {cell, d, pv, ds};
        for (int c = 0; c < 4; c++) {
            berth__svg_printf(s, "<td>");
            berth__svg_escape(s, cells[c]);
            berth__svg_printf(s, "</td>");
        }
        berth__svg_printf(s, "</tr>\n");
    }
    berth__svg_printf(s,
                      "</table>\n<p>* significantly worse than the best: paired t-test over "
                      "the %zu seeds, Holm-corrected, alpha %.2g.</p>\n",
                      r->seeds, r->alpha);
}
