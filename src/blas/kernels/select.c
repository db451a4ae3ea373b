/* select.c - placeholder (first cut). */
typedef int nla_kernels_select_placeholder;
