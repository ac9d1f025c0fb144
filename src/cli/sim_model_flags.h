/* `berth sim`'s fidelity flags (throughput model, restart cost, time mode): parsing and
 * loading. */
#ifndef BERTH_CLI_SIM_MODEL_FLAGS_H
#define BERTH_CLI_SIM_MODEL_FLAGS_H

#include <getopt.h>

#include "cli.h"

enum {
    SIMF_THROUGHPUTS = 1000,
    SIMF_COLOCATION,
    SIMF_FIXED,
    SIMF_SPREAD,
    SIMF_COLOCATE,
    SIMF_RESTART,
    SIMF_MODE,
    SIMF_ROUND,
    SIMF_MIN_REALLOC,
    SIMF_ROUND_ADMIT,
    SIMF_ROUND_RELEASE,
    SIMF_ROUND_JCT,
    SIMF_FLAT,
    SIMF_QUEUE_LIMITS,
    SIMF_INFERENCE,
    SIMF_LOAN_HEADROOM,
    SIMF_END,
};

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
    const char *inference;     /* --inference FILE | diurnal[:...] */
    struct berth_infer *infer; /* loaded by sim_model_load; the caller frees it */
};

/* Copies the flags' getopt entries into dst (room entries); returns how many. */
size_t sim_model_longopts(struct option *dst, size_t room);
const char *sim_model_help(void);
/* Handles one flag (ch in SIMF_*): 0, or prints the error and returns 2. */
int sim_model_flag(int ch, const char *arg, struct sim_model_args *a, struct berth_sim_opts *o);
/* Loads the model (file or built-in catalog, plus pairs) and applies the spread penalties,
 * and the inference demand series; *model and a->infer are the caller's to free after the
 * run. */
int sim_model_load(struct sim_model_args *a, struct berth_sim_opts *o, struct berth_tput **model,
                   struct berth_err *err);

#endif
