/* berth's JSON cluster file: servers with a GPU type and count, optional name, rack, pool
 * and count; "gang_span": false keeps every gang on one server. Every error names the file
 * and the field path (servers[3].gpus). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cluster_int.h"
#include "io/json_load.h"

static const char *opt_string(json_t *o, const char *key, const char *file, size_t i,
                              struct berth_err *err, int *bad)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        *bad =
            berth_err_set(err, BERTH_EINPUT,
                          "%s: servers[%zu].%s: expected a string, found a JSON %s", file, i, key,
                          json_is_integer(v)  ? "integer"
                          : json_is_real(v)   ? "number"
                          : json_is_object(v) ? "object"
                          : json_is_array(v)  ? "array"
                                              : "boolean");
        return NULL;
    }
    return json_string_value(v);
}

static int opt_int(json_t *o, const char *key, int64_t dflt, int64_t lo, int64_t hi,
                   const char *file, size_t i, struct berth_err *err, int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        char *txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].%s: expected an integer from %lld to %lld, "
                               "found %s",
                               file, i, key, (long long)lo, (long long)hi, txt ? txt : "?");
        free(txt);
        return rc;
    }
    *out = json_integer_value(v);
    return 0;
}

/* Server names must be unique. */
static int check_unique_names(const struct berth__cluster_builder *b, const char *path,
                              struct berth_err *err)
{
    size_t a, d;
    int found = berth__builder_find_duplicate(b, 0, &a, &d);
    if (found < 0)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    if (!found)
        return 0;
    return berth_err_set(err, BERTH_EINPUT,
                         "%s: servers[%zu].name: expected a unique name, found \"%s\", already "
                         "used by servers[%zu]",
                         path, b->p[d].src, b->p[d].name, b->p[a].src);
}

int berth__cluster_load_json(const char *path, struct berth__cluster_builder *b,
                             struct berth_err *err)
{
    json_t *root;
    int rc = berth__json_load(path, &root, err);
    if (rc)
        return rc;
    json_t *servers = json_is_object(root) ? json_object_get(root, "servers") : NULL;
    if (!json_is_array(servers) || json_array_size(servers) == 0) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: servers: expected a non-empty array of servers, found %s", path,
                           !json_is_object(root) ? "a document that is not an object"
                           : !servers            ? "no \"servers\" key"
                                                 : "something else");
        goto out;
    }
    json_t *span = json_object_get(root, "gang_span");
    if (span && !json_is_boolean(span)) {
        rc = berth_err_set(err, BERTH_EINPUT, "%s: gang_span: expected true or false", path);
        goto out;
    }
    b->allow_span = span ? json_is_true(span) : 1;
    const char *known_top[] = {"servers", "gang_span", "name", "comment", NULL};
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val)
    {
        int ok = 0;
        for (int k = 0; known_top[k]; k++)
            ok |= !strcmp(key, known_top[k]);
        if (!ok) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: %s: unknown key (expected servers, gang_span, name or "
                               "comment)",
                               path, key);
            goto out;
        }
    }
    size_t i;
    json_t *sv;
    json_array_foreach(servers, i, sv)
    {
        if (!json_is_object(sv)) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s: servers[%zu]: expected an object", path, i);
            goto out;
        }
        const char *known[] = {"name",  "gpu_type", "gpus",    "rack",        "pool",
                               "count", "cpus",     "mem_mib", "gpu_mem_mib", NULL};
        json_object_foreach(sv, key, val)
        {
            int ok = 0;
            for (int k = 0; known[k]; k++)
                ok |= !strcmp(key, known[k]);
            if (!ok) {
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s: servers[%zu].%s: unknown key (expected name, gpu_type, "
                                   "gpus, rack, pool, count, cpus, mem_mib or gpu_mem_mib)",
                                   path, i, key);
                goto out;
            }
        }
        int bad = 0;
        const char *type = opt_string(sv, "gpu_type", path, i, err, &bad);
        const char *name = opt_string(sv, "name", path, i, err, &bad);
        const char *rack = opt_string(sv, "rack", path, i, err, &bad);
        const char *pool = opt_string(sv, "pool", path, i, err, &bad);
        if (bad) {
            rc = bad;
            goto out;
        }
        if (!type || !berth__cluster_type_name_ok(type, strlen(type))) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].gpu_type: expected a GPU type name (letters, "
                               "digits, '-', '_', '.'; at most 31), found %s%s%s",
                               path, i, type ? "\"" : "", type ? type : "none", type ? "\"" : "");
            goto out;
        }
        int64_t gpus, count;
        if ((rc = opt_int(sv, "gpus", -1, 1, BERTH_MAX_SERVER_GPUS, path, i, err, &gpus)))
            goto out;
        if (gpus < 0) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].gpus: expected an integer from 1 to %d, found "
                               "none",
                               path, i, BERTH_MAX_SERVER_GPUS);
            goto out;
        }
        if ((rc = opt_int(sv, "count", 1, 1, 1000000, path, i, err, &count)))
            goto out;
        int64_t cpus, mem, gmem;
        if ((rc = opt_int(sv, "cpus", 0, 0, 1000000, path, i, err, &cpus)) ||
            (rc = opt_int(sv, "mem_mib", 0, 0, INT64_C(1) << 40, path, i, err, &mem)) ||
            (rc = opt_int(sv, "gpu_mem_mib", 0, 0, INT64_C(1) << 30, path, i, err, &gmem)))
            goto out;
        if (count > 1 && name) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].name: a name needs count 1, found count %lld",
                               path, i, (long long)count);
            goto out;
        }
        const char *lt = berth__builder_str(b, type, 1);
        const char *nm = name ? berth__builder_str(b, name, 0) : NULL;
        const char *rk = rack ? berth__builder_str(b, rack, 0) : NULL;
        const char *pl = pool ? berth__builder_str(b, pool, 0) : NULL;
        if (!lt || (name && !nm) || (rack && !rk) || (pool && !pl)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
            goto out;
        }
        for (int64_t k = 0; k < count; k++)
            if (berth__builder_add(b, &(struct berth__server_spec){lt, nm, rk, pl, (int32_t)gpus,
                                                                   cpus * 1000, mem, i, gmem, NULL,
                                                                   NULL, 0})) {
                rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
                goto out;
            }
        if (b->n > 1000000) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s: expected at most 1000000 servers", path);
            goto out;
        }
    }
    rc = check_unique_names(b, path, err);
out:
    json_decref(root);
    return rc;
}
