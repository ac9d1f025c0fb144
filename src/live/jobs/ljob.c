/* The live job record: its life cycle helpers, signal names and freeing. Reading a
 * submission and the JSON forms live in ljob_submit.c and ljob_json.c. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "live/jobs/limits.h"
#include "live/jobs/ljob.h"
#include "live/jobs/tally.h"
#include "util/mem.h"

static const char *const state_names[BERTH_L_NSTATES] = {
    "pending", "held", "running", "completed", "failed", "cancelled", "timeout"};

const char *berth__lstate_name(int s)
{
    return s >= 0 && s < BERTH_L_NSTATES ? state_names[s] : "unknown";
}

int berth__lstate_find(const char *name)
{
    for (int i = 0; i < BERTH_L_NSTATES; i++)
        if (!strcmp(name, state_names[i]))
            return i;
    return -1;
}

static const struct {
    const char *name;
    int sig;
} sigs[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"KILL", SIGKILL},
            {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"CONT", SIGCONT},
            {"ALRM", SIGALRM}, {"XCPU", SIGXCPU}};

int berth__signal_find(const char *name)
{
    if (!strncasecmp(name, "SIG", 3))
        name += 3;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        if (!strcasecmp(name, sigs[i].name))
            return sigs[i].sig;
    return -1;
}

const char *berth__signal_name(int sig)
{
    static const char *const full[] = {"SIGHUP",  "SIGINT",  "SIGQUIT", "SIGKILL", "SIGUSR1",
                                       "SIGUSR2", "SIGTERM", "SIGCONT", "SIGALRM", "SIGXCPU"};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        if (sigs[i].sig == sig)
            return full[i];
    return "SIGTERM"; /* unreachable: only signals of the table are ever stored */
}

void berth__strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

int berth__env_add(char ***v, size_t *n, size_t *cap, const char *k, const char *val)
{
    size_t len = strlen(k) + strlen(val) + 2;
    char *s = malloc(len);
    if (!s || BERTH_GROW(*v, *cap, *n + 2)) {
        free(s);
        return -1;
    }
    snprintf(s, len, "%s=%s", k, val);
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
    return 0;
}

void berth__ljob_free(struct berth__ljob *j)
{
    if (!j)
        return;
    free(j->user);
    free(j->name);
    free(j->cwd);
    berth__strv_free(j->argv);
    berth__strv_free(j->env);
    free((char *)j->spec.queue);
    free((char *)j->extra.gpu_type);
    free((char *)j->extra.job_type);
    free(j->hist);
    free(j->slots); /* the block pslots points into too */
    free(j->array_idx);
    free(j->deps);
    free(j->rdeps);
    free(j);
}

int berth__ljob_slots(struct berth__ljob *j)
{
    if (j->slots)
        return 0;
    struct berth__slot *b = calloc(2 * BERTH_L_MAX_SLOTS, sizeof *b);
    if (!b)
        return BERTH_ENOMEM;
    j->slots = b;
    j->pslots = b + BERTH_L_MAX_SLOTS;
    return 0;
}

void berth__ljob_set_id(struct berth__ljob *j, uint64_t id)
{
    j->id = id;
    snprintf(j->idstr, sizeof j->idstr, "%llu", (unsigned long long)id);
    j->spec.id = j->idstr;
    j->extra.user = j->user;
}

/* The first entries and the newest ones are kept; those between go, counted in one entry
 * (a job preempted a million times must not hold a million notes). */
#define HIST_KEEP_FIRST 8
#define HIST_DROP       64

static void hist_trim(struct berth__ljob *j)
{
    struct berth__lhist *mark = &j->hist[HIST_KEEP_FIRST];
    unsigned long long dropped = HIST_DROP;
    if (!strncmp(mark->note, "... ", 4)) /* an earlier trim: its count grows */
        dropped += strtoull(mark->note + 4, NULL, 10) - 1;
    memmove(j->hist + HIST_KEEP_FIRST + 1, j->hist + HIST_KEEP_FIRST + HIST_DROP,
            (j->nhist - HIST_KEEP_FIRST - HIST_DROP) * sizeof *j->hist);
    j->nhist -= HIST_DROP - 1;
    mark->t = j->hist[HIST_KEEP_FIRST + 1].t;
    mark->state = j->hist[HIST_KEEP_FIRST + 1].state;
    snprintf(mark->note, sizeof mark->note, "... %llu entries dropped (history kept to %d)",
             dropped, BERTH_L_MAX_HIST);
}

static int waiting(int s)
{
    return s == BERTH_L_PENDING || s == BERTH_L_HELD;
}

int berth__ljob_note(struct berth__ljob *j, berth_us t, int state, const char *fmt, ...)
{
    if (j->nhist >= BERTH_L_MAX_HIST)
        hist_trim(j);
    if (!j->hcap) { /* a waiting job notes one entry: 1 first, not the 16 of a grow */
        if (!(j->hist = malloc(sizeof *j->hist)))
            return BERTH_ENOMEM;
        j->hcap = 1;
    }
    if (BERTH_GROW(j->hist, j->hcap, j->nhist + 1))
        return BERTH_ENOMEM;
    struct berth__lhist *h = &j->hist[j->nhist++];
    h->t = t;
    h->state = (uint8_t)state;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->note, sizeof h->note, fmt, ap);
    va_end(ap);
    if (j->usage && waiting(j->state) != waiting(state))
        j->usage->waiting += waiting(state) ? 1 : -1;
    if (j->qusage && waiting(j->state) != waiting(state))
        j->qusage->waiting += waiting(state) ? 1 : -1;
    if (j->tally && j->state != state)
        berth__tally_move(j->tally, j->tally_slot, j->state, state);
    j->state = (uint8_t)state;
    return 0;
}
