/* berth_cluster_load_topology: a Slurm topology file (topology.conf or topology.yaml, told by
 * its name or its first line) laid onto a cluster by server name, the cluster rebuilt with
 * it (docs/topology.md, "Topology files"). The file replaces the cluster's racks, blocks and
 * NVLink domains; every server must be in it and every node it names must be a server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cluster_int.h"
#include "io/topo_int.h"

/* yaml when the name ends in .yaml/.yml, conf when in .conf, else by the first line that is
 * not blank or a comment: "---" or "- " starts YAML. */
static int is_yaml(const char *path)
{
    size_t l = strlen(path);
    if ((l > 5 && !strcmp(path + l - 5, ".yaml")) || (l > 4 && !strcmp(path + l - 4, ".yml")))
        return 1;
    if (l > 5 && !strcmp(path + l - 5, ".conf"))
        return 0;
    FILE *f = fopen(path, "rb");
    char ln[512];
    int yaml = 0;
    while (f && fgets(ln, sizeof ln, f)) {
        const char *p = ln + strspn(ln, " \t\r\n");
        if (!*p || *p == '#')
            continue;
        yaml = !strncmp(p, "---", 3) || (p[0] == '-' && (p[1] == ' ' || p[1] == '\n'));
        break;
    }
    if (f)
        fclose(f);
    return yaml;
}

static const struct berth_cluster *sort_c;
static int cmp_srv(const void *a, const void *b)
{
    return strcmp(sort_c->srv[*(const uint32_t *)a].name, sort_c->srv[*(const uint32_t *)b].name);
}

/* Server index by name (-1 none). */
static int64_t find(const struct berth_cluster *c, const uint32_t *ord, const char *name)
{
    size_t lo = 0, hi = c->nsrv;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = strcmp(c->srv[ord[mid]].name, name);
        if (!r)
            return ord[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Each server's rack, block and domain from t into b (servers of c in order). */
static int lay(const struct berth__topo_file *t, const struct berth_cluster *c,
               struct berth__cluster_builder *b, struct berth_err *err)
{
    const char *path = t->path;
    uint32_t *ord = malloc((c->nsrv ? c->nsrv : 1) * sizeof *ord);
    int64_t *at = malloc((c->nsrv ? c->nsrv : 1) * sizeof *at); /* the file's node, -1 none */
    int rc = 0;
    if (!ord || !at) {
        rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (size_t s = 0; s < c->nsrv; s++) {
        ord[s] = (uint32_t)s;
        at[s] = -1;
    }
    sort_c = c;
    qsort(ord, c->nsrv, sizeof *ord, cmp_srv);
    for (size_t k = 0; k < t->count && !rc; k++) {
        const struct berth__topo_node *nd = &t->n[k];
        int64_t s = find(c, ord, nd->name);
        if (s < 0)
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%zu: %s: node %.100s is not a server of the cluster (its %zu "
                               "servers are named like %s): expected every node the file names "
                               "to be a server",
                               path, nd->line, nd->where, nd->name, c->nsrv, c->srv[0].name);
        else
            at[s] = (int64_t)k;
    }
    size_t missing = 0, first = 0;
    for (size_t s = 0; s < c->nsrv && !rc && !t->flat; s++)
        if (at[s] < 0 && !missing++)
            first = s;
    if (!rc && missing)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: server %s is in no %s (%zu of the cluster's %zu servers are "
                           "not in the file): expected every server in the topology",
                           path, c->srv[first].name, t->kind, missing, c->nsrv);
    b->allow_span = c->allow_span;
    b->src_kind = 2;
    for (size_t s = 0; s < c->nsrv && !rc; s++) {
        const struct berth__server *v = &c->srv[s];
        const struct berth__topo_node *nd = at[s] >= 0 ? &t->n[at[s]] : NULL;
        struct berth__server_spec sp = {
            .type = berth__builder_str(b, c->types[v->type].name, 0),
            .name = berth__builder_str(b, v->name, 0),
            .pool = v->pool >= 0 ? berth__builder_str(b, c->pools[v->pool], 0) : NULL,
            .gpus = v->ngpus,
            .cpu_milli = v->cpu_milli,
            .mem_mib = v->mem_mib,
            .gpu_mem_mib = v->gpu_mem_mib,
            .src = nd ? nd->line : 0,
            /* a multi-node NVLink domain is the whole server's; else keep its islands */
            .nvl = nd && nd->island ? 0 : v->nvl,
        };
        if (nd) {
            sp.rack = nd->rack ? berth__builder_str(b, nd->rack, 0) : NULL;
            sp.block = nd->block ? berth__builder_str(b, nd->block, 0) : NULL;
            sp.island = nd->island ? berth__builder_str(b, nd->island, 0) : NULL;
        }
        if (!sp.type || !sp.name || (v->pool >= 0 && !sp.pool) || (nd && nd->rack && !sp.rack) ||
            (nd && nd->block && !sp.block) || (nd && nd->island && !sp.island) ||
            berth__builder_add(b, &sp))
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    }
out:
    free(ord);
    free(at);
    return rc;
}

int berth_cluster_load_topology(struct berth_cluster **cp, const char *path, struct berth_err *err)
{
    struct berth_cluster *c = *cp;
    if (c->free != c->total || c->reserved_servers || c->out_gpus || c->nclosed)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: a topology is laid onto an idle cluster, before anything runs",
                             path);
    struct berth__topo_file t;
    berth__topo_file_init(&t, path);
    int rc =
        is_yaml(path) ? berth__topo_load_yaml(path, &t, err) : berth__topo_load_conf(path, &t, err);
    struct berth__cluster_builder b;
    berth__builder_init(&b);
    if (!rc)
        rc = lay(&t, c, &b, err);
    struct berth_cluster *nc = NULL;
    if (!rc)
        rc = berth__builder_build(&b, path, &nc, err);
    berth__builder_free(&b);
    berth__topo_file_free(&t);
    if (!rc) {
        berth_cluster_free(c);
        *cp = nc;
    }
    return rc;
}
