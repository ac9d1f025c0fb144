/* The one registry of scheduling policies: every policy is a const function table listed
 * here once, found by its exact name (and listed by `berth policies`). */
#include <string.h>

#include "sched/policy_ops.h"

/* Every policy, in the order `berth policies` lists them: one line per ops table (a new
 * policy is its file and a line here). The ordering family is fifo.c, sjf.c, las.c. */
/* clang-format off */
#define BERTH_POLICIES(X)                                                                          \
    X(fifo)               /* fifo.c */                                                             \
    X(fifo_skip)                                                                                   \
    X(backfill)                                                                                    \
    X(sjf)                /* sjf.c */                                                              \
    X(srtf)                                                                                        \
    X(las)                /* las.c */                                                              \
    X(priority)           /* priority.c */                                                         \
    X(fairshare)          /* fairshare.c */                                                        \
    X(gavel_fifo)         /* gavel.c: the Gavel family and Themis */                               \
    X(gavel_max_min)                                                                               \
    X(gavel_max_min_perf)                                                                          \
    X(themis_ftf)                                                                                  \
    X(tiresias_dlas)      /* tiresias.c */                                                         \
    X(tiresias_dlas_gpu)                                                                           \
    X(blox_las)           /* blox.c */                                                             \
    X(blox_fifo)                                                                                   \
    X(specon)             /* specon.c: SpeCon and its spread baseline */                           \
    X(spread)                                                                                      \
    X(aryl)               /* aryl.c: Aryl / Lyra and its variants */                               \
    X(aryl_loan)                                                                                   \
    X(aryl_elastic)                                                                                \
    X(aryl_base)                                                                                   \
    X(salus_fifo)         /* salus/salus.c */                                                      \
    X(salus_srtf)                                                                                  \
    X(salus_pack)                                                                                  \
    X(salus_fair)                                                                                  \
    X(goodput)            /* goodput.c: elastic goodput (Pollux-, Sia-like) */                     \
    X(goodput_hetero)
/* clang-format on */

#define DECLARE(n) extern const struct berth__policy_ops berth__policy_##n;
BERTH_POLICIES(DECLARE)
#undef DECLARE

static const struct berth__policy_ops *const registry[] = {
#define ENTRY(n) &berth__policy_##n,
    BERTH_POLICIES(ENTRY)
#undef ENTRY
};

#define NPOLICIES (sizeof registry / sizeof *registry)

const struct berth__policy_ops *berth__policy_at(size_t i)
{
    return i < NPOLICIES ? registry[i] : NULL;
}

const struct berth__policy_ops *berth__policy_lookup(const char *name)
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
