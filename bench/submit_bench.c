/* Durable submissions per second over HTTP: THREADS clients on loopback, each with one
 * keep-alive connection, POST /v1/jobs for SECONDS (or until MAX submissions in all);
 * berthd answers each only after the journal transaction holding it commits. Prints the
 * rate and the p50/p99/max latency of an acknowledged submission. --held submits held jobs
 * (a journal filled with jobs that never run).
 * Usage: bench_submit URL TOKEN THREADS SECONDS [--held] [--max N] */
#include <stdatomic.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *url, *token;
static double seconds;
static int held;
static long max_total;
static _Atomic long started;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return s * n;
}

struct worker {
    pthread_t th;
    long ok, failed;
    double *lat; /* seconds, one per acknowledged submission */
    size_t nlat, cap;
};

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *run(void *arg)
{
    struct worker *w = arg;
    CURL *h = curl_easy_init();
    char u[512], auth[300];
    snprintf(u, sizeof u, "%s/v1/jobs", url);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *hdr = curl_slist_append(NULL, auth);
    const char *body = held
                           ? "{\"argv\":[\"sleep\",\"1000\"],\"gpus\":1,\"est_s\":60,\"hold\":true}"
                           : "{\"argv\":[\"sleep\",\"1000\"],\"gpus\":1,\"est_s\":60}";
    curl_easy_setopt(h, CURLOPT_URL, u);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    double end = now_s() + seconds;
    while (now_s() < end && (!max_total || atomic_fetch_add(&started, 1) < max_total)) {
        long code = 0;
        double t0 = now_s();
        if (curl_easy_perform(h) == CURLE_OK &&
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code == 201) {
            w->ok++;
            if (w->nlat == w->cap) {
                w->cap = w->cap ? 2 * w->cap : 4096;
                w->lat = realloc(w->lat, w->cap * sizeof *w->lat);
            }
            if (w->lat)
                w->lat[w->nlat++] = now_s() - t0;
        } else {
            w->failed++;
        }
    }
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_submit URL TOKEN THREADS SECONDS [--held] [--max N]\n");
        return 2;
    }
    for (int i = 5; i < argc; i++) {
        if (!strcmp(argv[i], "--held"))
            held = 1;
        else if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max_total = strtol(argv[++i], NULL, 10);
        else
            return 2;
    }
    url = argv[1];
    token = argv[2];
    int n = (int)strtol(argv[3], NULL, 10);
    seconds = strtod(argv[4], NULL);
    if (n < 1 || n > 1000 || !(seconds > 0))
        return 2;
    curl_global_init(CURL_GLOBAL_ALL);
    struct worker *w = calloc((size_t)n, sizeof *w);
    double t0 = now_s();
    for (int i = 0; i < n; i++)
        pthread_create(&w[i].th, NULL, run, &w[i]);
    long ok = 0, failed = 0;
    size_t nall = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(w[i].th, NULL);
        ok += w[i].ok;
        failed += w[i].failed;
        nall += w[i].nlat;
    }
    double dt = now_s() - t0;
    double *all = malloc((nall + 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        if (all)
            memcpy(all + k, w[i].lat, w[i].nlat * sizeof *all);
        k += w[i].nlat;
        free(w[i].lat);
    }
    double p50 = 0, p99 = 0, mx = 0;
    if (all && nall) {
        qsort(all, nall, sizeof *all, cmp);
        p50 = all[nall / 2];
        p99 = all[(size_t)((double)(nall - 1) * 0.99)];
        mx = all[nall - 1];
    }
    printf("%d clients, %.1f s: %ld durable submissions (%.0f/s), %ld failed; latency p50 %.2f "
           "ms, p99 %.2f ms, max %.2f ms\n",
           n, dt, ok, (double)ok / dt, failed, p50 * 1e3, p99 * 1e3, mx * 1e3);
    free(all);
    free(w);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
