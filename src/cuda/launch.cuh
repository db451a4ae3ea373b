/*
 * launch.cuh - how the kernel files launch kernels and declare dynamic
 * shared memory, and how a kernel states its launch bounds.  The CPU emulation of the kernels (tests/cuda_emu)
 * defines both hooks first; plain CUDA otherwise.
 */
#ifndef NLA_CUDA_LAUNCH_CUH
#define NLA_CUDA_LAUNCH_CUH

#ifndef NLA_LAUNCH
#define NLA_LAUNCH(kern, grid, block, smem, st) kern<<<(grid), (block), (smem), (st)>>>
#endif
#ifndef NLA_EXTERN_SHARED
#define NLA_EXTERN_SHARED(T, name) extern __shared__ __align__(16) T name[]
#endif
/* A kernel declared __launch_bounds__(N, ...) opens its body with
   NLA_BOUNDS(N): nothing on a GPU, which refuses a larger block at launch;
   the emulation refuses it the same way (tests/check-cuda-emu.sh checks
   that every such kernel has it). */
#ifndef NLA_BOUNDS
#define NLA_BOUNDS(n) ((void)0)
#endif

#endif
