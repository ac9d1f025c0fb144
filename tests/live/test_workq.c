/* The HTTP handlers' worker queue (src/live/http/workq.c): every pushed item runs exactly
 * once, on as many threads as asked and never more at once; a full queue and a stopped one
 * refuse (and say so in the stats); a stop runs what was queued before it joins. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "live/http/workq.h"

static _Atomic int ran, now, most;
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void count(void *arg)
{
    atomic_fetch_add((_Atomic int *)arg, 1);
}

/* Holds its worker until the gate opens, counting how many are held at once. */
static void held(void *arg)
{
    (void)arg;
    int n = atomic_fetch_add(&now, 1) + 1;
    for (int m = atomic_load(&most); n > m && !atomic_compare_exchange_weak(&most, &m, n);)
        ;
    pthread_mutex_lock(&gate_mu);
    while (!gate_open)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    atomic_fetch_sub(&now, 1);
    atomic_fetch_add(&ran, 1);
}

static void test_each_once(void)
{
    struct berth__workq *q = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth__workq_start(4, 10000, NULL, &q, &err), 0);
    _Atomic int hits[1000];
    for (int i = 0; i < 1000; i++)
        atomic_init(&hits[i], 0);
    for (int i = 0; i < 1000; i++)
        CHECK_I64(berth__workq_push(q, count, &hits[i]), 0);
    berth__workq_stop(q); /* runs what is queued */
    int once = 0;
    for (int i = 0; i < 1000; i++)
        once += atomic_load(&hits[i]) == 1;
    CHECK_I64(once, 1000);
    CHECK_I64(berth__workq_push(q, count, &hits[0]), -1); /* stopped: refused, not run */
    CHECK_I64(atomic_load(&hits[0]), 1);
    struct berth__workq_stats st;
    berth__workq_stats(q, &st);
    CHECK_I64((int64_t)st.done, 1000);
    CHECK_I64((int64_t)st.refused, 1);
    CHECK_I64((int64_t)st.threads, 4);
    berth__workq_free(q);
}

static void test_bounds(void)
{
    struct berth__workq *q = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth__workq_start(3, 2, NULL, &q, &err), 0);
    struct berth__workq_stats st = {0};
    struct timespec ts = {0, 1000000};
    for (int i = 0; i < 3; i++) { /* the three workers, each held: one by one (queue of 2) */
        CHECK_I64(berth__workq_push(q, held, NULL), 0);
        for (int t = 0; t < 10000; t++) { /* until it is taken (a deadline: 10 s) */
            berth__workq_stats(q, &st);
            if (st.busy == (size_t)i + 1)
                break;
            nanosleep(&ts, NULL);
        }
    }
    CHECK_I64((int64_t)st.busy, 3);
    CHECK_I64(berth__workq_push(q, held, NULL), 0); /* two may wait */
    CHECK_I64(berth__workq_push(q, held, NULL), 0);
    CHECK_I64(berth__workq_push(q, held, NULL), -1); /* the third is refused */
    berth__workq_stats(q, &st);
    CHECK_I64((int64_t)st.queued, 2);
    CHECK_I64((int64_t)st.max_queued, 2);
    CHECK_I64((int64_t)st.refused, 1);
    pthread_mutex_lock(&gate_mu);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
    berth__workq_free(q); /* stops: the queued two run first */
    CHECK_I64(atomic_load(&ran), 5);
    CHECK(atomic_load(&most) <= 3);
}

static const struct check_test tests[] = {{"each_once", test_each_once}, {"bounds", test_bounds}};

CHECK_MAIN(tests)
