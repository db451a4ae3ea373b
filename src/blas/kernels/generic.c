/* placeholder (first cut) */
typedef int nla_kernels_placeholder_generic;
