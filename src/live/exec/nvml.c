/* NVML through dlopen (see nvml.h): init, count, each device's name and memory, which pairs
 * of devices NVLink joins (the servers' NVLink islands), shutdown. Nothing else of NVML is
 * used, so a missing or old library only means "no GPUs from NVML" (and one without
 * nvmlDeviceGetMemoryInfo, GPUs of unknown memory; without nvmlDeviceGetP2PStatus, islands
 * unknown: each server one island, as before). */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "live/exec/nvml.h"

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *);
typedef int (*nvml_handle_fn)(unsigned int, void **);
typedef int (*nvml_name_fn)(void *, char *, unsigned int);
struct nvml_memory { /* nvmlMemory_t */
    unsigned long long total, free, used;
};
typedef int (*nvml_mem_fn)(void *, struct nvml_memory *);
/* nvmlDeviceGetP2PStatus(dev1, dev2, nvmlGpuP2PCapsIndex_t, nvmlGpuP2PStatus_t *) */
typedef int (*nvml_p2p_fn)(void *, void *, int, int *);
#define NVML_P2P_CAPS_INDEX_NVLINK 2
#define NVML_P2P_STATUS_OK         0

/* The root of i's set in the union-find parent[] (path halving). */
static unsigned int root_of(unsigned int *parent, unsigned int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* gpus[k].island: the lowest index of the devices NVLink joins k to (directly or through
 * others); all -1 when NVML cannot say for some pair (no such call, or an error: a PCIe
 * machine answers "not OK", which is an answer). */
static void nvlink_islands(nvml_p2p_fn p2p, void *const *dev, struct berth__nvml_gpu *gpus,
                           unsigned int n)
{
    for (unsigned int i = 0; i < n; i++)
        gpus[i].island = -1;
    if (!p2p || n > BERTH_MAX_SERVER_GPUS)
        return;
    unsigned int parent[BERTH_MAX_SERVER_GPUS];
    for (unsigned int i = 0; i < n; i++)
        parent[i] = i;
    for (unsigned int i = 0; i < n; i++)
        for (unsigned int k = i + 1; k < n; k++) {
            int st = -1;
            if (!dev[i] || !dev[k] || p2p(dev[i], dev[k], NVML_P2P_CAPS_INDEX_NVLINK, &st) != 0)
                return; /* unknown: islands stay -1 */
            if (st == NVML_P2P_STATUS_OK) {
                unsigned int a = root_of(parent, i), b = root_of(parent, k);
                parent[a > b ? a : b] = a < b ? a : b;
            }
        }
    for (unsigned int i = 0; i < n; i++)
        gpus[i].island = (int)root_of(parent, i);
}

int32_t berth__nvml_server_nvl(const struct berth__nvml_gpu *g, size_t n)
{
    if (n < 2 || g[0].island < 0)
        return 0;
    size_t k = 1; /* the first island's size: a run of consecutive devices */
    while (k < n && g[k].island == g[0].island)
        k++;
    if (k == n || n % k)
        return 0;                  /* one island, or runs that cannot all be k long */
    for (size_t i = 0; i < n; i++) /* runs of k, each its own island */
        if (g[i].island < 0 || g[i].island != g[i - i % k].island)
            return 0;
    for (size_t i = 0; i < n; i += k) /* no island seen in two runs */
        for (size_t j = i + k; j < n; j += k)
            if (g[i].island == g[j].island)
                return 0;
    return (int32_t)k;
}

void berth__nvml_type_name(const char *model, char *out, size_t len)
{
    const char *w = model;
    while (*w) { /* the first word holding a digit: "NVIDIA A100-SXM4" -> "A100-SXM4" */
        const char *e = w;
        int digit = 0;
        while (*e && *e != ' ')
            digit |= isdigit((unsigned char)*e++);
        if (digit)
            break;
        w = *e ? e + 1 : e;
    }
    if (!*w)
        w = model;
    size_t n = 0;
    while (w[n] && isalnum((unsigned char)w[n]) && n + 1 < len && n < 31) {
        out[n] = (char)tolower((unsigned char)w[n]);
        n++;
    }
    if (!n && len > 3)
        snprintf(out, len, "gpu");
    else if (len)
        out[n] = '\0';
}

int berth__nvml_gpus(const char *lib, struct berth__nvml_gpu *gpus, size_t cap, size_t *n,
                     struct berth_err *err)
{
    *n = 0;
    void *h = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return berth_err_set(err, BERTH_EIO, "NVML: %s not found (no NVIDIA driver)",
                             lib ? lib : "libnvidia-ml.so.1");
    nvml_void_fn init = (nvml_void_fn)dlsym(h, "nvmlInit_v2");
    nvml_void_fn shut = (nvml_void_fn)dlsym(h, "nvmlShutdown");
    nvml_count_fn count = (nvml_count_fn)dlsym(h, "nvmlDeviceGetCount_v2");
    nvml_handle_fn handle = (nvml_handle_fn)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    nvml_name_fn name = (nvml_name_fn)dlsym(h, "nvmlDeviceGetName");
    nvml_mem_fn mem = (nvml_mem_fn)dlsym(h, "nvmlDeviceGetMemoryInfo"); /* optional */
    nvml_p2p_fn p2p = (nvml_p2p_fn)dlsym(h, "nvmlDeviceGetP2PStatus");  /* optional */
    void *devs[BERTH_MAX_SERVER_GPUS] = {0};
    int rc = 0;
    unsigned int found = 0;
    if (!init || !shut || !count || !handle || !name) {
        rc = berth_err_set(err, BERTH_EIO, "NVML: the library lacks the functions berthd uses");
        goto out;
    }
    if (init() != 0) {
        rc = berth_err_set(err, BERTH_EIO, "NVML: nvmlInit failed (driver not loaded?)");
        goto out;
    }
    if (count(&found) != 0 || found == 0 || found > cap) {
        rc = berth_err_set(err, BERTH_EIO, "NVML: found %u GPUs (berthd takes 1 to %zu)", found,
                           cap);
        shut();
        goto out;
    }
    for (unsigned int i = 0; i < found; i++) {
        void *dev = NULL;
        char model[96] = "";
        struct nvml_memory m = {0, 0, 0};
        struct berth__nvml_gpu *g = &gpus[i];
        if (handle(i, &dev) == 0 && name(dev, model, sizeof model) == 0)
            berth__nvml_type_name(model, g->type, sizeof g->type);
        else
            snprintf(g->type, sizeof g->type, "gpu");
        g->mem_mib = dev && mem && mem(dev, &m) == 0 ? (int64_t)(m.total >> 20) : 0;
        if (i < BERTH_MAX_SERVER_GPUS)
            devs[i] = dev;
    }
    nvlink_islands(p2p, devs, gpus, found); /* more than devs holds: islands unknown */
    *n = found;
    shut();
out:
    dlclose(h);
    return rc;
}

int berth__nvml_inventory(const char *lib, struct berth_cluster **out, struct berth_err *err)
{
    struct berth__nvml_gpu gpus[BERTH_MAX_SERVER_GPUS];
    size_t n;
    int rc = berth__nvml_gpus(lib, gpus, BERTH_MAX_SERVER_GPUS, &n, err);
    if (rc)
        return rc;
    /* consecutive devices of one model and memory are one server of this machine */
    struct berth__cluster_builder b;
    berth__builder_init(&b);
    for (size_t i = 0; i < n && !rc;) {
        size_t k = i + 1;
        while (k < n && !strcmp(gpus[k].type, gpus[i].type) && gpus[k].mem_mib == gpus[i].mem_mib)
            k++;
        const char *type = berth__builder_str(&b, gpus[i].type, 1);
        struct berth__server_spec sp = {.type = type,
                                        .gpus = (int32_t)(k - i),
                                        .gpu_mem_mib = gpus[i].mem_mib,
                                        .nvl = berth__nvml_server_nvl(gpus + i, k - i)};
        if (!type || berth__builder_add(&b, &sp))
            rc = berth_err_set(err, BERTH_ENOMEM, "NVML: out of memory");
        i = k;
    }
    if (!rc)
        rc = berth__builder_build(&b, "NVML", out, err);
    berth__builder_free(&b);
    return rc;
}
