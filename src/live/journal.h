/* berthd's durable journal: one SQLite database in WAL mode holding one JSON document per
 * job. Writes are group-committed: a writer thread takes every document queued since its
 * last commit and commits them in one transaction (synchronous=FULL, so a commit is on disk
 * when it returns); a caller that must not answer before its write is durable waits for
 * the commit that holds it. */
#ifndef BERTH_LIVE_JOURNAL_H
#define BERTH_LIVE_JOURNAL_H

#include <stdint.h>

#include "berth/err.h"

struct berth__journal;

/* Opens (creating when missing) the journal at path and starts its writer thread. */
int berth__journal_open(const char *path, struct berth__journal **out, struct berth_err *err);
/* Commits what is queued, stops the writer and closes the database. */
void berth__journal_close(struct berth__journal *jn);
/* Queues doc (copied) as job id's document. wait = 1: returns once the transaction holding
 * it has committed (0) or failed (BERTH_EIO). */
int berth__journal_put(struct berth__journal *jn, uint64_t id, const char *doc, int wait,
                       struct berth_err *err);
/* Calls fn for every stored document in id order (before any put). */
int berth__journal_load(struct berth__journal *jn,
                        int (*fn)(void *ctx, uint64_t id, const char *doc, struct berth_err *err),
                        void *ctx, struct berth_err *err);
/* Transactions and documents committed so far (for the health route and benchmarks). */
void berth__journal_stats(struct berth__journal *jn, uint64_t *commits, uint64_t *docs);

#endif
