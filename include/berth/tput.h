/* Throughput models: how fast a job of a given class trains (steps per second) on a given
 * number of GPUs of a given type, across servers or not, and alone or sharing a GPU.
 *
 * A model comes from Gavel's simulation_throughputs.json, from berth's built-in catalog,
 * and may gain co-location pairs from Lucid's colocate_info.csv. The simulator uses it to
 * run jobs that carry their work in steps (job_type + total_steps) at the speed of the GPUs
 * they get; throughput-aware policies read it through their view. */
#ifndef BERTH_TPUT_H
#define BERTH_TPUT_H

#include <stddef.h>

#include "err.h"

struct berth_tput;

/* Gavel's table: {"v100": {"('ResNet-50 (batch size 64)', 1)": {"null": 4.2,
 * "('<other>', 1)": [own, partner], ...}, ...}, "v100_unconsolidated": {...}, ...}.
 * GPU type keys ending in "_unconsolidated" give the rates of gangs spread over servers. */
int berth_tput_load_gavel(const char *path, struct berth_tput **out, struct berth_err *err);
/* Adds Lucid's co-location pairs (normalised speeds of two 1-GPU jobs sharing a GPU) to m.
 * Their classes are named "MODEL/DATASET/BATCH/AMP" (ResNet18/CIFAR-10/32/0). */
int berth_tput_add_lucid_pairs(struct berth_tput *m, const char *path, struct berth_err *err);
/* The built-in catalog: common models on common GPU types, every figure cited in
 * src/model/tput_catalog.c. */
int berth_tput_builtin(struct berth_tput **out, struct berth_err *err);
void berth_tput_free(struct berth_tput *m);

/* The rate multiplier of gangs spread over servers for job type cls (NULL = every type),
 * used where the model has no measured rates across servers. factor in (0, 1e6]. */
int berth_tput_set_spread(struct berth_tput *m, const char *cls, double factor,
                          struct berth_err *err);

size_t berth_tput_class_count(const struct berth_tput *m);
const char *berth_tput_class_name(const struct berth_tput *m, size_t i);
size_t berth_tput_type_count(const struct berth_tput *m);
const char *berth_tput_type_name(const struct berth_tput *m, size_t i);

#endif
