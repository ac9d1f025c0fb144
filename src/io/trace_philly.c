/* Loader for Microsoft Philly's raw job log (msr-fiddle/philly-traces, cluster_job_log): one
 * JSON array of job objects, 6.6 GB for the real trace, read as a stream.
 *
 * The array is never held whole. A small scanner walks the bytes (tracking strings, escapes
 * and {}/[] depth) to find where each top-level object starts and ends, and only that
 * object is handed to jansson (json_loadb), so memory stays at one object plus a 1 MiB read
 * buffer. A job object looks like
 *
 *   {"status": "Pass", "vc": "6214e9", "jobid": "application_1506638472019_14199",
 *    "submitted_time": "2017-10-07 16:38:08", "user": "...",
 *    "attempts": [{"start_time": "2017-10-07 16:38:09", "end_time": "2017-10-07 16:40:00",
 *                  "detail": [{"ip": "m22", "gpus": ["gpu0", "gpu1"]}]}]}
 *
 * Job spec: id = jobid, user = user, queue = vc, arrival = submitted_time relative to the
 * earliest submitted_time among the jobs loaded (so the first job arrives at 0, as in
 * philly-pollux), num_gpus = GPUs of the first attempt that lists any (sum of len(gpus) over
 * its detail), duration = the sum over attempts of end_time - start_time, counting only the
 * attempts that have both. The sum is the GPU time the job held, retries included: the work
 * a failed attempt threw away occupied the cluster as surely as the last attempt did, and a
 * replay that keeps only the last attempt would under-load the cluster. The span from the
 * first start to the last end is not used either: it counts the waits between attempts,
 * which are queueing the simulator itself decides. status is read by no one (a Killed or
 * Failed job still held its GPUs for the time it ran).
 *
 * Times are zone-less "YYYY-mm-dd HH:MM:SS". A time that is null, "None" or "" is absent.
 * Left out by the format's rules (counted per reason in the load report, never an error):
 * a job whose attempts never started, one still running (its last attempt has no
 * end_time), one whose attempts list no GPUs, and one whose attempts add up to 0 seconds.
 * Line numbers are where the job object starts. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/loaders_sense.h"
#include "io/trace_int.h"
#include "util/num.h"

#define READ_CHUNK       ((size_t)1 << 20)
#define MAX_OBJECT_BYTES ((size_t)1 << 30) /* one job object; the real ones are < 1 MiB */
#define MAX_GPUS_PER_JOB 1000000
#define MAX_RUN_S        INT64_C(1000000000000) /* 10^12 s, as native's time limit */

/* job() returns this when the object was skipped (left out, or bad under --lenient) */
#define JOB_SKIPPED 1

/* ---- the job object ------------------------------------------------------------------- */

/* A bad value in the object: reports it (found = the value as JSON) and returns an error
 * (strict) or JOB_SKIPPED (lenient). */
static int bad(struct berth__load *L, uint32_t line, const char *key, const char *expected,
               const json_t *v, struct berth_err *err)
{
    char *txt = NULL;
    const char *found = "(missing)";
    size_t n = strlen(found);
    if (v && json_is_string(v)) {
        found = json_string_value(v);
        n = json_string_length(v);
    } else if (v && (txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT)) != NULL) {
        found = txt;
        n = strlen(txt);
    }
    int rc = berth__load_bad(L, line, key, expected, found, n, err);
    free(txt);
    return rc ? rc : JOB_SKIPPED;
}

/* A time: 1 and *out (seconds) when present, 0 when absent (missing, null, "None", ""),
 * -1 when it is something else. */
static int get_time(const json_t *o, const char *key, int64_t *out)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (n == 0 || (n == 4 && !memcmp(s, "None", 4)))
        return 0;
    return berth__parse_datetime(s, n, out) ? -1 : 1;
}

/* An optional string: "" when missing or null; -1 when another type, BERTH_ENOMEM. */
static int get_str(struct berth_trace *t, const json_t *o, const char *key, const char **out)
{
    const json_t *v = json_object_get(o, key);
    *out = "";
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    *out = berth__trace_str(t, json_string_value(v), json_string_length(v));
    return *out ? 0 : BERTH_ENOMEM;
}

#define TIME_EXP "a time YYYY-MM-DD HH:MM:SS, null or \"None\""

/* Reads the attempts: *started (some attempt has a start_time), *ended (the last attempt
 * has an end_time), *gpus (of the first attempt with any), *run_s (the sum of end - start
 * over attempts with both). Returns 0, JOB_SKIPPED or an error. */
static int attempts(struct berth__load *L, uint32_t line, const json_t *arr, int *started,
                    int *ended, int64_t *gpus, int64_t *run_s, struct berth_err *err)
{
    *started = *ended = 0;
    *gpus = *run_s = 0;
    size_t na = json_array_size(arr);
    for (size_t a = 0; a < na; a++) {
        const json_t *at = json_array_get(arr, a);
        if (!json_is_object(at))
            return bad(L, line, "attempts[]", "an attempt object", at, err);
        int64_t st = 0, en = 0;
        int hs = get_time(at, "start_time", &st), he = get_time(at, "end_time", &en);
        if (hs < 0)
            return bad(L, line, "attempts[].start_time", TIME_EXP,
                       json_object_get(at, "start_time"), err);
        if (he < 0)
            return bad(L, line, "attempts[].end_time", TIME_EXP, json_object_get(at, "end_time"),
                       err);
        if (hs && he && en < st)
            return bad(L, line, "attempts[].end_time", "a time not before the start_time",
                       json_object_get(at, "end_time"), err);
        *started |= hs;
        *ended = he; /* what counts is the last attempt's */
        if (hs && he)
            *run_s += en - st;
        const json_t *det = json_object_get(at, "detail");
        if (det && !json_is_null(det) && !json_is_array(det))
            return bad(L, line, "attempts[].detail", "an array of {ip, gpus}", det, err);
        int64_t g = 0;
        for (size_t d = 0; d < json_array_size(det); d++) {
            const json_t *m = json_array_get(det, d);
            const json_t *gl = json_is_object(m) ? json_object_get(m, "gpus") : NULL;
            if (!json_is_object(m) || (gl && !json_is_null(gl) && !json_is_array(gl)))
                return bad(L, line, "attempts[].detail[].gpus", "an array of GPU names",
                           json_is_object(m) ? gl : m, err);
            g += (int64_t)json_array_size(gl);
        }
        if (*gpus == 0)
            *gpus = g;
    }
    return 0;
}

/* One job object s[0..n) starting on line: pushed (0), skipped (JOB_SKIPPED) or an error. */
static int job(struct berth__load *L, const char *s, size_t n, uint32_t line, int64_t *origin,
               struct berth_err *err)
{
    json_error_t je;
    json_t *o = json_loadb(s, n, 0, &je);
    if (!o) {
        /* lenient: one reason for all of them, not one per jansson message */
        char msg[260] = "expected a valid JSON job object";
        if (!L->lenient)
            snprintf(msg, sizeof msg, "expected a valid JSON job object, found %s (line %d of it)",
                     je.text, je.line);
        int rc = berth__load_bad_row(L, line, msg, err);
        return rc ? rc : JOB_SKIPPED;
    }
    struct berth_trace *t = L->t;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = line;
    int rc = 0;
    const json_t *id = json_object_get(o, "jobid");
    const json_t *arr = json_object_get(o, "attempts");
    int64_t sub = 0, gpus, run_s;
    int started, ended;
    if (!json_is_string(id) || json_string_length(id) == 0)
        rc = bad(L, line, "jobid", "a non-empty string", id, err);
    else if (get_time(o, "submitted_time", &sub) != 1)
        rc = bad(L, line, "submitted_time", "a time YYYY-MM-DD HH:MM:SS",
                 json_object_get(o, "submitted_time"), err);
    else if (arr && !json_is_null(arr) && !json_is_array(arr))
        rc = bad(L, line, "attempts", "an array of attempts", arr, err);
    else if ((rc = get_str(t, o, "user", &js.x.user)) == -1)
        rc = bad(L, line, "user", "a string", json_object_get(o, "user"), err);
    else if (!rc && (rc = get_str(t, o, "vc", &js.spec.queue)) == -1)
        rc = bad(L, line, "vc", "a string", json_object_get(o, "vc"), err);
    if (!rc)
        rc = attempts(L, line, arr, &started, &ended, &gpus, &run_s, err);
    if (!rc) {
        const char *why = NULL;
        if (!started)
            why = "job never started (no attempt has a start_time)";
        else if (!ended)
            why = "job still running (its last attempt has no end_time)";
        else if (gpus == 0)
            why = "job with no GPUs (no attempt lists any)";
        else if (run_s == 0)
            why = "job ran 0 s (every attempt ends in the second it starts)";
        else if (run_s > MAX_RUN_S)
            rc = bad(L, line, "attempts", "attempts that add up to under 10^12 s", NULL, err);
        else if (gpus > MAX_GPUS_PER_JOB) {
            char b[24];
            int bn = snprintf(b, sizeof b, "%lld", (long long)gpus);
            rc = berth__load_bad(L, line, "attempts[].detail[].gpus", "at most 1000000 GPUs", b,
                                 (size_t)bn, err);
            rc = rc ? rc : JOB_SKIPPED;
        }
        if (why) {
            berth__load_exclude(L, line, why);
            rc = JOB_SKIPPED;
        }
    }
    if (!rc) {
        js.spec.id = berth__trace_str(t, json_string_value(id), json_string_length(id));
        js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)gpus;
        js.spec.duration_us = run_s * BERTH_US_PER_S;
        js.spec.arrival_us = sub; /* absolute seconds until every job is read */
        if (!js.spec.id || berth__trace_push(t, &js))
            rc = BERTH_ENOMEM;
        else if (sub < *origin)
            *origin = sub;
    }
    if (rc == BERTH_ENOMEM)
        rc = berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, line);
    json_decref(o);
    return rc;
}

/* ---- the array scanner ---------------------------------------------------------------- */

struct scan {
    FILE *fp;
    char *buf;
    size_t cap, len; /* buf[0..len) holds data read and not yet dropped */
    int eof;
    const struct berth__load *L; /* its progress is told the bytes read */
    double size, done;
};

/* Drops buf[0..keep_from) and reads more. Returns 1 (more data), 0 (end of file), or an
 * error. */
static int refill(struct scan *s, size_t keep_from, const char *path, struct berth_err *err)
{
    if (s->eof)
        return 0;
    memmove(s->buf, s->buf + keep_from, s->len - keep_from);
    s->len -= keep_from;
    if (s->cap - s->len < READ_CHUNK / 2) {
        if (s->cap >= MAX_OBJECT_BYTES)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s: expected job objects under 1 GiB, found a larger one", path);
        char *nb = realloc(s->buf, s->cap * 2);
        if (!nb)
            return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
        s->buf = nb;
        s->cap *= 2;
    }
    size_t got = fread(s->buf + s->len, 1, s->cap - s->len, s->fp);
    if (got == 0) {
        if (ferror(s->fp))
            return berth_err_set(err, BERTH_EIO, "%s: read error", path);
        s->eof = 1;
        return 0;
    }
    s->len += got;
    s->done += (double)got;
    if (s->L->progress)
        s->L->progress(s->L->progress_ctx, s->done, s->size > s->done ? s->size : s->done, "bytes");
    return 1;
}

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static const char *found_char(char *b, size_t n, const struct scan *s, size_t i)
{
    if (i >= s->len)
        return "the end of the file";
    unsigned char c = (unsigned char)s->buf[i];
    snprintf(b, n, (c >= 32 && c < 127) ? "'%c'" : "byte 0x%02x", c);
    return b;
}

int berth__load_philly(struct berth__load *L, struct berth_err *err)
{
    struct scan s = {fopen(L->path, "rb"), NULL, READ_CHUNK, 0, 0, L, 0, 0};
    if (!s.fp)
        return berth_err_set(err, BERTH_EIO, "%s: cannot open the trace", L->path);
    struct stat st;
    if (!fstat(fileno(s.fp), &st))
        s.size = (double)st.st_size;
    s.buf = malloc(s.cap);
    if (!s.buf) {
        fclose(s.fp);
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", L->path);
    }
    int64_t origin = INT64_MAX;
    uint32_t line = 1;
    size_t i = 0;
    /* where we are: 0 before '[', 1 a job or ']' may come, 2 after a job (',' or ']'),
     * 3 after ',' (a job must come), 4 after ']' */
    int where = 0, rc = 0;
    char fb[16];
    for (;;) {
        if (i >= s.len) {
            rc = refill(&s, i, L->path, err);
            i = 0;
            if (rc <= 0)
                break;
        }
        unsigned char c = (unsigned char)s.buf[i];
        if (c == '\n')
            line++;
        if (is_ws(c)) {
            i++;
            continue;
        }
        if (where == 0 && line == 1 && c == 0xEF && s.len - i >= 3 &&
            !memcmp(s.buf + i, "\xEF\xBB\xBF", 3)) {
            i += 3; /* UTF-8 byte-order mark */
            continue;
        }
        if (where == 0 && c == '[') {
            where = 1;
        } else if ((where == 1 || where == 2) && c == ']') {
            where = 4;
        } else if (where == 2 && c == ',') {
            where = 3;
        } else if ((where == 1 || where == 3) && c == '{') {
            /* one job object: scan to its closing brace, refilling as needed */
            uint32_t start_line = line;
            size_t start = i, j = i + 1;
            int depth = 1, in_str = 0, esc = 0;
            while (depth > 0) {
                if (j >= s.len) {
                    rc = refill(&s, start, L->path, err);
                    j -= start;
                    start = 0;
                    if (rc < 0)
                        goto done;
                    if (rc == 0) {
                        rc = berth_err_set(err, BERTH_EINPUT,
                                           "%s:%u: expected the job object starting here to "
                                           "end with '}', found the end of the file",
                                           L->path, start_line);
                        goto done;
                    }
                    continue;
                }
                const char *p = s.buf + j, *e = s.buf + s.len;
                if (in_str && !esc) {
                    /* the fast path: plain string bytes */
                    while (p < e && *p != '"' && *p != '\\' && *p != '\n')
                        p++;
                    if (p == e) {
                        j = s.len;
                        continue;
                    }
                }
                c = (unsigned char)*p;
                j = (size_t)(p - s.buf) + 1;
                if (c == '\n')
                    line++;
                if (in_str) {
                    if (esc)
                        esc = 0;
                    else if (c == '\\')
                        esc = 1;
                    else if (c == '"')
                        in_str = 0;
                } else if (c == '"') {
                    in_str = 1;
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    depth--;
                }
            }
            L->rep->rows++;
            rc = job(L, s.buf + start, j - start, start_line, &origin, err);
            if (rc < 0)
                goto done;
            rc = 0;
            i = j;
            where = 2;
            continue;
        } else {
            static const char *const want[] = {"'[' (a JSON array of job objects)",
                                               "a job object '{' or ']'", "',' or ']'",
                                               "a job object '{'", "nothing after the array"};
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: expected %s, found %s", L->path, line,
                               want[where], found_char(fb, sizeof fb, &s, i));
            goto done;
        }
        i++;
    }
    if (!rc && where != 4)
        rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: expected %s, found the end of the file",
                           L->path, line,
                           where == 0 ? "'[' (a JSON array of job objects)"
                                      : "']' closing the "
                                        "array");
done:
    free(s.buf);
    fclose(s.fp);
    if (rc)
        return rc;
    struct berth_trace *t = L->t;
    for (size_t k = 0; k < t->n; k++)
        t->jobs[k].arrival_us = (t->jobs[k].arrival_us - origin) * BERTH_US_PER_S;
    return 0;
}
