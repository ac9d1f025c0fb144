/* The counting allocator behind tests/allocfail.h. A test program linked with
 * -Wl,--wrap=malloc,--wrap=calloc,... (tests/CMakeLists.txt: every test_*_allocfail) has every
 * call that its own objects and the static libraries (berth_core, berth_live) make to those
 * functions sent here instead: each call is counted, the armed one fails as if memory had run
 * out, and the blocks handed out are remembered until freed, so that a test can see a leak
 * in the plain build too. Shared libraries (jansson, SQLite, GLPK, libc itself) keep calling
 * the real allocator: the link cannot reach into them. jansson and SQLite can be sent here
 * through their own hooks (allocfail_route_jansson, allocfail_route_sqlite); GLPK cannot
 * (its allocation failures abort the process). */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "allocfail.h"

#if defined(__SANITIZE_ADDRESS__)
#define ALLOCFAIL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOCFAIL_ASAN 1
#endif
#endif
#ifdef ALLOCFAIL_ASAN
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void __real_free(void *p);
FILE *__real_fopen(const char *path, const char *mode);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
void __wrap_free(void *p);
FILE *__wrap_fopen(const char *path, const char *mode);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long calls;   /* counted calls since allocfail_arm */
static long fail_at; /* the call that fails (0: none) */
static int persist;  /* every call from fail_at on fails */
static long failed;  /* calls failed since allocfail_arm */
static const char *what_failed;
static int paused; /* depth of allocfail_pause(1) calls */

/* The blocks handed out and not yet freed: an open-addressing set of their addresses, each
 * stored inverted so that LeakSanitizer does not take the set for a reference to them (a
 * leak must stay unreachable for it to see). */
static uintptr_t *set;
static size_t set_cap, set_n;

static size_t slot_of(uintptr_t key)
{
    uint64_t x = (uint64_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (set_cap - 1);
}

static void set_add(void *p)
{
    if (2 * (set_n + 1) > set_cap) {
        size_t ncap = set_cap ? 2 * set_cap : 4096;
        uintptr_t *old = set;
        size_t ocap = set_cap;
        set = __real_calloc(ncap, sizeof *set);
        if (!set) {
            fprintf(stderr, "allocfail: out of memory for its own bookkeeping\n");
            abort();
        }
        set_cap = ncap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i]) {
                size_t j = slot_of(old[i]);
                while (set[j])
                    j = (j + 1) & (set_cap - 1);
                set[j] = old[i];
            }
        __real_free(old);
    }
    uintptr_t key = ~(uintptr_t)p;
    size_t i = slot_of(key);
    while (set[i])
        i = (i + 1) & (set_cap - 1);
    set[i] = key;
    set_n++;
}

/* Forgets p; 0 when it was not handed out here (a block from a shared library's malloc). */
static int set_del(void *p)
{
    if (!set_cap)
        return 0;
    uintptr_t key = ~(uintptr_t)p;
    size_t i = slot_of(key);
    while (set[i] && set[i] != key)
        i = (i + 1) & (set_cap - 1);
    if (!set[i])
        return 0;
    set[i] = 0;
    set_n--;
    /* close the gap: move back the entries of the run after i that belong before it */
    for (size_t j = (i + 1) & (set_cap - 1); set[j]; j = (j + 1) & (set_cap - 1)) {
        size_t home = slot_of(set[j]);
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            set[i] = set[j];
            set[j] = 0;
            i = j;
        }
    }
    return 1;
}

/* Counts one call; 1 when it is to fail. Called with mu held. */
static int counted_fails(const char *what)
{
    if (paused)
        return 0;
    calls++;
    if (fail_at && (calls == fail_at || (persist && calls > fail_at))) {
        if (!failed) {
            what_failed = what;
            if (getenv("ALLOCFAIL_BACKTRACE")) { /* where it fails, for the one debugging */
                void *bt[32];
                fprintf(stderr, "allocfail: call %ld (%s) fails here:\n", calls, what);
                backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
            }
        }
        failed++;
        return 1;
    }
    return 0;
}

static void *checked_in(void *p)
{
    if (p)
        set_add(p);
    return p;
}

void *__wrap_malloc(size_t n)
{
    pthread_mutex_lock(&mu);
    void *p = NULL;
    if (!counted_fails("malloc"))
        p = checked_in(__real_malloc(n));
    pthread_mutex_unlock(&mu);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_calloc(size_t k, size_t n)
{
    pthread_mutex_lock(&mu);
    void *p = NULL;
    if (!counted_fails("calloc"))
        p = checked_in(__real_calloc(k, n));
    pthread_mutex_unlock(&mu);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    pthread_mutex_lock(&mu);
    void *q = NULL;
    if (!counted_fails("realloc")) {
        int mine = p && set_del(p);
        q = __real_realloc(p, n);
        if (q)
            set_add(q);
        else if (mine && n)
            set_add(p); /* the real one failed: p is still there */
    }
    pthread_mutex_unlock(&mu);
    if (!q && n)
        errno = ENOMEM;
    return q;
}

char *__wrap_strdup(const char *s)
{
    pthread_mutex_lock(&mu);
    char *p = NULL;
    if (!counted_fails("strdup"))
        p = checked_in(__real_strdup(s));
    pthread_mutex_unlock(&mu);
    if (!p)
        errno = ENOMEM;
    return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
    pthread_mutex_lock(&mu);
    char *p = NULL;
    if (!counted_fails("strndup"))
        p = checked_in(__real_strndup(s, n));
    pthread_mutex_unlock(&mu);
    if (!p)
        errno = ENOMEM;
    return p;
}

void __wrap_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&mu);
    set_del(p);
    pthread_mutex_unlock(&mu);
    __real_free(p);
}

/* fopen allocates its FILE: a failure there reads as a file that cannot be opened (ENOMEM). */
FILE *__wrap_fopen(const char *path, const char *mode)
{
    pthread_mutex_lock(&mu);
    int fail = counted_fails("fopen");
    pthread_mutex_unlock(&mu);
    if (fail) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_fopen(path, mode);
}

void allocfail_arm(long n, int every_after)
{
    pthread_mutex_lock(&mu);
    calls = 0;
    failed = 0;
    what_failed = NULL;
    fail_at = n;
    persist = every_after;
    pthread_mutex_unlock(&mu);
}

long allocfail_disarm(void)
{
    pthread_mutex_lock(&mu);
    long n = calls;
    fail_at = 0;
    persist = 0;
    pthread_mutex_unlock(&mu);
    return n;
}

long allocfail_failed(const char **what)
{
    pthread_mutex_lock(&mu);
    long n = failed;
    if (what)
        *what = what_failed;
    pthread_mutex_unlock(&mu);
    return n;
}

void allocfail_pause(int on)
{
    pthread_mutex_lock(&mu);
    paused += on ? 1 : -1;
    pthread_mutex_unlock(&mu);
}

long allocfail_live(void)
{
    pthread_mutex_lock(&mu);
    long n = (long)set_n;
    pthread_mutex_unlock(&mu);
    return n;
}

/* ---- jansson and SQLite, through their hooks ------------------------------------------ */

static void *json_malloc(size_t n)
{
    pthread_mutex_lock(&mu);
    void *p = NULL;
    if (!counted_fails("jansson malloc"))
        p = checked_in(__real_malloc(n));
    pthread_mutex_unlock(&mu);
    return p;
}

void allocfail_route_jansson(void)
{
    json_set_alloc_funcs(json_malloc, __wrap_free);
}

/* jansson's parser is not safe when an allocation fails (2.14 writes through the pointer it
 * did not get: akheron/jansson pull request #364 is the unmerged fix of src/load.c), so its
 * entry points, wrapped too, run with failures paused: what they allocate is still tracked. */
json_t *__real_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *e);
json_t *__real_json_loads(const char *s, size_t flags, json_error_t *e);
json_t *__real_json_loadf(FILE *f, size_t flags, json_error_t *e);
json_t *__real_json_load_file(const char *path, size_t flags, json_error_t *e);
json_t *__wrap_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *e);
json_t *__wrap_json_loads(const char *s, size_t flags, json_error_t *e);
json_t *__wrap_json_loadf(FILE *f, size_t flags, json_error_t *e);
json_t *__wrap_json_load_file(const char *path, size_t flags, json_error_t *e);

json_t *__wrap_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *e)
{
    allocfail_pause(1);
    json_t *j = __real_json_loadb(buf, len, flags, e);
    allocfail_pause(0);
    return j;
}

json_t *__wrap_json_loads(const char *s, size_t flags, json_error_t *e)
{
    allocfail_pause(1);
    json_t *j = __real_json_loads(s, flags, e);
    allocfail_pause(0);
    return j;
}

json_t *__wrap_json_loadf(FILE *f, size_t flags, json_error_t *e)
{
    allocfail_pause(1);
    json_t *j = __real_json_loadf(f, flags, e);
    allocfail_pause(0);
    return j;
}

json_t *__wrap_json_load_file(const char *path, size_t flags, json_error_t *e)
{
    allocfail_pause(1);
    json_t *j = __real_json_load_file(path, flags, e);
    allocfail_pause(0);
    return j;
}

/* SQLite's methods need each block's size: it goes in a header of 16 bytes (alignment). */
#define HDR 16

static void *sq_malloc(int n)
{
    pthread_mutex_lock(&mu);
    char *p = NULL;
    if (!counted_fails("sqlite3_malloc")) {
        p = __real_malloc((size_t)n + HDR);
        if (p) {
            memcpy(p, &n, sizeof n);
            p += HDR;
            set_add(p);
        }
    }
    pthread_mutex_unlock(&mu);
    return p;
}

static void sq_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&mu);
    set_del(p);
    pthread_mutex_unlock(&mu);
    __real_free((char *)p - HDR);
}

static int sq_size(void *p)
{
    int n;
    memcpy(&n, (char *)p - HDR, sizeof n);
    return n;
}

static void *sq_realloc(void *p, int n)
{
    pthread_mutex_lock(&mu);
    char *q = NULL;
    if (!counted_fails("sqlite3_realloc")) {
        set_del(p);
        q = __real_realloc((char *)p - HDR, (size_t)n + HDR);
        if (q) {
            memcpy(q, &n, sizeof n);
            q += HDR;
        }
        set_add(q ? q : p);
    }
    pthread_mutex_unlock(&mu);
    return q;
}

static int sq_roundup(int n)
{
    return (n + 7) & ~7;
}

static int sq_init(void *ctx)
{
    (void)ctx;
    return SQLITE_OK;
}

static void sq_shutdown(void *ctx)
{
    (void)ctx;
}

int allocfail_route_sqlite(void)
{
    static const sqlite3_mem_methods m = {sq_malloc,  sq_free, sq_realloc,  sq_size,
                                          sq_roundup, sq_init, sq_shutdown, NULL};
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
        return -1;
    return sqlite3_initialize() == SQLITE_OK ? 0 : -1;
}

/* ---- where a crash happened ----------------------------------------------------------- */

static char where[256];

static void say_where(void)
{
    static const char pre[] = "allocfail: crashed in ";
    if (write(2, pre, sizeof pre - 1) < 0 || write(2, where, strlen(where)) < 0 ||
        write(2, "\n", 1) < 0)
        return;
}

static void on_signal(int sig)
{
    say_where();
    signal(sig, SIG_DFL);
    raise(sig);
}

void allocfail_where(const char *fmt, ...)
{
    static int installed;
    if (!installed) {
        installed = 1;
        setvbuf(stdout, NULL, _IOLBF, 0); /* what ran before a crash is on the screen */
#ifdef ALLOCFAIL_ASAN
        __sanitizer_set_death_callback(say_where); /* its SEGV report, then this line */
#else
        signal(SIGSEGV, on_signal);
        signal(SIGBUS, on_signal);
        signal(SIGFPE, on_signal);
#endif
        signal(SIGABRT, on_signal);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(where, sizeof where, fmt, ap);
    va_end(ap);
}

int allocfail_leak_check(void)
{
#ifdef ALLOCFAIL_ASAN
    return __lsan_do_recoverable_leak_check() ? 1 : 0;
#else
    return -1;
#endif
}
