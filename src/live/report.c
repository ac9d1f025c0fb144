/* Progress reports (see report.h). A job with total_steps has its work in steps: done is
 * the last step reported and rate the steps per microsecond between its last two reports.
 * Any other job runs at fixed speed: one microsecond of its estimate per microsecond run,
 * as in the simulator. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

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

void berth__report_apply(struct berth__ljob *lj, struct berth_job *ej,
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

void berth__report_started(struct berth__ljob *lj, struct berth_job *ej, berth_us now)
{
    ej->progress_at = now;
    if (lj->spec.total_steps > 0)
        ej->rate = lj->prev_at && lj->step_at > lj->prev_at
                       ? (double)(lj->step - lj->prev_step) / (double)(lj->step_at - lj->prev_at)
                       : 0;
    else
        ej->rate = 1.0;
}

void berth__report_stopped(struct berth_job *ej, berth_us now)
{
    ej->done = berth__job_done(ej, now);
    ej->rate = 0;
    ej->progress_at = now;
}

static int apply_line(const char *path, char *line, struct berth__ljob *lj, struct berth_job *ej,
                      berth_us now, FILE *log)
{
    lj->prog_line++;
    while (*line == ' ' || *line == '\t' || *line == '\r')
        line++;
    if (!*line)
        return 0;
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    struct berth__report r;
    struct berth_err err = {0};
    if (!o) {
        if (log)
            fprintf(log, "berthd: %s:%u:%d: malformed progress line skipped: %s\n", path,
                    lj->prog_line, je.column, je.text);
        return 0;
    }
    int rc = berth__report_parse(o, &r, &err);
    json_decref(o);
    if (rc) {
        if (log)
            fprintf(log, "berthd: %s:%u: progress line skipped: %s\n", path, lj->prog_line,
                    err.msg);
        return 0;
    }
    berth__report_apply(lj, ej, &r, now);
    return 1;
}

int berth__report_tail(const char *path, struct berth__ljob *lj, struct berth_job *ej, berth_us now,
                       FILE *log)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int applied = 0;
    char buf[65536];
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf - 1, (off_t)lj->prog_off);
        if (n <= 0)
            break;
        buf[n] = '\0';
        char *p = buf, *nl;
        size_t used = 0;
        while ((nl = memchr(p, '\n', (size_t)(buf + n - p)))) {
            *nl = '\0';
            applied += apply_line(path, p, lj, ej, now, log);
            used += (size_t)(nl + 1 - p);
            p = nl + 1;
        }
        if (!used) { /* a line longer than the buffer: skip it whole */
            if ((size_t)n < sizeof buf - 1)
                break; /* a partial last line: wait for its end */
            lj->prog_line++;
            if (log)
                fprintf(log, "berthd: %s:%u: progress line too long, skipped\n", path,
                        lj->prog_line);
            char c;
            off_t o = (off_t)lj->prog_off + n;
            while (pread(fd, &c, 1, o) == 1 && c != '\n')
                o++;
            lj->prog_off = (uint64_t)o + 1;
            continue;
        }
        lj->prog_off += used;
    }
    close(fd);
    return applied;
}
