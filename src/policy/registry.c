/* The one registry of scheduling policies: every policy is a const function table listed
 * here once, found by its exact name (and listed by `berth policies`). */
#include <string.h>

#include "sched/policy_ops.h"

extern const struct berth_policy_ops berth__policy_fifo;
extern const struct berth_policy_ops berth__policy_fifo_skip;
extern const struct berth_policy_ops berth__policy_sjf;
extern const struct berth_policy_ops berth__policy_srtf;
extern const struct berth_policy_ops berth__policy_las;
/* Gavel family and Themis (gavel.c) */
extern const struct berth_policy_ops berth__policy_gavel_fifo;
extern const struct berth_policy_ops berth__policy_gavel_max_min;
extern const struct berth_policy_ops berth__policy_gavel_max_min_perf;
extern const struct berth_policy_ops berth__policy_themis_ftf;
/* Tiresias and Blox (tiresias.c, blox.c) */
extern const struct berth_policy_ops berth__policy_tiresias_dlas;
extern const struct berth_policy_ops berth__policy_tiresias_dlas_gpu;
extern const struct berth_policy_ops berth__policy_blox_las;
extern const struct berth_policy_ops berth__policy_blox_fifo;
/* SpeCon and its spread baseline (specon.c) */
extern const struct berth_policy_ops berth__policy_specon;
extern const struct berth_policy_ops berth__policy_spread;
/* Aryl / Lyra (aryl.c) */
extern const struct berth_policy_ops berth__policy_aryl;
extern const struct berth_policy_ops berth__policy_aryl_loan;
extern const struct berth_policy_ops berth__policy_aryl_elastic;
extern const struct berth_policy_ops berth__policy_aryl_base;
/* Salus (salus.c) */
extern const struct berth_policy_ops berth__policy_salus_fifo;
extern const struct berth_policy_ops berth__policy_salus_srtf;
extern const struct berth_policy_ops berth__policy_salus_pack;
extern const struct berth_policy_ops berth__policy_salus_fair;
/* Elastic goodput (goodput.c) */
extern const struct berth_policy_ops berth__policy_goodput;
extern const struct berth_policy_ops berth__policy_goodput_hetero;

static const struct berth_policy_ops *const registry[] = {
    &berth__policy_fifo,
    &berth__policy_fifo_skip,
    &berth__policy_sjf,
    &berth__policy_srtf,
    &berth__policy_las,
    /* Gavel family and Themis */
    &berth__policy_gavel_fifo,
    &berth__policy_gavel_max_min,
    &berth__policy_gavel_max_min_perf,
    &berth__policy_themis_ftf,
    /* Tiresias and Blox (tiresias.c, blox.c) */
    &berth__policy_tiresias_dlas,
    &berth__policy_tiresias_dlas_gpu,
    &berth__policy_blox_las,
    &berth__policy_blox_fifo,
    /* SpeCon and its spread baseline (specon.c) */
    &berth__policy_specon,
    &berth__policy_spread,
    /* Aryl / Lyra (aryl.c) */
    &berth__policy_aryl,
    &berth__policy_aryl_loan,
    &berth__policy_aryl_elastic,
    &berth__policy_aryl_base,
    /* Salus (salus.c) */
    &berth__policy_salus_fifo,
    &berth__policy_salus_srtf,
    &berth__policy_salus_pack,
    &berth__policy_salus_fair,
    /* Elastic goodput (goodput.c) */
    &berth__policy_goodput,
    &berth__policy_goodput_hetero,
};

#define NPOLICIES (sizeof registry / sizeof *registry)

const struct berth_policy_ops *berth__policy_at(size_t i)
{
    return i < NPOLICIES ? registry[i] : NULL;
}

const struct berth_policy_ops *berth__policy_lookup(const char *name)
{
    int i = berth_policy_find(name);
    return i < 0 ? NULL : registry[i];
}

size_t berth_policy_count(void)
{
    return NPOLICIES;
}

const char *berth_policy_name(size_t i)
{
    return i < NPOLICIES ? registry[i]->name : NULL;
}

const char *berth_policy_summary(size_t i)
{
    return i < NPOLICIES ? registry[i]->summary : NULL;
}

const char *berth_policy_default_placement(size_t i)
{
    return i < NPOLICIES ? registry[i]->default_placement : NULL;
}

int berth_policy_find(const char *name)
{
    for (size_t i = 0; i < NPOLICIES; i++)
        if (!strcmp(name, registry[i]->name))
            return (int)i;
    return -1;
}
