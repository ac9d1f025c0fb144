/* Who is calling: bearer tokens from berthd's token file (lines "TOKEN USER [admin]", '#'
 * starts a comment) and the per-job tokens berthd gives each job. */
#ifndef BERTH_LIVE_AUTH_H
#define BERTH_LIVE_AUTH_H

#include "berth/err.h"

struct berth__auth;

struct berth__caller {
    const char *user; /* NULL for a job token */
    int admin;
    int job_token; /* 1: a job's own token (may only post that job's progress) */
};

/* Reads the token file; errors name FILE:LINE. */
int berth__auth_load(const char *path, struct berth__auth **out, struct berth_err *err);
void berth__auth_free(struct berth__auth *a);
/* Looks up a user token (from "Authorization: Bearer TOKEN"); 0 when found. */
int berth__auth_user(const struct berth__auth *a, const char *token, struct berth__caller *who);
/* Fills buf (>= 33 bytes) with a fresh random token (32 hex digits). */
int berth__auth_new_token(char *buf, size_t len);
/* Compares tokens in time independent of where they differ; 1 when equal. */
int berth__auth_same(const char *a, const char *b);

#endif
