/* Where cgroups are on this machine (berth__iso_layout_parse, _read): /proc/self/cgroup and
 * /proc/self/mountinfo read into the v2 mount and the v1 hierarchies berthd may use, each
 * with berthd's own cgroup in it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/exec/cgroup_int.h"

#define PROC_FILE_MAX (8 << 20)

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
                                         : berth__cg_has_token(ctrls, berth__cg_hier_key[h], ',');
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
                                 : strcmp(fstype, "cgroup") ||
                                       !berth__cg_has_token(super, berth__cg_hier_key[h], ','))
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
