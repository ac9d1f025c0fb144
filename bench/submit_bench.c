/* Durable submissions per second over HTTP: THREADS clients on loopback, each with one
 * keep-alive connection, POST /v1/jobs for SECONDS; berthd answers each only after the
 * journal transaction holding it commits. Usage: bench_submit URL TOKEN THREADS SECONDS */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *url, *token;
static double seconds;

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
};

static void *run(void *arg)
{
    struct worker *w = arg;
    CURL *h = curl_easy_init();
    char u[512], auth[300];
    snprintf(u, sizeof u, "%s/v1/jobs", url);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *hdr = curl_slist_append(NULL, auth);
    const char *body = "{\"argv\":[\"sleep\",\"1000\"],\"gpus\":1,\"est_s\":60}";
    curl_easy_setopt(h, CURLOPT_URL, u);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    double end = now_s() + seconds;
    while (now_s() < end) {
        long code = 0;
        if (curl_easy_perform(h) == CURLE_OK &&
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code == 201)
            w->ok++;
        else
            w->failed++;
    }
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_submit URL TOKEN THREADS SECONDS\n");
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
    for (int i = 0; i < n; i++) {
        pthread_join(w[i].th, NULL);
        ok += w[i].ok;
        failed += w[i].failed;
    }
    double dt = now_s() - t0;
    printf("%d clients, %.1f s: %ld durable submissions (%.0f/s), %ld failed\n", n, dt, ok,
           (double)ok / dt, failed);
    free(w);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
