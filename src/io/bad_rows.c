/* The bad-row accounting every CSV reader and loader shares (trace_int.h): strict errors with
 * FILE:LINE, lenient counts by reason. Its own file so that columns.c and the loaders can use
 * it without calling into trace.c, the format registry that calls them. */
#include <stdio.h>
#include <string.h>

#include "io/trace_int.h"
#include "util/num.h"

static void count_reason(struct berth_load_report *r, uint32_t line, const char *reason, int bad)
{
    r->skipped++;
    size_t i;
    for (i = 0; i < r->nreasons; i++)
        if (r->reasons[i].bad == bad && !strcmp(r->reasons[i].reason, reason))
            break;
    if (i == r->nreasons) {
        if (r->nreasons == BERTH_LOAD_MAX_REASONS) {
            i = BERTH_LOAD_MAX_REASONS - 1;
            snprintf(r->reasons[i].reason, sizeof r->reasons[i].reason, "other reasons");
        } else {
            r->nreasons++;
            snprintf(r->reasons[i].reason, sizeof r->reasons[i].reason, "%s", reason);
            r->reasons[i].count = 0;
            r->reasons[i].first_line = line;
            r->reasons[i].bad = bad;
        }
    }
    r->reasons[i].count++;
}

int berth__load_bad(struct berth__load *L, uint32_t line, const char *column, const char *expected,
                    const char *found, size_t found_len, struct berth_err *err)
{
    char ex[96], reason[160];
    snprintf(reason, sizeof reason, "column %s: expected %s", column, expected);
    if (L->lenient) {
        count_reason(L->rep, line, reason, 1);
        return 0;
    }
    if (!found)
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: %s", L->path, line, reason);
    return berth_err_set(err, BERTH_EINPUT, "%s:%u: %s, found %s", L->path, line, reason,
                         berth__excerpt(ex, sizeof ex, found, found_len));
}

int berth__load_bad_row(struct berth__load *L, uint32_t line, const char *msg,
                        struct berth_err *err)
{
    if (L->lenient) {
        count_reason(L->rep, line, msg, 1);
        return 0;
    }
    return berth_err_set(err, BERTH_EINPUT, "%s:%u: %s", L->path, line, msg);
}

void berth__load_exclude(struct berth__load *L, uint32_t line, const char *reason)
{
    count_reason(L->rep, line, reason, 0);
}
