/*
 * nvml.h: the board's energy counter and SM clock, for the tools
 * (hopgemm-bench --sustain, v6-profile). NVML is loaded at run time
 * (dlopen), so nothing of it is needed to build, and a machine without it
 * still runs the tools, with these figures missing.
 */
#pragma once

/* Opens NVML on the board of CUDA device `ordinal` (found by its PCI bus id,
 * so CUDA's and NVML's numbering may differ). 0 when the figures can be
 * read; -1 when not (no NVML, or no such board), which the callers report. */
int tool_nvml_open(int ordinal);

/* The board's energy since the driver loaded, in millijoules: 0 on success. */
int tool_nvml_energy_mj(unsigned long long *mj);

/* The SM clock now, in MHz: 0 on success. */
int tool_nvml_sm_mhz(unsigned *mhz);
