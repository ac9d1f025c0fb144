/* Slurm's topology.conf (topology/tree: "SwitchName=s0 Nodes=tux[0-3]", "SwitchName=s2
 * Switches=s[0-1]"; topology/block: "BlockName=b1 Nodes=...", "BlockSizes=4,16") read into
 * nodes' racks, blocks and NVLink domains (io/topo_int.h). Parameter names are case
 * insensitive, '#' starts a comment, LinkSpeed is read and ignored. Every error names
 * FILE:LINE and the line's switch or block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/topo_int.h"
#include "util/num.h"

/* One line's parameter: key[0..klen) = val[0..vlen). */
struct param {
    const char *key, *val;
    size_t klen, vlen;
};

static int key_is(const struct param *p, const char *name)
{
    return p->klen == strlen(name) && !strncasecmp(p->key, name, p->klen);
}

static const char *dup(struct berth__topo_file *t, const char *s, size_t n)
{
    return berth__arena_strndup(&t->names, s, n);
}

/* BlockSizes=4,16 */
static int block_sizes(const char *path, size_t line, const struct param *p, int64_t *sizes,
                       size_t *n, struct berth_err *err)
{
    *n = 0;
    for (const char *q = p->val, *end = p->val + p->vlen; q <= end;) {
        const char *c = memchr(q, ',', (size_t)(end - q));
        size_t l = c ? (size_t)(c - q) : (size_t)(end - q);
        char ex[80];
        if (*n >= 16 || berth__parse_i64(q, l, &sizes[*n]) || !l)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%zu: BlockSizes: expected at most 16 sizes in nodes, like "
                                 "BlockSizes=4,16, found %s",
                                 path, line, berth__excerpt(ex, sizeof ex, p->val, p->vlen));
        (*n)++;
        if (!c)
            break;
        q = c + 1;
    }
    return 0;
}

int berth__topo_load_conf(const char *path, struct berth__topo_file *t, struct berth_err *err)
{
    char *buf;
    size_t len;
    int rc = berth__topo_read(path, &buf, &len, err);
    if (rc)
        return rc;
    struct berth__topo_switch *sw = NULL;
    size_t nsw = 0, cap = 0, nsizes = 0, sizes_line = 0, line = 0;
    int64_t sizes[16];
    int kind = 0; /* 1 switches, 2 blocks */
    for (char *ln = buf, *next; ln && !rc; ln = next) {
        line++;
        next = strchr(ln, '\n');
        if (next)
            *next++ = '\0';
        char *hash = strchr(ln, '#');
        if (hash)
            *hash = '\0';
        struct param ps[8];
        size_t np = 0;
        for (char *p = ln;;) {
            p += strspn(p, " \t\r");
            if (!*p)
                break;
            size_t l = strcspn(p, " \t\r");
            char *eq = memchr(p, '=', l);
            char ex[80];
            if (!eq || eq == p || np == 8) {
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s:%zu: expected Key=Value parameters (SwitchName=, Nodes=, "
                                   "Switches=, LinkSpeed=, BlockName=, BlockSizes=), found %s",
                                   path, line, berth__excerpt(ex, sizeof ex, p, l));
                break;
            }
            ps[np++] = (struct param){p, eq + 1, (size_t)(eq - p), l - (size_t)(eq + 1 - p)};
            p += l;
        }
        if (rc || !np)
            continue;
        const char *where = NULL;
        char wb[300];
        snprintf(wb, sizeof wb, "%.*s=%.*s", (int)ps[0].klen, ps[0].key,
                 (int)(ps[0].vlen > 200 ? 200 : ps[0].vlen), ps[0].val);
        if (!(where = dup(t, wb, strlen(wb)))) {
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
            break;
        }
        int lk = key_is(&ps[0], "SwitchName") ? 1 : key_is(&ps[0], "BlockName") ? 2 : 0;
        if (key_is(&ps[0], "BlockSizes")) {
            if (np > 1 || sizes_line) {
                rc = berth_err_set(err, BERTH_EINPUT, "%s:%zu: BlockSizes: %s", path, line,
                                   np > 1 ? "expected it alone on its line" : "given twice");
                break;
            }
            if ((rc = block_sizes(path, line, &ps[0], sizes, &nsizes, err)))
                break;
            sizes_line = line;
            lk = 2;
        } else if (!lk) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%zu: %.*s=: expected a line to start with SwitchName= "
                               "(topology/tree), BlockName= or BlockSizes= (topology/block)",
                               path, line, (int)ps[0].klen, ps[0].key);
            break;
        }
        if (kind && kind != lk) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%zu: %s: expected one topology: switches (topology/tree) or "
                               "blocks (topology/block), found both",
                               path, line, where);
            break;
        }
        kind = lk;
        if (key_is(&ps[0], "BlockSizes"))
            continue;
        if (!ps[0].vlen || ps[0].vlen > 255) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%zu: %.*s: expected a name of 1 to 255 "
                               "characters",
                               path, line, (int)ps[0].klen, ps[0].key);
            break;
        }
        if (BERTH_GROW(sw, cap, nsw + 1)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
            break;
        }
        struct berth__topo_switch *s = &sw[nsw++];
        *s = (struct berth__topo_switch){dup(t, ps[0].val, ps[0].vlen), NULL, NULL, where, line};
        for (size_t i = 1; i < np && !rc; i++) {
            const char **at = key_is(&ps[i], "Nodes")                   ? &s->nodes
                              : kind == 1 && key_is(&ps[i], "Switches") ? &s->children
                                                                        : NULL;
            if (!at && kind == 1 && key_is(&ps[i], "LinkSpeed"))
                continue; /* ignored: berth ranks levels, it does not model bandwidth */
            if (!at)
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s:%zu: %s: %.*s=: unknown parameter (expected %s)", path, line,
                                   where, (int)ps[i].klen, ps[i].key,
                                   kind == 1 ? "Nodes, Switches or LinkSpeed" : "Nodes");
            else if (*at)
                rc = berth_err_set(err, BERTH_EINPUT, "%s:%zu: %s: %.*s= given twice", path, line,
                                   where, (int)ps[i].klen, ps[i].key);
            else if (!ps[i].vlen)
                rc = berth_err_set(err, BERTH_EINPUT, "%s:%zu: %s: %.*s=: expected a host list",
                                   path, line, where, (int)ps[i].klen, ps[i].key);
            else if (!(*at = dup(t, ps[i].val, ps[i].vlen)))
                rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
        }
        if (!rc && !s->name)
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    }
    if (!rc && !nsw)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: expected SwitchName= or BlockName= lines, found none", path);
    if (!rc && kind == 1)
        rc = berth__topo_tree(t, sw, nsw, err);
    else if (!rc) {
        char at[40];
        snprintf(at, sizeof at, "%zu: BlockSizes", sizes_line);
        rc = berth__topo_blocks(t, sw, nsw, sizes, nsizes, at, err);
    }
    free(sw);
    free(buf);
    return rc;
}
