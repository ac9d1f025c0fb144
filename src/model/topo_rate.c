/* Throughput by distance: the defaults and the factor (see topo_rate.h). */
#include <stdio.h>
#include <string.h>

#include "model/topo_rate.h"

void berth__topo_rate_default(struct berth_topo_model *r)
{
    memset(r, 0, sizeof *r);
    r->bw[BERTH_TOPO_NVLINK] = 450.0; /* NVLink 4, H100 SXM: 900 GB/s both ways */
    r->bw[BERTH_TOPO_NODE] = 64.0;    /* PCIe Gen5 x16, across the server's islands */
    r->bw[BERTH_TOPO_RACK] = 50.0;    /* 400G NDR InfiniBand, one NIC per GPU */
    r->bw[BERTH_TOPO_BLOCK] = 25.0;   /* the spine, 2:1 oversubscribed */
    r->bw[BERTH_TOPO_CLUSTER] = 12.5; /* the core, 4:1 */
    r->share = 0.02;
    static const struct {
        const char *t;
        double s;
    } d[] = {{"llm-finetune", 0.02}, {"llm-pretrain", 0.03}};
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        snprintf(r->types[i].job_type, sizeof r->types[i].job_type, "%s", d[i].t);
        r->types[i].share = d[i].s;
    }
    r->ntypes = sizeof d / sizeof *d;
}

double berth__topo_rate_share(const struct berth_topo_model *r, const char *job_type)
{
    if (job_type && *job_type)
        for (size_t i = 0; i < r->ntypes; i++)
            if (!strcmp(r->types[i].job_type, job_type))
                return r->types[i].share;
    return r->share;
}

double berth__topo_rate_factor(const struct berth_topo_model *r, const char *job_type, int level)
{
    struct berth_topo_model d;
    if (!r) {
        berth__topo_rate_default(&d);
        r = &d;
    }
    if (level <= BERTH_TOPO_NVLINK || level >= BERTH_TOPO_LEVELS)
        return 1.0;
    double s = berth__topo_rate_share(r, job_type);
    return 1.0 / ((1.0 - s) + s * r->bw[BERTH_TOPO_NVLINK] / r->bw[level]);
}
