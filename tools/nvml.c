/* nvml.c: the few NVML calls the tools use, resolved at run time (nvml.h). */
#include "nvml.h"

#include <dlfcn.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1

typedef struct nvml_dev_s *nvml_dev;
static struct {
    int (*init)(void);
    int (*by_pci)(const char *, nvml_dev *);
    int (*energy_mj)(nvml_dev, unsigned long long *);
    int (*clock_mhz)(nvml_dev, int, unsigned *);
    nvml_dev dev;
} nvml;

int tool_nvml_open(int ordinal)
{
    if (nvml.dev) return 0;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) return -1;
    *(void **)&nvml.init = dlsym(lib, "nvmlInit_v2");
    *(void **)&nvml.by_pci = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.energy_mj = dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    *(void **)&nvml.clock_mhz = dlsym(lib, "nvmlDeviceGetClockInfo");
    if (!nvml.init || !nvml.by_pci || !nvml.energy_mj || !nvml.clock_mhz) return -1;
    char bus[32];
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    nvml_dev dev = NULL;
    if (nvml.init() != NVML_SUCCESS || nvml.by_pci(bus, &dev) != NVML_SUCCESS) return -1;
    nvml.dev = dev;
    return 0;
}

int tool_nvml_energy_mj(unsigned long long *mj)
{
    return nvml.dev && nvml.energy_mj(nvml.dev, mj) == NVML_SUCCESS ? 0 : -1;
}

int tool_nvml_sm_mhz(unsigned *mhz)
{
    return nvml.dev && nvml.clock_mhz(nvml.dev, NVML_CLOCK_SM, mhz) == NVML_SUCCESS ? 0 : -1;
}
