/* The job side of berth's protocol for C and C++ training programs, in one header that
 * stands alone (no libberth to link): progress lines, the resume flag, the checkpoint
 * signal. docs/job-protocol.md is the contract; clients/python/berth_client.py its twin.
 *
 *     struct berth_job_client job;
 *     if (berth_job_client_open(&job) < 0) { fprintf(stderr, "%s\n", job.msg); return 2; }
 *     berth_job_client_install_checkpoint_handler(&job);     // early, before any thread
 *     long long step = job.resume ? load_checkpoint() : 0;
 *     for (; step < steps; step++) {
 *         if (berth_job_client_checkpoint_requested()) break;  // at an iteration boundary
 *         double loss = train_one_step();
 *         berth_job_client_report_metric(&job, step + 1, loss);
 *     }
 *     save_checkpoint(step);                                  // atomically: tmp, rename
 *     berth_job_client_report(&job, step);
 *     berth_job_client_close(&job);                           // then exit 0
 *
 * Outside berth (no BERTH_* variables) every call succeeds and does nothing, so the same
 * program runs anywhere. Functions return 0 or a negative errno (-EINVAL for a bad value,
 * the system's code for a failed write) and leave a sentence in job->msg. Reports go only
 * to BERTH_PROGRESS_FILE (berthd always gives it to local jobs); a job given only
 * BERTH_API must use the Python client or post itself.
 *
 * The checkpoint flag is a `static volatile sig_atomic_t` of this header, so it is one per
 * translation unit: install the handler and poll berth_job_client_checkpoint_requested()
 * in the same .c file (or wrap the poll in one function of yours). Needs POSIX (sigaction,
 * open): compile with -std=gnu11, or define _POSIX_C_SOURCE=200809L before any include. */
#ifndef BERTH_JOB_CLIENT_H
#define BERTH_JOB_CLIENT_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if !defined(_POSIX_C_SOURCE) && !defined(__APPLE__)
#error "berth/job_client.h needs POSIX: compile with -std=gnu11 or -D_POSIX_C_SOURCE=200809L"
#endif

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

struct berth_job_client {
    int fd;          /* BERTH_PROGRESS_FILE opened for appending; -1 when unset */
    int resume;      /* 1 when BERTH_RESUME=1: restarted after a preemption or a resize */
    int ckpt_signal; /* BERTH_CHECKPOINT_SIGNAL's number; SIGTERM when unset */
    double grace_s;  /* BERTH_GRACE_S: seconds from the signal to SIGKILL; -1 when unset */
    int rank;        /* RANK, 0 when unset */
    int world_size;  /* WORLD_SIZE, 1 when unset */
    int local_rank;  /* LOCAL_RANK, 0 when unset */
    const char *id;  /* BERTH_JOB_ID (the environment's string), NULL outside berth */
    char msg[256];   /* why the last failing call failed */
};

static volatile sig_atomic_t berth_job_client__ckpt_flag;

static const struct {
    const char *name;
    int sig;
} berth_job_client__signals[] = {
    {"SIGHUP", SIGHUP},   {"SIGINT", SIGINT},   {"SIGQUIT", SIGQUIT}, {"SIGKILL", SIGKILL},
    {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2}, {"SIGTERM", SIGTERM}, {"SIGCONT", SIGCONT},
    {"SIGALRM", SIGALRM}, {"SIGXCPU", SIGXCPU},
};
#define BERTH_JOB_CLIENT__NSIGNALS                                                                 \
    (sizeof berth_job_client__signals / sizeof berth_job_client__signals[0])

/* The number of a BERTH_CHECKPOINT_SIGNAL name: SIGHUP, SIGINT, SIGQUIT, SIGKILL, SIGUSR1,
 * SIGUSR2, SIGTERM, SIGCONT, SIGALRM or SIGXCPU, with or without "SIG", in any case,
 * surrounding blanks ignored; -1 for anything else. SIGKILL means "no warning". */
static inline int berth_job_client_signal_parse(const char *name)
{
    char key[16] = "SIG";
    size_t n = 3;
    if (!name)
        return -1;
    while (isspace((unsigned char)*name))
        name++;
    if (toupper((unsigned char)name[0]) == 'S' && toupper((unsigned char)name[1]) == 'I' &&
        toupper((unsigned char)name[2]) == 'G')
        name += 3;
    for (; *name && !isspace((unsigned char)*name); name++) {
        if (n + 1 >= sizeof key)
            return -1;
        key[n++] = (char)toupper((unsigned char)*name);
    }
    while (isspace((unsigned char)*name))
        name++;
    if (*name)
        return -1;
    key[n] = '\0';
    for (size_t i = 0; i < BERTH_JOB_CLIENT__NSIGNALS; i++)
        if (!strcmp(key, berth_job_client__signals[i].name))
            return berth_job_client__signals[i].sig;
    return -1;
}

/* The canonical name of a signal berth_job_client_signal_parse accepts ("SIGTERM"), else NULL. */
static inline const char *berth_job_client_signal_name(int sig)
{
    for (size_t i = 0; i < BERTH_JOB_CLIENT__NSIGNALS; i++)
        if (berth_job_client__signals[i].sig == sig)
            return berth_job_client__signals[i].name;
    return NULL;
}

/* Reads a whole decimal integer >= min from the environment variable name (def when it
 * is unset or empty); -EINVAL with a message otherwise. */
static inline int berth_job_client__env_int(struct berth_job_client *job, const char *name, int def,
                                            int min, int *out)
{
    const char *s = getenv(name);
    char *end;
    long v;
    if (!s || !*s) {
        *out = def;
        return 0;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > 1000000000L) {
        snprintf(job->msg, sizeof job->msg, "%s: expected an integer >= %d, found \"%.64s\"", name,
                 min, s);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

/* Reads berthd's environment into job and opens the progress file (created if missing).
 * Returns 0; -EINVAL for a malformed variable (BERTH_RESUME other than 1/0, an unknown
 * signal, a relative progress path, RANK not below WORLD_SIZE, ...); the open's -errno. On
 * failure job->msg names the variable or the file, and nothing is left open. */
static inline int berth_job_client_open(struct berth_job_client *job)
{
    const char *path = getenv("BERTH_PROGRESS_FILE");
    const char *resume = getenv("BERTH_RESUME");
    const char *sig = getenv("BERTH_CHECKPOINT_SIGNAL");
    const char *grace = getenv("BERTH_GRACE_S");
    int rc;
    memset(job, 0, sizeof *job);
    job->fd = -1;
    job->ckpt_signal = SIGTERM;
    job->grace_s = -1;
    job->id = getenv("BERTH_JOB_ID");
    if (job->id && !*job->id)
        job->id = NULL;
    if (resume && *resume && strcmp(resume, "0")) {
        if (strcmp(resume, "1")) {
            snprintf(job->msg, sizeof job->msg,
                     "BERTH_RESUME: expected 1 (or unset), found \"%.64s\"", resume);
            return -EINVAL;
        }
        job->resume = 1;
    }
    if (sig && *sig && (job->ckpt_signal = berth_job_client_signal_parse(sig)) < 0) {
        snprintf(job->msg, sizeof job->msg,
                 "BERTH_CHECKPOINT_SIGNAL: unknown signal \"%.32s\" (expected one of SIGHUP, "
                 "SIGINT, SIGQUIT, SIGKILL, SIGUSR1, SIGUSR2, SIGTERM, SIGCONT, SIGALRM, "
                 "SIGXCPU)",
                 sig);
        return -EINVAL;
    }
    if (grace && *grace) {
        char *end;
        job->grace_s = strtod(grace, &end);
        if (*end || end == grace || !(job->grace_s >= 0) || job->grace_s > 1e9) {
            snprintf(job->msg, sizeof job->msg,
                     "BERTH_GRACE_S: expected seconds >= 0, found \"%.64s\"", grace);
            return -EINVAL;
        }
    }
    if ((rc = berth_job_client__env_int(job, "WORLD_SIZE", 1, 1, &job->world_size)) < 0 ||
        (rc = berth_job_client__env_int(job, "RANK", 0, 0, &job->rank)) < 0 ||
        (rc = berth_job_client__env_int(job, "LOCAL_RANK", 0, 0, &job->local_rank)) < 0)
        return rc;
    if (job->rank >= job->world_size) {
        snprintf(job->msg, sizeof job->msg, "RANK: %d is not below WORLD_SIZE %d", job->rank,
                 job->world_size);
        return -EINVAL;
    }
    if (path && *path) {
        if (path[0] != '/') {
            snprintf(job->msg, sizeof job->msg,
                     "BERTH_PROGRESS_FILE: expected an absolute path, found \"%.128s\"", path);
            return -EINVAL;
        }
        job->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (job->fd < 0) {
            rc = -errno;
            snprintf(job->msg, sizeof job->msg, "cannot open progress file %.160s: %s", path,
                     strerror(errno));
            return rc;
        }
    }
    return 0;
}

/* Writes len bytes with as few write calls as the kernel allows (one on a local file). */
static inline int berth_job_client__write(struct berth_job_client *job, const char *s, size_t len)
{
    while (len) {
        ssize_t w = write(job->fd, s, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int rc = -errno;
            snprintf(job->msg, sizeof job->msg, "cannot write progress file: %s", strerror(errno));
            return rc;
        }
        s += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Formats x as a JSON number: the shortest of %.15g/%.17g that reads back exactly, with a
 * '.' whatever the locale's decimal point. */
static inline void berth_job_client__number(char *buf, size_t size, double x)
{
    snprintf(buf, size, "%.15g", x);
    if (strtod(buf, NULL) != x)
        snprintf(buf, size, "%.17g", x);
    for (char *p = buf; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '-' && *p != '+' && *p != 'e')
            *p = '.';
}

static inline int berth_job_client__report(struct berth_job_client *job, long long step,
                                           const double *metric)
{
    char line[160], num[40] = "";
    struct timespec now;
    int n;
    if (step < 0) {
        snprintf(job->msg, sizeof job->msg, "step must be >= 0, found %lld", step);
        return -EINVAL;
    }
    if (metric && !isfinite(*metric)) {
        snprintf(job->msg, sizeof job->msg, "metric must be finite (JSON has no NaN or inf)");
        return -EINVAL;
    }
    if (job->fd < 0)
        return 0;
    if (metric)
        berth_job_client__number(num, sizeof num, *metric);
    clock_gettime(CLOCK_REALTIME, &now);
    n = snprintf(line, sizeof line, "{\"step\": %lld%s%s, \"time\": %lld.%03ld}\n", step,
                 metric ? ", \"metric\": " : "", num, (long long)now.tv_sec, now.tv_nsec / 1000000);
    return berth_job_client__write(job, line, (size_t)n);
}

/* Appends {"step": step, "time": T} to the progress file (nothing outside berth). step is
 * the number of steps done, >= 0 (-EINVAL otherwise). */
static inline int berth_job_client_report(struct berth_job_client *job, long long step)
{
    return berth_job_client__report(job, step, NULL);
}

/* The same with "metric" (a loss, an accuracy): -EINVAL for NaN or an infinity. */
static inline int berth_job_client_report_metric(struct berth_job_client *job, long long step,
                                                 double metric)
{
    return berth_job_client__report(job, step, &metric);
}

static inline void berth_job_client__on_signal(int sig)
{
    (void)sig;
    berth_job_client__ckpt_flag = 1;
}

/* Catches job->ckpt_signal: from now on it only raises the flag that
 * berth_job_client_checkpoint_requested() reads (system calls it interrupts are restarted).
 * Returns 0, or -errno from sigaction. Call it early, before starting threads. SIGKILL
 * (berthd preempts without warning) cannot be caught: nothing is installed. */
static inline int berth_job_client_install_checkpoint_handler(struct berth_job_client *job)
{
    struct sigaction sa;
    if (job->ckpt_signal == SIGKILL)
        return 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = berth_job_client__on_signal;
    sigemptyset(&sa.sa_mask);
#ifdef SA_RESTART
    sa.sa_flags = SA_RESTART;
#endif
    if (sigaction(job->ckpt_signal, &sa, NULL) < 0) {
        int rc = -errno;
        snprintf(job->msg, sizeof job->msg, "cannot catch signal %d: %s", job->ckpt_signal,
                 strerror(errno));
        return rc;
    }
    return 0;
}

/* 1 once the checkpoint signal arrived: save a checkpoint, report, exit 0. */
static inline int berth_job_client_checkpoint_requested(void)
{
    return berth_job_client__ckpt_flag != 0;
}

/* Forgets a request, for a program that checkpoints and keeps going. */
static inline void berth_job_client_clear_checkpoint_request(void)
{
    berth_job_client__ckpt_flag = 0;
}

/* Closes the progress file; job may be opened again. */
static inline void berth_job_client_close(struct berth_job_client *job)
{
    if (job->fd >= 0)
        close(job->fd);
    job->fd = -1;
}

#endif
