/* The journal (see journal.h): SQLite in WAL mode behind one writer thread that commits
 * whatever has queued since its last transaction, so many submissions share one fsync. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "util/mem.h"

struct entry {
    uint64_t id;
    char *doc;
};

struct berth__journal {
    sqlite3 *db;
    sqlite3_stmt *put;
    pthread_t writer;
    pthread_mutex_t mu;
    pthread_cond_t more, done[2]; /* done[g & 1]: batch g committed */
    struct entry *q, *w;          /* q: queued; w: being written */
    size_t nq, qcap, nw, wcap;
    uint64_t gen, committed_gen; /* batch being queued; batches committed (or failed) */
    uint64_t failed_gen;         /* 1 + the first batch that failed, 0 = none: from then on the
                                    journal refuses writes (a disk that failed once is not trusted) */
    uint64_t commits, docs;
    int stop;
    char errmsg[256];
};

static int exec_sql(sqlite3 *db, const char *sql, struct berth_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        berth_err_set(err, BERTH_EIO, "journal: %s: %s", sql, msg ? msg : "failed");
        sqlite3_free(msg);
        return BERTH_EIO;
    }
    return 0;
}

static int write_batch(struct berth__journal *jn)
{
    int ok = sqlite3_exec(jn->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    for (size_t i = 0; ok && i < jn->nw; i++) {
        sqlite3_reset(jn->put);
        sqlite3_bind_int64(jn->put, 1, (sqlite3_int64)jn->w[i].id);
        sqlite3_bind_text(jn->put, 2, jn->w[i].doc, -1, SQLITE_STATIC);
        ok = sqlite3_step(jn->put) == SQLITE_DONE;
    }
    sqlite3_reset(jn->put);
    if (ok)
        ok = sqlite3_exec(jn->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    if (!ok) {
        pthread_mutex_lock(&jn->mu);
        snprintf(jn->errmsg, sizeof jn->errmsg, "%s", sqlite3_errmsg(jn->db));
        pthread_mutex_unlock(&jn->mu);
        sqlite3_exec(jn->db, "ROLLBACK", NULL, NULL, NULL);
    }
    for (size_t i = 0; i < jn->nw; i++)
        free(jn->w[i].doc);
    return ok;
}

static void *writer_main(void *arg)
{
    struct berth__journal *jn = arg;
    pthread_mutex_lock(&jn->mu);
    for (;;) {
        while (!jn->nq && !jn->stop)
            pthread_cond_wait(&jn->more, &jn->mu);
        if (!jn->nq && jn->stop)
            break;
        /* swap the queue with the (empty) write buffer */
        struct entry *t = jn->w;
        size_t tcap = jn->wcap;
        jn->w = jn->q;
        jn->wcap = jn->qcap;
        jn->nw = jn->nq;
        jn->q = t;
        jn->qcap = tcap;
        jn->nq = 0;
        uint64_t g = jn->gen++; /* what is queued from now on is the next batch */
        pthread_mutex_unlock(&jn->mu);
        int ok = write_batch(jn);
        pthread_mutex_lock(&jn->mu);
        if (!ok && !jn->failed_gen)
            jn->failed_gen = g + 1;
        else {
            jn->commits++;
            jn->docs += jn->nw;
        }
        jn->nw = 0;
        jn->committed_gen = g + 1;
        /* wake only this batch's waiters: the next batch's wait on the other variable */
        pthread_cond_broadcast(&jn->done[g & 1]);
    }
    pthread_mutex_unlock(&jn->mu);
    return NULL;
}

int berth__journal_open(const char *path, struct berth__journal **out, struct berth_err *err)
{
    struct berth__journal *jn = calloc(1, sizeof *jn);
    if (!jn)
        return berth_err_set(err, BERTH_ENOMEM, "journal: out of memory");
    int rc = 0;
    if (sqlite3_open_v2(path, &jn->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        NULL) != SQLITE_OK) {
        rc = berth_err_set(err, BERTH_EIO, "journal %s: %s", path,
                           jn->db ? sqlite3_errmsg(jn->db) : "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(jn->db, 5000);
    if ((rc = exec_sql(jn->db, "PRAGMA journal_mode=WAL", err)) ||
        (rc = exec_sql(jn->db, "PRAGMA synchronous=FULL", err)) ||
        (rc = exec_sql(jn->db,
                       "CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, doc TEXT NOT NULL)",
                       err)))
        goto fail;
    if (sqlite3_prepare_v2(jn->db, "INSERT OR REPLACE INTO jobs(id, doc) VALUES(?, ?)", -1,
                           &jn->put, NULL) != SQLITE_OK) {
        rc = berth_err_set(err, BERTH_EIO, "journal %s: %s", path, sqlite3_errmsg(jn->db));
        goto fail;
    }
    pthread_mutex_init(&jn->mu, NULL);
    pthread_cond_init(&jn->more, NULL);
    pthread_cond_init(&jn->done[0], NULL);
    pthread_cond_init(&jn->done[1], NULL);
    if (pthread_create(&jn->writer, NULL, writer_main, jn)) {
        rc = berth_err_set(err, BERTH_EIO, "journal: cannot start its writer thread");
        pthread_mutex_destroy(&jn->mu);
        pthread_cond_destroy(&jn->more);
        pthread_cond_destroy(&jn->done[0]);
        pthread_cond_destroy(&jn->done[1]);
        goto fail;
    }
    *out = jn;
    return 0;
fail:
    sqlite3_finalize(jn->put);
    sqlite3_close(jn->db);
    free(jn);
    return rc;
}

void berth__journal_close(struct berth__journal *jn)
{
    if (!jn)
        return;
    pthread_mutex_lock(&jn->mu);
    jn->stop = 1;
    pthread_cond_signal(&jn->more);
    pthread_mutex_unlock(&jn->mu);
    pthread_join(jn->writer, NULL);
    sqlite3_finalize(jn->put);
    sqlite3_close(jn->db);
    pthread_mutex_destroy(&jn->mu);
    pthread_cond_destroy(&jn->more);
    pthread_cond_destroy(&jn->done[0]);
    pthread_cond_destroy(&jn->done[1]);
    free(jn->q);
    free(jn->w);
    free(jn);
}

int berth__journal_put(struct berth__journal *jn, uint64_t id, const char *doc, int wait,
                       struct berth_err *err)
{
    char *copy = strdup(doc);
    if (!copy)
        return berth_err_set(err, BERTH_ENOMEM, "journal: out of memory");
    pthread_mutex_lock(&jn->mu);
    if (jn->failed_gen) {
        pthread_mutex_unlock(&jn->mu);
        free(copy);
        return berth_err_set(err, BERTH_EIO, "journal: a commit failed before: %s", jn->errmsg);
    }
    if (BERTH_GROW(jn->q, jn->qcap, jn->nq + 1)) {
        pthread_mutex_unlock(&jn->mu);
        free(copy);
        return berth_err_set(err, BERTH_ENOMEM, "journal: out of memory");
    }
    jn->q[jn->nq++] = (struct entry){id, copy};
    uint64_t g = jn->gen;
    pthread_cond_signal(&jn->more);
    int rc = 0;
    if (wait) {
        while (jn->committed_gen <= g)
            pthread_cond_wait(&jn->done[g & 1], &jn->mu);
        if (jn->failed_gen && jn->failed_gen <= g + 1)
            rc = berth_err_set(err, BERTH_EIO, "journal: commit failed: %s", jn->errmsg);
    }
    pthread_mutex_unlock(&jn->mu);
    return rc;
}

int berth__journal_load(struct berth__journal *jn,
                        int (*fn)(void *ctx, uint64_t id, const char *doc, struct berth_err *err),
                        void *ctx, struct berth_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(jn->db, "SELECT id, doc FROM jobs ORDER BY id", -1, &st, NULL) !=
        SQLITE_OK)
        return berth_err_set(err, BERTH_EIO, "journal: %s", sqlite3_errmsg(jn->db));
    int rc = 0, s;
    while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *doc = sqlite3_column_text(st, 1);
        rc = fn(ctx, (uint64_t)sqlite3_column_int64(st, 0), doc ? (const char *)doc : "", err);
    }
    if (!rc && s != SQLITE_DONE)
        rc = berth_err_set(err, BERTH_EIO, "journal: %s", sqlite3_errmsg(jn->db));
    sqlite3_finalize(st);
    return rc;
}

void berth__journal_stats(struct berth__journal *jn, uint64_t *commits, uint64_t *docs)
{
    pthread_mutex_lock(&jn->mu);
    *commits = jn->commits;
    *docs = jn->docs;
    pthread_mutex_unlock(&jn->mu);
}
