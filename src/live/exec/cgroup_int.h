/* What berthd's cgroup files share (private to live/exec/): the isolation's state (struct
 * berth__iso), the constants more than one file uses, and the helpers of cgroup_util.c and
 * the calls each file makes of the others, as berth__cg_*. */
#ifndef BERTH_LIVE_EXEC_CGROUP_INT_H
#define BERTH_LIVE_EXEC_CGROUP_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "live/exec/cgroup.h"

#define DESC_MAX      4096
#define PIDS_TEXT_MAX 24

struct berth__iso {
    int kind;
    unsigned enforced;
    int has_kill;                                     /* cgroup.kill in the v2 subtree */
    char base[BERTH__ISO_NHIER][BERTH__ISO_PATH_MAX]; /* the INSTANCE directories, "" unused */
    char root[BERTH__ISO_PATH_MAX];                   /* V2: the delegated subtree */
    char desc[DESC_MAX];
};

typedef int (*berth__cg_pid_fn)(pid_t pid, void *arg);

extern const char *const berth__cg_hier_key[BERTH__ISO_NHIER];

/* cgroup_util.c */
int berth__cg_join(char *out, size_t len, const char *a, const char *b);
int berth__cg_put(const char *dir, const char *file, const char *text);
int berth__cg_put_err(const char *dir, const char *file, const char *text, struct berth_err *err);
ssize_t berth__cg_get(const char *dir, const char *file, char *buf, size_t len);
int berth__cg_has(const char *dir, const char *file);
int64_t berth__cg_keyed(const char *dir, const char *file, const char *key);
int64_t berth__cg_number(const char *dir, const char *file);
int berth__cg_make_dir(const char *path);
int berth__cg_has_token(const char *list, const char *tok, char sep);
void berth__cg_nap(void);
int64_t berth__cg_now_ms(void);
void berth__cg_addf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int berth__cg_valid_name(const char *s);
int berth__cg_each_pid(const char *dir, berth__cg_pid_fn fn, void *arg);
int berth__cg_pid_signal(pid_t pid, void *arg);
int berth__cg_holds_self(const char *dir);

/* cgroup.c */
int berth__cg_remove_dirs(const char (*dirs)[BERTH__ISO_PATH_MAX], struct berth_err *err);

/* cgroup_group.c */
int berth__cg_unsupported(struct berth_err *err);

#endif
