/* berth's JSON cluster file: servers with a GPU type and count, optional name, rack, pool
 * and count; "gang_span": false keeps every gang on one server. The topology (docs/topology.md)
 * is either per server ("rack", "block", "nvlink_domain", "nvl") or one top-level shape
 * {"topology": {"racks": R, "blocks": B, "nvl": N}} as the shorthand's racks=, blocks=, nvl=.
 * Every error names the file and the field path (servers[3].gpus, topology.racks). */
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

/* A domain name: not empty, at most 63 bytes, no control characters (it is printed in
 * tables and JSON). */
static int topo_names(const char *path, size_t i, const char *rack, const char *block,
                      const char *island, struct berth_err *err)
{
    const char *v[3] = {rack, block, island}, *k[3] = {"rack", "block", "nvlink_domain"};
    for (int j = 0; j < 3; j++) {
        if (!v[j])
            continue;
        size_t n = strlen(v[j]);
        int ok = n > 0 && n <= 63;
        for (size_t c = 0; ok && c < n; c++)
            ok = (unsigned char)v[j][c] > 0x20 && v[j][c] != 0x7f;
        if (!ok)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s: servers[%zu].%s: expected a name of 1 to 63 characters "
                                 "without spaces or control characters, found \"%.40s\"",
                                 path, i, k[j], v[j]);
    }
    return 0;
}

/* The optional top-level "topology": {"racks": R, "blocks": B, "nvl": N} into b's shape. */
static int topology_shape(json_t *root, const char *path, struct berth__cluster_builder *b,
                          struct berth_err *err)
{
    json_t *t = json_object_get(root, "topology"), *v;
    if (!t)
        return 0;
    if (!json_is_object(t))
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: topology: expected an object {\"racks\": R, \"blocks\": B, "
                             "\"nvl\": N}",
                             path);
    const char *key;
    json_object_foreach(t, key, v)
    {
        int32_t *at = !strcmp(key, "racks")    ? &b->racks
                      : !strcmp(key, "blocks") ? &b->blocks
                      : !strcmp(key, "nvl")    ? &b->nvl
                                               : NULL;
        if (!at)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s: topology.%s: unknown key (expected racks, blocks or nvl)",
                                 path, key);
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 1000000) {
            char *txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            int rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s: topology.%s: expected an integer from 1 to 1000000, "
                                   "found %s",
                                   path, key, txt ? txt : "?");
            free(txt);
            return rc;
        }
        *at = (int32_t)json_integer_value(v);
    }
    if (!b->racks && !b->blocks && !b->nvl)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: topology: expected at least one of racks, blocks or nvl", path);
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
    const char *known_top[] = {"servers", "gang_span", "name", "comment", "topology", NULL};
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val)
    {
        int ok = 0;
        for (int k = 0; known_top[k]; k++)
            ok |= !strcmp(key, known_top[k]);
        if (!ok) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: %s: unknown key (expected servers, gang_span, topology, "
                               "name or comment)",
                               path, key);
            goto out;
        }
    }
    if ((rc = topology_shape(root, path, b, err)))
        goto out;
    int shaped = b->racks || b->blocks || b->nvl;
    b->src_kind = 1;
    size_t i;
    json_t *sv;
    json_array_foreach(servers, i, sv)
    {
        if (!json_is_object(sv)) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s: servers[%zu]: expected an object", path, i);
            goto out;
        }
        const char *known[] = {"name",  "gpu_type",      "gpus",    "rack",        "pool",
                               "count", "cpus",          "mem_mib", "gpu_mem_mib", "block",
                               "nvl",   "nvlink_domain", NULL};
        json_object_foreach(sv, key, val)
        {
            int ok = 0;
            for (int k = 0; known[k]; k++)
                ok |= !strcmp(key, known[k]);
            if (!ok) {
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s: servers[%zu].%s: unknown key (expected name, gpu_type, "
                                   "gpus, rack, block, nvlink_domain, nvl, pool, count, cpus, "
                                   "mem_mib or gpu_mem_mib)",
                                   path, i, key);
                goto out;
            }
        }
        int bad = 0;
        const char *type = opt_string(sv, "gpu_type", path, i, err, &bad);
        const char *name = opt_string(sv, "name", path, i, err, &bad);
        const char *rack = opt_string(sv, "rack", path, i, err, &bad);
        const char *pool = opt_string(sv, "pool", path, i, err, &bad);
        const char *block = opt_string(sv, "block", path, i, err, &bad);
        const char *island = opt_string(sv, "nvlink_domain", path, i, err, &bad);
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
        int64_t nvl;
        if ((rc = opt_int(sv, "nvl", 0, 1, gpus, path, i, err, &nvl)))
            goto out;
        if (nvl && gpus % nvl) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].nvl: expected GPUs per NVLink island that divide "
                               "the server's %lld GPUs, found %lld",
                               path, i, (long long)gpus, (long long)nvl);
            goto out;
        }
        if ((rc = topo_names(path, i, rack, block, island, err)))
            goto out;
        const char *own = rack ? "rack" : block ? "block" : island ? "nvlink_domain" : "nvl";
        if (shaped && (rack || block || island || nvl)) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].%s: a server's own topology cannot be mixed with "
                               "the top-level \"topology\" shape: give one or the other",
                               path, i, own);
            goto out;
        }
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
        const char *bl = block ? berth__builder_str(b, block, 0) : NULL;
        const char *il = island ? berth__builder_str(b, island, 0) : NULL;
        if (!lt || (name && !nm) || (rack && !rk) || (pool && !pl) || (block && !bl) ||
            (island && !il)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
            goto out;
        }
        for (int64_t k = 0; k < count; k++)
            if (berth__builder_add(b, &(struct berth__server_spec){lt, nm, rk, pl, (int32_t)gpus,
                                                                   cpus * 1000, mem, i, gmem, bl,
                                                                   il, (int32_t)nvl})) {
                rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
                goto out;
            }
        if (b->n > 1000000) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s: expected at most 1000000 servers", path);
            goto out;
        }
    }
    rc = check_unique_names(b, path, err);
    if (!rc && shaped) {
        char what[300];
        snprintf(what, sizeof what, "%s: topology", path);
        rc = berth__builder_shape(b, what, err);
    }
out:
    json_decref(root);
    return rc;
}
