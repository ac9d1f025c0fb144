/* The live job record: its life cycle helpers, signal names and freeing. Reading a
 * submission and the JSON forms live in ljob_submit.c and ljob_json.c. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ljob.h"
#include "util/mem.h"

static const char *const state_names[] = {"pending",   "held",   "running",
                                          "completed", "failed", "cancelled"};

const char *berth__lstate_name(int s)
{
    return s >= 0 && s < 6 ? state_names[s] : "unknown";
}

int berth__lstate_find(const char *name)
{
    for (int i = 0; i < 6; i++)
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
    char *end;
    long v = strtol(name, &end, 10);
    return *name && !*end && v > 0 && v < 32 ? (int)v : -1;
}

const char *berth__signal_name(int sig)
{
    static const char *const full[] = {"SIGHUP",  "SIGINT",  "SIGQUIT", "SIGKILL", "SIGUSR1",
                                       "SIGUSR2", "SIGTERM", "SIGCONT", "SIGALRM", "SIGXCPU"};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        if (sigs[i].sig == sig)
            return full[i];
    return "SIGTERM";
}

void berth__strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
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
    free((char *)j->spec.gpu_type);
    free((char *)j->spec.job_type);
    free(j->hist);
    free(j);
}

void berth__ljob_set_id(struct berth__ljob *j, uint64_t id)
{
    j->id = id;
    snprintf(j->idstr, sizeof j->idstr, "%llu", (unsigned long long)id);
    j->spec.id = j->idstr;
    j->spec.user = j->user;
}

int berth__ljob_note(struct berth__ljob *j, berth_us t, int state, const char *fmt, ...)
{
    if (BERTH_GROW(j->hist, j->hcap, j->nhist + 1))
        return BERTH_ENOMEM;
    struct berth__lhist *h = &j->hist[j->nhist++];
    h->t = t;
    h->state = (uint8_t)state;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->note, sizeof h->note, fmt, ap);
    va_end(ap);
    j->state = (uint8_t)state;
    return 0;
}
