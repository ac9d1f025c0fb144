/* One attempt's cgroup group: its folders in each hierarchy, made with its limits (memory,
 * CPU quota, pids under v2 or v1), and the group as the text the shim is given. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "live/exec/cgroup_int.h"

#define CPU_PERIOD_US 100000
#define CPU_MIN_QUOTA 1000

/* ---- one attempt's group ------------------------------------------------------------------ */

int berth__cg_unsupported(struct berth_err *err)
{
    return berth_err_set(err, BERTH_EUNSUPPORTED,
                         "cgroup: isolation is off (the group has no directory)");
}

int berth__iso_group_of(const struct berth__iso *iso, const char *name, struct berth__iso_group *g,
                        struct berth_err *err)
{
    memset(g, 0, sizeof *g);
    if (!iso || iso->kind == BERTH_ISO_NONE)
        return berth__cg_unsupported(err);
    if (!berth__cg_valid_name(name))
        return berth_err_set(err, BERTH_EINPUT,
                             "cgroup: bad group name \"%s\" (1 to %d letters, digits, '-', '_', "
                             "'.', starting with a letter or digit)",
                             name ? name : "", BERTH__ISO_NAME_MAX);
    for (int h = 0; h < BERTH__ISO_NHIER; h++)
        if (iso->base[h][0] && berth__cg_join(g->dir[h], sizeof g->dir[h], iso->base[h], name)) {
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
        rc = berth__cg_put_err(dir, "memory.max", t, err);
        if (!rc && (iso->enforced & BERTH_ISO_ENF_SWAP))
            rc = berth__cg_put_err(dir, "memory.swap.max", lim->mem_bytes > 0 ? "0" : "max", err);
        if (!rc && berth__cg_has(dir, "memory.oom.group"))
            rc = berth__cg_put_err(dir, "memory.oom.group", "1", err);
    }
    if (!rc && (iso->enforced & BERTH_ISO_ENF_CPU)) {
        if (lim->cpu_milli > 0)
            snprintf(t, sizeof t, "%lld %d", (long long)cpu_quota(lim->cpu_milli), CPU_PERIOD_US);
        else
            snprintf(t, sizeof t, "max %d", CPU_PERIOD_US);
        rc = berth__cg_put_err(dir, "cpu.max", t, err);
    }
    if (!rc && (iso->enforced & BERTH_ISO_ENF_PIDS)) {
        limit_text(t, sizeof t, lim->pids_max, "max");
        rc = berth__cg_put_err(dir, "pids.max", t, err);
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
        return berth__cg_put_err(dir, "memory.limit_in_bytes", t, err);
    int e = berth__cg_put(dir, "memory.limit_in_bytes", t);
    if (e == -EINVAL) {
        int rc = berth__cg_put_err(dir, "memory.memsw.limit_in_bytes", t, err);
        return rc ? rc : berth__cg_put_err(dir, "memory.limit_in_bytes", t, err);
    }
    if (e)
        return berth_err_set(err, BERTH_EIO, "cgroup: %s/memory.limit_in_bytes: %s", dir,
                             strerror(-e));
    return berth__cg_put_err(dir, "memory.memsw.limit_in_bytes", t, err);
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
        rc = berth__cg_put_err(d, "cpu.cfs_period_us", t, err);
        limit_text(t, sizeof t, lim->cpu_milli > 0 ? cpu_quota(lim->cpu_milli) : 0, "-1");
        if (!rc)
            rc = berth__cg_put_err(d, "cpu.cfs_quota_us", t, err);
    }
    if (!rc && (iso->enforced & BERTH_ISO_ENF_PIDS)) {
        limit_text(t, sizeof t, lim->pids_max, "max");
        rc = berth__cg_put_err(g->dir[BERTH__ISO_H_PIDS], "pids.max", t, err);
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
        int e = g->dir[h][0] ? berth__cg_make_dir(g->dir[h]) : 0;
        if (e)
            rc = berth_err_set(err, BERTH_EIO, "cgroup: mkdir %s: %s", g->dir[h], strerror(-e));
    }
    if (!rc)
        rc = iso->kind == BERTH_ISO_V2 ? limits_v2(iso, g->dir[BERTH__ISO_H_V2], lim, err)
                                       : limits_v1(iso, g, lim, err);
    if (rc)
        berth__cg_remove_dirs((const char(*)[BERTH__ISO_PATH_MAX])g->dir, NULL);
    return rc;
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
        int w =
            snprintf(buf + n, len > n ? len - n : 0, "%s=%s\n", berth__cg_hier_key[h], g->dir[h]);
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
                if (!strcmp(line, berth__cg_hier_key[k]))
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
