/* The one registry of scheduling policies: every policy is a const function table listed
 * here once, found by its exact name (and listed by `berth policies`). */
#include <string.h>

#include "sched/policy_ops.h"

/* Every policy, in the order `berth policies` lists them: one line per ops table (a new
 * policy is its file and a line here). The ordering family is fifo.c, sjf.c, las.c. */
#define BERTH_POLICIES(X)                                                                          \
    X(fifo)                                                                                        \
    X(fifo_skip) X(sjf) X(srtf) X(las) /* Gavel family and Themis (gavel.c) */                     \
        X(gavel_fifo) X(gavel_max_min) X(gavel_max_min_perf)                                       \
            X(themis_ftf) /* Tiresias and Blox (tiresias.c, blox.c) */                             \
        X(tiresias_dlas) X(tiresias_dlas_gpu) X(blox_las)                                          \
            X(blox_fifo)    /* SpeCon and its spread baseline (specon.c) */                        \
        X(specon) X(spread) /* Aryl / Lyra (aryl.c) */                                             \
        X(aryl) X(aryl_loan) X(aryl_elastic) X(aryl_base)       /* Salus (salus/salus.c) */        \
        X(salus_fifo) X(salus_srtf) X(salus_pack) X(salus_fair) /* Elastic goodput (goodput.c) */  \
        X(goodput) X(goodput_hetero)

#define DECLARE(n) extern const struct berth_policy_ops berth__policy_##n;
BERTH_POLICIES(DECLARE)
#undef DECLARE

static const struct berth_policy_ops *const registry[] = {
#define ENTRY(n) &berth__policy_##n,
    BERTH_POLICIES(ENTRY)
#undef ENTRY
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

size_t berth_policy_setting_count(size_t i)
{
    return i < NPOLICIES ? registry[i]->nsettings : 0;
}

const char *berth_policy_setting_key(size_t i, size_t k)
{
    return k < berth_policy_setting_count(i) ? registry[i]->settings[k].key : NULL;
}

const char *berth_policy_setting_help(size_t i, size_t k)
{
    return k < berth_policy_setting_count(i) ? registry[i]->settings[k].help : NULL;
}
