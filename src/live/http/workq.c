/* The HTTP handlers' worker threads (see workq.h): a ring of items under one mutex, workers
 * woken one per item, a stop that runs what is queued before it joins. */
#include <pthread.h>
#include <stdlib.h>

#include "live/http/workq.h"

struct item {
    berth__work_fn fn;
    void *arg;
};

struct berth__workq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct item *ring;
    size_t cap, head, n; /* items ring[head], ..., ring[(head + n - 1) % cap] */
    pthread_t *tid;
    size_t threads, started, busy, max_queued;
    uint64_t done, refused;
    int stop;
    void (*at_exit)(void);
};

static void *worker(void *arg)
{
    struct berth__workq *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->n && !q->stop)
            pthread_cond_wait(&q->cv, &q->mu);
        if (!q->n) /* stopping, and nothing left */
            break;
        struct item it = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->n--;
        q->busy++;
        pthread_mutex_unlock(&q->mu);
        it.fn(it.arg);
        pthread_mutex_lock(&q->mu);
        q->busy--;
        q->done++;
    }
    pthread_mutex_unlock(&q->mu);
    if (q->at_exit)
        q->at_exit();
    return NULL;
}

int berth__workq_start(size_t threads, size_t cap, void (*at_exit)(void), struct berth__workq **out,
                       struct berth_err *err)
{
    *out = NULL;
    struct berth__workq *q = calloc(1, sizeof *q);
    if (!q || !threads || !cap || !(q->ring = calloc(cap, sizeof *q->ring)) ||
        !(q->tid = calloc(threads, sizeof *q->tid))) {
        if (q)
            free(q->ring);
        free(q);
        return berth_err_set(err, BERTH_ENOMEM, "http: cannot make %zu workers", threads);
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->cap = cap;
    q->threads = threads;
    q->at_exit = at_exit;
    for (; q->started < threads; q->started++)
        if (pthread_create(&q->tid[q->started], NULL, worker, q)) {
            size_t got = q->started;
            berth__workq_free(q);
            return berth_err_set(err, BERTH_EIO, "http: cannot start worker thread %zu of %zu",
                                 got + 1, threads);
        }
    *out = q;
    return 0;
}

int berth__workq_push(struct berth__workq *q, berth__work_fn fn, void *arg)
{
    pthread_mutex_lock(&q->mu);
    int ok = !q->stop && q->n < q->cap;
    if (ok) {
        q->ring[(q->head + q->n) % q->cap] = (struct item){fn, arg};
        q->n++;
        q->max_queued = q->n > q->max_queued ? q->n : q->max_queued;
        pthread_cond_signal(&q->cv);
    } else {
        q->refused++;
    }
    pthread_mutex_unlock(&q->mu);
    return ok ? 0 : -1;
}

void berth__workq_stop(struct berth__workq *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    for (size_t i = 0; i < q->started; i++)
        pthread_join(q->tid[i], NULL);
    q->started = 0;
}

void berth__workq_free(struct berth__workq *q)
{
    if (!q)
        return;
    berth__workq_stop(q);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q->ring);
    free(q->tid);
    free(q);
}

void berth__workq_stats(struct berth__workq *q, struct berth__workq_stats *st)
{
    *st = (struct berth__workq_stats){0};
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    st->done = q->done;
    st->refused = q->refused;
    st->threads = q->threads;
    st->busy = q->busy;
    st->queued = q->n;
    st->max_queued = q->max_queued;
    pthread_mutex_unlock(&q->mu);
}
