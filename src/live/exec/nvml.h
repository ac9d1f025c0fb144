/* This machine's GPUs from NVML, loaded with dlopen("libnvidia-ml.so.1") at run time (no
 * build-time CUDA dependency). */
#ifndef BERTH_LIVE_NVML_H
#define BERTH_LIVE_NVML_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "model/cluster.h"

/* One GPU as NVML names it: berth's type name for its model, and its memory (0: unknown). */
struct berth__nvml_gpu {
    char type[32];
    int64_t mem_mib;
    int island; /* the lowest device index of its NVLink island (NVML's P2P status); -1:
                   unknown */
};

/* A server's GPUs per NVLink island from its devices g[0..n): k when they form runs of k
 * consecutive devices, each run one island of its own (a PCIe machine: 1; two NVLink
 * quads: 4); 0 (one island, the default) when all are one island, islands are unknown, or
 * they are not such runs (the model has islands of consecutive, equal GPUs only). */
int32_t berth__nvml_server_nvl(const struct berth__nvml_gpu *g, size_t n);

/* This machine's GPUs, in NVML's order, into gpus[0..*n) (at most cap). BERTH_EIO when NVML
 * is absent or finds no GPU or more than cap (err says which). lib = NULL loads
 * libnvidia-ml.so.1; tests pass a fake library's path. */
int berth__nvml_gpus(const char *lib, struct berth__nvml_gpu *gpus, size_t cap, size_t *n,
                     struct berth_err *err);

/* The inventory: consecutive GPUs of one model and memory are one server (its GPUs' memory
 * known, so memory-aware policies such as Salus' admit by it). Errors as berth__nvml_gpus. */
int berth__nvml_inventory(const char *lib, struct berth_cluster **out, struct berth_err *err);

/* "NVIDIA A100-SXM4-80GB" -> "a100": the first word with a digit, lower case, up to the
 * first character that is not a letter or digit. */
void berth__nvml_type_name(const char *model, char *out, size_t len);

#endif
