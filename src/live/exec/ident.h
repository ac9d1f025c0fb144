/* Who jobs run as. A token's USER is a Unix account: berthd started as root runs each job as
 * the account its submitter authenticated as (multi-user mode); berthd started as anyone
 * else runs every job as itself, so every token must name its own account (single-user
 * mode). `admin` is a berth role, never a Unix privilege. This file resolves accounts and
 * checks the files whose secrecy the model rests on (the token file). */
#ifndef BERTH_LIVE_IDENT_H
#define BERTH_LIVE_IDENT_H

#include <sys/types.h>

#include "berth/err.h"

#define BERTH_ACCOUNT_NAME_MAX   64
#define BERTH_ACCOUNT_GROUPS_MAX 64

struct berth__account {
    uid_t uid;
    gid_t gid;
    char name[BERTH_ACCOUNT_NAME_MAX];
    char home[256];
};

/* The account called name, or by uid: 0, or BERTH_EINPUT when there is none. */
int berth__account_by_name(const char *name, struct berth__account *a, struct berth_err *err);
int berth__account_by_uid(uid_t uid, struct berth__account *a, struct berth_err *err);
/* The account berthd itself runs as. */
int berth__account_self(struct berth__account *a, struct berth_err *err);
/* 1 when berthd runs jobs as other accounts (its effective uid is 0). */
int berth__ident_multi_user(void);
/* The groups of an account (its primary group first), for setgroups in the shim: the number
 * found (at most max), or -1. */
int berth__account_groups(const struct berth__account *a, gid_t *groups, int max);

/* A file that holds secrets (the token file): a regular file owned by berthd's account or
 * root, readable and writable by its owner only (as ssh and munge demand). BERTH_EINPUT
 * saying what is wrong and how to fix it (chmod 600 PATH). */
int berth__secret_file_check(const char *path, const char *what, struct berth_err *err);

#endif
