/* The topology shorthand's shape: racks=R, blocks=B and nvl=N turned into each server's rack,
 * block and NVLink island (model/cluster.h, berth__builder_shape), so "64x8:h100,racks=8"
 * needs no topology file. */
#include <stdio.h>

#include "model/cluster.h"

/* Part i of n consecutive items cut into `parts` parts of floor or ceil(n / parts) items. */
static size_t part_of(size_t i, size_t n, size_t parts)
{
    return (size_t)((unsigned long long)i * parts / n);
}

static const char *name(struct berth__cluster_builder *b, const char *kind, size_t i)
{
    char nb[32];
    snprintf(nb, sizeof nb, "%s%zu", kind, i);
    return berth__builder_str(b, nb, 0);
}

int berth__builder_shape(struct berth__cluster_builder *b, const char *what, struct berth_err *err)
{
    size_t n = b->n;
    if (b->racks && (size_t)b->racks > n)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: racks=%d: expected at most one rack per server (%zu servers)",
                             what, b->racks, n);
    size_t under = b->racks ? (size_t)b->racks : n; /* what blocks group */
    if (b->blocks && (size_t)b->blocks > under)
        return berth_err_set(err, BERTH_EINPUT, "%s: blocks=%d: expected at most %zu (one per %s)",
                             what, b->blocks, under, b->racks ? "rack" : "server");
    size_t island = 0, in_island = 0; /* the multi-node domain being filled, servers in it */
    for (size_t s = 0; s < n; s++) {
        struct berth__server_spec *p = &b->p[s];
        size_t rack = b->racks ? part_of(s, n, (size_t)b->racks) : 0;
        if (b->racks && !(p->rack = name(b, "rack", rack)))
            return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
        if (b->blocks &&
            !(p->block = name(b, "block", part_of(b->racks ? rack : s, under, (size_t)b->blocks))))
            return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
        if (!b->nvl)
            continue;
        if (p->gpus <= 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s: nvl=%d: server %zu has no GPUs to join an NVLink island",
                                 what, b->nvl, s);
        if (b->nvl <= p->gpus) {
            if (p->gpus % b->nvl)
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s: nvl=%d: expected islands that divide each server's "
                                     "GPUs; server %zu has %d",
                                     what, b->nvl, s, p->gpus);
            p->nvl = b->nvl;
            continue;
        }
        if (b->nvl % p->gpus)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s: nvl=%d: expected a multi-node NVLink domain of whole "
                                 "servers; server %zu has %d GPUs, which do not divide %d",
                                 what, b->nvl, s, p->gpus, b->nvl);
        size_t per = (size_t)(b->nvl / p->gpus);
        if (in_island &&
            (in_island == per || (b->racks && part_of(s - 1, n, (size_t)b->racks) != rack))) {
            if (in_island != per)
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s: nvl=%d: NVLink domain %zu would cross from rack %zu "
                                     "to rack %zu at server %zu: expected racks that hold whole "
                                     "domains of %zu servers",
                                     what, b->nvl, island, part_of(s - 1, n, (size_t)b->racks),
                                     rack, s, per);
            island++;
            in_island = 0;
        }
        if (!(p->island = name(b, "nvl", island)))
            return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
        in_island++;
    }
    return 0; /* the last domain may be short, as the last rack may */
}
