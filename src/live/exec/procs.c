/* An attempt's processes as /proc shows them, for what must know whose a process is: the
 * start time that tells a job's process group from a recycled pid (exec_local.c), and the
 * members of a process group, which berthd asks for where it has no cgroups when it checks
 * that a replica's listening socket is the replica's own (live/daemon/listener.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/exec/exec_local.h"

/* Field `field` (3 = state, 5 = pgrp, 22 = start time) of /proc/PID/stat, 0 when PID is
 * gone or the field is not there. The command (field 2) may hold spaces and parentheses:
 * the fields after it start after its last ')'. */
static unsigned long long stat_field(pid_t pid, int field)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    p += 2; /* after ") " come fields 3.. */
    for (int i = 3; i < field && p; i++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    return p ? strtoull(p, NULL, 10) : 0;
}

uint64_t berth__proc_start(pid_t pid)
{
    return stat_field(pid, 22);
}

pid_t berth__proc_pgrp(pid_t pid)
{
    return (pid_t)stat_field(pid, 5);
}

int berth__proc_group(pid_t pgid, pid_t *out, size_t max)
{
    size_t n = 0;
    if (pgid <= 1 || !max)
        return 0;
    if (berth__proc_pgrp(pgid) == pgid)
        out[n++] = pgid; /* the leader: where a server usually holds its socket */
    DIR *dir = n < max ? opendir("/proc") : NULL;
    struct dirent *e;
    for (size_t seen = 0; dir && n < max && seen < BERTH_PROC_SCAN_MAX && (e = readdir(dir));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 1 || pid == pgid)
            continue;
        seen++;
        if (berth__proc_pgrp((pid_t)pid) == pgid)
            out[n++] = (pid_t)pid;
    }
    if (dir)
        closedir(dir);
    return (int)n;
}
