/* placeholder; filled in by the BLAS kernels work */
