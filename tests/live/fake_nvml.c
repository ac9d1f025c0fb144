/* A stand-in for libnvidia-ml.so.1 so berthd's NVML path runs on machines without a GPU:
 * the GPUs it reports come from $BERTH_FAKE_NVML, "MODEL=MIB;MODEL=MIB;..." in device order
 * (MIB 0: nvmlDeviceGetMemoryInfo fails for that device). Built as a shared library named
 * libnvidia-ml.so.1 in the build tree; dlopen finds it by path or by LD_LIBRARY_PATH. */
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
