/*
 * fft_nd.h - between the FFT front end (api_fft.c: the plan handle, the
 * enum checks) and the multi-dimensional plans (api_fft_nd.c).
 */
#ifndef NLA_CORE_FFT_ND_H
#define NLA_CORE_FFT_ND_H

#include "check.h"

struct nla_fft_nd;

/* api_fft.c: an FFT enum argument is one of its values (its message
   names the argument as given) */
int nla_fft_chk_kind(nla_check *ck, const char *name, nla_fft_kind k);
int nla_fft_chk_prec(nla_check *ck, const char *name, nla_precision p);
int nla_fft_chk_dir(nla_check *ck, const char *name, nla_fft_direction d);
/* api_fft.c: k is NLA_FFT_REDFT10 or NLA_FFT_REDFT01 (one dimension only) */
int nla_fft_is_dct(nla_fft_kind k);
/* api_fft.c: a 1-D plan, as nla_fft_plan_create, its errors named fn; on
   nt threads where nt > 0 and the context has one backend (else the
   context's count) */
nla_status nla_fft_plan_create_as(nla_context *ctx, const char *fn, const nla_fft_desc *desc,
                                  int nt, nla_fft_plan **plan);
/* api_fft.c: a handle for nd (which it then owns); sum gives the kind and
   precision that typed execution checks */
nla_status nla_fft_plan_wrap_nd(nla_context *ctx, const char *fn, const nla_fft_desc *sum,
                                struct nla_fft_nd *nd, nla_fft_plan **plan);

/* api_fft_nd.c */
int nla_fft_nd_inplace_ok(const struct nla_fft_nd *nd);
nla_status nla_fft_nd_execute(const struct nla_fft_nd *nd, const void *in, void *out);
void nla_fft_nd_free(struct nla_fft_nd *nd);

#endif
