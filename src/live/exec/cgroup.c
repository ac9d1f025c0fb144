/* berthd's cgroup isolation (see cgroup.h for the design): find the layout, own a subtree in
 * it, and create, enter, signal, kill, account and remove one attempt's cgroups. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "live/exec/cgroup.h"

#define CGROUP2_MAGIC 0x63677270
#define CPU_PERIOD_US 100000
#define CPU_MIN_QUOTA 1000
#define POLL_NS       5000000L /* between two looks at a condition */
#define PROC_FILE_MAX (8 << 20)
#define DESC_MAX      4096
#define FILE_PATH_MAX (BERTH__ISO_PATH_MAX + 64)
#define PIDS_TEXT_MAX 24

static const char *const hier_key[BERTH__ISO_NHIER] = {"v2",   "memory",  "cpu",
                                                       "pids", "cpuacct", "freezer"};

struct berth__iso {
    int kind;
    unsigned enforced;
    int has_kill;                                     /* cgroup.kill in the v2 subtree */
    char base[BERTH__ISO_NHIER][BERTH__ISO_PATH_MAX]; /* the INSTANCE directories, "" unused */
    char root[BERTH__ISO_PATH_MAX];                   /* V2: the delegated subtree */
    char desc[DESC_MAX];
};

/* ---- small file helpers ------------------------------------------------------------------- */

/* out = a/b; -1 when it does not fit. */
static int join(char *out, size_t len, const char *a, const char *b)
{
    int n = snprintf(out, len, "%s/%s", a, b);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* Writes text to dir/file in one write. 0 or -errno. */
static int put(const char *dir, const char *file, const char *text)
{
    char p[FILE_PATH_MAX];
    if (join(p, sizeof p, dir, file))
        return -ENAMETOOLONG;
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = w == (ssize_t)n ? 0 : w < 0 ? -errno : -EIO;
    close(fd);
    return e;
}

static int put_err(const char *dir, const char *file, const char *text, struct berth_err *err)
{
    int e = put(dir, file, text);
    if (e)
        return berth_err_set(err, BERTH_EIO, "cgroup: %s/%s: %s", dir, file, strerror(-e));
    return 0;
}

/* Reads dir/file into buf (NUL-terminated, at most len - 1 bytes). The length, or -errno. */
static ssize_t get(const char *dir, const char *file, char *buf, size_t len)
{
    char p[FILE_PATH_MAX];
    if (join(p, sizeof p, dir, file))
        return -ENAMETOOLONG;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = -errno;
            close(fd);
            return e;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

static int has(const char *dir, const char *file)
{
    char p[FILE_PATH_MAX];
    return !join(p, sizeof p, dir, file) && access(p, F_OK) == 0;
}

/* The number after "key " in a "key value" per line file (cgroup.events, cpu.stat); -1. */
static int64_t keyed(const char *dir, const char *file, const char *key)
{
    char buf[4096];
    if (get(dir, file, buf, sizeof buf) < 0)
        return -1;
    size_t kl = strlen(key);
    for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (!strncmp(l, key, kl) && l[kl] == ' ')
            return strtoll(l + kl + 1, NULL, 10);
    return -1;
}

/* The single number in dir/file; -1 when absent or not a number. */
static int64_t number(const char *dir, const char *file)
{
    char buf[64], *end;
    if (get(dir, file, buf, sizeof buf) <= 0)
        return -1;
    long long v = strtoll(buf, &end, 10);
    return end == buf ? -1 : (int64_t)v;
}

/* mkdir that accepts an existing directory. 0 or -errno. */
static int make_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0755) == 0)
        return 0;
    int e = errno;
    if (e == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return access(path, W_OK) == 0 ? 0 : -errno;
    return -(e == EEXIST ? ENOTDIR : e);
}

/* Whether list (tokens separated by sep, up to a newline or the end) holds tok. */
static int has_token(const char *list, const char *tok, char sep)
{
    size_t n = strlen(tok);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, sep);
        size_t len = e ? (size_t)(e - p) : strcspn(p, "\n");
        if (len == n && !strncmp(p, tok, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

static void nap(void)
{
    struct timespec ts = {0, POLL_NS};
    nanosleep(&ts, NULL);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* printf onto the end of buf (truncating quietly). */
__attribute__((format(printf, 3, 4))) static void addf(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* A single path component of letters, digits, '-', '_', '.' that starts with a letter or
 * digit: never ".", "..", a hidden name or a path. (A name that is an interface file's, such
 * as "memory.max", fails at mkdir: make_dir wants a directory.) */
static int valid_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || n > BERTH__ISO_NAME_MAX || !isalnum((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
            return 0;
    return 1;
}

/* ---- cgroup.procs ------------------------------------------------------------------------- */

typedef int (*pid_fn)(pid_t pid, void *arg);

/* Calls fn for every pid in dir/cgroup.procs; stops early when fn returns nonzero. The number
 * of pids seen, or -errno. */
static int each_pid(const char *dir, pid_fn fn, void *arg)
{
    char p[FILE_PATH_MAX], buf[4096];
    if (join(p, sizeof p, dir, "cgroup.procs"))
        return -ENAMETOOLONG;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int64_t cur = -1;
    int count = 0, stop = 0;
    ssize_t r;
    while (!stop && (r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = -errno;
            close(fd);
            return e;
        }
        for (ssize_t i = 0; i < r && !stop; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                cur = (cur < 0 ? 0 : cur) * 10 + (buf[i] - '0');
                if (cur > INT32_MAX)
                    cur = INT32_MAX;
            } else if (cur > 0) {
                count++;
                stop = fn && fn((pid_t)cur, arg);
                cur = -1;
            }
        }
    }
    if (!stop && cur > 0) {
        count++;
        if (fn)
            fn((pid_t)cur, arg);
    }
    close(fd);
    return count;
}

struct find {
    pid_t pid;
    int found;
};

static int pid_find(pid_t pid, void *arg)
{
    struct find *f = arg;
    f->found |= pid == f->pid;
    return f->found;
}

static int pid_signal(pid_t pid, void *arg)
{
    kill(pid, *(int *)arg);
    return 0;
}

static int holds_self(const char *dir)
{
    struct find f = {getpid(), 0};
    each_pid(dir, pid_find, &f);
    return f.found;
}

/* ---- layout ------------------------------------------------------------------------------- */

/* Copies the line at p into line ("" when longer than len - 1) and returns the next line, or
 * NULL at the end of the text. */
static const char *take_line(const char *p, char *line, size_t len)
{
    if (!p || !*p)
        return NULL;
    size_t n = strcspn(p, "\n");
    if (n < len) {
        memcpy(line, p, n);
        line[n] = '\0';
    } else {
        line[0] = '\0';
    }
    return p + n + (p[n] == '\n');
}

/* Undoes mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* This process's path in hierarchy h from /proc/self/cgroup text ("0::PATH" for cgroup2,
 * "ID:CONTROLLERS:PATH" for v1). 0, or -1 when h is not there. */
static int own_path(const char *cgroup, int h, char *out, size_t len)
{
    char line[BERTH__ISO_PATH_MAX + 256];
    for (const char *p = cgroup; (p = take_line(p, line, sizeof line));) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        const char *ctrls = c1 + 1, *path = c2 + 1;
        int match = h == BERTH__ISO_H_V2 ? !strcmp(line, "0") && !*ctrls
                                         : has_token(ctrls, hier_key[h], ',');
        if (match && path[0] == '/' && strlen(path) < len) {
            memcpy(out, path, strlen(path) + 1);
            return 0;
        }
    }
    return -1;
}

/* The directory of path in hierarchy h from /proc/self/mountinfo text: the first mount of
 * that hierarchy whose root holds path. 0, or -1 when none does. */
static int mount_dir(const char *mountinfo, int h, const char *path, char *out, size_t len)
{
    char line[3 * BERTH__ISO_PATH_MAX];
    for (const char *p = mountinfo; (p = take_line(p, line, sizeof line));) {
        char *f[64], *save = NULL;
        int nf = 0, dash = -1;
        for (char *t = strtok_r(line, " ", &save); t && nf < 64; t = strtok_r(NULL, " ", &save)) {
            if (dash < 0 && nf >= 6 && !strcmp(t, "-"))
                dash = nf;
            f[nf++] = t;
        }
        if (dash < 0 || dash + 3 >= nf)
            continue;
        const char *fstype = f[dash + 1], *super = f[dash + 3];
        if (h == BERTH__ISO_H_V2 ? strcmp(fstype, "cgroup2") != 0
                                 : strcmp(fstype, "cgroup") || !has_token(super, hier_key[h], ','))
            continue;
        unescape(f[3]);
        unescape(f[4]);
        const char *root = f[3], *rel;
        size_t rl = strlen(root);
        if (!strcmp(root, "/"))
            rel = path;
        else if (!strncmp(path, root, rl) && (path[rl] == '/' || !path[rl]))
            rel = path + rl;
        else
            continue;
        if (!strcmp(rel, "/"))
            rel = "";
        int n = snprintf(out, len, "%s%s", strcmp(f[4], "/") ? f[4] : "", rel);
        if (n > 0 && (size_t)n < len)
            return 0;
    }
    return -1;
}

void berth__iso_layout_parse(const char *mountinfo, const char *cgroup,
                             struct berth__iso_layout *lay)
{
    memset(lay, 0, sizeof *lay);
    char path[BERTH__ISO_PATH_MAX];
    for (int h = 0; h < BERTH__ISO_NHIER; h++)
        if (own_path(cgroup, h, path, sizeof path) ||
            mount_dir(mountinfo, h, path, lay->dir[h], sizeof lay->dir[h]))
            lay->dir[h][0] = '\0';
}

/* The whole of a /proc file (whose size stat does not tell), NUL-terminated; NULL. */
static char *slurp(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 16384, n = 0;
    char *b = malloc(cap);
    while (b) {
        if (n + 1 >= cap) {
            char *nb = cap < PROC_FILE_MAX ? realloc(b, cap * 2) : NULL;
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(b);
            b = NULL;
        } else if (r == 0) {
            b[n] = '\0';
            break;
        } else {
            n += (size_t)r;
        }
    }
    close(fd);
    return b;
}

int berth__iso_layout_read(struct berth__iso_layout *lay, struct berth_err *err)
{
    memset(lay, 0, sizeof *lay);
    char *mi = slurp("/proc/self/mountinfo");
    int e = errno;
    char *cg = mi ? slurp("/proc/self/cgroup") : NULL;
    e = mi ? errno : e;
    int rc = 0;
    if (!mi || !cg)
        rc = berth_err_set(err, BERTH_EIO, "cgroup: /proc/self/%s: %s", mi ? "cgroup" : "mountinfo",
                           strerror(e));
    else
        berth__iso_layout_parse(mi, cg, lay);
    free(mi);
    free(cg);
    return rc;
}

/* ---- open: the subtrees berthd owns ------------------------------------------------------- */

struct want {
    const char *name;
    int hier;
    unsigned bit;
};

static const struct want limit_ctrls[] = {
    {"memory", BERTH__ISO_H_MEMORY, BERTH_ISO_ENF_MEM},
    {"cpu", BERTH__ISO_H_CPU, BERTH_ISO_ENF_CPU},
    {"pids", BERTH__ISO_H_PIDS, BERTH_ISO_ENF_PIDS},
};
#define NLIMIT (sizeof limit_ctrls / sizeof *limit_ctrls)

/* A berthd that starts in a cgroup named "daemon" already sits in the leaf of its subtree
 * (systemd's DelegateSubgroup=daemon, a re-exec, a second open in one process): the subtree
 * is its parent. */
static void climb_daemon(char *root)
{
    char *slash = strrchr(root, '/');
    if (slash && slash != root && !strcmp(slash + 1, "daemon"))
        *slash = '\0';
}

/* V2: moves berthd into ROOT/daemon when it is in ROOT itself (no internal processes). */
static void move_self(struct berth__iso *iso)
{
    char daemon[BERTH__ISO_PATH_MAX], pid[PIDS_TEXT_MAX];
    if (!holds_self(iso->root))
        return;
    int e = join(daemon, sizeof daemon, iso->root, "daemon") ? -ENAMETOOLONG : make_dir(daemon);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    if (!e)
        e = put(daemon, "cgroup.procs", pid);
    if (e)
        addf(iso->desc, sizeof iso->desc, "; cannot move berthd into %s: %s", daemon, strerror(-e));
    else
        addf(iso->desc, sizeof iso->desc, "; berthd moved into %s", daemon);
}

/* V2: enables memory, cpu, pids (those ROOT/cgroup.controllers lists) in ROOT's and the
 * INSTANCE directory's subtree_control, and says which could not be. */
static void enable_controllers(struct berth__iso *iso)
{
    const char *base = iso->base[BERTH__ISO_H_V2];
    char avail[1024] = "", sc[1024], missing[64] = "", failed[512] = "";
    get(iso->root, "cgroup.controllers", avail, sizeof avail);
    for (size_t i = 0; i < NLIMIT; i++) {
        const char *c = limit_ctrls[i].name;
        char plus[16];
        if (!has_token(avail, c, ' ')) {
            addf(missing, sizeof missing, " %s", c);
            continue;
        }
        snprintf(plus, sizeof plus, "+%s", c);
        int e = put(iso->root, "cgroup.subtree_control", plus);
        const char *where = iso->root;
        if (!e) {
            e = put(base, "cgroup.subtree_control", plus);
            where = base;
        }
        if (!e && get(base, "cgroup.subtree_control", sc, sizeof sc) >= 0 && has_token(sc, c, ' '))
            iso->enforced |= limit_ctrls[i].bit;
        else
            addf(failed, sizeof failed, " %s (%s/cgroup.subtree_control: %s%s)", c, where,
                 strerror(e ? -e : ENOENT),
                 e == -EBUSY ? ": processes other than berthd in it" : "");
    }
    if ((iso->enforced & BERTH_ISO_ENF_MEM) && has(base, "memory.swap.max"))
        iso->enforced |= BERTH_ISO_ENF_SWAP;
    if (*missing)
        addf(iso->desc, sizeof iso->desc, "; controllers missing from %s/cgroup.controllers:%s",
             iso->root, missing);
    if (*failed)
        addf(iso->desc, sizeof iso->desc, "; cannot enable:%s", failed);
}

/* V2 in dir, berthd's own cgroup (detected) or a directory given to open. */
static int open_v2(struct berth__iso *iso, const char *instance, const char *dir, int given,
                   char *why, size_t wl)
{
    char *base = iso->base[BERTH__ISO_H_V2];
    snprintf(iso->root, sizeof iso->root, "%s", dir);
    if (!given)
        climb_daemon(iso->root);
    int e = join(base, BERTH__ISO_PATH_MAX, iso->root, instance) ? -ENAMETOOLONG : make_dir(base);
    if (e) {
        addf(why, wl, "%scgroup2 %s/%s: %s", *why ? "; " : "", iso->root, instance, strerror(-e));
        base[0] = '\0';
        return -1;
    }
    snprintf(iso->desc, sizeof iso->desc, "cgroup v2 (unified), delegated subtree %s", iso->root);
    move_self(iso);
    enable_controllers(iso);
    iso->has_kill = has(base, "cgroup.kill");
    addf(iso->desc, sizeof iso->desc, "; attempts in %s/NAME, killed by %s", base,
         iso->has_kill ? "cgroup.kill" : "freezing (no cgroup.kill: Linux < 5.14)");
    return 0;
}

/* HYBRID and V1: the INSTANCE directories of the v1 memory, cpu and pids hierarchies. */
static void open_v1_limits(struct berth__iso *iso, const struct berth__iso_layout *lay,
                           const char *instance)
{
    static const char *const limit_file[NLIMIT] = {"memory.limit_in_bytes", "cpu.cfs_quota_us",
                                                   "pids.max"};
    addf(iso->desc, sizeof iso->desc, "; limits in cgroup v1:");
    for (size_t i = 0; i < NLIMIT; i++) {
        const struct want *w = &limit_ctrls[i];
        char *base = iso->base[w->hier];
        int e = !lay->dir[w->hier][0]                                          ? -ENOENT
                : join(base, BERTH__ISO_PATH_MAX, lay->dir[w->hier], instance) ? -ENAMETOOLONG
                                                                               : make_dir(base);
        if (!lay->dir[w->hier][0]) {
            addf(iso->desc, sizeof iso->desc, "%s %s not mounted (not enforced)", i ? "," : "",
                 w->name);
        } else if (e) {
            addf(iso->desc, sizeof iso->desc, "%s %s %s: %s (not enforced)", i ? "," : "", w->name,
                 base, strerror(-e));
        } else if (!has(base, limit_file[i])) {
            addf(iso->desc, sizeof iso->desc, "%s %s %s: no %s (not enforced)", i ? "," : "",
                 w->name, base, limit_file[i]);
        } else {
            addf(iso->desc, sizeof iso->desc, "%s %s %s", i ? "," : "", w->name, base);
            iso->enforced |= w->bit;
            if (w->bit == BERTH_ISO_ENF_MEM && has(base, "memory.memsw.limit_in_bytes"))
                iso->enforced |= BERTH_ISO_ENF_SWAP;
        }
        if (e)
            base[0] = '\0';
    }
}

static int open_hybrid(struct berth__iso *iso, const struct berth__iso_layout *lay,
                       const char *instance, char *why, size_t wl)
{
    char *base = iso->base[BERTH__ISO_H_V2];
    int e = join(base, BERTH__ISO_PATH_MAX, lay->dir[BERTH__ISO_H_V2], instance) ? -ENAMETOOLONG
                                                                                 : make_dir(base);
    if (e) {
        addf(why, wl, "%scgroup2 %s/%s: %s", *why ? "; " : "", lay->dir[BERTH__ISO_H_V2], instance,
             strerror(-e));
        base[0] = '\0';
        return -1;
    }
    iso->has_kill = has(base, "cgroup.kill");
    snprintf(iso->desc, sizeof iso->desc,
             "cgroup hybrid: tracking and kill in the unified cgroup2 hierarchy, %s/NAME (killed "
             "by %s)",
             base, iso->has_kill ? "cgroup.kill" : "freezing: no cgroup.kill");
    open_v1_limits(iso, lay, instance);
    return 0;
}

static int open_v1(struct berth__iso *iso, const struct berth__iso_layout *lay,
                   const char *instance, char *why, size_t wl)
{
    static const int track_h[] = {BERTH__ISO_H_FREEZER, BERTH__ISO_H_PIDS};
    int tracked = -1;
    for (size_t i = 0; i < 2 && tracked < 0; i++) {
        const char *own = lay->dir[track_h[i]];
        char *base = iso->base[track_h[i]];
        if (!own[0])
            continue;
        int e = join(base, BERTH__ISO_PATH_MAX, own, instance) ? -ENAMETOOLONG : make_dir(base);
        if (e) {
            addf(why, wl, "%scgroup v1 %s/%s: %s", *why ? "; " : "", own, instance, strerror(-e));
            base[0] = '\0';
        } else {
            tracked = track_h[i];
        }
    }
    if (tracked < 0)
        return -1;
    snprintf(iso->desc, sizeof iso->desc, "cgroup v1: tracking in %s %s/NAME (killed by %s)",
             hier_key[tracked], iso->base[tracked],
             tracked == BERTH__ISO_H_FREEZER ? "freezing" : "SIGKILL passes: no freezer");
    open_v1_limits(iso, lay, instance);
    const char *acct = lay->dir[BERTH__ISO_H_CPUACCT];
    char *abase = iso->base[BERTH__ISO_H_CPUACCT];
    if (acct[0] && (join(abase, BERTH__ISO_PATH_MAX, acct, instance) || make_dir(abase)))
        abase[0] = '\0';
    return 0;
}

/* "; enforced: ...; not enforced: ..." */
static void add_enforced(struct berth__iso *iso)
{
    char yes[64] = "", no[64] = "";
    unsigned e = iso->enforced;
    addf(e & BERTH_ISO_ENF_MEM ? yes : no, 64, " mem");
    addf(e & BERTH_ISO_ENF_SWAP ? yes : no, 64, e & BERTH_ISO_ENF_MEM ? " (swap too)" : " swap");
    addf(e & BERTH_ISO_ENF_CPU ? yes : no, 64, " cpus");
    addf(e & BERTH_ISO_ENF_PIDS ? yes : no, 64, " pids");
    addf(iso->desc, sizeof iso->desc, "; enforced:%s%s%s", *yes ? yes : " nothing",
         *no ? "; not enforced:" : "", no);
}

static int open_with(const char *instance, const struct berth__iso_layout *lay, int given,
                     const char *why0, struct berth__iso **out, struct berth_err *err)
{
    *out = NULL;
    if (!valid_name(instance) || !strcmp(instance, "daemon"))
        return berth_err_set(err, BERTH_EINPUT,
                             "cgroup: bad instance name \"%s\" (letters, digits, '-', '_', '.')",
                             instance ? instance : "");
    struct berth__iso *iso = calloc(1, sizeof *iso);
    if (!iso)
        return berth_err_set(err, BERTH_ENOMEM, "cgroup: out of memory");
    char why[2048];
    snprintf(why, sizeof why, "%s", why0);
    const char *v2 = lay->dir[BERTH__ISO_H_V2];
    int v1 = lay->dir[BERTH__ISO_H_MEMORY][0] || lay->dir[BERTH__ISO_H_CPU][0] ||
             lay->dir[BERTH__ISO_H_PIDS][0];
    int any_v1 = v1 || lay->dir[BERTH__ISO_H_FREEZER][0];
    if (v2[0] && !v1 && open_v2(iso, instance, v2, given, why, sizeof why) == 0)
        iso->kind = BERTH_ISO_V2;
    else if (v2[0] && v1 && open_hybrid(iso, lay, instance, why, sizeof why) == 0)
        iso->kind = BERTH_ISO_HYBRID;
    else if (any_v1 && open_v1(iso, lay, instance, why, sizeof why) == 0)
        iso->kind = BERTH_ISO_V1;
    if (iso->kind == BERTH_ISO_NONE) {
        memset(iso->base, 0, sizeof iso->base);
        iso->enforced = 0;
        snprintf(iso->desc, sizeof iso->desc,
                 "cgroup isolation off (%s): berthd falls back to process groups, so processes "
                 "that call setsid escape cancel, and cpus/mem requests are not enforced",
                 *why ? why : "no cgroup hierarchy in /proc/self/mountinfo");
    } else {
        add_enforced(iso);
    }
    *out = iso;
    return 0;
}

int berth__iso_open_layout(const char *instance, const struct berth__iso_layout *lay,
                           struct berth__iso **out, struct berth_err *err)
{
    return open_with(instance, lay, 0, "", out, err);
}

int berth__iso_open(const char *instance, const char *v2_root, struct berth__iso **out,
                    struct berth_err *err)
{
    struct berth__iso_layout *lay = calloc(1, sizeof *lay);
    if (!lay) {
        *out = NULL;
        return berth_err_set(err, BERTH_ENOMEM, "cgroup: out of memory");
    }
    char why[BERTH__ISO_PATH_MAX + 128] = "";
    int rc = 0;
    if (v2_root) {
        struct statfs sf;
        size_t n = strlen(v2_root);
        while (n > 1 && v2_root[n - 1] == '/')
            n--;
        if (n >= BERTH__ISO_PATH_MAX)
            snprintf(why, sizeof why, "%.64s...: path too long", v2_root);
        else if (statfs(v2_root, &sf))
            snprintf(why, sizeof why, "%s: %s", v2_root, strerror(errno));
        else if (sf.f_type != CGROUP2_MAGIC)
            snprintf(why, sizeof why, "%s: not a cgroup2 directory", v2_root);
        else
            memcpy(lay->dir[BERTH__ISO_H_V2], v2_root, n);
    } else {
        struct berth_err e;
        if (berth__iso_layout_read(lay, &e))
            snprintf(why, sizeof why, "%s", e.msg);
    }
    rc = open_with(instance, lay, v2_root != NULL, why, out, err);
    free(lay);
    return rc;
}

void berth__iso_close(struct berth__iso *iso)
{
    free(iso);
}

int berth__iso_kind(const struct berth__iso *iso)
{
    return iso ? iso->kind : BERTH_ISO_NONE;
}

const char *berth__iso_describe(const struct berth__iso *iso)
{
    return iso ? iso->desc : "cgroup isolation off";
}

unsigned berth__iso_enforced(const struct berth__iso *iso)
{
    return iso ? iso->enforced : 0;
}

/* rmdir of every distinct directory of dirs; 0, BERTH_EAGAIN (one not empty), BERTH_EIO. */
static int remove_dirs(const char (*dirs)[BERTH__ISO_PATH_MAX], struct berth_err *err)
{
    int rc = BERTH_EUNSUPPORTED;
    for (int h = 0; h < BERTH__ISO_NHIER; h++) {
        int dup = 0;
        for (int k = 0; k < h; k++)
            dup |= !strcmp(dirs[k], dirs[h]);
        if (!dirs[h][0] || dup)
            continue;
        if (rc == BERTH_EUNSUPPORTED)
            rc = 0;
        if (rmdir(dirs[h]) == 0 || errno == ENOENT)
            continue;
        if (rc)
            continue; /* the first error is reported; the other directories are still tried */
        if (errno == EBUSY || errno == ENOTEMPTY)
            rc = berth_err_set(err, BERTH_EAGAIN, "cgroup: rmdir %s: not empty (%s)", dirs[h],
                               strerror(errno));
        else
            rc = berth_err_set(err, BERTH_EIO, "cgroup: rmdir %s: %s", dirs[h], strerror(errno));
    }
    if (rc == BERTH_EUNSUPPORTED)
        berth_err_set(err, rc, "cgroup: isolation is off");
    return rc;
}

int berth__iso_remove_base(const struct berth__iso *iso, struct berth_err *err)
{
    if (!iso)
        return berth_err_set(err, BERTH_EUNSUPPORTED, "cgroup: isolation is off");
    return remove_dirs((const char(*)[BERTH__ISO_PATH_MAX])iso->base, err);
}

/* ---- one attempt's group ------------------------------------------------------------------ */

static int unsupported(struct berth_err *err)
{
    return berth_err_set(err, BERTH_EUNSUPPORTED,
                         "cgroup: isolation is off (the group has no directory)");
}

int berth__iso_group_of(const struct berth__iso *iso, const char *name, struct berth__iso_group *g,
                        struct berth_err *err)
{
    memset(g, 0, sizeof *g);
    if (!iso || iso->kind == BERTH_ISO_NONE)
        return unsupported(err);
    if (!valid_name(name))
        return berth_err_set(err, BERTH_EINPUT,
                             "cgroup: bad group name \"%s\" (1 to %d letters, digits, '-', '_', "
                             "'.', starting with a letter or digit)",
                             name ? name : "", BERTH__ISO_NAME_MAX);
    for (int h = 0; h < BERTH__ISO_NHIER; h++)
        if (iso->base[h][0] && join(g->dir[h], sizeof g->dir[h], iso->base[h], name)) {
            memset(g, 0, sizeof *g);
            return berth_err_set(err, BERTH_EINPUT, "cgroup: %s/%s: path too long", iso->base[h],
                                 name);
        }
    return 0;
}

/* "max" for no limit (0), else the number. */
static void limit_text(char *buf, size_t len, int64_t v, const char *unlimited)
{
    if (v > 0)
        snprintf(buf, len, "%lld", (long long)v);
    else
        snprintf(buf, len, "%s", unlimited);
}

/* cpu_milli as a quota in µs per CPU_PERIOD_US (the kernel's minimum is 1 ms). */
static int64_t cpu_quota(int32_t cpu_milli)
{
    int64_t q = (int64_t)cpu_milli * CPU_PERIOD_US / 1000;
    return q < CPU_MIN_QUOTA ? CPU_MIN_QUOTA : q;
}

static int limits_v2(const struct berth__iso *iso, const char *dir,
                     const struct berth__iso_limits *lim, struct berth_err *err)
{
    char t[64];
    int rc = 0;
    if (iso->enforced & BERTH_ISO_ENF_MEM) {
        limit_text(t, sizeof t, lim->mem_bytes, "max");
        rc = put_err(dir, "memory.max", t, err);
        if (!rc && (iso->enforced & BERTH_ISO_ENF_SWAP))
            rc = put_err(dir, "memory.swap.max", lim->mem_bytes > 0 ? "0" : "max", err);
        if (!rc && has(dir, "memory.oom.group"))
            rc = put_err(dir, "memory.oom.group", "1", err);
    }
    if (!rc && (iso->enforced & BERTH_ISO_ENF_CPU)) {
        if (lim->cpu_milli > 0)
            snprintf(t, sizeof t, "%lld %d", (long long)cpu_quota(lim->cpu_milli), CPU_PERIOD_US);
        else
            snprintf(t, sizeof t, "max %d", CPU_PERIOD_US);
        rc = put_err(dir, "cpu.max", t, err);
    }
    if (!rc && (iso->enforced & BERTH_ISO_ENF_PIDS)) {
        limit_text(t, sizeof t, lim->pids_max, "max");
        rc = put_err(dir, "pids.max", t, err);
    }
    return rc;
}

/* v1 memory: memory.memsw.limit_in_bytes must stay >= memory.limit_in_bytes, so when the
 * first write is refused (raising past memsw) memsw goes first. */
static int memory_v1(const char *dir, int64_t bytes, int swap, struct berth_err *err)
{
    char t[32];
    limit_text(t, sizeof t, bytes, "-1");
    if (!swap)
        return put_err(dir, "memory.limit_in_bytes", t, err);
    int e = put(dir, "memory.limit_in_bytes", t);
    if (e == -EINVAL) {
        int rc = put_err(dir, "memory.memsw.limit_in_bytes", t, err);
        return rc ? rc : put_err(dir, "memory.limit_in_bytes", t, err);
    }
    if (e)
        return berth_err_set(err, BERTH_EIO, "cgroup: %s/memory.limit_in_bytes: %s", dir,
                             strerror(-e));
    return put_err(dir, "memory.memsw.limit_in_bytes", t, err);
}

static int limits_v1(const struct berth__iso *iso, const struct berth__iso_group *g,
                     const struct berth__iso_limits *lim, struct berth_err *err)
{
    char t[64];
    int rc = 0;
    if (iso->enforced & BERTH_ISO_ENF_MEM)
        rc = memory_v1(g->dir[BERTH__ISO_H_MEMORY], lim->mem_bytes,
                       (iso->enforced & BERTH_ISO_ENF_SWAP) != 0, err);
    if (!rc && (iso->enforced & BERTH_ISO_ENF_CPU)) {
        const char *d = g->dir[BERTH__ISO_H_CPU];
        snprintf(t, sizeof t, "%d", CPU_PERIOD_US);
        rc = put_err(d, "cpu.cfs_period_us", t, err);
        limit_text(t, sizeof t, lim->cpu_milli > 0 ? cpu_quota(lim->cpu_milli) : 0, "-1");
        if (!rc)
            rc = put_err(d, "cpu.cfs_quota_us", t, err);
    }
    if (!rc && (iso->enforced & BERTH_ISO_ENF_PIDS)) {
        limit_text(t, sizeof t, lim->pids_max, "max");
        rc = put_err(g->dir[BERTH__ISO_H_PIDS], "pids.max", t, err);
    }
    return rc;
}

int berth__iso_create(const struct berth__iso *iso, const char *name,
                      const struct berth__iso_limits *lim, struct berth__iso_group *g,
                      struct berth_err *err)
{
    static const struct berth__iso_limits none = {0, 0, 0};
    int rc = berth__iso_group_of(iso, name, g, err);
    if (rc)
        return rc;
    lim = lim ? lim : &none;
    if (lim->mem_bytes < 0 || lim->cpu_milli < 0 || lim->pids_max < 0)
        return berth_err_set(err, BERTH_EINPUT, "cgroup: %s: negative limit", name);
    for (int h = 0; h < BERTH__ISO_NHIER && !rc; h++) {
        int e = g->dir[h][0] ? make_dir(g->dir[h]) : 0;
        if (e)
            rc = berth_err_set(err, BERTH_EIO, "cgroup: mkdir %s: %s", g->dir[h], strerror(-e));
    }
    if (!rc)
        rc = iso->kind == BERTH_ISO_V2 ? limits_v2(iso, g->dir[BERTH__ISO_H_V2], lim, err)
                                       : limits_v1(iso, g, lim, err);
    if (rc)
        remove_dirs((const char(*)[BERTH__ISO_PATH_MAX])g->dir, NULL);
    return rc;
}

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
        return unsupported(err);
    if (v2[0] && has(v2, "cgroup.kill")) {
        int e = put(v2, "cgroup.kill", "1");
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
    if (t == g->dir[BERTH__ISO_H_V2] && has(t, "cgroup.freeze"))
        f = (struct freezer){t, "cgroup.freeze", "1", "0"};
    else if (t == g->dir[BERTH__ISO_H_FREEZER])
        f = (struct freezer){t, "freezer.state", "FROZEN", "THAWED"};
    return f;
}

static int is_frozen(const struct freezer *f)
{
    char buf[32];
    if (f->on[0] == '1')
        return keyed(f->dir, "cgroup.events", "frozen") == 1;
    return get(f->dir, f->file, buf, sizeof buf) > 0 && !strncmp(buf, "FROZEN", 6);
}

/* Freezes, and waits until frozen (at most until until_ms: then the pass goes on anyway). */
static void freeze(const struct freezer *f, int64_t until_ms)
{
    if (put(f->dir, f->file, f->on))
        return;
    while (!is_frozen(f) && now_ms() < until_ms)
        nap();
}

int berth__iso_kill_frozen(const struct berth__iso_group *g, struct berth_err *err)
{
    const char *t = track(g);
    if (!t)
        return unsupported(err);
    struct freezer f = freezer_of(g, t);
    int64_t start = now_ms(), deadline = start + BERTH__ISO_KILL_DEADLINE_MS;
    int sig = SIGKILL;
    for (;;) {
        int64_t now = now_ms();
        if (f.dir)
            freeze(&f, now + 1000 < deadline ? now + 1000 : deadline);
        int n = each_pid(t, pid_signal, &sig);
        if (f.dir)
            put(f.dir, f.file, f.off);
        if (n == 0 || n == -ENOENT)
            return 0;
        if (n < 0)
            return berth_err_set(err, BERTH_EIO, "cgroup: %s/cgroup.procs: %s", t, strerror(-n));
        if (now_ms() >= deadline)
            return berth_err_set(err, BERTH_EAGAIN,
                                 "cgroup: %s: %d processes still there %d ms after SIGKILL", t, n,
                                 BERTH__ISO_KILL_DEADLINE_MS);
        nap();
    }
}

int berth__iso_signal(const struct berth__iso_group *g, int sig, struct berth_err *err)
{
    const char *t = track(g);
    if (!t)
        return unsupported(err);
    int n = each_pid(t, pid_signal, &sig);
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
    int n = max ? each_pid(t, pid_collect, &c) : 0;
    return n == -ENOENT ? 0 : n < 0 ? BERTH_EIO : (int)c.n;
}

int berth__iso_populated(const struct berth__iso_group *g, struct berth_err *err)
{
    const char *t = track(g);
    if (!t)
        return unsupported(err);
    if (t == g->dir[BERTH__ISO_H_V2]) {
        int64_t v = keyed(t, "cgroup.events", "populated");
        if (v >= 0)
            return v > 0;
    }
    int n = each_pid(t, NULL, NULL);
    if (n == -ENOENT)
        return 0;
    if (n < 0)
        return berth_err_set(err, BERTH_EIO, "cgroup: %s/cgroup.procs: %s", t, strerror(-n));
    return n > 0;
}

int berth__iso_wait_empty(const struct berth__iso_group *g, int timeout_ms, struct berth_err *err)
{
    int64_t deadline = now_ms() + timeout_ms;
    for (;;) {
        int p = berth__iso_populated(g, err);
        if (p <= 0)
            return p;
        if (now_ms() >= deadline)
            return berth_err_set(err, BERTH_EAGAIN, "cgroup: %s: still populated after %d ms",
                                 track(g), timeout_ms);
        nap();
    }
}

int berth__iso_remove(const struct berth__iso_group *g, struct berth_err *err)
{
    return remove_dirs((const char(*)[BERTH__ISO_PATH_MAX])g->dir, err);
}

int berth__iso_usage(const struct berth__iso_group *g, int64_t *mem_peak, int64_t *cpu_us)
{
    const char *v2 = g->dir[BERTH__ISO_H_V2], *mem = g->dir[BERTH__ISO_H_MEMORY];
    int64_t m = -1, c = -1;
    if (v2[0]) {
        m = number(v2, "memory.peak");
        c = keyed(v2, "cpu.stat", "usage_usec");
    }
    if (m < 0 && mem[0])
        m = number(mem, "memory.max_usage_in_bytes");
    static const int acct[] = {BERTH__ISO_H_CPUACCT, BERTH__ISO_H_CPU};
    for (size_t i = 0; i < 2 && c < 0; i++) {
        int64_t ns = g->dir[acct[i]][0] ? number(g->dir[acct[i]], "cpuacct.usage") : -1;
        c = ns < 0 ? -1 : ns / 1000;
    }
    if (mem_peak)
        *mem_peak = m;
    if (cpu_us)
        *cpu_us = c;
    return m < 0 && c < 0 ? BERTH_EUNSUPPORTED : 0;
}

/* ---- the group as text -------------------------------------------------------------------- */

int berth__iso_group_format(const struct berth__iso_group *g, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (int h = 0; h < BERTH__ISO_NHIER; h++) {
        if (!g->dir[h][0])
            continue;
        int w = snprintf(buf + n, len > n ? len - n : 0, "%s=%s\n", hier_key[h], g->dir[h]);
        if (w < 0 || n + (size_t)w >= len) {
            if (len)
                buf[0] = '\0';
            return BERTH_EINPUT;
        }
        n += (size_t)w;
    }
    return (int)n;
}

int berth__iso_group_parse(const char *text, struct berth__iso_group *g, struct berth_err *err)
{
    memset(g, 0, sizeof *g);
    char line[BERTH__ISO_PATH_MAX + 32];
    for (const char *p = text ? text : ""; *p;) {
        size_t n = strcspn(p, "\n");
        int h = -1;
        if (n < sizeof line) {
            memcpy(line, p, n);
            line[n] = '\0';
        } else {
            snprintf(line, sizeof line, "%.200s", p);
        }
        p += n + (p[n] == '\n');
        if (!n)
            continue; /* an empty line */
        char *eq = strchr(line, '=');
        if (eq && n < sizeof line) {
            *eq = '\0';
            for (int k = 0; k < BERTH__ISO_NHIER; k++)
                if (!strcmp(line, hier_key[k]))
                    h = k;
        }
        const char *path = h >= 0 ? eq + 1 : "";
        if (h < 0 || path[0] != '/' || strlen(path) >= BERTH__ISO_PATH_MAX) {
            if (eq && n < sizeof line)
                *eq = '='; /* the whole line in the message */
            memset(g, 0, sizeof *g);
            return berth_err_set(err, BERTH_EINPUT,
                                 "cgroup: group text: expected KEY=/PATH (KEY one of v2, memory, "
                                 "cpu, pids, cpuacct, freezer), found \"%.200s\"",
                                 line);
        }
        memcpy(g->dir[h], path, strlen(path) + 1);
    }
    return 0;
}
