/* One-shot packing runs, the experiment of FGD (Weng et al., ATC'23): pods of a trace are
 * placed one by one on an empty cluster, never leaving, by a named scorer (fgd, best-fit,
 * first-fit, dot-product, random); a pod that fits nowhere fails and the run goes on with
 * the next, as the paper's simulator does. As the requested GPUs reach each 1 % of the
 * cluster's GPU capacity the run records the allocated GPUs and the fragmentation (idle
 * GPU capacity the trace's typical pods could not use, FGD's F(M) summed over nodes). */
#ifndef BERTH_PACK_H
#define BERTH_PACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cluster.h"
#include "err.h"
#include "progress.h"
#include "trace.h"

struct berth_pack_opts {
    const char *scorer; /* "fgd" (default), "best-fit", "first-fit", "dot-product", "random" */
    uint64_t seed;      /* for shuffle, tune and the random scorer (default 1) */
    int shuffle;        /* 1: pods in a seeded random order; 0: trace order (default) */
    double tune;        /* > 0: add pods drawn (seeded, with replacement) from the trace
                           until the requested GPUs reach tune x capacity; 0: none */
    int popularity_pct; /* typical pods cover this % of pods (default 95, as the paper) */
    berth_progress_fn progress; /* told the pods tried of all (NULL: none) */
    void *progress_ctx;
};

void berth_pack_opts_init(struct berth_pack_opts *o);

/* The cluster at one moment. GPU quantities are in GPUs (milli / 1000). */
struct berth_pack_point {
    int pct;          /* requested GPUs reached this % of capacity (-1: not a checkpoint) */
    size_t tried;     /* pods tried so far */
    size_t placed;    /* pods placed */
    size_t failed;    /* pods that fit nowhere */
    double requested; /* GPUs asked by the pods tried */
    double allocated; /* GPUs held by placed pods */
    double frag;      /* fragmented idle GPUs: sum over nodes of F_n(M) */
};

/* Owns points (berth_pack_result_free). */
struct berth_pack_result {
    const char *scorer;
    double capacity; /* GPUs in the cluster */
    size_t pods;     /* pods tried (the trace's, plus tune's) */
    size_t placed, failed;
    size_t typical;                /* pod types in the target workload M */
    int has_first_fail;            /* some pod failed */
    struct berth_pack_point first; /* just after the first failure */
    struct berth_pack_point end;   /* after the last pod */
    struct berth_pack_point *points;
    size_t npoints;
};

/* Runs the packing of t on an idle copy of c (c is not changed). Returns 0, or BERTH_EINPUT
 * for an unknown scorer or bad option, BERTH_ENOMEM. */
int berth_pack_run(const struct berth_trace *t, const struct berth_cluster *c,
                   const struct berth_pack_opts *o, struct berth_pack_result *r,
                   struct berth_err *err);
void berth_pack_result_free(struct berth_pack_result *r);

#endif
