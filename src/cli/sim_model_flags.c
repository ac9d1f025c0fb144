/* The `berth sim` flags that choose how faithful the simulation is: the throughput model
 * and its knobs (spread penalty, co-location, restart cost), the time mode with its round
 * switches and the inference pool, as flag tables. Kept apart from cmd_sim.c, which handles
 * the run itself. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_model_flags.h"

static int parse_factor(const char *s, double *out, struct berth_err *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v > 0) || v > 1e6)
        return berth_err_set(err, BERTH_EINPUT, "expected a number > 0, found '%s'", s);
    *out = v;
    return 0;
}

/* --round-admit and the other round switches (at: their int). */
static int set_switch(const struct cli_flag *f, void *base, const char *s, struct berth_err *err)
{
    int *out = (int *)((char *)base + f->at);
    if (!strcmp(s, "on") || !strcmp(s, "1"))
        *out = 1;
    else if (!strcmp(s, "off") || !strcmp(s, "0"))
        *out = 0;
    else
        return berth_err_set(err, BERTH_EINPUT, "expected on or off, found '%s'", s);
    return 0;
}

/* A two-word switch (data: "on-word|off-word"): the first word sets 1, the second 0. */
static int set_choice(const struct cli_flag *f, void *base, const char *s, struct berth_err *err)
{
    int *out = (int *)((char *)base + f->at);
    const char *words = f->data, *bar = strchr(words, '|');
    size_t n = (size_t)(bar - words);
    if (strlen(s) == n && !strncmp(s, words, n))
        *out = 1;
    else if (!strcmp(s, bar + 1))
        *out = 0;
    else
        return berth_err_set(err, BERTH_EINPUT, "expected %.*s or %s, found '%s'", (int)n, words,
                             bar + 1, s);
    return 0;
}

static int set_queue_limits(const struct cli_flag *f, void *base, const char *s,
                            struct berth_err *err)
{
    struct berth_sim_opts *o = &((struct sim_args *)base)->o;
    char buf[256];
    (void)f;
    if (strlen(s) >= sizeof buf)
        return berth_err_set(err, BERTH_EINPUT, "expected at most %zu characters, found %zu",
                             sizeof buf - 1, strlen(s));
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    berth_us prev = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == 8)
            return berth_err_set(err, BERTH_EINPUT, "expected at most 8 thresholds, found '%s'", s);
        if (cli_flags_seconds(tok, &o->queue_limits_us[n], err))
            return err->code;
        if (o->queue_limits_us[n] <= prev)
            return berth_err_set(err, BERTH_EINPUT, "thresholds must increase, found '%s'", s);
        prev = o->queue_limits_us[n++];
    }
    if (!n)
        return berth_err_set(err, BERTH_EINPUT, "expected seconds like 3250,7200, found '%s'", s);
    o->nqueue_limits = n;
    return 0;
}

static int set_spread(const struct cli_flag *f, void *base, const char *arg, struct berth_err *err)
{
    struct sim_model_args *a = &((struct sim_args *)base)->ma;
    (void)f;
    if (a->nspread == SIM_MAX_SPREAD)
        return berth_err_set(err, BERTH_EINPUT, "expected at most %d of them", SIM_MAX_SPREAD);
    const char *eq = strrchr(arg, '=');
    struct sim_spread *sp = &a->spread[a->nspread++];
    sp->cls = NULL;
    if (eq) {
        size_t len = (size_t)(eq - arg);
        if (!len || len >= sizeof sp->name)
            return berth_err_set(err, BERTH_EINPUT, "expected TYPE=F, found '%s'", arg);
        memcpy(sp->name, arg, len);
        sp->name[len] = '\0';
        sp->cls = sp->name;
    }
    return parse_factor(eq ? eq + 1 : arg, &sp->factor, err);
}

static int set_restart(const struct cli_flag *f, void *base, const char *arg, struct berth_err *err)
{
    struct berth_sim_opts *o = &((struct sim_args *)base)->o;
    (void)f;
    if (!strcmp(arg, "helios"))
        o->restart_tiers = BERTH_RESTART_HELIOS;
    else if (!strcmp(arg, "lucid"))
        o->restart_tiers = BERTH_RESTART_LUCID;
    else if (!strcmp(arg, "0"))
        o->restart_us = 0;
    else
        return cli_flags_seconds(arg, &o->restart_us, err);
    return 0;
}

static int set_mode(const struct cli_flag *f, void *base, const char *arg, struct berth_err *err)
{
    struct berth_sim_opts *o = &((struct sim_args *)base)->o;
    (void)f;
    if ((o->mode = berth_sim_mode_find(arg)) < 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "expected des, rounds, gavel, blox or tiresias, found '%s'", arg);
    return 0;
}

static int set_loan_headroom(const struct cli_flag *f, void *base, const char *arg,
                             struct berth_err *err)
{
    struct berth_sim_opts *o = &((struct sim_args *)base)->o;
    double pct = 0;
    (void)f;
    if (strcmp(arg, "0") && parse_factor(arg, &pct, err))
        return err->code;
    if (pct > 100)
        return berth_err_set(err, BERTH_EINPUT, "expected a number from 0 to 100, found '%s'", arg);
    /* 0 asks for none: the smallest positive milli keeps "0 = default" for the API */
    o->loan_headroom_milli = pct > 0 ? (int32_t)(pct * 10 + 0.5) : -1;
    return 0;
}

#define A struct sim_args
const struct cli_flag sim_progress_flags[] = {
    {"throughputs", 0, "FILE",
     "Gavel's simulation_throughputs.json (default: the built-in catalog); jobs with job_type "
     "+ total_steps run at its speed",
     CLI_STR_AT(A, ma.throughputs)},
    {"colocation", 0, "FILE", "add Lucid's colocate_info.csv pairs (speeds when sharing)",
     CLI_STR_AT(A, ma.colocation)},
    {"fixed-speed", 0, NULL,
     "ignore steps: every job runs exactly its duration, whatever GPUs and servers it gets "
     "(--progress duration)",
     CLI_ON_AT(A, o.fixed_speed)},
    {"progress", 0, "steps|duration",
     "how jobs progress: by steps at the throughput model's rates (default) or by their "
     "duration",
     CLI_SET(set_choice), .at = CLI_AT(A, o.fixed_speed, int), .data = "duration|steps"},
    {"spread-penalty", 0, "F | TYPE=F",
     "rate multiplier for gangs across servers, for all jobs or one job type (repeatable); it "
     "wins over measured rates",
     CLI_SET(set_spread)},
    {"spread-rates", 0, "measured|off",
     "gangs across servers run at the model's measured rates (default; off under "
     "--fixed-speed) or at their one-server rate",
     CLI_SET(set_choice), .at = CLI_AT(A, o.spread_rates, int), .data = "measured|off"},
    {"spread-wait", 0, "on|off",
     "consolidate-or-wait: a gang that would span servers waits when one server, once free, "
     "would finish it sooner at the model's rates (default on in des and rounds, off in the "
     "peer modes)",
     CLI_SET(set_switch), .at = CLI_AT(A, o.spread_wait, int)},
    {"topology-model", 0, "FILE",
     "on a cluster with a topology: per-level bandwidths and per job type communication "
     "shares for the rate of a gang by the level it spans (JSON; default: docs/topology.md)",
     CLI_STR_AT(A, ma.topology_model)},
    {"colocate-speed", 0, "F",
     "speed per partner sharing a GPU when no pair is known, 0.01 to 100 (default 1: no "
     "interference)",
     CLI_NUM_AT(A, o.colocate_speed), .lo = 0.01, .hi = 100},
    {"restart-cost", 0, "S | helios | lucid",
     "checkpoint/restore time charged on every restart and migration (default 0)",
     CLI_SET(set_restart)},
    {0},
};

const struct cli_flag sim_time_flags[] = {
    {"mode", 0, "M",
     "des (default), rounds, or a peer's exact semantics: gavel (360 s rounds), blox (300 s) or "
     "tiresias (des, jobs by duration); the switches below default per mode (see docs/sim.md, "
     "\"Time modes\")",
     CLI_SET(set_mode)},
    {"round", 0, "S", "round length of the round modes and round-based policies",
     CLI_SECS_AT(A, o.round_us)},
    {"min-realloc", 0, "S", "allocation policies re-solve at most this often (gavel mode: 1920 s)",
     CLI_SECS_AT(A, o.min_realloc_us)},
    {"round-admit", 0, "on|off", "round switch: an arrival waits for the next boundary",
     CLI_SET(set_switch), .at = CLI_AT(A, o.round_admit, int)},
    {"round-release", 0, "on|off",
     "round switch: a job whose work ended keeps its GPUs until the next boundary",
     CLI_SET(set_switch), .at = CLI_AT(A, o.round_release, int)},
    {"round-jct", 0, "on|off",
     "round switch: a job's finish is recorded at that boundary, not when its work ended",
     CLI_SET(set_switch), .at = CLI_AT(A, o.round_jct, int)},
    {"flat-progress", 0, "on|off", "round switch: progress ignores the allocation (Blox)",
     CLI_SET(set_switch), .at = CLI_AT(A, o.flat_progress, int)},
    {"round-early-end", 0, "on|off",
     "round switch: a round ends when the work of every job in it has, if before the round's "
     "length (Gavel's round end at the latest finish); rounds then leave the grid",
     CLI_SET(set_switch), .at = CLI_AT(A, o.round_early_end, int)},
    {"whole-steps", 0, "on|off",
     "round switch: each round a job runs a whole number of steps, floor(rate x round), then "
     "idles (Gavel's int(throughput x round)); needs --round-early-end on",
     CLI_SET(set_switch), .at = CLI_AT(A, o.whole_steps, int)},
    {"queue-limits", 0, "S[,S...]", "multi-level feedback thresholds (tiresias-*)",
     CLI_SET(set_queue_limits)},
    {0},
};

const struct cli_flag sim_pool_flags[] = {
    {"inference", 0, "FILE | diurnal[:PEAK,TROUGH[,PERIOD_H[,STEP_S]]]",
     "inference demand on the cluster's \"inference\" pool (servers in use over time); the pool "
     "is lent to training only by aryl policies",
     CLI_STR_AT(A, ma.inference)},
    {"loan-headroom", 0, "PCT", "inference servers kept idle when lending (default 5)",
     CLI_SET(set_loan_headroom)},
    {0},
};
#undef A

int sim_model_load(struct sim_model_args *a, struct berth_sim_opts *o, struct berth_tput **model,
                   struct berth_err *err)
{
    *model = NULL;
    int rc = a->throughputs ? berth_tput_load_gavel(a->throughputs, model, err)
                            : berth_tput_builtin(model, err);
    if (!rc && a->colocation)
        rc = berth_tput_add_lucid_pairs(*model, a->colocation, err);
    for (int i = 0; !rc && i < a->nspread; i++) {
        if (!a->spread[i].cls)
            o->spread_factor = a->spread[i].factor;
        else
            rc = berth_tput_set_spread(*model, a->spread[i].cls, a->spread[i].factor, err);
    }
    if (!rc && a->inference && !(rc = berth_infer_open(a->inference, &a->infer, err)))
        o->infer = a->infer;
    if (!rc && a->topology_model && !(rc = berth_topo_model_load(a->topology_model, &a->topo, err)))
        o->topology_model = a->topo;
    if (rc) {
        berth_tput_free(*model);
        *model = NULL;
        return rc;
    }
    o->tput = *model;
    return 0;
}
