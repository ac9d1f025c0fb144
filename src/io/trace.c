/* The trace object, the format registry and detection, and the checks every loaded trace
 * passes before a run (see include/berth/trace.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cluster_int.h"
#include "trace_int.h"
#include "util/csv.h"

struct format {
    const char *name;
    int (*load)(const char *, struct berth_trace **, struct berth_err *);
    const char *header_start; /* how detection recognises the format's header */
};

static const struct format formats[] = {
    {"native", berth__load_native, "job_id,"},
    {"philly-pollux", berth__load_philly_pollux, "timestamp,duration,num_gpus"},
};

static const char *const format_names[] = {"native", "philly-pollux", NULL};

const char *const *berth_trace_formats(void)
{
    return format_names;
}

struct berth_trace *berth__trace_new(const char *path)
{
    struct berth_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->path = strdup(path ? path : "");
    if (!t->path) {
        free(t);
        return NULL;
    }
    berth__arena_init(&t->strings);
    return t;
}

int berth__trace_push(struct berth_trace *t, const struct berth_jobspec *js)
{
    if (BERTH_GROW(t->jobs, t->cap, t->n + 1))
        return BERTH_ENOMEM;
    t->jobs[t->n++] = *js;
    return 0;
}

const char *berth__trace_str(struct berth_trace *t, const char *s, size_t len)
{
    if (!len)
        return "";
    return berth__arena_strndup(&t->strings, s, len);
}

void berth__jobspec_defaults(struct berth_jobspec *js)
{
    memset(js, 0, sizeof *js);
    js->id = js->job_type = js->user = js->queue = js->gpu_type = "";
    js->num_gpus = js->min_gpus = js->max_gpus = 1;
    js->gpu_share_milli = 1000;
}

void berth_trace_free(struct berth_trace *t)
{
    if (!t)
        return;
    free(t->jobs);
    free(t->path);
    berth__arena_free(&t->strings);
    free(t);
}

size_t berth_trace_count(const struct berth_trace *t)
{
    return t->n;
}

const struct berth_jobspec *berth_trace_jobs(const struct berth_trace *t)
{
    return t->jobs;
}

const char *berth_trace_path(const struct berth_trace *t)
{
    return t->path;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

int berth__trace_check_ids(const struct berth_trace *t, struct berth_err *err)
{
    size_t cap = 16;
    while (cap < t->n * 2)
        cap *= 2;
    uint32_t *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
    memset(slot, 0xff, cap * sizeof *slot);
    int rc = 0;
    for (size_t i = 0; i < t->n && !rc; i++) {
        size_t h = (size_t)hash_str(t->jobs[i].id) & (cap - 1);
        for (;; h = (h + 1) & (cap - 1)) {
            if (slot[h] == UINT32_MAX) {
                slot[h] = (uint32_t)i;
                break;
            }
            const struct berth_jobspec *o = &t->jobs[slot[h]];
            if (!strcmp(o->id, t->jobs[i].id)) {
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s:%u: column job_id: expected a unique id, found \"%s\", "
                                   "already used on line %u",
                                   t->path, t->jobs[i].line, t->jobs[i].id, o->line);
                break;
            }
        }
    }
    free(slot);
    return rc;
}

/* Reads the first line of path to pick a format. */
static int detect(const char *path, const struct format **f, struct berth_err *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return berth_err_set(err, BERTH_EIO, "%s: cannot open the trace", path);
    char line[512] = "";
    do /* the first line that is not blank */
        if (!fgets(line, sizeof line, fp))
            line[0] = '\0';
    while (line[0] && strspn(line, "\r\n") == strlen(line));
    fclose(fp);
    const char *p = line;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (!strncmp(p, formats[i].header_start, strlen(formats[i].header_start))) {
            *f = &formats[i];
            return 0;
        }
    /* native columns may come in any order */
    if (strstr(p, "job_id") && strstr(p, "arrival_s")) {
        *f = &formats[0];
        return 0;
    }
    line[strcspn(line, "\r\n")] = '\0';
    return berth_err_set(err, BERTH_EINPUT,
                         "%s:1: cannot tell the trace format from the header \"%.80s\"; name it "
                         "with --format (native, philly-pollux)",
                         path, line);
}

int berth_trace_load(const char *path, const char *format, struct berth_trace **out,
                     struct berth_err *err)
{
    const struct format *f = NULL;
    if (!format || !strcmp(format, "auto")) {
        int rc = detect(path, &f, err);
        if (rc)
            return rc;
    } else {
        for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
            if (!strcmp(format, formats[i].name))
                f = &formats[i];
        if (!f)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--format: unknown trace format '%s' (expected auto, native or "
                                 "philly-pollux)",
                                 format);
    }
    struct berth_trace *t = NULL;
    int rc = f->load(path, &t, err);
    if (rc)
        return rc;
    if (t->n == 0) {
        berth_trace_free(t);
        return berth_err_set(err, BERTH_EINPUT, "%s: expected at least one job, found none", path);
    }
    rc = berth__trace_check_ids(t, err);
    if (rc) {
        berth_trace_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int berth_trace_check(const struct berth_trace *t, const struct berth_cluster *c,
                      struct berth_err *err)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct berth_jobspec *j = &t->jobs[i];
        int type = -1;
        int32_t cap = c->total;
        const char *what = "the whole cluster";
        char desc[64];
        if (j->gpu_type[0]) {
            type = berth_cluster_type_find(c, j->gpu_type);
            if (type < 0) {
                char names[256] = "";
                size_t o = 0;
                for (size_t k = 0; k < c->ntypes && o < sizeof names; k++)
                    o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "",
                                          c->types[k].name);
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s:%u: column gpu_type: expected a GPU type of the cluster "
                                     "(%s), found \"%s\"",
                                     t->path, j->line, names, j->gpu_type);
            }
            cap = c->types[type].total;
            snprintf(desc, sizeof desc, "all %s GPUs", c->types[type].name);
            what = desc;
        } else if (c->ntypes > 1) {
            cap = 0;
            for (size_t k = 0; k < c->ntypes; k++)
                if (c->types[k].total > cap)
                    cap = c->types[k].total;
            what = "the largest GPU type (gangs do not mix types)";
        }
        if ((j->single_server || !c->allow_span)) {
            int32_t m = berth_cluster_max_server_gpus(c, type);
            if (m < cap) {
                cap = m;
                what = "one server (the gang must not span servers)";
            }
        }
        if (j->num_gpus > cap)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column num_gpus: expected at most %d GPUs (%s), found "
                                 "%d",
                                 t->path, j->line, cap, what, j->num_gpus);
    }
    return 0;
}
