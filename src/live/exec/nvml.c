/* NVML through dlopen (see nvml.h): init, count, each device's name, shutdown. Nothing
 * else of NVML is used, so a missing or old library only means "no GPUs from NVML". */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "live/exec/nvml.h"

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *);
typedef int (*nvml_handle_fn)(unsigned int, void **);
typedef int (*nvml_name_fn)(void *, char *, unsigned int);

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

int berth__nvml_inventory(const char *lib, char *spec, size_t len, struct berth_err *err)
{
    void *h = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return berth_err_set(err, BERTH_EIO, "NVML: %s not found (no NVIDIA driver)",
                             lib ? lib : "libnvidia-ml.so.1");
    nvml_void_fn init = (nvml_void_fn)dlsym(h, "nvmlInit_v2");
    nvml_void_fn shut = (nvml_void_fn)dlsym(h, "nvmlShutdown");
    nvml_count_fn count = (nvml_count_fn)dlsym(h, "nvmlDeviceGetCount_v2");
    nvml_handle_fn handle = (nvml_handle_fn)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    nvml_name_fn name = (nvml_name_fn)dlsym(h, "nvmlDeviceGetName");
    int rc = 0;
    unsigned int n = 0;
    if (!init || !shut || !count || !handle || !name) {
        rc = berth_err_set(err, BERTH_EIO, "NVML: the library lacks the functions berthd uses");
        goto out;
    }
    if (init() != 0) {
        rc = berth_err_set(err, BERTH_EIO, "NVML: nvmlInit failed (driver not loaded?)");
        goto out;
    }
    if (count(&n) != 0 || n == 0 || n > 64) {
        rc = berth_err_set(err, BERTH_EIO, "NVML: found %u GPUs", n);
        shut();
        goto out;
    }
    size_t o = 0;
    char prev[32] = "", cur[32];
    unsigned run = 0;
    spec[0] = '\0';
    for (unsigned int i = 0; i <= n; i++) {
        cur[0] = '\0';
        if (i < n) {
            void *dev = NULL;
            char model[96] = "";
            if (handle(i, &dev) == 0 && name(dev, model, sizeof model) == 0)
                berth__nvml_type_name(model, cur, sizeof cur);
            else
                snprintf(cur, sizeof cur, "gpu");
        }
        if (run && (i == n || strcmp(cur, prev))) {
            o += (size_t)snprintf(spec + o, o < len ? len - o : 0, "%s1x%u:%s", o ? "," : "", run,
                                  prev);
            run = 0;
        }
        snprintf(prev, sizeof prev, "%s", cur);
        run++;
    }
    shut();
    if (o >= len)
        rc = berth_err_set(err, BERTH_EINTERNAL, "NVML: inventory too long");
out:
    dlclose(h);
    return rc;
}
