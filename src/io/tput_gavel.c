/* Loader for Gavel's throughput table (stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json) into a throughput model (model/tput.h).
 *
 *   {"v100": {"('ResNet-50 (batch size 64)', 1)": {"null": 4.39,
 *                                                  "('A3C', 1)": [own, partner], ...}, ...},
 *    "v100_unconsolidated": {...}, "k80": {...}, ...}
 *
 * A top-level key is a GPU type; "X_unconsolidated" holds type X's rates for gangs spread
 * over servers. A job key is Python's repr of (job type, scale factor): the job type is the
 * class name, exactly, and the scale factor the gang size. "null" is the job's rate alone
 * (steps/s); 0.0 is Gavel's "does not run" (K80 ResNet-50 at batch size 128 on 2+ GPUs) and
 * is kept as such a point. Every other key names a partner that shares the GPUs: [own rate,
 * partner's rate]. Pairs of two 1-GPU jobs on one server become co-location pairs on that
 * type, a's speed = own rate / a's rate alone (0 when either is 0: they cannot share);
 * pairs of larger gangs, and the spread sections' (a 1-GPU job is never spread), are checked
 * and not used. Every error names the file and the key path (v100["('A3C', 1)"].null). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_load.h"
#include "model/tput.h"
#include "util/num.h"

#define MAX_NAME      255     /* bytes in a GPU type or job type */
#define MAX_GANG      1000000 /* GPUs in a scale factor */
#define SPREAD_SUFFIX "_unconsolidated"

struct ctx {
    const char *path;
    struct berth_tput *m;
    unsigned char *seen; /* per model type: bit 0 one-server section read, bit 1 spread */
    const char *gpu_key, *job_key;
};

/* Appends one step of a key path: .name for a plain identifier, ["..."] otherwise. */
static void path_step(char *buf, size_t cap, const char *key)
{
    size_t o = strlen(buf), n = strlen(key);
    int plain = n > 0 && strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789_") == n;
    char ex[96];
    if (plain && n < sizeof ex)
        snprintf(buf + o, cap - o, "%s%s", o ? "." : "", key);
    else
        snprintf(buf + o, cap - o, "[%s]", berth__excerpt(ex, sizeof ex, key, n));
}

/* The path of the key being read, ending in sub (NULL: none) and [idx] (-1: none). */
static const char *key_path(char *buf, size_t cap, const struct ctx *x, const char *sub, int idx)
{
    buf[0] = '\0';
    if (x->gpu_key)
        path_step(buf, cap, x->gpu_key);
    if (x->job_key)
        path_step(buf, cap, x->job_key);
    if (sub)
        path_step(buf, cap, sub);
    if (idx >= 0) {
        size_t o = strlen(buf);
        snprintf(buf + o, cap - o, "[%d]", idx);
    }
    return buf;
}

/* A JSON value in words, for "found ...". */
static const char *describe(char *buf, size_t cap, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        snprintf(buf, cap, "an array of %zu value%s", json_array_size(v),
                 json_array_size(v) == 1 ? "" : "s");
        return buf;
    case JSON_STRING:
        return berth__excerpt(buf, cap, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
        return buf;
    case JSON_REAL:
        snprintf(buf, cap, "%.17g", json_real_value(v));
        return buf;
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    default:
        return "null";
    }
}

static int bad(const struct ctx *x, const char *sub, int idx, const char *expected,
               const json_t *found, struct berth_err *err)
{
    char kp[400], fv[96];
    return berth_err_set(err, BERTH_EINPUT, "%s: %s: expected %s, found %s", x->path,
                         key_path(kp, sizeof kp, x, sub, idx), expected,
                         describe(fv, sizeof fv, found));
}

static int bad_key(const struct ctx *x, const char *expected, struct berth_err *err)
{
    char kp[400];
    return berth_err_set(err, BERTH_EINPUT, "%s: %s: expected %s", x->path,
                         key_path(kp, sizeof kp, x, NULL, -1), expected);
}

static int nomem(const struct ctx *x, struct berth_err *err)
{
    return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", x->path);
}

/* What an add_class or add_type that failed (rc) means: too many names, or memory. */
static int add_failed(const struct ctx *x, int rc, const char *what, const char *name,
                      struct berth_err *err)
{
    if (rc != BERTH_TPUT_FULL)
        return nomem(x, err);
    char ex[96];
    return berth_err_set(err, BERTH_EINPUT, "%s: %s %s: more than %d %ss", x->path, what,
                         berth__excerpt(ex, sizeof ex, name, strlen(name)), BERTH_TPUT_MAX, what);
}

/* A rate: a JSON number >= 0. */
static int rate_of(const struct ctx *x, const json_t *v, const char *sub, int idx, double *out,
                   struct berth_err *err)
{
    if (!json_is_number(v) || json_number_value(v) < 0)
        return bad(x, sub, idx, "a rate in steps/s >= 0", v, err);
    *out = json_number_value(v);
    return 0;
}

/* Parses "('JOB TYPE', SF)" (Python's repr of the tuple): the job type into name (NUL-ended,
 * at most MAX_NAME bytes, no quote) and SF (1..MAX_GANG, no leading zero). -1 if malformed. */
static int parse_job_key(const char *key, char name[MAX_NAME + 1], int32_t *sf)
{
    size_t n = strlen(key);
    if (n < 7 || strncmp(key, "('", 2) || key[n - 1] != ')')
        return -1;
    const char *sep = strstr(key + 2, "', ");
    size_t len = sep ? (size_t)(sep - key - 2) : 0;
    if (!sep || len == 0 || len > MAX_NAME || memchr(key + 2, '\'', len))
        return -1;
    const char *d = sep + 3, *end = key + n - 1;
    if (end - d < 1 || end - d > 7 || *d == '0' || strspn(d, "0123456789") != (size_t)(end - d))
        return -1;
    int64_t v;
    if (berth__parse_i64(d, (size_t)(end - d), &v) || v < 1 || v > MAX_GANG)
        return -1;
    memcpy(name, key + 2, len);
    name[len] = '\0';
    *sf = (int32_t)v;
    return 0;
}

#define JOB_KEY_FORM                                                                               \
    "a key ('JOB TYPE', SCALE FACTOR) such as ('ResNet-50 (batch size 64)', 1), with a job "       \
    "type of 1 to 255 bytes and a scale factor from 1 to 1000000"

/* One job's entry: its rate alone and the pairs it was measured in. */
static int job_entry(struct ctx *x, int t, int spread, json_t *val, struct berth_err *err)
{
    char name[MAX_NAME + 1];
    int32_t sf;
    int c;
    if (parse_job_key(x->job_key, name, &sf))
        return bad_key(x, JOB_KEY_FORM, err);
    if (!json_is_object(val))
        return bad(x, NULL, -1, "an object with the rate alone (\"null\") and pairs", val, err);
    json_t *null = json_object_get(val, "null");
    double alone = 0;
    if (!null)
        return bad_key(x, "a \"null\" key (the rate alone), found none", err);
    int rc = rate_of(x, null, "null", -1, &alone, err);
    if (rc)
        return rc;
    if ((rc = berth__tput_add_class(x->m, name, &c)))
        return add_failed(x, rc, "job type", name, err);
    if (berth__tput_add_point(x->m, c, t, sf, spread, alone))
        return nomem(x, err);
    const char *key;
    json_t *v;
    json_object_foreach(val, key, v)
    {
        if (!strcmp(key, "null"))
            continue;
        char partner[MAX_NAME + 1];
        int32_t psf;
        double own = 0, other = 0;
        if (parse_job_key(key, partner, &psf)) {
            char kp[400], ex[96];
            return berth_err_set(err, BERTH_EINPUT, "%s: %s: expected \"null\" or %s, found %s",
                                 x->path, key_path(kp, sizeof kp, x, NULL, -1), JOB_KEY_FORM,
                                 berth__excerpt(ex, sizeof ex, key, strlen(key)));
        }
        if (!json_is_array(v) || json_array_size(v) != 2)
            return bad(x, key, -1, "[own rate, partner's rate]", v, err);
        if ((rc = rate_of(x, json_array_get(v, 0), key, 0, &own, err)) ||
            (rc = rate_of(x, json_array_get(v, 1), key, 1, &other, err)))
            return rc;
        if (spread || sf != 1 || psf != 1)
            continue;
        int b;
        if ((rc = berth__tput_add_class(x->m, partner, &b)))
            return add_failed(x, rc, "job type", partner, err);
        if (berth__tput_add_pair(x->m, c, b, t, alone > 0 ? own / alone : 0.0))
            return berth_err_set(err, BERTH_ENOMEM,
                                 "%s: out of memory (or more than 8 million job types)", x->path);
    }
    return 0;
}

/* One GPU type's section. */
static int gpu_section(struct ctx *x, json_t *val, struct berth_err *err)
{
    size_t n = strlen(x->gpu_key), sl = strlen(SPREAD_SUFFIX);
    int spread = n >= sl && !strcmp(x->gpu_key + n - sl, SPREAD_SUFFIX);
    size_t tn = spread ? n - sl : n;
    if (tn == 0 || tn > MAX_NAME)
        return bad_key(x, "a GPU type of 1 to 255 bytes, or one followed by \"" SPREAD_SUFFIX "\"",
                       err);
    char type[MAX_NAME + 1];
    memcpy(type, x->gpu_key, tn);
    type[tn] = '\0';
    int t, rc = berth__tput_add_type(x->m, type, &t);
    if (rc)
        return add_failed(x, rc, "GPU type", type, err);
    if (x->seen[t] & (1u << spread))
        return bad_key(x,
                       "each GPU type once (names are compared without regard to case), found "
                       "it again",
                       err);
    x->seen[t] |= (unsigned char)(1u << spread);
    if (!json_is_object(val))
        return bad(x, NULL, -1, "an object of job types", val, err);
    const char *key;
    json_t *v;
    json_object_foreach(val, key, v)
    {
        x->job_key = key;
        if ((rc = job_entry(x, t, spread, v, err)))
            return rc;
    }
    x->job_key = NULL;
    return 0;
}

int berth_tput_load_gavel(const char *path, struct berth_tput **out, struct berth_err *err)
{
    json_t *root;
    int rc = berth__json_load(path, &root, err);
    if (rc)
        return rc;
    struct ctx x = {.path = path};
    if (!json_is_object(root) || json_object_size(root) == 0) {
        char fv[96];
        rc = berth_err_set(
            err, BERTH_EINPUT,
            "%s: expected an object of GPU types (Gavel's "
            "simulation_throughputs.json: {\"v100\": {\"('ResNet-50 (batch size "
            "64)', 1)\": {\"null\": 4.39, ...}, ...}, ...}), found %s",
            path, json_is_object(root) ? "an empty object" : describe(fv, sizeof fv, root));
        goto out;
    }
    x.m = berth__tput_new();
    x.seen = calloc(json_object_size(root), 1);
    if (!x.m || !x.seen) {
        rc = nomem(&x, err);
        goto out;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        x.gpu_key = key;
        if ((rc = gpu_section(&x, v, err)))
            goto out;
    }
    if (berth_tput_class_count(x.m) == 0) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: expected at least one job type under a GPU type, found none", path);
        goto out;
    }
    *out = x.m;
    x.m = NULL;
out:
    berth_tput_free(x.m);
    free(x.seen);
    json_decref(root);
    return rc;
}
