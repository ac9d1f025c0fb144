/* The `berth sim` flags that choose how faithful the simulation is: the throughput model
 * and its knobs (spread penalty, co-location, restart cost) and the time mode with its
 * round switches. Kept apart from cmd_sim.c, which handles the run itself. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_model_flags.h"

static const struct option model_longopts[] = {
    {"throughputs", required_argument, 0, SIMF_THROUGHPUTS},
    {"colocation", required_argument, 0, SIMF_COLOCATION},
    {"fixed-speed", no_argument, 0, SIMF_FIXED},
    {"spread-penalty", required_argument, 0, SIMF_SPREAD},
    {"colocate-speed", required_argument, 0, SIMF_COLOCATE},
    {"restart-cost", required_argument, 0, SIMF_RESTART},
    {"mode", required_argument, 0, SIMF_MODE},
    {"round", required_argument, 0, SIMF_ROUND},
    {"min-realloc", required_argument, 0, SIMF_MIN_REALLOC},
    {"round-admit", required_argument, 0, SIMF_ROUND_ADMIT},
    {"round-release", required_argument, 0, SIMF_ROUND_RELEASE},
    {"round-jct", required_argument, 0, SIMF_ROUND_JCT},
    {"flat-progress", required_argument, 0, SIMF_FLAT},
    {"queue-limits", required_argument, 0, SIMF_QUEUE_LIMITS},
    {"inference", required_argument, 0, SIMF_INFERENCE},
    {"loan-headroom", required_argument, 0, SIMF_LOAN_HEADROOM},
};

size_t sim_model_longopts(struct option *dst, size_t room)
{
    size_t n = sizeof model_longopts / sizeof *model_longopts;
    if (n > room)
        n = room;
    memcpy(dst, model_longopts, n * sizeof *dst);
    return n;
}

const char *sim_model_help(void)
{
    return "Progress (see README, \"Throughput model\"):\n"
           "  --throughputs FILE   Gavel's simulation_throughputs.json (default: the built-in\n"
           "                       catalog); jobs with job_type + total_steps run at its speed\n"
           "  --colocation FILE    add Lucid's colocate_info.csv pairs (speeds when sharing)\n"
           "  --fixed-speed        ignore steps: every job runs by its duration\n"
           "  --spread-penalty F | TYPE=F   rate multiplier for gangs across servers, for all\n"
           "                       jobs or one job type (repeatable; default 1, or measured)\n"
           "  --colocate-speed F   speed per partner sharing a GPU when no pair is known\n"
           "                       (default 1: no interference)\n"
           "  --restart-cost S | helios | lucid   checkpoint/restore time charged on every\n"
           "                       restart and migration (default 0)\n"
           "Time:\n"
           "  --mode M             des (default), rounds, gavel (360 s rounds) or blox (300 s)\n"
           "  --round S            round length of the round modes and round-based policies\n"
           "  --min-realloc S      allocation policies re-solve at most this often\n"
           "                       (gavel mode: 1920 s)\n"
           "  --round-admit on|off, --round-release on|off, --round-jct on|off,\n"
           "  --flat-progress on|off   the round switches (defaults per mode, see README)\n"
           "  --queue-limits S[,S...]  multi-level feedback thresholds (tiresias-*)\n"
           "Pools (see README, \"Capacity loaning\"):\n"
           "  --inference FILE | diurnal[:PEAK,TROUGH[,PERIOD_H[,STEP_S]]]   inference demand\n"
           "                       on the cluster's \"inference\" pool (servers in use over\n"
           "                       time); the pool is lent to training only by aryl policies\n"
           "  --loan-headroom PCT  inference servers kept idle when lending (default 5)\n";
}

static int parse_factor(const char *flag, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v > 0) || v > 1e6)
        return cli_usage_error("sim", "%s: expected a number > 0, found '%s'", flag, s);
    *out = v;
    return 0;
}

static int parse_switch(const char *flag, const char *s, int *out)
{
    if (!strcmp(s, "on") || !strcmp(s, "1"))
        *out = 1;
    else if (!strcmp(s, "off") || !strcmp(s, "0"))
        *out = 0;
    else
        return cli_usage_error("sim", "%s: expected on or off, found '%s'", flag, s);
    return 0;
}

static int parse_limits(const char *s, struct berth_sim_opts *o)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return cli_usage_error("sim", "--queue-limits: too long");
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    berth_us prev = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == 8)
            return cli_usage_error("sim", "--queue-limits: at most 8 thresholds");
        if (cli_parse_seconds("sim", "--queue-limits", tok, &o->queue_limits_us[n]))
            return EXIT_BAD_INPUT;
        if (o->queue_limits_us[n] <= prev)
            return cli_usage_error("sim", "--queue-limits: thresholds must increase, found '%s'",
                                   s);
        prev = o->queue_limits_us[n++];
    }
    if (!n)
        return cli_usage_error("sim", "--queue-limits: expected seconds like 3250,7200");
    o->nqueue_limits = n;
    return 0;
}

int sim_model_flag(int ch, const char *arg, struct sim_model_args *a, struct berth_sim_opts *o)
{
    switch (ch) {
    case SIMF_THROUGHPUTS:
        a->throughputs = arg;
        return 0;
    case SIMF_COLOCATION:
        a->colocation = arg;
        return 0;
    case SIMF_FIXED:
        o->fixed_speed = 1;
        return 0;
    case SIMF_SPREAD: {
        if (a->nspread == SIM_MAX_SPREAD)
            return cli_usage_error("sim", "--spread-penalty: at most %d", SIM_MAX_SPREAD);
        const char *eq = strrchr(arg, '=');
        struct sim_spread *sp = &a->spread[a->nspread++];
        sp->cls = NULL;
        if (eq) {
            size_t len = (size_t)(eq - arg);
            if (!len || len >= sizeof sp->name)
                return cli_usage_error("sim", "--spread-penalty: expected TYPE=F, found '%s'", arg);
            memcpy(sp->name, arg, len);
            sp->name[len] = '\0';
            sp->cls = sp->name;
        }
        return parse_factor("--spread-penalty", eq ? eq + 1 : arg, &sp->factor);
    }
    case SIMF_COLOCATE:
        if (parse_factor("--colocate-speed", arg, &o->colocate_speed))
            return EXIT_BAD_INPUT;
        if (o->colocate_speed < 0.01 || o->colocate_speed > 100)
            return cli_usage_error("sim", "--colocate-speed: expected 0.01 to 100, found '%s'",
                                   arg);
        return 0;
    case SIMF_RESTART:
        if (!strcmp(arg, "helios"))
            o->restart_tiers = BERTH_RESTART_HELIOS;
        else if (!strcmp(arg, "lucid"))
            o->restart_tiers = BERTH_RESTART_LUCID;
        else if (!strcmp(arg, "0"))
            o->restart_us = 0;
        else
            return cli_parse_seconds("sim", "--restart-cost", arg, &o->restart_us);
        return 0;
    case SIMF_MODE:
        if ((o->mode = berth_sim_mode_find(arg)) < 0)
            return cli_usage_error(
                "sim", "--mode: unknown mode '%s' (expected des, rounds, gavel or blox)", arg);
        return 0;
    case SIMF_ROUND:
        return cli_parse_seconds("sim", "--round", arg, &o->round_us);
    case SIMF_MIN_REALLOC:
        return cli_parse_seconds("sim", "--min-realloc", arg, &o->min_realloc_us);
    case SIMF_ROUND_ADMIT:
        return parse_switch("--round-admit", arg, &o->round_admit);
    case SIMF_ROUND_RELEASE:
        return parse_switch("--round-release", arg, &o->round_release);
    case SIMF_ROUND_JCT:
        return parse_switch("--round-jct", arg, &o->round_jct);
    case SIMF_FLAT:
        return parse_switch("--flat-progress", arg, &o->flat_progress);
    case SIMF_QUEUE_LIMITS:
        return parse_limits(arg, o);
    case SIMF_INFERENCE:
        a->inference = arg;
        return 0;
    case SIMF_LOAN_HEADROOM: {
        double pct = 0;
        if (strcmp(arg, "0") && parse_factor("--loan-headroom", arg, &pct))
            return EXIT_BAD_INPUT;
        if (pct > 100)
            return cli_usage_error("sim", "--loan-headroom: expected 0 to 100, found '%s'", arg);
        /* 0 asks for none: the smallest positive milli keeps "0 = default" for the API */
        o->loan_headroom_milli = pct > 0 ? (int32_t)(pct * 10 + 0.5) : -1;
        return 0;
    }
    default:
        return EXIT_BAD_INPUT;
    }
}

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
    if (rc) {
        berth_tput_free(*model);
        *model = NULL;
        return rc;
    }
    o->tput = *model;
    return 0;
}
