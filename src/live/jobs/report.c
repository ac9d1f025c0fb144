/* Progress reports (see report.h). A job with total_steps has its work in steps: done is
 * the last step reported and rate the steps per microsecond between its last two reports.
 * Any other job runs at fixed speed: one microsecond of its estimate per microsecond run,
 * as in the simulator. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/jobs/report.h"

int berth__report_parse(const json_t *o, struct berth__report *r, struct berth_err *err)
{
    if (!json_is_object(o))
        return berth_err_set(err, BERTH_EINPUT, "body: expected a JSON object");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        if (strcmp(k, "step") && strcmp(k, "metric") && strcmp(k, "time"))
            return berth_err_set(err, BERTH_EINPUT, "%.64s: unknown field", k);
    }
    const json_t *s = json_object_get(o, "step"), *m = json_object_get(o, "metric"),
                 *t = json_object_get(o, "time");
    if (!s)
        return berth_err_set(err, BERTH_EINPUT, "step: required (a whole number >= 0)");
    if (!json_is_integer(s) || json_integer_value(s) < 0)
        return berth_err_set(err, BERTH_EINPUT, "step: expected a whole number >= 0");
    if (m && !json_is_null(m) && (!json_is_number(m) || !isfinite(json_number_value(m))))
        return berth_err_set(err, BERTH_EINPUT, "metric: expected a finite number");
    if (t && (!json_is_number(t) || !(json_number_value(t) > 0) || json_number_value(t) > 1e11))
        return berth_err_set(err, BERTH_EINPUT, "time: expected unix seconds > 0");
    r->step = json_integer_value(s);
    r->has_metric = m && json_is_number(m);
    r->metric = r->has_metric ? json_number_value(m) : 0;
    r->t = t ? (berth_us)(json_number_value(t) * 1e6) : 0;
    return 0;
}

void berth__report_apply(struct berth__ljob *lj, struct berth__job *ej,
                         const struct berth__report *r, berth_us now)
{
    berth_us t = r->t ? r->t : now;
    lj->prev_step = lj->step;
    lj->prev_at = lj->step_at;
    lj->step = r->step;
    lj->step_at = t;
    if (r->has_metric) {
        lj->metric = r->metric;
        lj->has_metric = 1;
    }
    if (!ej || lj->spec.total_steps <= 0)
        return;
    double done = (double)r->step < ej->work ? (double)r->step : ej->work;
    if (lj->prev_at && t > lj->prev_at && r->step >= lj->prev_step)
        ej->rate = (double)(r->step - lj->prev_step) / (double)(t - lj->prev_at);
    ej->done = done;
    ej->progress_at = now;
    if (ej->state != BERTH_JOB_RUNNING)
        ej->rate = 0;
}

void berth__report_started(struct berth__ljob *lj, struct berth__job *ej, berth_us now)
{
    ej->progress_at = now;
    if (lj->spec.total_steps > 0)
        ej->rate = lj->prev_at && lj->step_at > lj->prev_at
                       ? (double)(lj->step - lj->prev_step) / (double)(lj->step_at - lj->prev_at)
                       : 0;
    else
        ej->rate = 1.0;
}

void berth__report_stopped(struct berth__job *ej, berth_us now)
{
    ej->done = berth__job_done(ej, now);
    ej->rate = 0;
    ej->progress_at = now;
}

static void scan_note(struct berth__report_scan *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void scan_note(struct berth__report_scan *s, const char *fmt, ...)
{
    if (s->nnotes >= sizeof s->notes - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->notes + s->nnotes, sizeof s->notes - s->nnotes, fmt, ap);
    va_end(ap);
    s->nnotes += n > 0 ? (size_t)n : 0;
    if (s->nnotes >= sizeof s->notes)
        s->nnotes = sizeof s->notes - 1;
}

static void scan_line(struct berth__report_scan *s, const char *path, char *line)
{
    s->line++;
    while (*line == ' ' || *line == '\t' || *line == '\r')
        line++;
    if (!*line)
        return;
    json_error_t je;
    json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &je);
    struct berth__report r;
    struct berth_err err = {0};
    if (!o) {
        scan_note(s, "berthd: %s:%u:%d: malformed progress line skipped: %s\n", path, s->line,
                  je.column, je.text);
        return;
    }
    int rc = berth__report_parse(o, &r, &err);
    json_decref(o);
    if (rc) {
        scan_note(s, "berthd: %s:%u: progress line skipped: %s\n", path, s->line, err.msg);
        return;
    }
    if (s->nlast == 2) {
        s->last[0] = s->last[1];
        s->nlast = 1;
    }
    s->last[s->nlast++] = r;
    s->good++;
}

void berth__report_scan(int fd, const char *path, size_t budget, struct berth__report_scan *s)
{
    static char buf[BERTH_REPORT_LINE_MAX + 1]; /* the loop's thread alone scans */
    size_t used_budget = 0;
    while (used_budget < budget) {
        ssize_t n = pread(fd, buf, BERTH_REPORT_LINE_MAX, (off_t)s->off);
        if (n <= 0)
            break;
        used_budget += (size_t)n;
        buf[n] = '\0';
        char *p = buf, *end = buf + n, *nl;
        if (s->skipping) { /* the rest of a line too long to keep */
            nl = memchr(p, '\n', (size_t)n);
            if (!nl) {
                s->off += (uint64_t)n;
                continue;
            }
            s->off += (uint64_t)(nl + 1 - p);
            s->skipping = 0;
            s->line++;
            scan_note(s, "berthd: %s:%u: progress line longer than %d bytes, skipped\n", path,
                      s->line, BERTH_REPORT_LINE_MAX);
            continue;
        }
        size_t used = 0;
        while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
            *nl = '\0';
            scan_line(s, path, p);
            used += (size_t)(nl + 1 - p);
            p = nl + 1;
        }
        s->off += used;
        if (!used) {
            if (n < BERTH_REPORT_LINE_MAX)
                break;       /* a partial last line: wait for its end */
            s->skipping = 1; /* a whole buffer without a newline */
            s->off += (uint64_t)n;
        }
    }
}

void berth__report_scan_apply(const struct berth__report_scan *s, struct berth__ljob *lj,
                              struct berth__job *ej, berth_us now, FILE *log)
{
    for (int i = 0; i < s->nlast; i++)
        berth__report_apply(lj, ej, &s->last[i], now);
    lj->prog_off = s->off;
    lj->prog_line = s->line;
    lj->prog_skipping = (uint8_t)s->skipping;
    if (log && s->nnotes)
        fwrite(s->notes, 1, s->nnotes, log);
}

int berth__report_tail(const char *path, struct berth__ljob *lj, struct berth__job *ej,
                       berth_us now, FILE *log)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    struct berth__report_scan s = {
        .off = lj->prog_off, .line = lj->prog_line, .skipping = lj->prog_skipping};
    berth__report_scan(fd, path, SIZE_MAX, &s);
    close(fd);
    berth__report_scan_apply(&s, lj, ej, now, log);
    return s.good;
}
