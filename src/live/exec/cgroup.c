/* berthd's cgroup isolation (see cgroup.h for the design): find the layout, own a subtree in
 * it, and create, enter, signal, kill, account and remove one attempt's cgroups. This file
 * owns the subtrees (open under cgroup v2, v1 or a hybrid of both, close, remove); the
 * helpers, the layout, one attempt's group and what runs in it are in cgroup_util.c,
 * cgroup_layout.c, cgroup_group.c and cgroup_procs.c, which share cgroup_int.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "live/exec/cgroup_int.h"

#define CGROUP2_MAGIC 0x63677270

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
    if (!berth__cg_holds_self(iso->root))
        return;
    int e = berth__cg_join(daemon, sizeof daemon, iso->root, "daemon") ? -ENAMETOOLONG
                                                                       : berth__cg_make_dir(daemon);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    if (!e)
        e = berth__cg_put(daemon, "cgroup.procs", pid);
    if (e)
        berth__cg_addf(iso->desc, sizeof iso->desc, "; cannot move berthd into %s: %s", daemon,
                       strerror(-e));
    else
        berth__cg_addf(iso->desc, sizeof iso->desc, "; berthd moved into %s", daemon);
}

/* V2: enables memory, cpu, pids (those ROOT/cgroup.controllers lists) in ROOT's and the
 * INSTANCE directory's subtree_control, and says which could not be. */
static void enable_controllers(struct berth__iso *iso)
{
    const char *base = iso->base[BERTH__ISO_H_V2];
    char avail[1024] = "", sc[1024], missing[64] = "", failed[512] = "";
    berth__cg_get(iso->root, "cgroup.controllers", avail, sizeof avail);
    for (size_t i = 0; i < NLIMIT; i++) {
        const char *c = limit_ctrls[i].name;
        char plus[16];
        if (!berth__cg_has_token(avail, c, ' ')) {
            berth__cg_addf(missing, sizeof missing, " %s", c);
            continue;
        }
        snprintf(plus, sizeof plus, "+%s", c);
        int e = berth__cg_put(iso->root, "cgroup.subtree_control", plus);
        const char *where = iso->root;
        if (!e) {
            e = berth__cg_put(base, "cgroup.subtree_control", plus);
            where = base;
        }
        if (!e && berth__cg_get(base, "cgroup.subtree_control", sc, sizeof sc) >= 0 &&
            berth__cg_has_token(sc, c, ' '))
            iso->enforced |= limit_ctrls[i].bit;
        else
            berth__cg_addf(failed, sizeof failed, " %s (%s/cgroup.subtree_control: %s%s)", c, where,
                           strerror(e ? -e : ENOENT),
                           e == -EBUSY ? ": processes other than berthd in it" : "");
    }
    if ((iso->enforced & BERTH_ISO_ENF_MEM) && berth__cg_has(base, "memory.swap.max"))
        iso->enforced |= BERTH_ISO_ENF_SWAP;
    if (*missing)
        berth__cg_addf(iso->desc, sizeof iso->desc,
                       "; controllers missing from %s/cgroup.controllers:%s", iso->root, missing);
    if (*failed)
        berth__cg_addf(iso->desc, sizeof iso->desc, "; cannot enable:%s", failed);
}

/* V2 in dir, berthd's own cgroup (detected) or a directory given to open. */
static int open_v2(struct berth__iso *iso, const char *instance, const char *dir, int given,
                   char *why, size_t wl)
{
    char *base = iso->base[BERTH__ISO_H_V2];
    snprintf(iso->root, sizeof iso->root, "%s", dir);
    if (!given)
        climb_daemon(iso->root);
    int e = berth__cg_join(base, BERTH__ISO_PATH_MAX, iso->root, instance)
                ? -ENAMETOOLONG
                : berth__cg_make_dir(base);
    if (e) {
        berth__cg_addf(why, wl, "%scgroup2 %s/%s: %s", *why ? "; " : "", iso->root, instance,
                       strerror(-e));
        base[0] = '\0';
        return -1;
    }
    snprintf(iso->desc, sizeof iso->desc, "cgroup v2 (unified), delegated subtree %s", iso->root);
    move_self(iso);
    enable_controllers(iso);
    iso->has_kill = berth__cg_has(base, "cgroup.kill");
    berth__cg_addf(iso->desc, sizeof iso->desc, "; attempts in %s/NAME, killed by %s", base,
                   iso->has_kill ? "cgroup.kill" : "freezing (no cgroup.kill: Linux < 5.14)");
    return 0;
}

/* HYBRID and V1: the INSTANCE directories of the v1 memory, cpu and pids hierarchies. */
static void open_v1_limits(struct berth__iso *iso, const struct berth__iso_layout *lay,
                           const char *instance)
{
    static const char *const limit_file[NLIMIT] = {"memory.limit_in_bytes", "cpu.cfs_quota_us",
                                                   "pids.max"};
    berth__cg_addf(iso->desc, sizeof iso->desc, "; limits in cgroup v1:");
    for (size_t i = 0; i < NLIMIT; i++) {
        const struct want *w = &limit_ctrls[i];
        char *base = iso->base[w->hier];
        int e = !lay->dir[w->hier][0] ? -ENOENT
                : berth__cg_join(base, BERTH__ISO_PATH_MAX, lay->dir[w->hier], instance)
                    ? -ENAMETOOLONG
                    : berth__cg_make_dir(base);
        if (!lay->dir[w->hier][0]) {
            berth__cg_addf(iso->desc, sizeof iso->desc, "%s %s not mounted (not enforced)",
                           i ? "," : "", w->name);
        } else if (e) {
            berth__cg_addf(iso->desc, sizeof iso->desc, "%s %s %s: %s (not enforced)", i ? "," : "",
                           w->name, base, strerror(-e));
        } else if (!berth__cg_has(base, limit_file[i])) {
            berth__cg_addf(iso->desc, sizeof iso->desc, "%s %s %s: no %s (not enforced)",
                           i ? "," : "", w->name, base, limit_file[i]);
        } else {
            berth__cg_addf(iso->desc, sizeof iso->desc, "%s %s %s", i ? "," : "", w->name, base);
            iso->enforced |= w->bit;
            if (w->bit == BERTH_ISO_ENF_MEM && berth__cg_has(base, "memory.memsw.limit_in_bytes"))
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
    int e = berth__cg_join(base, BERTH__ISO_PATH_MAX, lay->dir[BERTH__ISO_H_V2], instance)
                ? -ENAMETOOLONG
                : berth__cg_make_dir(base);
    if (e) {
        berth__cg_addf(why, wl, "%scgroup2 %s/%s: %s", *why ? "; " : "", lay->dir[BERTH__ISO_H_V2],
                       instance, strerror(-e));
        base[0] = '\0';
        return -1;
    }
    iso->has_kill = berth__cg_has(base, "cgroup.kill");
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
        int e = berth__cg_join(base, BERTH__ISO_PATH_MAX, own, instance) ? -ENAMETOOLONG
                                                                         : berth__cg_make_dir(base);
        if (e) {
            berth__cg_addf(why, wl, "%scgroup v1 %s/%s: %s", *why ? "; " : "", own, instance,
                           strerror(-e));
            base[0] = '\0';
        } else {
            tracked = track_h[i];
        }
    }
    if (tracked < 0)
        return -1;
    snprintf(iso->desc, sizeof iso->desc, "cgroup v1: tracking in %s %s/NAME (killed by %s)",
             berth__cg_hier_key[tracked], iso->base[tracked],
             tracked == BERTH__ISO_H_FREEZER ? "freezing" : "SIGKILL passes: no freezer");
    open_v1_limits(iso, lay, instance);
    const char *acct = lay->dir[BERTH__ISO_H_CPUACCT];
    char *abase = iso->base[BERTH__ISO_H_CPUACCT];
    if (acct[0] &&
        (berth__cg_join(abase, BERTH__ISO_PATH_MAX, acct, instance) || berth__cg_make_dir(abase)))
        abase[0] = '\0';
    return 0;
}

/* "; enforced: ...; not enforced: ..." */
static void add_enforced(struct berth__iso *iso)
{
    char yes[64] = "", no[64] = "";
    unsigned e = iso->enforced;
    berth__cg_addf(e & BERTH_ISO_ENF_MEM ? yes : no, 64, " mem");
    berth__cg_addf(e & BERTH_ISO_ENF_SWAP ? yes : no, 64,
                   e & BERTH_ISO_ENF_MEM ? " (swap too)" : " swap");
    berth__cg_addf(e & BERTH_ISO_ENF_CPU ? yes : no, 64, " cpus");
    berth__cg_addf(e & BERTH_ISO_ENF_PIDS ? yes : no, 64, " pids");
    berth__cg_addf(iso->desc, sizeof iso->desc, "; enforced:%s%s%s", *yes ? yes : " nothing",
                   *no ? "; not enforced:" : "", no);
}

static int open_with(const char *instance, const struct berth__iso_layout *lay, int given,
                     const char *why0, struct berth__iso **out, struct berth_err *err)
{
    *out = NULL;
    if (!berth__cg_valid_name(instance) || !strcmp(instance, "daemon"))
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
int berth__cg_remove_dirs(const char (*dirs)[BERTH__ISO_PATH_MAX], struct berth_err *err)
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
    return berth__cg_remove_dirs((const char(*)[BERTH__ISO_PATH_MAX])iso->base, err);
}
