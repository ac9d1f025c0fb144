/* NVML through dlopen (see nvml.h): init, count, each device's name and memory, shutdown.
 * Nothing else of NVML is used, so a missing or old library only means "no GPUs from NVML"
 * (and one without nvmlDeviceGetMemoryInfo, GPUs of unknown memory). */
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
    }
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
        struct berth__server_spec sp = {
            .type = type, .gpus = (int32_t)(k - i), .gpu_mem_mib = gpus[i].mem_mib};
        if (!type || berth__builder_add(&b, &sp))
            rc = berth_err_set(err, BERTH_ENOMEM, "NVML: out of memory");
        i = k;
    }
    if (!rc)
        rc = berth__builder_build(&b, "NVML", out, err);
    berth__builder_free(&b);
    return rc;
}
