/*
 * launch.cuh - how the kernel files launch kernels and declare dynamic
 * shared memory.  The CPU emulation of the kernels (tests/cuda_emu)
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

#endif
