/* libFuzzer harness for berthd's HTTP request handlers, in process: no socket, no server.
 * Each input gets a daemon of its own (src/live/daemon/daemon.c: berth__daemon_create, then the
 * recovery berth__daemon_run does before it serves), made in a scratch state dir (on
 * /dev/shm when there is one, so that journal commits are cheap) with a fake inventory of
 * 2x4:v100, no cgroups, no Unix socket and a small throughput table, and destroyed at the
 * input's end: an input means the same whatever ran before it, and libFuzzer's leak check
 * speaks of that input alone. The input is a short sequence of requests that go through
 * berth__route_find, berth__route_admit and berth__http_dispatch as http.c sends them, after
 * the same authentication decisions (http.c's admit). Beyond crashes, leaks and undefined behaviour
 * it checks each answer (a status; an error answer is {"error": ...} and never a 500; a body
 * that serializes) and, after each request, the daemon's bookkeeping (each user's count of
 * waiting jobs and of GPUs in the scheduler, held-back jobs, the engine's map back to live
 * jobs); a scheduler tick that fails (berthd's loop would stop) is a finding too.
 *
 * Input: records separated by lines that are exactly "--" (at most MAX_RECORDS). A record's
 * first line is "METHOD CALLER TARGET", the rest of the record (after that line's '\n') is
 * the request body.
 *   METHOD  passed as it is (GET, POST, PUT, DELETE, anything)
 *   CALLER  admin | user | other | local | job: a token of the token file with admin, one
 *           without (both berthd's own account), another account's caller ("berthfuzz-other",
 *           with limits of its own: max_pending 6, max_gpus 4), a caller on the Unix socket
 *           (peer credentials: berthd's own account), or the job token of the path's job
 *           (refused by the routes' berth__route_admit, which http.c asks too, unless that job
 *           exists and the route takes job tokens);
 *           any other word is an unauthenticated caller (401: nothing is dispatched)
 *   TARGET  the path, then optionally "?" and a query string (k=v&k2=v2, %XX and '+'
 *           decoded as libmicrohttpd does; a key without '=' has no value). In the path,
 *           "$N" (N decimal) stands for the id of this input's N-th submission (0 = the
 *           first): ids are relative to the daemon's next id when the input starts, so an
 *           input means the same whatever ran before it. The path is %XX-decoded.
 * A first record whose first line is "POLICY NAME" makes the input's daemon with that policy
 * (--policy NAME; an unknown name makes the input uninteresting); without one it is srtf.
 * A record whose first line starts with "TICK" runs one scheduler tick instead, as berthd's
 * loop does (progress sweep, then berth__daemon_tick under the lock, at the wall clock):
 * "TICK [FATE] [LAUNCH]", FATE what the fake executor's poll says of a live attempt (run,
 * exit0, exit1, signal, lost; default run) and LAUNCH what its launch does (ok, again,
 * fail; default ok); the record's body is appended to each live attempt's progress file
 * before the sweep.
 *
 * Launching: berthd's local executor would fork a shim per attempt, so the daemon runs with
 * a fake executor (fake_exec below) that keeps berthd's own inventory (the local one's open)
 * but whose attempts are pretend processes: launch makes the job's spool folder and logs,
 * poll answers FATE (or "killed by SIGKILL" once the grace period's SIGKILL was sent), stop
 * only notes. So jobs go through every state (scheduled, running, preempted, cancelled while
 * running, ended) and nothing is ever executed.
 *
 * Settings (environment): FUZZ_HTTP_VERBOSE=1 prints each request and its answer (what to
 * run on an artifact: fuzz_http -runs=0 FILE); FUZZ_HTTP_POLICY picks the default policy (srtf
 * when unset, which preempts); FUZZ_HTTP_RESET=N keeps a daemon for N inputs (default 1; more is
 * not faster: libFuzzer re-runs each input that leaves memory behind to look for leaks, and
 * a finding may then need the inputs before it), and a daemon never holds more than MAX_JOBS
 * jobs; FUZZ_TMPDIR the scratch folder's parent. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <sys/stat.h>
#include <jansson.h>

#include "live/daemon/daemon.h"
#include "live/http/http.h"
#include "live/http/routes.h"

#define FUZZ_WHO "fuzz_http"
#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 24
#define MAX_JOBS    512
#define MAX_ARGS    16
#define ADMIN_TOKEN "berth-fuzz-admin-token-0123456789"
#define USER_TOKEN  "berth-fuzz-user-token-0123456789"
#define OTHER_USER  "berthfuzz-other"

static char root_dir[256];        /* the scratch folder: tokens, state/ */
static char state_dir[300];       /* root_dir/state */
static char tokens_path[300];     /* root_dir/tokens */
static char tput_path[300];       /* root_dir/tput.json */
static struct berth__daemon *dmn; /* the daemon of this process */
static struct berth__caller c_admin, c_user, c_other, c_local;
static unsigned inputs_since_reset;
static unsigned reset_every = 1;
static FILE *devnull; /* berthd's log unless FUZZ_HTTP_VERBOSE=1 */
static int verbose;
static const char *policy = "srtf";

/* ---- the fake executor ------------------------------------------------------------- */

enum { FATE_RUN, FATE_EXIT0, FATE_EXIT1, FATE_SIGNAL, FATE_LOST };
enum { LAUNCH_OK, LAUNCH_AGAIN, LAUNCH_FAIL };
static int fate = FATE_RUN, launch_mode = LAUNCH_OK;
static uint8_t *killed; /* by id: the grace period's SIGKILL was sent to its attempt */
static size_t killed_cap;

static void spool_file(struct berth__daemon *d, uint64_t id, const char *name, char *buf,
                       size_t len)
{
    berth__lexec_spool(&d->ex, id, name, buf, len);
}

static void append_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    ENSURE(fd >= 0, "cannot open %s: %s", path, strerror(errno));
    ENSURE(len == 0 || write(fd, data, len) == (ssize_t)len, "cannot write %s", path);
    close(fd);
}

static int fake_launch(void *self, struct berth__ljob *j, berth_us now, struct berth_err *err)
{
    (void)self;
    struct berth__daemon *d = dmn;
    if (launch_mode == LAUNCH_AGAIN) {
        j->launch_at = now + BERTH_US_PER_S;
        return BERTH_EAGAIN;
    }
    if (launch_mode == LAUNCH_FAIL)
        return berth_err_set(err, BERTH_EIO, "executor: fuzz launch refused");
    char path[4200], line[128];
    spool_file(d, j->id, "", path, sizeof path);
    ENSURE(!mkdir(path, 0700) || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
    int n = snprintf(line, sizeof line, "job %s attempt %d: hello\n", j->idstr, j->attempt);
    spool_file(d, j->id, "stdout.log", path, sizeof path);
    append_file(path, line, (size_t)n);
    spool_file(d, j->id, "stderr.log", path, sizeof path);
    append_file(path, "", 0);
    spool_file(d, j->id, "progress.jsonl", path, sizeof path);
    append_file(path, "", 0);
    if (j->id < killed_cap)
        killed[j->id] = 0;
    j->exit_code = j->exit_signal = -1;
    berth__ljob_note(j, now, BERTH_L_RUNNING, "attempt %d started (fuzz)", j->attempt);
    return 0;
}

static int fake_poll(void *self, struct berth__ljob *j)
{
    (void)self;
    if (j->id < killed_cap && killed[j->id]) {
        j->exit_code = -1;
        j->exit_signal = 9;
        return 1;
    }
    switch (fate) {
    case FATE_EXIT0:
    case FATE_EXIT1:
        j->exit_code = fate == FATE_EXIT1;
        j->exit_signal = -1;
        return 1;
    case FATE_SIGNAL:
        j->exit_code = -1;
        j->exit_signal = j->ckpt_sig;
        return 1;
    case FATE_LOST:
        return 2;
    default:
        return 0;
    }
}

static void fake_stop(void *self, struct berth__ljob *j, int force)
{
    (void)self;
    if (force && j->id < killed_cap)
        killed[j->id] = 1;
}

static int fake_started(void *self, const struct berth__ljob *j)
{
    (void)self, (void)j;
    return 1;
}

static int fake_open(const struct berth__exec_host *h, void **self,
                     struct berth_cluster **inventory, struct berth_err *err)
{
    return berth__exec_local.open(h, self, inventory, err);
}

static void fake_close(void *self)
{
    berth__exec_local.close(self);
}

static const struct berth__executor fake_exec = {.name = "fuzz",
                                                 .lost = "its fuzz supervisor vanished",
                                                 .open = fake_open,
                                                 .close = fake_close,
                                                 .launch = fake_launch,
                                                 .poll = fake_poll,
                                                 .stop = fake_stop,
                                                 .started = fake_started};

/* ---- the daemon: made, and made anew ------------------------------------------------ */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) && errno != ENOENT ? -1 : 0;
}

static void rm_tree(const char *path)
{
    if (access(path, F_OK) == 0)
        ENSURE(!nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS), "cannot remove %s", path);
}

static void fuzz_cleanup(void)
{
    if (root_dir[0])
        rm_tree(root_dir);
}

static void daemon_down(void)
{
    berth__daemon_destroy(dmn);
    dmn = NULL;
    rm_tree(state_dir);
}

static void caller_of(const char *token, struct berth__caller *who)
{
    ENSURE(!berth__auth_user(dmn->auth, token, who), "token %s not found", token);
}

/* Makes the daemon with policy pol: 0, or -1 when pol (not the default) is refused. */
static int daemon_up(const char *pol)
{
    static int made;
    struct berth__daemon_opts o;
    berth__daemon_opts_init(&o);
    o.state_dir = state_dir;
    o.gpus = "2x4:v100";
    o.policy = pol;
    o.tokens = tokens_path;
    o.throughputs = tput_path;
    o.isolation = "none";
    o.socket = "none";
    o.port = 0;
    o.min_free = 1; /* the check runs; a small /dev/shm (containers) never refuses */
    /* no rate limit (thousands of submissions a second); another user's limits */
    static const char *const limits[] = {"submit_rate=0", OTHER_USER ":max_pending=6",
                                         OTHER_USER ":max_gpus=4"};
    struct berth_err err = {0};
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++)
        ENSURE(!berth__limits_parse(&o.limits, limits[i], &err), "%s: %s", limits[i], err.msg);
    /* berthd's start-up lines once; not again at each remake */
    int saved = -1;
    if (made++ && !verbose) {
        fflush(stderr);
        saved = dup(2);
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (saved >= 0 && null >= 0)
            dup2(null, 2);
        if (null >= 0)
            close(null);
    }
    int rc = berth__daemon_create(&o, &dmn, &err);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    if (rc && pol != policy)
        return -1; /* an input's POLICY line that names none */
    ENSURE(rc == 0, "berth__daemon_create: %s", err.msg);
    dmn->xo = &fake_exec; /* its inventory came from the local executor's open */
    if (devnull)
        dmn->log = devnull; /* berthd's log lines: not one per request in the fuzzer's output */
    snprintf(dmn->api_url, sizeof dmn->api_url, "http://127.0.0.1:0");
    pthread_mutex_lock(&dmn->mu); /* what berth__daemon_run does before it serves */
    rc = berth__daemon_recover(dmn, &err);
    pthread_mutex_unlock(&dmn->mu);
    ENSURE(rc == 0, "berth__daemon_recover: %s", err.msg);
    caller_of(ADMIN_TOKEN, &c_admin);
    caller_of(USER_TOKEN, &c_user);
    ENSURE(c_admin.admin && !c_user.admin, "admin roles");
    c_other = c_user;
    snprintf(c_other.user, sizeof c_other.user, "%s", OTHER_USER);
    ENSURE(!berth__auth_peer(dmn->auth, geteuid(), &c_local), "peer credentials refused");
    memset(killed, 0, killed_cap);
    inputs_since_reset = 0;
    return 0;
}

static void at_exit(void)
{
    berth__daemon_destroy(dmn);
    dmn = NULL;
    free(killed);
    if (devnull)
        fclose(devnull);
    fuzz_cleanup();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* berth__route_find looks in the table berthd's main gives the server (http.h) */
    berth__http_routes(
        &(struct berth__http_table){berth__routes, berth__nroutes, berth__route_admit});
    const char *e = getenv("FUZZ_HTTP_RESET");
    if (e && strtol(e, NULL, 10) > 0)
        reset_every = (unsigned)strtol(e, NULL, 10);
    verbose = (e = getenv("FUZZ_HTTP_VERBOSE")) && *e == '1';
    if ((e = getenv("FUZZ_HTTP_POLICY")) && *e)
        policy = e;
    const char *dir = getenv("FUZZ_TMPDIR");
    if (!dir || !*dir)
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(root_dir, sizeof root_dir, "%s/berth-fuzz-http-XXXXXX", dir);
    if (!mkdtemp(root_dir)) {
        perror(root_dir);
        abort();
    }
    snprintf(state_dir, sizeof state_dir, "%s/state", root_dir);
    snprintf(tokens_path, sizeof tokens_path, "%s/tokens", root_dir);
    atexit(at_exit);
    /* berthd as non-root is single-user: every token names its own account (as root, root) */
    struct passwd *pw = getpwuid(geteuid());
    ENSURE(pw && pw->pw_name, "no account for uid %u", (unsigned)geteuid());
    char tokens[512];
    int n = snprintf(tokens, sizeof tokens, "%s %s admin\n%s %s\n", ADMIN_TOKEN, pw->pw_name,
                     USER_TOKEN, pw->pw_name);
    int fd = open(tokens_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ENSURE(fd >= 0 && write(fd, tokens, (size_t)n) == n && !close(fd), "cannot write %s",
           tokens_path);
    /* a small throughput table (the built-in one is most of a daemon's making) */
    static const char tput[] =
        "{\"v100\": {\"('ResNet-18', 1)\": {\"null\": 10.0, \"('A3C', 1)\": [6.0, 3.0]},"
        " \"('ResNet-18', 2)\": {\"null\": 18.0}, \"('ResNet-18', 4)\": {\"null\": 30.0},"
        " \"('ResNet-18', 8)\": {\"null\": 44.0}, \"('A3C', 1)\": {\"null\": 5.0,"
        " \"('ResNet-18', 1)\": [3.0, 6.0]}, \"('A3C', 2)\": {\"null\": 9.0}},"
        " \"v100_unconsolidated\": {\"('ResNet-18', 8)\": {\"null\": 40.0}}}\n";
    snprintf(tput_path, sizeof tput_path, "%s/tput.json", root_dir);
    fuzz_write_file(tput_path, (const uint8_t *)tput, strlen(tput));
    killed_cap = MAX_JOBS + MAX_RECORDS + 2;
    killed = calloc(killed_cap, 1);
    ENSURE(killed, "out of memory");
    if (!verbose)
        devnull = fopen("/dev/null", "w");
    daemon_up(policy); /* once here: a daemon that cannot be made fails at once, said once */
    daemon_down();
    return 0;
}

/* ---- one request -------------------------------------------------------------------- */

struct query {
    size_t n;
    char *key[MAX_ARGS], *val[MAX_ARGS]; /* val NULL: a key without '=' */
};

static int hexval(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* %XX-decodes s[0, len) into a malloc'd string ('+' is a space when plus); a NUL it
 * decodes ends the string there, as it does for libmicrohttpd's callers. */
static char *unescape(const char *s, size_t len, int plus)
{
    char *o = malloc(len + 1);
    ENSURE(o, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        int a, b;
        if (s[i] == '%' && i + 2 < len && (a = hexval((unsigned char)s[i + 1])) >= 0 &&
            (b = hexval((unsigned char)s[i + 2])) >= 0) {
            o[k++] = (char)(a * 16 + b);
            i += 2;
        } else {
            o[k++] = plus && s[i] == '+' ? ' ' : s[i];
        }
    }
    o[k] = '\0';
    return o;
}

static void query_parse(struct query *q, const char *s)
{
    q->n = 0;
    while (*s && q->n < MAX_ARGS) {
        size_t len = strcspn(s, "&");
        const char *eq = memchr(s, '=', len);
        if (len) {
            q->key[q->n] = unescape(s, eq ? (size_t)(eq - s) : len, 1);
            q->val[q->n] = eq ? unescape(eq + 1, len - (size_t)(eq - s) - 1, 1) : NULL;
            q->n++;
        }
        s += len + (s[len] == '&');
    }
}

static void query_free(struct query *q)
{
    for (size_t i = 0; i < q->n; i++) {
        free(q->key[i]);
        free(q->val[i]);
    }
    q->n = 0;
}

static const char *query_arg(void *conn, const char *name)
{
    const struct query *q = conn;
    for (size_t i = 0; i < q->n; i++)
        if (!strcmp(q->key[i], name))
            return q->val[i];
    return NULL;
}

/* The path with each "$N" replaced by base + N, into out (cap bytes). */
static void expand_ids(const char *in, uint64_t base, char *out, size_t cap)
{
    size_t k = 0;
    for (const char *p = in; *p && k + 24 < cap;) {
        if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
            char *end;
            unsigned long long n = strtoull(p + 1, &end, 10);
            k += (size_t)snprintf(out + k, cap - k, "%llu", (unsigned long long)base + n);
            p = end;
        } else {
            out[k++] = *p++;
        }
    }
    out[k] = '\0';
}

static void check_answer(const char *method, const char *path, const struct berth__hresp *out)
{
    ENSURE(out->status >= 200 && out->status <= 599, "%s %s: status %d", method, path, out->status);
    ENSURE(!(out->json && out->text), "%s %s: both a JSON and a text body", method, path);
    if (out->json) {
        char *s = json_dumps(out->json, JSON_COMPACT);
        ENSURE(s, "%s %s: the answer does not serialize", method, path);
        if (verbose)
            fprintf(stderr, "  -> %d %.400s\n", out->status, s);
        free(s);
    } else if (verbose) {
        fprintf(stderr, "  -> %d (%zu bytes of text)\n", out->status, out->text_len);
    }
    if (out->status >= 400) {
        const json_t *e = json_object_get(out->json, "error");
        ENSURE(json_is_string(e), "%s %s: error %d without {\"error\": ...}", method, path,
               out->status);
        ENSURE(out->status != 500, "%s %s: 500: %s", method, path, json_string_value(e));
    } else if (out->status == 204) {
        ENSURE(!out->json && !out->text, "%s %s: 204 with a body", method, path);
    } else if (out->status == 301) {
        ENSURE(out->location, "%s %s: 301 without a Location", method, path);
    } else {
        ENSURE(out->json || out->text || out->static_body, "%s %s: %d without a body", method, path,
               out->status);
    }
    ENSURE(out->text_len == 0 || out->text, "%s %s: text length without text", method, path);
}

static void request(const char *method, const char *caller, const char *target, const char *body,
                    size_t body_len, uint64_t base)
{
    char raw[1024], path[1200];
    const char *qm = strchr(target, '?');
    size_t plen = qm ? (size_t)(qm - target) : strlen(target);
    snprintf(raw, sizeof raw, "%.*s", (int)(plen < sizeof raw ? plen : sizeof raw - 1), target);
    expand_ids(raw, base, path, sizeof path);
    char *url = unescape(path, strlen(path), 0);
    struct query q = {0};
    query_parse(&q, qm ? qm + 1 : "");
    if (verbose)
        fprintf(stderr, "%s %s %s (%zu body bytes)\n", method, caller, url, body_len);

    struct berth__caller who = {0};
    int auth = 1, job_tok = 0;
    if (!strcmp(caller, "admin"))
        who = c_admin;
    else if (!strcmp(caller, "user"))
        who = c_user;
    else if (!strcmp(caller, "other"))
        who = c_other;
    else if (!strcmp(caller, "local"))
        who = c_local;
    else if (!strcmp(caller, "job"))
        job_tok = 1;
    else
        auth = 0;
    uint64_t id = 0;
    int known = 0;
    const struct berth__route *rt = berth__route_find(method, url, &id, &known);
    ENSURE(rt || !id, "%s %s: no route, but an id", method, url);
    if (!auth || !rt) /* 401, 404 or 405 before any handler */
        goto done;
    /* what the route lets in before the body (http.c asks the same): a job token is the
     * path's job's own, or one no job has */
    char tok[64] = "berth-fuzz-no-such-job-token";
    if (job_tok) {
        pthread_mutex_lock(&dmn->mu);
        struct berth__ljob *j = id ? berth__daemon_job(dmn, id) : NULL;
        if (j && j->token[0])
            snprintf(tok, sizeof tok, "%s", j->token);
        pthread_mutex_unlock(&dmn->mu);
    }
    uint64_t job_id = 0;
    struct berth__hresp early = {.offset = -1};
    if (berth__route_admit(dmn, rt, id, job_tok ? tok : NULL, &who, &job_id, &early)) {
        ENSURE(job_tok && (early.status == 401 || early.status == 403),
               "%s %s: refused with %d before the body", method, url, early.status);
        check_answer(method, url, &early);
        json_decref(early.json);
        goto done;
    }
    ENSURE(!job_tok || (who.job_token && job_id == id && rt->job_token_ok),
           "%s %s: a job token let in as another caller", method, url);
    if (body_len > dmn->o.max_body) /* 413 */
        goto done;
    char *b = malloc(body_len + 1); /* exactly the body and its NUL, as http.c keeps it */
    ENSURE(b, "out of memory");
    memcpy(b, body, body_len);
    b[body_len] = '\0';
    struct berth__hreq r = {.method = method,
                            .id = id,
                            .who = &who,
                            .job_token_id = job_id,
                            .body = b,
                            .body_len = body_len,
                            .arg = query_arg,
                            .conn = &q,
                            .url = url};
    struct berth__hresp out = {.status = 200, .offset = -1};
    berth__http_dispatch(dmn, rt, &r, &out);
    check_answer(method, url, &out);
    json_decref(out.json);
    free(out.text);
    free(b);
done:
    query_free(&q);
    free(url);
}

/* ---- one tick ----------------------------------------------------------------------- */

static int word_index(const char *w, const char *const *words, size_t n, int dflt)
{
    for (size_t i = 0; w && i < n; i++)
        if (!strcmp(w, words[i]))
            return (int)i;
    return dflt;
}

static void tick(char *args, const char *body, size_t body_len)
{
    static const char *const fates[] = {"run", "exit0", "exit1", "signal", "lost"};
    static const char *const modes[] = {"ok", "again", "fail"};
    char *save = NULL;
    const char *f = strtok_r(args, " ", &save), *m = f ? strtok_r(NULL, " ", &save) : NULL;
    fate = word_index(f, fates, 5, FATE_RUN);
    launch_mode = word_index(m, modes, 3, LAUNCH_OK);
    if (verbose)
        fprintf(stderr, "TICK %s %s (%zu progress bytes)\n", fates[fate], modes[launch_mode],
                body_len);
    if (body_len) { /* what the live attempts wrote to their progress files */
        pthread_mutex_lock(&dmn->mu);
        for (size_t i = 0; i < dmn->nactive; i++) {
            struct berth__ljob *j = berth__daemon_job(dmn, dmn->active[i]);
            char path[4200];
            if (!j || !j->proc)
                continue;
            spool_file(dmn, j->id, "progress.jsonl", path, sizeof path);
            append_file(path, body, body_len);
        }
        pthread_mutex_unlock(&dmn->mu);
    }
    berth__daemon_progress_sweep(dmn);
    struct berth_err err = {0};
    pthread_mutex_lock(&dmn->mu);
    int rc = berth__daemon_tick(dmn, berth__wall_us(), &err);
    dmn->ticks++;
    pthread_mutex_unlock(&dmn->mu);
    ENSURE(rc == 0, "berth__daemon_tick (berthd's loop would stop): %s", err.msg);
}

/* ---- the daemon's bookkeeping, after each record ------------------------------------ */

static int64_t limit_gpus(const struct berth__ljob *j)
{
    return j->spec.max_gpus > j->spec.num_gpus ? j->spec.max_gpus : j->spec.num_gpus;
}

static void check_user(struct berth__daemon *d, const char *user)
{
    struct berth__usage *u = berth__usage_of(d->usage, user);
    ENSURE(u, "out of memory");
    int64_t waiting = 0, gpus = 0;
    for (size_t i = 0; i < d->njobs; i++) {
        const struct berth__ljob *j = d->jobs[i];
        if (!j || strcmp(j->user, user))
            continue;
        waiting += j->state == BERTH_L_PENDING || j->state == BERTH_L_HELD;
        gpus += j->sched_counted ? limit_gpus(j) : 0;
    }
    ENSURE(u->waiting == waiting, "user %s: usage counts %lld waiting jobs, the table %lld", user,
           (long long)u->waiting, (long long)waiting);
    ENSURE(u->sched_gpus == gpus, "user %s: usage counts %lld GPUs in the scheduler, jobs %lld",
           user, (long long)u->sched_gpus, (long long)gpus);
}

static void check_state(void)
{
    struct berth__daemon *d = dmn;
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < d->njobs; i++) {
        const struct berth__ljob *j = d->jobs[i];
        if (!j)
            continue;
        ENSURE(j->id == i + 1, "job %zu has id %llu", i + 1, (unsigned long long)j->id);
        ENSURE(j->state <= BERTH_L_CANCELLED, "job %llu: state %d", (unsigned long long)j->id,
               j->state);
        ENSURE(!j->in_engine || (j->eidx < d->by_eidx_cap && d->by_eidx[j->eidx] == j->id),
               "job %llu: the engine's job %u maps to %u", (unsigned long long)j->id, j->eidx,
               j->in_engine && j->eidx < d->by_eidx_cap ? d->by_eidx[j->eidx] : 0);
        ENSURE(!j->held_back || (j->state == BERTH_L_PENDING && !j->in_engine),
               "job %llu: held back for its user's GPU limit while %s%s", (unsigned long long)j->id,
               berth__lstate_name(j->state), j->in_engine ? " and in the engine" : "");
        ENSURE(!berth__lstate_final(j->state) || (!j->launch && !j->sched_counted),
               "job %llu: %s, yet launch %d, counted %d", (unsigned long long)j->id,
               berth__lstate_name(j->state), j->launch, j->sched_counted);
    }
    check_user(d, c_user.user);
    check_user(d, OTHER_USER);
    pthread_mutex_unlock(&d->mu);
}

/* ---- one input ---------------------------------------------------------------------- */

/* The next record of data[*at, size): its first line (NUL-terminated copy in line) and its
 * body (a pointer into data). Records end at a line that is exactly "--". */
static int next_record(const uint8_t *data, size_t size, size_t *at, char *line, size_t cap,
                       const char **body, size_t *body_len)
{
    if (*at >= size)
        return 0;
    const char *s = (const char *)data + *at;
    size_t n = size - *at, end = n, next = n;
    for (size_t i = 0; i + 2 <= n; i++)
        if ((i == 0 || s[i - 1] == '\n') && s[i] == '-' && s[i + 1] == '-' &&
            (i + 2 == n || s[i + 2] == '\n')) {
            end = i ? i - 1 : 0; /* without the '\n' before the separator */
            next = i + 3 <= n ? i + 3 : n;
            break;
        }
    const char *nl = memchr(s, '\n', end);
    size_t l = nl ? (size_t)(nl - s) : end;
    snprintf(line, cap, "%.*s", (int)(l < cap ? l : cap - 1), s);
    *body = nl ? nl + 1 : s + end;
    *body_len = nl ? end - l - 1 : 0;
    *at += next;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (dmn && dmn->njobs > MAX_JOBS)
        daemon_down();
    char pol[64];
    const char *p = policy;
    /* the first line names the policy (measured within size: data has no NUL at its end) */
    if (size > 7 && !memcmp(data, "POLICY ", 7)) {
        const uint8_t *nl = memchr(data + 7, '\n', size - 7);
        size_t n = nl ? (size_t)(nl - (data + 7)) : size - 7;
        snprintf(pol, sizeof pol, "%.*s", (int)(n < sizeof pol ? n : sizeof pol - 1), data + 7);
        p = pol;
    }
    if (!dmn && daemon_up(p))
        return 0;
    uint64_t base = dmn->next_id; /* "$0": this input's first submission */
    size_t at = 0;
    char line[1100];
    const char *body;
    size_t body_len;
    for (int k = 0;
         k < MAX_RECORDS && next_record(data, size, &at, line, sizeof line, &body, &body_len);
         k++) {
        if (!strncmp(line, "POLICY", 6)) {
            continue; /* read before the daemon was made (ignored when it was kept) */
        } else if (!strncmp(line, "TICK", 4)) {
            tick(line + 4, body, body_len);
        } else {
            char *save = NULL;
            char *method = strtok_r(line, " ", &save);
            char *caller = method ? strtok_r(NULL, " ", &save) : NULL;
            char *target = caller ? strtok_r(NULL, " ", &save) : NULL;
            if (!target)
                continue;
            request(method, caller, target, body, body_len, base);
        }
        check_state();
    }
    /* made and destroyed within the input (by default): what it allocates it frees, so
     * libFuzzer's leak check speaks of this input alone */
    if (++inputs_since_reset >= reset_every)
        daemon_down();
    return 0;
}
