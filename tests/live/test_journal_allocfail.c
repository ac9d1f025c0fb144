/* Allocation failures in berthd's job records and journal (tests/allocfail.h): a submission
 * read into a job, the job's JSON document and its way back (the journal's round trip, and
 * ljob_clone), and the journal itself: open, waited and non-waited puts, close, reopen and
 * load. jansson's allocations are counted (its parser excepted, see allocfail.c) and so are
 * SQLite's (SQLITE_CONFIG_MALLOC), which the journal answers with BERTH_EIO and SQLite's
 * message, as journal.h documents; SQLite absorbs some failures itself (its benign
 * allocations), so a journal run may succeed after one. Whatever a journal run answered,
 * the file is then reopened without failures: every put that returned 0 with wait = 1 is
 * there with its document, every waited put that failed is absent. Each scenario makes a few
 * hundred to a few thousand counted calls (SQLite's open and first commit are most of them):
 * every one is driven. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocfail.h"
#include "check.h"
#include "io/json_load.h"
#include "live/jobs/journal.h"
#include "live/jobs/ljob.h"
#include "tmpfile.h"

static struct tmp T;
static char shm[64]; /* a folder in /dev/shm when there is one: fsync costs nothing there */

static const char submission[] =
    "{\"argv\":[\"python3\",\"train.py\",\"--lr\",\"0.1\"],\"name\":\"resnet\",\"gpus\":2,"
    "\"min_gpus\":1,\"max_gpus\":4,\"gpu_type\":\"a100\",\"job_type\":\"ResNet-50\","
    "\"queue\":\"research\",\"priority\":3,\"est_s\":3600,\"cpus\":4,\"mem_mib\":8192,"
    "\"checkpoint_signal\":\"USR1\",\"grace_s\":30,\"env\":{\"A\":\"1\",\"BB\":\"two\"},"
    "\"cwd\":\"/tmp\"}";

/* ---- the job record: submission, document, and back ----------------------------------- */

static int run_submit(void *ctx, struct berth_err *err)
{
    const json_t *body = ctx;
    struct berth__ljob *j = NULL;
    int rc = berth__ljob_from_submit(body, "alice", 1001, 1001, &j, err);
    if (rc) {
        CHECK(j == NULL);
        return rc;
    }
    allocfail_pause(1);
    CHECK_I64(j->argc, 4);
    CHECK_STR(j->argv[3], "0.1");
    CHECK_I64(j->nenv, 2);
    allocfail_pause(0);
    berth__ljob_free(j);
    return 0;
}

struct roundtrip {
    const struct berth__ljob *j;
    char *want; /* the document of j */
};

/* The document as the journal stores it: NULL when out of memory. */
static char *doc_of(const struct berth__ljob *j)
{
    json_t *o = berth__ljob_json(j, 1);
    char *doc = o ? berth__json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return doc;
}

static int run_roundtrip(void *ctx, struct berth_err *err)
{
    struct roundtrip *r = ctx;
    char *doc = doc_of(r->j);
    if (!doc)
        return berth_err_set(err, BERTH_ENOMEM, "document: out of memory");
    json_error_t je;
    json_t *o = json_loads(doc, 0, &je);
    free(doc);
    if (!o)
        return berth_err_set(err, BERTH_EINTERNAL, "document: %s", je.text);
    struct berth__ljob *back = NULL, *clone = NULL;
    int rc = berth__ljob_from_journal(o, &back, err);
    json_decref(o);
    if (!rc)
        rc = berth__ljob_clone(back, &clone, err);
    char *again = NULL;
    if (!rc && !(again = doc_of(clone)))
        rc = berth_err_set(err, BERTH_ENOMEM, "document: out of memory");
    if (!rc) {
        allocfail_pause(1);
        if (strcmp(again, r->want))
            fprintf(stderr, "  the document came back as\n    %s\n  instead of\n    %s\n", again,
                    r->want);
        CHECK(!strcmp(again, r->want));
        allocfail_pause(0);
    }
    free(again);
    berth__ljob_free(clone);
    berth__ljob_free(back);
    return rc;
}

static void test_ljob(void)
{
    json_error_t je;
    json_t *body = json_loads(submission, 0, &je);
    CHECK(body != NULL);
    struct berth__ljob *j = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth__ljob_from_submit(body, "alice", 1001, 1001, &j, &err), 0);
    if (!j) {
        json_decref(body);
        return;
    }
    berth__ljob_set_id(j, 7);
    snprintf(j->token, sizeof j->token, "tok-7");
    /* a job that ran, was preempted and runs again on two GPUs */
    CHECK_I64(berth__ljob_note(j, 1000, BERTH_L_RUNNING, "started on %d GPUs", 2), 0);
    CHECK_I64(berth__ljob_note(j, 5000, BERTH_L_PENDING, "preempted"), 0);
    CHECK_I64(berth__ljob_note(j, 9000, BERTH_L_RUNNING, "started again"), 0);
    j->submit_us = 500;
    j->start_us = 1000;
    j->attempt = 2;
    j->nslots = 2;
    CHECK_I64(berth__ljob_slots(j), 0); /* made when a job first runs */
    j->slots[0] = (struct berth__slot){0, 1};
    j->slots[1] = (struct berth__slot){1, 0};
    /* (no progress: the journal does not keep it; berthd reads the progress file again) */
    struct roundtrip r = {j, doc_of(j)};
    CHECK(r.want != NULL);
    struct allocfail_case cases[] = {
        {"ljob from a submission", run_submit, body, 1, 0, 0, NULL},
        {"ljob document and back", run_roundtrip, &r, 1, 0, 0, NULL},
    };
    for (size_t i = 0; r.want && i < sizeof cases / sizeof *cases; i++)
        allocfail_drive(&cases[i], NULL);
    free(r.want);
    berth__ljob_free(j);
    json_decref(body);
}

/* ---- the journal ---------------------------------------------------------------------- */

#define NDOCS 5

struct jrun {
    char path[200];
    const char *docs[NDOCS + 1]; /* docs[id]: what put id wrote (ids 1..NDOCS) */
    int acked[NDOCS + 1];        /* 1: a waited put of it returned 0; -1: it failed */
    int loaded;                  /* documents the run's own reload saw */
};

static void remove_files(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", ".mark", ".mark.tmp"};
    char p[256];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }
}

struct seen {
    char *docs[NDOCS + 1];
};

static int keep_doc(void *ctx, uint64_t id, const char *doc, struct berth_err *err)
{
    struct seen *s = ctx;
    if (id < 1 || id > NDOCS)
        return berth_err_set(err, BERTH_EINPUT, "journal: id %llu", (unsigned long long)id);
    free(s->docs[id]);
    if (!(s->docs[id] = strdup(doc)))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    return 0;
}

static void seen_free(struct seen *s)
{
    for (int i = 0; i <= NDOCS; i++)
        free(s->docs[i]);
    memset(s, 0, sizeof *s);
}

/* Opens a fresh journal, puts documents 1..3 waited, 4 not waited, 5 waited, closes it,
 * reopens it and loads it. */
static int run_journal(void *ctx, struct berth_err *err)
{
    struct jrun *r = ctx;
    allocfail_pause(1);
    remove_files(r->path);
    memset(r->acked, 0, sizeof r->acked);
    r->loaded = 0;
    allocfail_pause(0);
    struct berth__journal *jn = NULL;
    int rc = berth__journal_open(r->path, NULL, &jn, err), first = 0;
    if (rc)
        return rc;
    for (int id = 1; id <= NDOCS; id++) {
        struct berth_err e = {0};
        int wait = id != 4;
        rc = berth__journal_put(jn, (uint64_t)id, r->docs[id], wait, &e);
        if (wait)
            r->acked[id] = rc ? -1 : 1;
        if (rc && !first) {
            first = rc;
            *err = e;
        }
    }
    berth__journal_close(jn);
    if (first)
        return first;
    jn = NULL;
    struct seen s = {{NULL}};
    if ((rc = berth__journal_open(r->path, NULL, &jn, err)))
        return rc;
    rc = berth__journal_load(jn, keep_doc, &s, err);
    berth__journal_close(jn);
    allocfail_pause(1);
    for (int id = 1; !rc && id <= NDOCS; id++) {
        CHECK(s.docs[id] != NULL);
        r->loaded += s.docs[id] != NULL;
        if (s.docs[id])
            CHECK_STR(s.docs[id], r->docs[id]);
    }
    allocfail_pause(0);
    seen_free(&s);
    return rc;
}

/* After a run, whatever it answered: the journal on disk holds what was acknowledged. */
static void check_durable(const struct jrun *r)
{
    struct berth__journal *jn = NULL;
    struct berth_err err = {0};
    struct seen s = {{NULL}};
    if (access(r->path, F_OK))
        return; /* the run failed before its first commit made the file */
    int rc = berth__journal_open(r->path, NULL, &jn, &err);
    if (rc) {
        fprintf(stderr, "  journal: reopened after the run: %s\n", err.msg);
        CHECK_I64(rc, 0);
        return;
    }
    CHECK_I64(berth__journal_load(jn, keep_doc, &s, &err), 0);
    berth__journal_close(jn);
    for (int id = 1; id <= NDOCS; id++) {
        if (r->acked[id] == 1) {
            if (!s.docs[id])
                fprintf(stderr, "  journal: document %d was acknowledged but is not there\n", id);
            CHECK(s.docs[id] != NULL);
            if (s.docs[id])
                CHECK_STR(s.docs[id], r->docs[id]);
        } else if (r->acked[id] == -1) {
            if (s.docs[id])
                fprintf(stderr, "  journal: document %d failed its put but is there\n", id);
            CHECK(s.docs[id] == NULL);
        }
    }
    seen_free(&s);
}

static int run_journal_checked(void *ctx, struct berth_err *err)
{
    int rc = run_journal(ctx, err);
    allocfail_pause(1);
    check_durable(ctx);
    allocfail_pause(0);
    return rc;
}

static void test_journal(void)
{
    struct jrun r;
    memset(&r, 0, sizeof r);
    snprintf(r.path, sizeof r.path, "%s/journal.db", shm[0] ? shm : T.dir);
    r.docs[1] = "{\"id\":1,\"state\":\"pending\"}";
    r.docs[2] = "{\"id\":2,\"argv\":[\"a\",\"b\"],\"note\":\"a longer document, to be sure that "
                "a page holds more than one row of text in it\"}";
    r.docs[3] = "{\"id\":3}";
    r.docs[4] = "{\"id\":4,\"waited\":false}";
    r.docs[5] = "{\"id\":5,\"last\":true}";
    struct allocfail_case a = {
        "journal open, put, close, reopen, load", run_journal_checked, &r, 1, 0, 1, "sqlite3_"};
    allocfail_drive(&a, NULL);
    CHECK_I64(r.loaded, NDOCS); /* the last run, which completed, read everything back */
    allocfail_pause(1);
    remove_files(r.path);
    allocfail_pause(0);
}

static const struct check_test tests[] = {
    {"ljob", test_ljob},
    {"journal", test_journal},
};

int main(int argc, char **argv)
{
    int args = check_args(argc, argv, tests, sizeof tests / sizeof *tests);
    if (args)
        return args < 0 ? 1 : 0;
    allocfail_route_jansson();
    if (allocfail_route_sqlite()) {
        fprintf(stderr, "test_journal_allocfail: SQLite refused SQLITE_CONFIG_MALLOC\n");
        return 1;
    }
    tmp_open(&T);
    snprintf(shm, sizeof shm, "/dev/shm/berth-test-XXXXXX");
    if (!mkdtemp(shm))
        shm[0] = '\0';
    int rc = check_main(argc, argv, tests, sizeof tests / sizeof *tests);
    if (shm[0] && rmdir(shm)) {
        perror(shm);
        rc = 1;
    }
    tmp_close(&T);
    return rc;
}
