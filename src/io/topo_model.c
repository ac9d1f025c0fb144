/* --topology-model FILE (see topo_model.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/sim.h"
#include "io/json_load.h"
#include "io/topo_model.h"
#include "model/topo.h"

static int number(json_t *v, const char *path, const char *obj, const char *key, double lo,
                  double hi, int lo_open, double *out, struct berth_err *err)
{
    double x = json_is_number(v) ? json_number_value(v) : -1;
    if (!json_is_number(v) || x > hi || (lo_open ? x <= lo : x < lo))
        return berth_err_set(err, BERTH_EINPUT, "%s: %s.%s: expected a number %s %g%s, found %s",
                             path, obj, key, lo_open ? "above" : "from", lo,
                             hi < 1e300 ? (hi == 1 ? " to 1" : "") : "",
                             json_is_number(v) ? "a number out of range" : "another JSON type");
    *out = x;
    return 0;
}

int berth__topo_rate_load(const char *path, struct berth_topo_model *r, struct berth_err *err)
{
    json_t *root;
    int rc = berth__json_load(path, &root, err);
    if (rc)
        return rc;
    struct berth_topo_model t = *r;
    const char *key;
    json_t *v;
    if (!json_is_object(root)) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: expected a JSON object with bandwidth_gbps and comm_share", path);
        goto out;
    }
    json_object_foreach(root, key, v)
    {
        if (!strcmp(key, "bandwidth_gbps") || !strcmp(key, "comm_share")) {
            if (!json_is_object(v)) {
                rc = berth_err_set(err, BERTH_EINPUT, "%s: %s: expected a JSON object", path, key);
                goto out;
            }
            continue;
        }
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: %s: unknown key (expected bandwidth_gbps, comm_share)", path, key);
        goto out;
    }
    json_t *bw = json_object_get(root, "bandwidth_gbps"), *sh = json_object_get(root, "comm_share");
    json_object_foreach(bw, key, v)
    {
        int l = berth__topo_level_find(key);
        if (l < 0) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: bandwidth_gbps.%s: unknown level (expected %s)", path, key,
                               berth__topo_level_list());
            goto out;
        }
        if ((rc = number(v, path, "bandwidth_gbps", key, 0, 1e300, 1, &t.bw[l], err)))
            goto out;
    }
    json_object_foreach(sh, key, v)
    {
        double s = 0;
        if ((rc = number(v, path, "comm_share", key, 0, 1, 0, &s, err)))
            goto out;
        if (!strcmp(key, "default")) {
            t.share = s;
            continue;
        }
        size_t i = 0;
        while (i < t.ntypes && strcmp(t.types[i].job_type, key))
            i++;
        if (strlen(key) >= sizeof t.types[0].job_type || i == BERTH_TOPO_RATE_MAX_TYPES) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: comm_share.%.40s: expected at most %d job types of at most "
                               "63 characters",
                               path, key, BERTH_TOPO_RATE_MAX_TYPES);
            goto out;
        }
        snprintf(t.types[i].job_type, sizeof t.types[i].job_type, "%s", key);
        t.types[i].share = s;
        if (i == t.ntypes)
            t.ntypes++;
    }
    for (int l = BERTH_TOPO_NVLINK + 1; l < BERTH_TOPO_LEVELS; l++)
        if (t.bw[l] > t.bw[BERTH_TOPO_NVLINK]) { /* spreading would speed a gang up */
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: bandwidth_gbps.%s: expected at most nvlink's %g GB/s, found %g",
                               path, berth__topo_level_name(l), t.bw[BERTH_TOPO_NVLINK], t.bw[l]);
            goto out;
        }
    *r = t;
out:
    json_decref(root);
    return rc;
}

int berth_topo_model_load(const char *path, struct berth_topo_model **out, struct berth_err *err)
{
    struct berth_topo_model *m = malloc(sizeof *m);
    if (!m)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    berth__topo_rate_default(m);
    int rc = berth__topo_rate_load(path, m, err);
    if (rc) {
        free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void berth_topo_model_free(struct berth_topo_model *m)
{
    free(m);
}
