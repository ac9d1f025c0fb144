/* berthd's durable journal: one SQLite database in WAL mode holding one JSON document per
 * job. Writes are group-committed: a writer thread takes every document queued since its
 * last commit and commits them in one transaction (synchronous=FULL, so a commit is on disk
 * when it returns); a caller that must not answer before its write is durable waits for
 * the commit that holds it.
 *
 * Failures are not sticky. A failed transaction (a full disk, an I/O error) is rolled back
 * and the journal goes on; once the disk has room again, writes succeed again, no restart
 * needed. What happens to the documents of a failed transaction depends on how they came:
 *
 *  - waited (wait = 1): all or nothing. The put returns 0 only once a transaction holding
 *    the document committed; otherwise BERTH_EIO with SQLite's message, and that document is
 *    dropped: the journal never writes it later (the caller answers the failure and keeps
 *    its memory as it was before the put).
 *  - not waited (wait = 0): kept and retried. The writer retries with a backoff (50 ms
 *    doubling to 1 s) and at once whenever new documents arrive. Pending documents are
 *    coalesced by job id: a later one replaces an earlier pending one, so what is kept is at
 *    most one document per job (plus the documents of waiting callers).
 *
 * Ordering: every put gets a sequence number, and for each job the newest queued document
 * wins. Every transaction holds every document still pending (new and retried), written in
 * put order, so a retried document can never land after a newer one: once a newer document
 * for the job commits, the older ones went in the same or an earlier transaction. A waited
 * document that fails takes nothing with it: an older pending non-waited document for the
 * same job (the state the caller's memory still holds) stays pending and is retried, and a
 * newer one (queued after it) stays too. A pending document leaves the journal only by
 * committing, by being replaced by a newer non-waited document for the same job, or by a
 * close whose last try fails.
 *
 * Health: degraded from a failed transaction until the next one commits. While degraded the
 * writer keeps trying with the backoff even with nothing pending (a transaction that only
 * updates the counter), so the journal turns healthy again on its own once the disk does.
 *
 * Damage is an error at open, never an empty queue: a zero-length database, one that fails
 * SQLite's quick_check, and lost commits. For the last, the database keeps a commit counter
 * (one row of table meta, updated in every transaction) and the writer keeps a mark file
 * beside it, PATH.mark, holding the counter as of its last write (temp file, fsync, rename:
 * at most once a second while commits go on, at close, and at open when it is missing or
 * behind). At open, a mark with a higher count than the database's counter, or a mark
 * counting commits without a database, means the database or its WAL was truncated, lost
 * or replaced by an older copy: open refuses (restore a backup, or remove the mark to
 * accept the loss). It cannot see commits made within the last second before a crash that
 * also lost the WAL's tail (the mark did not yet count them), nor a database replaced
 * together with its mark. Its cost: one small file written and fsynced
 * per second at most, and one row updated per transaction. A brand-new state (neither the
 * database nor the mark) opens empty; a crash within the very first open, before SQLite
 * wrote the new database's first page, leaves a zero-length file that must be removed (a
 * first open that fails without a crash removes what it made).
 *
 * A failed fsync leaves the disk's content unknown: if the process dies before the next
 * commit, a document whose put failed may still be found at restart (every later commit
 * overwrites that WAL tail, so it is dropped as promised once the journal writes again). */
#ifndef BERTH_LIVE_JOURNAL_H
#define BERTH_LIVE_JOURNAL_H

#include <stdint.h>

#include "berth/err.h"

struct berth__journal;

/* What the health route reports. */
struct berth__journal_health {
    int degraded;          /* the last commit failed (0: it succeeded, or none was tried) */
    char last_error[256];  /* the last failure's SQLite message ("" = none since open) */
    int64_t last_error_us; /* when it happened (Unix time, microseconds; 0 = never) */
    uint64_t pending;      /* non-waited documents not yet committed (kept for a retry) */
    uint64_t waiters;      /* callers waiting for their commit now */
    uint64_t failures;     /* consecutive failed transactions (0 after a commit) */
    uint64_t failed_total; /* failed transactions since open */
    uint64_t dropped;      /* documents dropped since open: waited ones whose puts returned
                              EIO (and any a retry lost to a lack of memory) */
    uint64_t commits;      /* transactions committed since open */
    uint64_t docs;         /* documents written by those transactions */
};

/* Opens (creating when missing) the journal at path and starts its writer thread. vfs names
 * the SQLite VFS to use (NULL: the default; the tests pass a fault-injecting one). Fails
 * with BERTH_EIO, naming the file and what to do, when the journal is damaged (see above). */
int berth__journal_open(const char *path, const char *vfs, struct berth__journal **out,
                        struct berth_err *err);
/* Commits what is queued (while failing: one last try), writes the mark, stops the writer
 * and closes the database. Non-waited documents that the last try could not write are lost
 * (a restart rebuilds the state they carried from what was committed, as after a crash);
 * check the health first to know. */
void berth__journal_close(struct berth__journal *jn);
/* Queues doc (copied) as job id's document. wait = 1: returns once the transaction holding
 * it has committed (0) or failed (BERTH_EIO; the document is dropped). wait = 0: returns at
 * once; 0 unless out of memory (a failed write is retried, see above). */
int berth__journal_put(struct berth__journal *jn, uint64_t id, const char *doc, int wait,
                       struct berth_err *err);
/* Queues n documents (copied) as jobs ids[i]'s, all in one transaction, and waits for it:
 * 0 once it committed, or BERTH_EIO when it failed, and then none of them is ever written
 * (an array job's tasks: all accepted, or none). */
int berth__journal_put_all(struct berth__journal *jn, const uint64_t *ids, char *const *docs,
                           size_t n, struct berth_err *err);
/* Calls fn for every stored document in id order (before any put). */
int berth__journal_load(struct berth__journal *jn,
                        int (*fn)(void *ctx, uint64_t id, const char *doc, struct berth_err *err),
                        void *ctx, struct berth_err *err);
/* The database's path (journal_read.c opens its own read-only connections to it). */
const char *berth__journal_path(const struct berth__journal *jn);
/* Reads beside the writer, on a read-only connection of the caller's own (journal_read.c):
 * what the last commit holds, never waiting on the daemon or the writer (WAL). get: job
 * id's document (*doc, to free) and 0, or 1 when there is none. scan: fn for every document
 * of an id above after, in id order, until fn returns nonzero (that value is returned). */
int berth__journal_get(const struct berth__journal *jn, uint64_t id, char **doc,
                       struct berth_err *err);
int berth__journal_scan(const struct berth__journal *jn, uint64_t after,
                        int (*fn)(void *ctx, uint64_t id, const char *doc, struct berth_err *err),
                        void *ctx, struct berth_err *err);
/* The journal's state now. */
void berth__journal_health(struct berth__journal *jn, struct berth__journal_health *h);
/* Transactions and documents committed so far (the health's two counters). */
/* The time each committed transaction took (read without a lock, for /metrics). */
struct berth__hist;
const struct berth__hist *berth__journal_commit_hist(const struct berth__journal *jn);
void berth__journal_stats(struct berth__journal *jn, uint64_t *commits, uint64_t *docs);

#endif
