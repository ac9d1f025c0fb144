/* How much memory Salus' lanes see: per GPU (the cluster's size, else a datasheet size by
 * type name) and per job (the trace's persist_mib / ephem_mib, else per-class estimates).
 *
 * The per-class figures are berth's ESTIMATES, not measurements: persistent memory is the
 * model's weights with optimiser state plus framework overhead, ephemeral memory the
 * activations of one iteration, proportional to the batch size; they follow Salus' finding
 * (its Fig. 2) that persistent memory is a small part of a job's peak. Gavel's classes:
 * ResNet-18 on CIFAR-10, ResNet-50 on ImageNet, Transformer on Multi30k, LM (LSTM on
 * Wikitext-2), Recommendation (autoencoder on ML-20M), CycleGAN, A3C. */
#include <stdlib.h>
#include <string.h>

#include "policy/salus/salus_lanes.h"

struct class_mem {
    const char *name; /* job_type up to " (batch size" */
    int64_t persist;  /* MiB */
    int64_t per_1k;   /* ephemeral MiB per 1024 samples of batch */
    int64_t flat;     /* ephemeral MiB for classes without a batch size */
};

static const struct class_mem classes[] = {
    {"ResNet-18", 200, 12 * 1024, 0},
    {"ResNet-50", 400, 90 * 1024, 0},
    {"Transformer", 800, 40 * 1024, 0},
    {"LM", 300, 50 * 1024, 0},
    {"Recommendation", 500, 512, 0},
    {"CycleGAN", 500, 0, 3500},
    {"A3C", 100, 0, 400},
};

int64_t berth__salus_gpu_cap(const char *type_name, int64_t gpu_mem_mib)
{
    static const struct {
        const char *part;
        int64_t mib;
    } sizes[] = {{"k80", 12288}, {"p100", 16384}, {"v100", 16384},
                 {"t4", 15360},  {"a100", 40960}, {"h100", 81920}};
    int64_t m = gpu_mem_mib;
    for (size_t k = 0; !m && k < sizeof sizes / sizeof *sizes; k++)
        if (type_name && strstr(type_name, sizes[k].part))
            m = sizes[k].mib;
    if (!m)
        m = 16384; /* unknown type: a 16 GiB GPU */
    return m > BERTH_SALUS_RESERVE_MIB ? m - BERTH_SALUS_RESERVE_MIB : 1;
}

/* The batch size in "... (batch size N)", or 0. */
static int64_t batch_size(const char *t)
{
    const char *b = strstr(t, "(batch size ");
    if (!b)
        return 0;
    int64_t n = 0;
    for (b += 12; *b >= '0' && *b <= '9' && n < 1000000; b++)
        n = n * 10 + (*b - '0');
    return n;
}

void berth__salus_job_mem(const struct berth_jobspec *s, int64_t *p, int64_t *e)
{
    int64_t pp = berth_jobspec_extra(s)->persist_mib, ee = berth_jobspec_extra(s)->ephem_mib;
    if (!pp && !ee) {
        const struct class_mem *c = NULL;
        for (size_t k = 0; !c && k < sizeof classes / sizeof *classes; k++) {
            size_t n = strlen(classes[k].name);
            if (!strncmp(berth_jobspec_extra(s)->job_type, classes[k].name, n) &&
                (berth_jobspec_extra(s)->job_type[n] == 0 ||
                 berth_jobspec_extra(s)->job_type[n] == ' '))
                c = &classes[k];
        }
        if (berth_jobspec_extra(s)->gpu_mem_mib > 0 &&
            !c) { /* the job's total, split as the paper observes */
            pp = (berth_jobspec_extra(s)->gpu_mem_mib + 9) / 10;
            ee = berth_jobspec_extra(s)->gpu_mem_mib - pp;
        } else if (c) {
            int64_t bs = batch_size(berth_jobspec_extra(s)->job_type);
            pp = c->persist;
            ee = c->flat ? c->flat : (c->per_1k * (bs ? bs : 32) + 1023) / 1024;
        } else { /* nothing known: 0.5 GiB persistent, 4.5 GiB peak */
            pp = 512;
            ee = 4608;
        }
    }
    if (pp + ee < berth_jobspec_extra(s)->gpu_mem_mib)
        ee = berth_jobspec_extra(s)->gpu_mem_mib - pp;
    if (pp + ee < 1)
        ee = 1;
    *p = pp;
    *e = ee;
}
