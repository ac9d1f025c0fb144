/* What runs in one attempt's cgroups: entering them (async-signal-safe, after fork), signals,
 * the kill (cgroup.kill, or frozen and signalled), whether any process is left, waiting until
 * none is, removing the group and reading its usage. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "live/exec/cgroup_int.h"

/* ---- enter: async-signal-safe ------------------------------------------------------------- */

static size_t safe_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static int safe_same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* Writes pid text into dir/cgroup.procs with open, write, close only. 0 or -1. */
static int safe_move(const char *dir, const char *pid, size_t pidlen)
{
    static const char file[] = "/cgroup.procs";
    char p[BERTH__ISO_PATH_MAX + sizeof file];
    size_t n = safe_len(dir);
    if (n >= BERTH__ISO_PATH_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        p[i] = dir[i];
    for (size_t i = 0; i < sizeof file; i++)
        p[n + i] = file[i];
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int ok = write(fd, pid, pidlen) == (ssize_t)pidlen;
    close(fd);
    return ok ? 0 : -1;
}

int berth__iso_enter(const struct berth__iso_group *g)
{
    int saved = errno, any = 0, bad = 0;
    char digits[PIDS_TEXT_MAX], pid[PIDS_TEXT_MAX];
    size_t nd = 0, np = 0;
    for (unsigned long v = (unsigned long)getpid(); v || !nd; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd)
        pid[np++] = digits[--nd];
    for (int h = 0; h < BERTH__ISO_NHIER; h++) {
        int dup = 0;
        for (int k = 0; k < h; k++)
            dup |= safe_same(g->dir[k], g->dir[h]);
        if (!g->dir[h][0] || dup)
            continue;
        any = 1;
        bad |= safe_move(g->dir[h], pid, np);
    }
    errno = saved;
    return !any ? BERTH_EUNSUPPORTED : bad ? BERTH_EIO : 0;
}

/* ---- kill, signal, populated, remove, usage ----------------------------------------------- */

/* The directory whose cgroup.procs lists the group's processes: cgroup2, else the freezer,
 * else any v1 one; NULL for an empty group. */
static const char *track(const struct berth__iso_group *g)
{
    static const int order[] = {BERTH__ISO_H_V2,     BERTH__ISO_H_FREEZER, BERTH__ISO_H_PIDS,
                                BERTH__ISO_H_MEMORY, BERTH__ISO_H_CPU,     BERTH__ISO_H_CPUACCT};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (g->dir[order[i]][0])
            return g->dir[order[i]];
    return NULL;
}

int berth__iso_kill(const struct berth__iso_group *g, struct berth_err *err)
{
    const char *v2 = g->dir[BERTH__ISO_H_V2];
    if (!track(g))
        return berth__cg_unsupported(err);
    if (v2[0] && berth__cg_has(v2, "cgroup.kill")) {
        int e = berth__cg_put(v2, "cgroup.kill", "1");
        if (e && e != -ENOENT)
            return berth_err_set(err, BERTH_EIO, "cgroup: %s/cgroup.kill: %s", v2, strerror(-e));
        return 0;
    }
    return berth__iso_kill_frozen(g, err);
}

/* How a group is frozen: the file, and what to write to freeze and to thaw. */
struct freezer {
    const char *dir, *file, *on, *off;
};

static struct freezer freezer_of(const struct berth__iso_group *g, const char *t)
{
    struct freezer f = {NULL, NULL, NULL, NULL};
    if (t == g->dir[BERTH__ISO_H_V2] && berth__cg_has(t, "cgroup.freeze"))
        f = (struct freezer){t, "cgroup.freeze", "1", "0"};
    else if (t == g->dir[BERTH__ISO_H_FREEZER])
        f = (struct freezer){t, "freezer.state", "FROZEN", "THAWED"};
    return f;
}

static int is_frozen(const struct freezer *f)
{
    char buf[32];
    if (f->on[0] == '1')
        return berth__cg_keyed(f->dir, "cgroup.events", "frozen") == 1;
    return berth__cg_get(f->dir, f->file, buf, sizeof buf) > 0 && !strncmp(buf, "FROZEN", 6);
}

/* Freezes, and waits until frozen (at most until until_ms: then the pass goes on anyway). */
static void freeze(const struct freezer *f, int64_t until_ms)
{
    if (berth__cg_put(f->dir, f->file, f->on))
        return;
    while (!is_frozen(f) && berth__cg_now_ms() < until_ms)
        berth__cg_nap();
}

int berth__iso_kill_frozen(const struct berth__iso_group *g, struct berth_err *err)
{
    const char *t = track(g);
    if (!t)
        return berth__cg_unsupported(err);
    struct freezer f = freezer_of(g, t);
    int64_t start = berth__cg_now_ms(), deadline = start + BERTH__ISO_KILL_DEADLINE_MS;
    int sig = SIGKILL;
    for (;;) {
        int64_t now = berth__cg_now_ms();
        if (f.dir)
            freeze(&f, now + 1000 < deadline ? now + 1000 : deadline);
        int n = berth__cg_each_pid(t, berth__cg_pid_signal, &sig);
        if (f.dir)
            berth__cg_put(f.dir, f.file, f.off);
        if (n == 0 || n == -ENOENT)
            return 0;
        if (n < 0)
            return berth_err_set(err, BERTH_EIO, "cgroup: %s/cgroup.procs: %s", t, strerror(-n));
        if (berth__cg_now_ms() >= deadline)
            return berth_err_set(err, BERTH_EAGAIN,
                                 "cgroup: %s: %d processes still there %d ms after SIGKILL", t, n,
                                 BERTH__ISO_KILL_DEADLINE_MS);
        berth__cg_nap();
    }
}

int berth__iso_signal(const struct berth__iso_group *g, int sig, struct berth_err *err)
{
    const char *t = track(g);
    if (!t)
        return berth__cg_unsupported(err);
    int n = berth__cg_each_pid(t, berth__cg_pid_signal, &sig);
    if (n == -ENOENT)
        return 0;
    if (n < 0)
        return berth_err_set(err, BERTH_EIO, "cgroup: %s/cgroup.procs: %s", t, strerror(-n));
    return n;
}

struct collect {
    pid_t *out;
    size_t max, n;
};

static int pid_collect(pid_t pid, void *arg)
{
    struct collect *c = arg;
    if (c->n < c->max)
        c->out[c->n++] = pid;
    return c->n >= c->max;
}

int berth__iso_pids(const struct berth__iso_group *g, pid_t *out, size_t max)
{
    const char *t = track(g);
    if (!t)
        return BERTH_EUNSUPPORTED;
    struct collect c = {out, max, 0};
    int n = max ? berth__cg_each_pid(t, pid_collect, &c) : 0;
    return n == -ENOENT ? 0 : n < 0 ? BERTH_EIO : (int)c.n;
}

int berth__iso_populated(const struct berth__iso_group *g, struct berth_err *err)
{
    const char *t = track(g);
    if (!t)
        return berth__cg_unsupported(err);
    if (t == g->dir[BERTH__ISO_H_V2]) {
        int64_t v = berth__cg_keyed(t, "cgroup.events", "populated");
        if (v >= 0)
            return v > 0;
    }
    int n = berth__cg_each_pid(t, NULL, NULL);
    if (n == -ENOENT)
        return 0;
    if (n < 0)
        return berth_err_set(err, BERTH_EIO, "cgroup: %s/cgroup.procs: %s", t, strerror(-n));
    return n > 0;
}

int berth__iso_wait_empty(const struct berth__iso_group *g, int timeout_ms, struct berth_err *err)
{
    int64_t deadline = berth__cg_now_ms() + timeout_ms;
    for (;;) {
        int p = berth__iso_populated(g, err);
        if (p <= 0)
            return p;
        if (berth__cg_now_ms() >= deadline)
            return berth_err_set(err, BERTH_EAGAIN, "cgroup: %s: still populated after %d ms",
                                 track(g), timeout_ms);
        berth__cg_nap();
    }
}

int berth__iso_remove(const struct berth__iso_group *g, struct berth_err *err)
{
    return berth__cg_remove_dirs((const char(*)[BERTH__ISO_PATH_MAX])g->dir, err);
}

int berth__iso_usage(const struct berth__iso_group *g, int64_t *mem_peak, int64_t *cpu_us)
{
    const char *v2 = g->dir[BERTH__ISO_H_V2], *mem = g->dir[BERTH__ISO_H_MEMORY];
    int64_t m = -1, c = -1;
    if (v2[0]) {
        m = berth__cg_number(v2, "memory.peak");
        c = berth__cg_keyed(v2, "cpu.stat", "usage_usec");
    }
    if (m < 0 && mem[0])
        m = berth__cg_number(mem, "memory.max_usage_in_bytes");
    static const int acct[] = {BERTH__ISO_H_CPUACCT, BERTH__ISO_H_CPU};
    for (size_t i = 0; i < 2 && c < 0; i++) {
        int64_t ns = g->dir[acct[i]][0] ? berth__cg_number(g->dir[acct[i]], "cpuacct.usage") : -1;
        c = ns < 0 ? -1 : ns / 1000;
    }
    if (mem_peak)
        *mem_peak = m;
    if (cpu_us)
        *cpu_us = c;
    return m < 0 && c < 0 ? BERTH_EUNSUPPORTED : 0;
}
