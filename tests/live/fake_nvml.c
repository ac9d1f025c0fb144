/* A stand-in for libnvidia-ml.so.1 so berthd's NVML path runs on machines without a GPU:
 * the GPUs it reports come from $BERTH_FAKE_NVML, "MODEL=MIB;MODEL=MIB;..." in device order
 * (MIB 0: nvmlDeviceGetMemoryInfo fails for that device). Built as a shared library named
 * libnvidia-ml.so.1 in the build tree; dlopen finds it by path or by LD_LIBRARY_PATH.
 * $BERTH_FAKE_NVLINK, "4,4" (sizes of consecutive device groups, in device order), makes
 * nvmlDeviceGetP2PStatus say NVLink joins two devices of one group; unset, that call fails
 * (NVML_ERROR_NOT_SUPPORTED), as on an old driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nvml_memory {
    unsigned long long total, free, used;
};

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev);
int nvmlDeviceGetName(void *dev, char *name, unsigned int len);
int nvmlDeviceGetMemoryInfo(void *dev, struct nvml_memory *m);
int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status);

static char models[64][96];
static unsigned long long mib[64];
static unsigned int ngpus;

int nvmlInit_v2(void)
{
    const char *s = getenv("BERTH_FAKE_NVML");
    ngpus = 0;
    if (!s)
        return 1; /* NVML_ERROR_UNINITIALIZED: "no driver" */
    while (*s && ngpus < 64) {
        const char *end = strchr(s, ';'), *eq = strchr(s, '=');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (!eq || eq > s + len)
            return 1;
        snprintf(models[ngpus], sizeof models[ngpus], "%.*s", (int)(eq - s), s);
        mib[ngpus++] = strtoull(eq + 1, NULL, 10);
        s += len + (end ? 1 : 0);
    }
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = ngpus;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
    if (i >= ngpus)
        return 2;
    *dev = &mib[i];
    return 0;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned int len)
{
    snprintf(name, len, "%s", models[(unsigned long long *)dev - mib]);
    return 0;
}

int nvmlDeviceGetMemoryInfo(void *dev, struct nvml_memory *m)
{
    unsigned long long v = *(unsigned long long *)dev;
    if (!v)
        return 999; /* NVML_ERROR_UNKNOWN */
    m->total = v << 20;
    m->free = m->total;
    m->used = 0;
    return 0;
}

/* The group of device i under $BERTH_FAKE_NVLINK ("4,4"); -1 past the groups. */
static int group_of(const char *spec, unsigned int i)
{
    unsigned int start = 0;
    for (int g = 0; *spec; g++) {
        char *end;
        unsigned long n = strtoul(spec, &end, 10);
        if (end == spec)
            return -1;
        if (i < start + n)
            return g;
        start += (unsigned int)n;
        spec = *end == ',' ? end + 1 : end;
    }
    return -1;
}

int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status)
{
    const char *spec = getenv("BERTH_FAKE_NVLINK");
    if (!spec)
        return 3; /* NVML_ERROR_NOT_SUPPORTED */
    unsigned int i = (unsigned int)((unsigned long long *)a - mib),
                 k = (unsigned int)((unsigned long long *)b - mib);
    int gi = group_of(spec, i), gk = group_of(spec, k);
    *status = index == 2 && gi >= 0 && gi == gk ? 0 : 4; /* OK, or NVML_P2P_STATUS_NOT_SUPPORTED */
    return 0;
}
