/*
 * measure_tmpl.h - the plan's core by the planning effort, for one
 * precision (the same T and F(name) as fft_tmpl.h): the wisdom entry of
 * the core when there is one; else the rules (NLA_FFT_ESTIMATE), a
 * measurement that records its choice as wisdom (NLA_FFT_MEASURE), or
 * NLA_ENOTSUP (NLA_FFT_WISDOM_ONLY).
 *
 * A measurement times a few candidates on scratch data, one thread, each
 * as the best of up to 5 samples (about 4 ms of them), and keeps the
 * fastest; the rules' core stays unless another is 2% faster.  The
 * candidates: the rules' core (alone for n = 2^k <= 2^NLA_FFT_IL_LOG with
 * an interleaved codelet, which batches use too); for data under 4x
 * fft.stockham_max_bytes the default passes, the codelet and a few other
 * orders (radix 4 or 2 before the 8s, all radix 4, the odd radices
 * reversed, odd radices before the powers of two), and Bluestein where n
 * has a prime factor of the generic pass; for data past a quarter of it
 * the four-step split n1 of the rules and the divisors of n just below
 * and above it; where the data and scratch pass half the L2, the DIT
 * cores of the powers of two R = 8 to 64 (and the rules' R, the first
 * candidate).  No new candidate starts after 30 ms, so long transforms
 * try only the first few.
 */

#define MEASURE_MAX_CAND 12
/* a sample lasts at least this long: short transforms repeat inside it */
#define MEASURE_SAMPLE_S 20e-6
/* samples of a candidate: more while they took less than this (a run that
   long is one sample) */
#define MEASURE_CAND_S 4e-3
/* no further candidate is tried once a measurement has taken this long */
#define MEASURE_PLAN_S 30e-3
#define MEASURE_SAMPLES 5
/* another candidate replaces the rules' core when it is this much faster */
#define MEASURE_MARGIN 0.98

static int F(cand_add)(nla_fft_choice *cand, int nc, const nla_fft_choice *c)
{
    for (int i = 0; i < nc; i++)
        if (cand[i].kind == c->kind && cand[i].n1 == c->n1 && cand[i].nr == c->nr &&
            memcmp(cand[i].r, c->r, (size_t)c->nr * sizeof c->r[0]) == 0)
            return nc;
    if (nc < MEASURE_MAX_CAND)
        cand[nc++] = *c;
    return nc;
}

/* The passes in other orders: the default r[0..ns), whose np powers of
   two come first, then the odd radices of a slot from the largest, then
   the generic ones from the smallest. */
static int F(pass_orders)(const int *r, int ns, nla_fft_choice *cand, int nc)
{
    nla_fft_choice c;
    int np = 0, k = 0, at;

    if (ns < 1 || ns > NLA_FFT_MAX_PASSES)   /* (a bound the compiler can see) */
        return nc;
    memset(&c, 0, sizeof c);
    c.kind = 's';
    c.nr = ns;
    while (np < ns && r[np] % 2 == 0)
        k += F(ilog2)(r[np++]);
    memcpy(c.r, r, (size_t)ns * sizeof *r);
    nc = F(cand_add)(cand, nc, &c);
    /* the 4s and the 2 before the 8s */
    at = 0;
    for (int i = 0; i < np; i++)
        if (r[i] != 8)
            c.r[at++] = r[i];
    for (int i = 0; i < np; i++)
        if (r[i] == 8)
            c.r[at++] = 8;
    nc = F(cand_add)(cand, nc, &c);
    /* radix 4 throughout (a leading 8 for an odd power) */
    if (k >= 2) {
        at = 0;
        if (k % 2)
            c.r[at++] = k >= 3 ? 8 : 2;
        for (int i = 0; i < (k - (k % 2 ? 3 : 0)) / 2; i++)
            c.r[at++] = 4;
        memcpy(c.r + at, r + np, (size_t)(ns - np) * sizeof *r);
        c.nr = at + ns - np;
        nc = F(cand_add)(cand, nc, &c);
    }
    /* the odd radices reversed, then before the powers of two (a generic
       one there runs a value at a time) */
    c.nr = ns;
    memcpy(c.r, r, (size_t)np * sizeof *r);
    for (int i = np; i < ns; i++)
        c.r[i] = r[ns - 1 - (i - np)];
    nc = F(cand_add)(cand, nc, &c);
    if (np > 0 && np < ns) {
        memcpy(c.r, r + np, (size_t)(ns - np) * sizeof *r);
        memcpy(c.r + ns - np, r, (size_t)np * sizeof *r);
        nc = F(cand_add)(cand, nc, &c);
    }
    return nc;
}

/* The candidates, the likeliest first (a measurement may stop early): the
   rules' core, the default passes, Bluestein (a generic pass), the default
   split, the DIT cores (past half the L2), the codelet, the other pass
   orders, the neighbouring splits. */
static int F(candidates)(int64_t n, int fwd, nla_fft_choice *cand)
{
    const int64_t lim = nla_tuning_get()->fft.stockham_max_bytes;
    const int64_t bytes = n * 2 * (int64_t)sizeof(T);
    const int passes = bytes < 4 * lim, split = bytes > lim / 4;
    int r[MAX_STAGES], ns = F(radices)(n, r), nc = 0;
    int64_t n1 = F(split)(n), near[2] = { 0, 0 };
    nla_fft_choice c;

    F(rule_choice)(n, fwd, &c);
    nc = F(cand_add)(cand, nc, &c);
    /* a codelet with an interleaved twin also runs batches, which the
       timing of one transform does not see: it stays */
    if (ns == 0 || (c.kind == 'c' && F(ilog2)(n) <= NLA_FFT_IL_LOG &&
                    nla_fft_kernels_get()->KSMALLIL[fwd][F(ilog2)(n)]))
        return nc;
    memset(&c, 0, sizeof c);
    if (passes) {
        c.kind = 's';
        c.nr = ns;
        memcpy(c.r, r, (size_t)ns * sizeof *r);
        nc = F(cand_add)(cand, nc, &c);
    }
    memset(&c, 0, sizeof c);
    c.kind = 'b';
    for (int i = 0; passes && i < ns; i++)
        if (nla_fft_radix_slot(r[i]) < 0)
            nc = F(cand_add)(cand, nc, &c);
    c.kind = 'f';
    c.n1 = n1;
    if (split && n1 >= 2)
        nc = F(cand_add)(cand, nc, &c);
    c.kind = 'd';
    for (int64_t R = 8; passes && F(past_l2)(2 * n) && R <= NLA_FFT_TR_MAXB && n % R == 0;
         R *= 2) {
        c.n1 = R;
        nc = F(cand_add)(cand, nc, &c);
    }
    if (passes && F(has_codelet)(n, fwd)) {
        memset(&c, 0, sizeof c);
        c.kind = 'c';
        nc = F(cand_add)(cand, nc, &c);
    }
    if (passes)
        nc = F(pass_orders)(r, ns, cand, nc);
    for (int64_t d = 2; split && d < n1; d++)
        if (n % d == 0)
            near[0] = d;
    for (int64_t d = n1 + 1; split && d <= n / 2 && !near[1]; d++)
        if (n % d == 0)
            near[1] = d;
    memset(&c, 0, sizeof c);
    c.kind = 'f';
    for (int i = 0; i < 2; i++)
        if (near[i] >= 2) {
            c.n1 = near[i];
            nc = F(cand_add)(cand, nc, &c);
        }
    return nc;
}

/* The best time of one run of c, x -> y. */
static double F(time_core)(const F(core) *c, const nla_fft_kernels *kt, const T *x, T *y,
                           T *work)
{
    double t0 = now_s(), t, best = 1e30, spent;
    int64_t iters = 1;
    int samples = 0;

    F(core_run)(c, kt, x, y, work);
    t = now_s() - t0;
    spent = t;
    if (t < MEASURE_SAMPLE_S)
        iters = (int64_t)(MEASURE_SAMPLE_S / (t > 1e-8 ? t : 1e-8)) + 1;
    else
        best = t, samples = 1;
    while (samples < MEASURE_SAMPLES && spent < MEASURE_CAND_S) {
        t0 = now_s();
        for (int64_t i = 0; i < iters; i++)
            F(core_run)(c, kt, x, y, work);
        t = now_s() - t0;
        spent += t;
        if (t / (double)iters < best)
            best = t / (double)iters;
        samples++;
    }
    return best;
}

static nla_status F(measure)(int64_t n, int fwd, F(core) **out)
{
    const nla_fft_kernels *kt = nla_fft_kernels_get();
    nla_fft_choice cand[MEASURE_MAX_CAND];
    int nc = F(candidates)(n, fwd, cand), best = 0;
    double tbest = 0, t0 = now_s();
    T *x = nc > 1 ? F(talloc)(n) : NULL, *y = nc > 1 ? F(talloc)(n) : NULL;
    F(core) *keep = NULL;
    nla_status s = NLA_OK;

    if (nc > 1 && (!x || !y))
        s = NLA_ENOMEM;
    for (int64_t j = 0; s == NLA_OK && nc > 1 && j < 2 * n; j++) {
        x[j] = (T)((double)((j * 7919) % 1009) / 1009.0 - 0.5);
        y[j] = 0;
    }
    for (int i = 0; i < nc && s == NLA_OK && (i == 0 || now_s() - t0 < MEASURE_PLAN_S); i++) {
        F(core) *c = F(core_build)(NULL, n, fwd, &cand[i]);
        T *work = c ? F(talloc)(c->work > 0 ? c->work : 1) : NULL;
        double t = 0;
        if (!c || !work || F(core_prepare)(c) != 0) {
            s = NLA_ENOMEM;
        } else if (nc > 1) {
            memset(work, 0, (size_t)(c->work > 0 ? c->work : 1) * 2 * sizeof(T));
            t = F(time_core)(c, kt, x, y, work);
        }
        free(work);
        if (s == NLA_OK && (!keep || t < tbest * MEASURE_MARGIN)) {
            F(core_free)(keep);
            keep = c;
            best = i;
            tbest = t;
        } else {
            F(core_free)(c);
        }
    }
    free(x);
    free(y);
    if (s != NLA_OK) {
        F(core_free)(keep);
        return s;
    }
    /* a choice that cannot be recorded (memory) leaves the plan as good */
    (void)nla_fft_wisdom_put(sizeof(T) == sizeof(double), n, fwd, &cand[best]);
    *out = keep;
    return NLA_OK;
}

/* (a measured core holds its own memory: the candidates come and go) */
static nla_status F(core_plan)(fft_mem *mem, int64_t n, int fwd, const nla_exec *ex,
                               F(core) **out)
{
    const int dbl = sizeof(T) == sizeof(double);
    nla_fft_choice ch;

    if (n >= 2 && nla_fft_wisdom_find(dbl, n, fwd, &ch))
        *out = F(core_build)(mem, n, fwd, &ch);
    else if (n < 2 || ex->fft_effort == NLA_FFT_ESTIMATE)
        *out = F(core_build)(mem, n, fwd, NULL);
    else if (ex->fft_effort == NLA_FFT_MEASURE)
        return F(measure)(n, fwd, out);
    else {
        if (ex->msg && ex->msglen)
            snprintf(ex->msg, ex->msglen, "NLA_FFT_WISDOM_ONLY: no wisdom for length "
                     "%lld (%s, %s: the wisdom line '%c %lld %c ...')", (long long)n,
                     dbl ? "double" : "float", fwd ? "forward" : "backward",
                     dbl ? 'd' : 's', (long long)n, fwd ? 'f' : 'b');
        return NLA_ENOTSUP;
    }
    return *out ? NLA_OK : NLA_ENOMEM;
}
