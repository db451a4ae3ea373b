/*
 * fft_cpu.h - the CPU backend's FFT entries (see src/core/backend.h).
 *
 * Layout of src/fft:
 *   fft.c          twiddles (computed directly, never by recurrence), the
 *                  scratch pool, the backend entries
 *   fft_tmpl.h     one copy per precision: the transform cores (Stockham
 *                  passes, decimation in time, four-step, Bluestein),
 *                  batches and strides
 *   real_tmpl.h    the real transforms' step, apart or inside a pass
 *   build_tmpl.h   building the cores, by the rules or by a choice
 *   measure_tmpl.h the planning effort: wisdom, rules or measurement
 *   plan_choice.c  choice tokens and the process-wide wisdom table
 *   dct_tmpl.h     DCT-II/III (REDFT10/01) on an inner real transform
 *   kernels/       the per-ISA Stockham passes (kernels.h)
 */
#ifndef NLA_FFT_CPU_H
#define NLA_FFT_CPU_H

#include "core/backend.h"

nla_status nla_cpu_fft_plan(const nla_exec *ex, const nla_fft_desc *desc, void **impl);
nla_status nla_cpu_fft_execute(const void *impl, const void *in, void *out, char *msg,
                                size_t msglen);
void nla_cpu_fft_destroy(void *impl);

#endif
