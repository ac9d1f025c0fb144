/* The slurm executor's scope: which of slurmctld's partitions and nodes are berth's
 * (--slurm-partitions), and the file berth_scope that tells contrib/slurm/job_submit.lua so,
 * with berthd's heartbeat. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/exec/exec_slurm_int.h"
#include "util/atomic_file.h"

#define SCOPE_EVERY BERTH_US_PER_S /* berth_scope (the heartbeat) is written this often */

/* Whether every partition of list (a job's "a,b"; "" is the default one) is berth's. */
int berth__xslurm_in_scope(const struct xslurm *x, const char *list)
{
    if (!x->parts)
        return 1;
    if (!*list)
        list = x->default_part;
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ","), found = 0;
        for (const char *q = x->parts; *q && !found;) {
            size_t m = strcspn(q, ",");
            found = m == l && !strncmp(p, q, l);
            q += m + (q[m] == ',');
        }
        if (!found)
            return 0;
        p += l + (p[l] == ',');
    }
    return 1;
}

/* The scope: --slurm-partitions checked against slurmctld's partitions (each must exist),
 * the names of their nodes (*keep), the default partition, and where berth_scope goes
 * (beside slurm.conf, where job_submit.lua is). */
int berth__xslurm_read_scope(struct xslurm *x, char (**keep)[BERTH_SLURM_NAME_MAX], size_t *nkeep,
                             struct berth_err *err)
{
    const char *conf = x->h->slurm_conf ? x->h->slurm_conf : getenv("SLURM_CONF");
    conf = conf && *conf ? conf : "/etc/slurm/slurm.conf";
    const char *slash = strrchr(conf, '/');
    snprintf(x->scope_path, sizeof x->scope_path, "%.*s/berth_scope",
             slash ? (int)(slash - conf) : 1, slash ? conf : ".");
    x->parts = x->h->slurm_partitions;
    struct berth__slurm_partition *pa = NULL;
    size_t np = 0, cap = 0;
    int rc = berth__slurm_partitions(x->s, &pa, &np, err);
    for (size_t i = 0; !rc && i < np; i++)
        if (pa[i].is_default)
            snprintf(x->default_part, sizeof x->default_part, "%s", pa[i].name);
    for (const char *p = x->parts; !rc && p && *p;) {
        size_t l = strcspn(p, ","), i = 0, got = 0;
        while (i < np && (strlen(pa[i].name) != l || strncmp(pa[i].name, p, l)))
            i++;
        if (i == np) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "--slurm-partitions: slurmctld has no partition '%.*s'", (int)l, p);
            break;
        }
        if (*nkeep + 4096 > cap) {
            cap = *nkeep + 8192;
            void *m = realloc(*keep, cap * sizeof **keep);
            if (!m) {
                rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
                break;
            }
            *keep = m;
        }
        rc = berth__slurm_hostlist(pa[i].nodes, *keep + *nkeep, cap - *nkeep, &got, err);
        *nkeep += got;
        p += l + (p[l] == ',');
    }
    free(pa);
    return rc;
}

/* Whether node name is one berth schedules: any without --slurm-partitions, else one of the
 * scope's nodes (keep, berth__xslurm_read_scope's). */
int berth__xslurm_in_partitions(const struct xslurm *x, char (*keep)[BERTH_SLURM_NAME_MAX],
                                size_t nkeep, const char *name)
{
    size_t k = 0;
    while (x->parts && k < nkeep && strcmp(keep[k], name))
        k++;
    return !x->parts || k < nkeep;
}

/* The scope file's text for now into buf (cap bytes); its length, as snprintf's. */
static int scope_text(const struct xslurm *x, berth_us now, char *buf, size_t cap)
{
    return snprintf(buf, cap,
                    "# written by berthd every second; contrib/slurm/job_submit.lua "
                    "reads it\nheartbeat %lld\nstale_after %lld\ndefault %s\n"
                    "partitions %s\n",
                    (long long)(now / BERTH_US_PER_S),
                    (long long)(x->h->slurm_failsafe_us / BERTH_US_PER_S),
                    x->default_part[0] ? x->default_part : "-", x->parts ? x->parts : "*");
}

/* berth_scope, read by job_submit.lua at each submit: the heartbeat (the wall clock's
 * seconds), how old it may get before the hook holds nothing, the default partition and
 * berth's partitions ("*": all). Written to a temporary file, then renamed (mode 0666 less
 * the umask: slurmctld's account reads it). */
void berth__xslurm_write_scope(struct xslurm *x, berth_us now)
{
    char small[1024], *text = small;
    int len = scope_text(x, now, small, sizeof small), bad = len < 0;
    if (!bad && (size_t)len >= sizeof small) { /* a long --slurm-partitions */
        text = malloc((size_t)len + 1);
        if (!text)
            errno = ENOMEM;
        bad = !text || scope_text(x, now, text, (size_t)len + 1) != len;
    }
    if (!bad)
        bad = berth__atomic_write(NULL, x->scope_path, text, (size_t)len, 0, 0666, NULL) != 0;
    int e = errno;
    if (text != small)
        free(text);
    if (bad && now - x->scope_err_logged >= ERR_LOG_EVERY) {
        berth__exec_log(x->h,
                        "berthd: %s: cannot write (%s): job_submit.lua will stop holding "
                        "jobs\n",
                        x->scope_path, strerror(e));
        x->scope_err_logged = now;
    }
    x->scope_at = now + SCOPE_EVERY;
}
