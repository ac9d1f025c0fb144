/* `scontrol show topology` read into switches, and a node's rack and block from them (see
 * slurm_topo.h); the command run with posix_spawn, its output read through a pipe. */
#define _GNU_SOURCE /* environ */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/exec/slurm_topo.h"
#include "slurmapi/slurm_api.h"

#define MAX_NODES  65536 /* in one switch's Nodes */
#define MAX_OUTPUT (16 << 20)

extern char **environ;

void berth__slurm_topo_free(struct berth__slurm_topo *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->sw[i].name);
        free(t->sw[i].switches);
        for (size_t k = 0; k < t->sw[i].nnodes; k++)
            free(t->sw[i].nodes[k]);
        free(t->sw[i].nodes);
    }
    free(t->sw);
    t->sw = NULL;
    t->n = 0;
}

/* The value of key in the line's KEY=VALUE words, malloc'd in *out (NULL: absent). */
static int field(const char *line, size_t len, const char *key, char **out)
{
    *out = NULL;
    size_t k = strlen(key);
    for (size_t i = 0; i < len;) {
        while (i < len && (line[i] == ' ' || line[i] == '\t'))
            i++;
        size_t w = i;
        while (w < len && line[w] != ' ' && line[w] != '\t')
            w++;
        if (w - i > k && !strncmp(line + i, key, k) && line[i + k] == '=') {
            *out = strndup(line + i + k + 1, w - i - k - 1);
            return *out ? 0 : -1;
        }
        i = w;
    }
    return 0;
}

static int expand(struct berth__slurm_switch *s, const char *list, int lineno,
                  struct berth_err *err)
{
    char(*names)[BERTH_SLURM_NAME_MAX] = malloc(MAX_NODES * sizeof *names);
    size_t n = 0;
    if (!names)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    struct berth_err e = {0};
    int rc = berth__slurm_hostlist(list, names, MAX_NODES, &n, &e);
    if (rc) {
        free(names);
        return berth_err_set(err, BERTH_EINPUT, "scontrol show topology: line %d: Nodes: %s",
                             lineno, e.msg);
    }
    s->nodes = calloc(n + 1, sizeof *s->nodes);
    for (size_t i = 0; s->nodes && i < n; i++)
        if (!(s->nodes[s->nnodes++] = strdup(names[i])))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    free(names);
    return !s->nodes ? berth_err_set(err, BERTH_ENOMEM, "out of memory") : rc;
}

/* 1 when name is one of the Slurm node list's names ("s[0-1],s3"). */
static int in_list(const char *list, const char *name)
{
    char(*names)[BERTH_SLURM_NAME_MAX] = malloc(MAX_NODES * sizeof *names);
    size_t n = 0;
    struct berth_err e = {0};
    int found = 0;
    if (names && !berth__slurm_hostlist(list, names, MAX_NODES, &n, &e))
        for (size_t i = 0; i < n && !found; i++)
            found = !strcmp(names[i], name);
    free(names);
    return found;
}

static int parse_line(struct berth__slurm_topo *t, const char *line, size_t len, int lineno,
                      struct berth_err *err)
{
    char *name = NULL, *block = NULL, *level = NULL, *nodes = NULL, *sws = NULL;
    if (field(line, len, "SwitchName", &name) || field(line, len, "BlockName", &block) ||
        field(line, len, "Level", &level) || field(line, len, "Nodes", &nodes) ||
        field(line, len, "Switches", &sws)) {
        free(name), free(block), free(level), free(nodes), free(sws);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    int rc = 0;
    if (!name && !block)
        goto out; /* not a switch: a message */
    long lv = -1;
    char *end = NULL;
    if (name && (!level || (lv = strtol(level, &end, 10)) < 0 || *end || end == level)) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "scontrol show topology: line %d: Level: expected a whole number >= 0 "
                           "for switch %.64s, found '%.32s'",
                           lineno, name, level ? level : "");
        goto out;
    }
    if (!*(name ? name : block)) {
        rc = berth_err_set(err, BERTH_EINPUT, "scontrol show topology: line %d: %s: empty name",
                           lineno, name ? "SwitchName" : "BlockName");
        goto out;
    }
    struct berth__slurm_switch *sw = realloc(t->sw, (t->n + 1) * sizeof *sw);
    if (!sw) {
        rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
        goto out;
    }
    t->sw = sw;
    struct berth__slurm_switch *s = &t->sw[t->n++];
    *s = (struct berth__slurm_switch){
        .name = name ? name : block, .level = name ? (int)lv : -1, .switches = sws, .parent = -1};
    name = block = sws = NULL;
    rc = expand(s, nodes && strcmp(nodes, "(null)") ? nodes : "", lineno, err);
out:
    free(name), free(block), free(level), free(nodes), free(sws);
    return rc;
}

int berth__slurm_topo_parse(const char *text, struct berth__slurm_topo *t, struct berth_err *err)
{
    *t = (struct berth__slurm_topo){0};
    int rc = 0, lineno = 1;
    for (const char *p = text; *p && !rc; lineno++) {
        size_t len = strcspn(p, "\n");
        rc = parse_line(t, p, len, lineno, err);
        p += len + (p[len] == '\n');
    }
    for (size_t i = 0; !rc && i < t->n; i++) /* each switch's parent */
        for (size_t k = 0; k < t->n; k++)
            if (k != i && t->sw[k].switches && in_list(t->sw[k].switches, t->sw[i].name)) {
                if (t->sw[i].parent >= 0 && t->sw[i].parent != (int)k)
                    rc = berth_err_set(err, BERTH_EINPUT,
                                       "scontrol show topology: switch %.64s is under two "
                                       "switches, %.64s and %.64s (not a tree)",
                                       t->sw[i].name, t->sw[t->sw[i].parent].name, t->sw[k].name);
                t->sw[i].parent = (int)k;
            }
    if (rc)
        berth__slurm_topo_free(t);
    return rc;
}

void berth__slurm_topo_where(const struct berth__slurm_topo *t, const char *node, const char **rack,
                             const char **block)
{
    *rack = *block = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const struct berth__slurm_switch *s = &t->sw[i];
        if (s->level > 0 || (s->level == 0 ? *rack : *block))
            continue; /* a switch above the leaves holds the node too: its place is the tree */
        for (size_t k = 0; k < s->nnodes; k++)
            if (!strcmp(s->nodes[k], node)) {
                if (s->level < 0) { /* topology/block */
                    *block = s->name;
                } else {
                    *rack = s->name;
                    if (s->parent >= 0)
                        *block = t->sw[s->parent].name;
                }
                break;
            }
    }
}

int berth__slurm_topo_read(const char *conf, struct berth__slurm_topo *t, struct berth_err *err)
{
    *t = (struct berth__slurm_topo){0};
    size_t ne = 0;
    while (environ[ne])
        ne++;
    char **env = calloc(ne + 2, sizeof *env), *confvar = NULL;
    if (!env)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (!conf || strncmp(environ[i], "SLURM_CONF=", 11))
            env[k++] = environ[i];
    if (conf && asprintf(&confvar, "SLURM_CONF=%s", conf) < 0) {
        free(env);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    if (confvar)
        env[k++] = confvar;
    int fd[2] = {-1, -1}, rc = 0;
    pid_t pid = -1;
    posix_spawn_file_actions_t fa;
    char *argv[] = {"scontrol", "show", "topology", NULL};
    if (pipe2(fd, O_CLOEXEC)) {
        rc = berth_err_set(err, BERTH_EIO, "scontrol show topology: pipe: %s", strerror(errno));
        goto out;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    int e = posix_spawnp(&pid, "scontrol", &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (e) {
        rc = berth_err_set(err, BERTH_EIO, "scontrol show topology: cannot run scontrol: %s",
                           strerror(e));
        goto out;
    }
    size_t len = 0, cap = 0;
    char *text = NULL, spill[4096];
    int lost = 0; /* output past MAX_OUTPUT (or memory): read on, so that scontrol ends */
    for (;;) {
        if (!lost && len + 4096 + 1 > cap) {
            char *bigger = cap < MAX_OUTPUT ? realloc(text, cap ? cap * 2 : 8192) : NULL;
            if (bigger)
                text = bigger, cap = cap ? cap * 2 : 8192;
            else
                lost = 1;
        }
        ssize_t r =
            lost ? read(fd[0], spill, sizeof spill) : read(fd[0], text + len, cap - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += lost ? 0 : (size_t)r;
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!text || lost)
        rc = berth_err_set(err, lost && cap >= MAX_OUTPUT ? BERTH_EIO : BERTH_ENOMEM,
                           lost && cap >= MAX_OUTPUT
                               ? "scontrol show topology: over %d MiB of output"
                               : "out of memory",
                           MAX_OUTPUT >> 20);
    else if (!WIFEXITED(st) || WEXITSTATUS(st))
        rc = berth_err_set(err, BERTH_EIO, "scontrol show topology: scontrol failed (status %d)",
                           WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    else {
        text[len] = '\0';
        rc = berth__slurm_topo_parse(text, t, err);
    }
    free(text);
out:
    if (fd[0] >= 0)
        close(fd[0]);
    free(confvar);
    free(env);
    return rc;
}
