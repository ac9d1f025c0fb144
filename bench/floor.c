/* The floor of Philly under fifo: the least work any simulator can do for that result. It
 * parses philly.csv (timestamp,duration,num_gpus,...), sorts the jobs by submit time and runs
 * strict FIFO on a pool of GPUs (512: 64 servers x 8, with no placement) with a heap of
 * completions, then prints the average JCT. No validation, no placement, no metrics beyond
 * one mean: bench/run.sh times `berth sim --policy fifo` on the same file against it and
 * reports the ratio (issue: within 3x). Usage: bench_floor philly.csv [GPUS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct job {
    long long arr;
    double dur;
    int gpus;
};

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static long long days(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static int by_arrival(const void *a, const void *b)
{
    const struct job *x = a, *y = b;
    return (x->arr > y->arr) - (x->arr < y->arr);
}

static double heap[1 << 20]; /* finish times of running jobs; GPUs freed alongside */
static int hg[1 << 20], hn;

static void push(double t, int g)
{
    int i = hn++;
    for (; i && heap[(i - 1) / 2] > t; i = (i - 1) / 2)
        heap[i] = heap[(i - 1) / 2], hg[i] = hg[(i - 1) / 2];
    heap[i] = t, hg[i] = g;
}

static void pop(void)
{
    double t = heap[--hn];
    int g = hg[hn], i = 0;
    for (int c; (c = 2 * i + 1) < hn; i = c) {
        if (c + 1 < hn && heap[c + 1] < heap[c])
            c++;
        if (heap[c] >= t)
            break;
        heap[i] = heap[c], hg[i] = hg[c];
    }
    heap[i] = t, hg[i] = g;
}

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    int free_gpus = argc > 2 ? atoi(argv[2]) : 512;
    if (!f)
        return fprintf(stderr, "usage: bench_floor philly.csv [GPUS]\n"), 2;
    static char line[4096];
    size_t n = 0, cap = 1 << 17;
    struct job *j = malloc(cap * sizeof *j);
    fgets(line, sizeof line, f); /* the header */
    while (j && fgets(line, sizeof line, f)) {
        int y, mo, d, h, mi, se, used = 0;
        if (sscanf(line, "%d-%d-%d %d:%d:%d%n", &y, &mo, &d, &h, &mi, &se, &used) != 6 ||
            line[used] != ',')
            continue;
        char *p = line + used;
        if (n == cap)
            j = realloc(j, (cap *= 2) * sizeof *j);
        j[n].arr = days(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se;
        j[n].dur = strtod(p + 1, &p);
        j[n].gpus = (int)strtol(p + 1, NULL, 10);
        n++;
    }
    fclose(f);
    qsort(j, n, sizeof *j, by_arrival);
    double now = 0, jct = 0;
    for (size_t i = 0; i < n; i++) { /* strict FIFO: the head waits for GPUs to free */
        if (now < (double)j[i].arr)
            now = (double)j[i].arr;
        while (hn && heap[0] <= now)
            free_gpus += hg[0], pop();
        while (free_gpus < j[i].gpus && hn)
            now = now > heap[0] ? now : heap[0], free_gpus += hg[0], pop();
        free_gpus -= j[i].gpus;
        push(now + j[i].dur, j[i].gpus);
        jct += now + j[i].dur - (double)j[i].arr;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("floor: %zu jobs, avg JCT %.1f s, %.3f s\n", n, n ? jct / (double)n : 0,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return 0;
}
