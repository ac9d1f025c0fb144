/* `berth sim`'s flags: what they fill (struct sim_args), the fidelity flags' tables
 * (throughput model, restart cost, time mode, inference pool) and loading what they name. */
#ifndef BERTH_CLI_SIM_MODEL_FLAGS_H
#define BERTH_CLI_SIM_MODEL_FLAGS_H

#include "cli.h"
#include "flags.h"

#define SIM_MAX_SPREAD 32

struct sim_spread {
    const char *cls; /* NULL = every job */
    char name[256];
    double factor;
};

struct sim_model_args {
    const char *throughputs, *colocation;
    struct sim_spread spread[SIM_MAX_SPREAD];
    int nspread;
    const char *inference;         /* --inference FILE | diurnal[:...] */
    struct berth_infer *infer;     /* loaded by sim_model_load; the caller frees it */
    const char *topology_model;    /* --topology-model FILE */
    struct berth_topo_model *topo; /* loaded by sim_model_load; the caller frees it */
};

/* What every flag of `berth sim` fills (cmd_sim.c's table and these). */
struct sim_args {
    struct berth_sim_opts o;
    char policy_args[1024]; /* --policy-arg KEY=VALUE, joined by commas */
    const char *cluster, *trace, *format, *out, *report;
    const char *queues;   /* --queues FILE */
    const char *topology; /* --topology FILE */
    int json, lenient, quiet;
    struct sim_model_args ma;
};

/* The fidelity flags, three tables under these titles in the help. */
#define SIM_PROGRESS_TITLE "Progress (see docs/sim.md, \"Throughput model\"):"
#define SIM_TIME_TITLE     "Time:"
#define SIM_POOLS_TITLE    "Pools (see docs/sim.md, \"Capacity loaning\"):"
extern const struct cli_flag sim_progress_flags[], sim_time_flags[], sim_pool_flags[];

/* Loads the model (file or built-in catalog, plus pairs) and applies the spread penalties,
 * and the inference demand series; *model and a->infer are the caller's to free after the
 * run. */
int sim_model_load(struct sim_model_args *a, struct berth_sim_opts *o, struct berth_tput **model,
                   struct berth_err *err);

#endif
