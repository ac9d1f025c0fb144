/* Who is calling: bearer tokens from berthd's token file (lines "TOKEN USER [admin]", '#'
 * starts a comment), callers on berthd's Unix socket known by their peer credentials, and
 * the per-job tokens berthd gives each job. A USER is a Unix account (ident.h): in
 * multi-user mode (berthd is root) any account, in single-user mode berthd's own. */
#ifndef BERTH_LIVE_AUTH_H
#define BERTH_LIVE_AUTH_H

#include <stddef.h>
#include <sys/types.h>

#include "berth/err.h"
#include "live/exec/ident.h"

struct berth__auth;

struct berth__caller {
    char user[BERTH_ACCOUNT_NAME_MAX]; /* "" for a job token */
    uid_t uid;                         /* the account's (jobs run as it) */
    gid_t gid;
    int admin;
    int job_token; /* 1: a job's own token (may only post that job's progress) */
    int local;     /* 1: on the Unix socket, known by its peer credentials */
};

struct berth__auth_opts {
    int multi_user;                    /* USERs are any accounts (else: self's only) */
    const struct berth__account *self; /* berthd's own account */
    int check_perms;                   /* refuse a file others may read (berthd: 1) */
};

/* Reads the token file; errors name FILE:LINE (a USER that is no account, or not berthd's
 * own in single-user mode, a short or repeated token, a file others may read). */
int berth__auth_load(const char *path, const struct berth__auth_opts *o, struct berth__auth **out,
                     struct berth_err *err);
void berth__auth_free(struct berth__auth *a);
size_t berth__auth_count(const struct berth__auth *a);
/* Looks up a user token (from "Authorization: Bearer TOKEN"); 0 when found. */
int berth__auth_user(const struct berth__auth *a, const char *token, struct berth__caller *who);
/* A caller on the Unix socket: the account of uid. In multi-user mode any account may call,
 * an admin when it is root or a token line names it with admin; in single-user mode only
 * berthd's own account (and root). 0, or -1 when it may not call. */
int berth__auth_peer(const struct berth__auth *a, uid_t uid, struct berth__caller *who);
/* 1 when a line of the token file names the account of uid (--socket-requires-token). */
int berth__auth_has_token(const struct berth__auth *a, uid_t uid);
/* Fills buf (>= 33 bytes) with a fresh random token (32 hex digits). */
int berth__auth_new_token(char *buf, size_t len);
/* Compares tokens in time independent of where they differ; 1 when equal. */
int berth__auth_same(const char *a, const char *b);

#endif
