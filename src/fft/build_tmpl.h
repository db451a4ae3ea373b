/*
 * build_tmpl.h - building the cores of fft_tmpl.h for one precision (the
 * same T and F(name)), by the rules or by a choice (plan_choice.h).  The
 * rules live here only: F(radices) gives the default pass order and
 * F(rule_choice) the default core, and F(core_build) with no choice builds
 * exactly that.  Also the tables that a plan leaves to its first
 * execution (F(plan_prepare)).
 */

static int F(ilog2)(int64_t n)
{
    int k = 0;
    while (((int64_t)1 << k) < n)
        k++;
    return k;
}

/* Whether the data and scratch of a transform of n (4n values) pass the L2
   (called with 1.5n: data, scratch and the passes' first table) */
static int F(past_l2)(int64_t n)
{
    return n * 4 * (int64_t)sizeof(T) > nla_tuning_get()->cache.l2;
}

/* The passes' radices for n, or 0 when n has a prime factor over
   NLA_FFT_MAX_GEN: radix 8 while it lasts, then one or two radix 4 (or a
   2; 16 = 8*2), then the odd radices from the largest (25, 13, 11, 9, 7,
   5, 3: a 9 while 3^2 divides what is left), then the generic ones (odd
   primes over NLA_FFT_MAX_ODD) from the smallest.  The first pass then
   takes s past a whole vector (8 complex floats) whenever 8 divides n, and
   every later pass runs the broadcast kernels; the generic pass, which
   has only those, comes last, where s is largest. */
static int F(radices)(int64_t n, int *r)
{
    static const int odd[] = { 25, 13, 11, 9, 7, 5, 3 };
    /* 25 (5*5 in one pass) only when the data and scratch pass the L2:
       there every pass streams from farther out, while in the L2 the
       25-point DFT costs more than the pass it saves (doc/tuning.md 4.4) */
    const int far = F(past_l2)(n);
    int ns = 0, k = 0, k4, k8;

    while (n % 2 == 0) {
        n /= 2;
        k++;
    }
    k4 = k % 3 == 1 ? (k >= 4 ? 2 : 0) : k % 3 == 2 ? 1 : 0;
    k8 = (k - 2 * k4) / 3;
    if (k == 1 || k == 4) {
        if (k == 4)
            r[ns++] = 8;
        r[ns++] = 2;
    } else {
        for (int i = 0; i < k8; i++)
            r[ns++] = 8;
        for (int i = 0; i < k4; i++)
            r[ns++] = 4;
    }
    for (int i = far ? 0 : 1; i < 7; i++)
        while (n % odd[i] == 0) {
            n /= odd[i];
            r[ns++] = odd[i];
        }
    for (int p = NLA_FFT_MAX_ODD + 2; p <= NLA_FFT_MAX_GEN && n > 1; p += 2)
        while (n % p == 0) {   /* p is prime: its factors are gone */
            n /= p;
            r[ns++] = p;
        }
    return n == 1 ? ns : 0;
}

/* n1 of the default four-step split: the largest divisor of n at most
   sqrt(n) (both factors then have only the passes' radices) */
static int64_t F(split)(int64_t n)
{
    int64_t n1 = 1;
    for (int64_t d = 2; d * d <= n; d++)
        if (n % d == 0)
            n1 = d;
    return n1;
}

/* The largest prime whose generic pass runs where s is under a vector
   (one value at a time: n < p*W, as for a lone prime): past it Bluestein,
   in vectors, is faster (doc/tuning.md 4.9) */
#define GEN_ALONE_MAX 19

/* Whether passes r[0..ns) have a generic one past GEN_ALONE_MAX with s
   under a vector */
static int F(gen_alone)(const int *r, int ns)
{
    int64_t s = 1;
    for (int i = 0; i < ns; s *= r[i++])
        if (r[i] > GEN_ALONE_MAX && nla_fft_radix_slot(r[i]) < 0 &&
            s < nla_fft_kernels_get()->KVC)
            return 1;
    return 0;
}

/* R of the DIT core for n whose data and scratch pass the L2 where no R
   makes rows of whole lines.  There the passes' tables would hold about n
   values, made at plan time (0.45 to 6 ms for n = 33750 to 506250 on Zen
   4), where the DIT's hold about sqrt(n) and its rows' own about n/R.
   The largest radix with a pass of its own (one column pass) whose rows'
   data and scratch fit half the L2, else the radix of a pass with the
   shortest rows (25, as 5.5, first); never one whose rows would take
   Bluestein (F(gen_alone)); 0 for none (doc/tuning.md 4.12). */
static int64_t F(dit_other)(int64_t n)
{
    static const int r[] = { 25, 13, 11, 9, 8, 7, 5, 4, 3, 2 };
    const int nr = (int)(sizeof r / sizeof *r);
    int ok[sizeof r / sizeof *r];
    for (int i = 0; i < nr; i++) {
        int rr[MAX_STAGES], ns = n % r[i] == 0 ? F(radices)(n / r[i], rr) : 0;
        ok[i] = ns > 0 && !F(gen_alone)(rr, ns);
    }
    for (int i = 0; i < nr; i++)
        if (ok[i] && r[i] != 25 && !F(past_l2)(2 * (n / r[i])))
            return r[i];
    for (int i = 0; i < nr; i++)
        if (ok[i])
            return r[i];
    return 0;
}

/* R of the DIT core for n whose rows are whole lines, or 0 for none
   (*any: whether some R makes whole lines).  R is a multiple of 8 dividing
   n whose rows (M = n/R values) are whole cache lines, a power of two at
   most 32: the transpose and the columns walk the R rows at once, each a
   stream of its own, and an L2 streamer follows 32 streams (one per 4 KiB
   page).  The smallest power of two whose row transform's data and
   scratch take at most a quarter of the L2, the rest holding the lines of
   the streams in flight (doc/tuning.md 4.5).  Where none fits and the data
   alone pass the L2, the largest power of two, the shortest rows, if its
   rows fit half the L2 or have an R of whole lines of their own (this
   rule, not F(dit_other): 10^6 keeps 40 below): the DIT streams the
   data 3 times with tables of about sqrt(n) values, where the passes
   stream them and a first table of n values once each (4.8).  Else the
   largest other multiple of 8 up to 64 (10^6: 40, where 16 leaves rows of
   62500 with no R of their own; 4.7, 4.8), else that power of two. */
static int64_t F(dit_lines)(int64_t n, int *any)
{
    int64_t P = 0, R = 0;
    int sub;
    *any = 0;
    for (int64_t r = 8; r <= 64; r += 8) {
        const int64_t m = n / r;
        if (n % r != 0 || m * 2 * (int64_t)sizeof(T) % 64 != 0)
            continue;
        *any = 1;
        if ((r & (r - 1)) != 0) {
            R = r;
        } else if (r <= 32) {
            if (!F(past_l2)(4 * m))
                return r;
            P = r;
        }
    }
    if (!F(past_l2)(n / 2))
        return 0;
    return P && (!R || !F(past_l2)(2 * (n / P)) || F(dit_lines)(n / P, &sub)) ? P : R;
}

/* R of the DIT core for n, or 0 for none: F(dit_lines), else where no R
   makes whole lines, F(dit_other) once the data and scratch pass the L2
   (below that the passes win: 4.12) */
static int64_t F(dit_radix)(int64_t n)
{
    int any;
    const int64_t R = F(dit_lines)(n, &any);
    return any || !F(past_l2)(n) ? R : F(dit_other)(n);
}

static int F(has_codelet)(int64_t n, int fwd)
{
    return (n & (n - 1)) == 0 && n <= (1 << NLA_FFT_SMALL_LOG) &&
           nla_fft_kernels_get()->KSMALL[fwd][F(ilog2)(n)] != NULL;
}

/* The rules' core for n >= 2: passes (the codelet where there is one) while
   they fit the L2 with their data, scratch and first pass's table (about n
   values, 6n reals in all); DIT past it while the data fit
   fft.stockham_max_bytes of the CPU configuration (its steps stream the
   data 3 times, where passes of radix 8 stream it log_8 n times), and
   four-step past that; Bluestein for a prime factor over
   NLA_FFT_MAX_GEN, or one whose generic pass would go a value at a
   time (F(gen_alone)). */
static void F(rule_choice)(int64_t n, int fwd, nla_fft_choice *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->nr = F(radices)(n, ch->r);
    if (ch->nr == 0 || F(gen_alone)(ch->r, ch->nr))
        ch->kind = 'b';
    else if (n * 2 * (int64_t)sizeof(T) > nla_tuning_get()->fft.stockham_max_bytes)
        ch->kind = 'f', ch->n1 = F(split)(n);
    else if (F(past_l2)(n + n / 2) && (ch->n1 = F(dit_radix)(n)) != 0)
        ch->kind = 'd';
    else
        ch->kind = F(has_codelet)(n, fwd) ? 'c' : 's';
}

/* Stage i's broadcast table tw[p*(r-1) + k-1] = W^(p*k), from w =
   F(tw_base)(n) (F(tw_fill)), where its passes take it: at every pass of a core that runs
   B > 1 interleaved transforms (c->batch) and every generic pass (slot
   -1, which has no other), else where the values q of a pass fill a
   vector or it has one p (F(pass_bc)).  0, or -1 when out of
   memory. */
static int F(stage_bc)(F(core) *c, int i, const T *w)
{
    const T sg = c->fwd ? -1 : 1;
    F(stage) *st = &c->st[i];
    const int r = st->r;
    int64_t s = 1;

    for (int j = 0; j < i; j++)
        s *= c->st[j].r;
    const int64_t m = st->m;   /* the stage's length is n/s: W^e = W_n^(e*s) */
    if (!c->batch && m > 1 && s < nla_fft_kernels_get()->KVC && st->slot >= 0)
        return 0;
    st->tw = F(tab)(c->mem, m * (r - 1));
    if (!st->tw)
        return -1;
    for (int k = 1; k < r; k++)
        F(tw_fill)(w, c->n, 0, k * s, m, sg, st->tw + 2 * (k - 1), r - 1);
    return 0;
}

/* The passes of radices r[0..ns) (product c->n), their twiddles W_n^t from
   F(tw_base)(n) (F(tw_fill)), conjugated for forward cores. */
static int F(stock_build)(F(core) *c, const int *r, int ns)
{
    const T sg = c->fwd ? -1 : 1;
    int64_t len = c->n, s = 1;
    T *w = F(tw_base)(c->n);

    if (!w)
        return -1;
    c->type = CORE_STOCK;
    c->nst = ns;
    for (int i = 0; i < ns; i++) {
        F(stage) *st = &c->st[i];
        const int64_t m = len / r[i], step = c->n / len;   /* W_len^e = W_n^(e*step) */
        st->r = r[i];
        st->slot = nla_fft_radix_slot(r[i]);
        st->m = m;
        if (F(stage_bc)(c, i, w) != 0)
            break;
        if (st->slot < 0 && !(st->cs = F(tw_table)(c->mem, r[i], r[i], 0)))
            break;
        if (s < nla_fft_kernels_get()->KVC && st->slot >= 0) {
            int64_t sm = s * m;
            st->twl = F(tab)(c->mem, sm * (r[i] - 1));
            if (!st->twl)
                break;
            /* lane j = p*s + b holds W^(p*k) */
            for (int k = 1; k < r[i]; k++) {
                T *o = st->twl + 2 * (k - 1) * sm;
                F(tw_fill)(w, c->n, 0, k * step, m, sg, o, s);
                for (int64_t p = 0; p < m && s > 1; p++)
                    for (int64_t b = 1; b < s; b++) {
                        o[2 * (p * s + b)] = o[2 * p * s];
                        o[2 * (p * s + b) + 1] = o[2 * p * s + 1];
                    }
            }
        }
        len = m;
        s *= r[i];
    }
    free(w);
    c->work = c->n;
    return len == 1 ? 0 : -1;
}

/* Makes c (a Stockham core) fit to run B > 1 interleaved transforms: the
   broadcast tables its passes then take.  0, or -1 when out of memory. */
static int F(stock_batch)(F(core) *c)
{
    T *w = NULL;
    int rc = 0;

    c->batch = 1;
    for (int i = 0; i < c->nst && rc == 0; i++) {
        if (c->st[i].tw)
            continue;
        if (!w)
            w = F(tw_base)(c->n);
        rc = w ? F(stage_bc)(c, i, w) : -1;
    }
    free(w);
    return rc;
}

/* About the bytes of a core of length n by the choice ch, with its cores
   and tables (F(stock_build): about n values; the four-step and
   DIT: their two cores and W_n split in two; Bluestein: a core of length
   m): a plan's first block, which then holds them all.
   An estimate too small costs another block, nothing else. */
static size_t F(mem_need)(int64_t n, const nla_fft_choice *ch)
{
    const int64_t m = (int64_t)1 << F(ilog2)(2 * n - 1);
    int64_t v = n + n / 2, cores = 1;
    if (ch->kind == 'f')
        v = 4 * (ch->n1 + n / ch->n1), cores = 3;
    else if (ch->kind == 'd')
        v = 3 * (ch->n1 + n / ch->n1) + F(split)(n) + n / F(split)(n), cores = 4;
    else if (ch->kind == 'b') {
        /* the core of length m; the chirp and bf take a block of their own,
           which stays untouched until the first execution fills it */
        nla_fft_choice cm;
        F(rule_choice)(m, 1, &cm);
        return F(mem_need)(m, &cm) + sizeof(F(core)) + 64;
    }
    /* (and the block's header, and each piece's rounding to 64 bytes) */
    return (size_t)v * 2 * sizeof(T) + (size_t)cores * (sizeof(F(core)) + 64 * 24);
}

/* a zeroed core, in mem (a plan's) or on its own where mem is NULL */
static F(core) *F(core_new)(fft_mem *mem)
{
    F(core) *c = mem ? fft_mem_get(mem, sizeof *c) : calloc(1, sizeof *c);
    if (c && mem) {
        memset(c, 0, sizeof *c);
        c->mem = mem;
    }
    return c;
}

/* A Stockham core of length n on the default passes, whatever its size,
   with the codelet where there is one (the four-step's columns: blocks of
   them run the interleaved codelet) */
static F(core) *F(stock_core)(fft_mem *mem, int64_t n, int fwd)
{
    F(core) *c = F(core_new)(mem);
    int r[MAX_STAGES], ns = F(radices)(n, r);
    if (!c)
        return NULL;
    c->n = n;
    c->fwd = fwd;
    c->batch = 1;
    if (ns == 0 || F(stock_build)(c, r, ns) != 0) {
        F(core_free)(c);
        return NULL;
    }
    if (F(has_codelet)(n, fwd))
        c->small = F(ilog2)(n);
    return c;
}

/* A core of one transform (a plan of one) runs on nt threads.  A
   four-step core shares its column blocks, each thread with its own
   gather buffer and scratch: the middle result, then 2 blocks of the
   longer column a thread.  A DIT core of at least NLA_FFT_THREADS_MIN_N
   values shares its rows and columns, each thread with a row's scratch
   (F(dit_run)).  A Stockham core of at least
   NLA_FFT_THREADS_MIN_N values shares each pass (F(stock_run)).  Either
   way the threads' shares are the same work as one thread's, so the bits
   are the same for any nt. */
static void F(core_threads)(F(core) *c, int nt)
{
    if (nt < 1)
        return;
    if (c->type == CORE_STOCK && !c->small && c->n >= NLA_FFT_THREADS_MIN_N)
        c->nt = nt;
    if (c->type == CORE_4STEP) {
        c->nt = nt;
        c->work = c->n + (int64_t)nt * 2 * c->blk * (c->n1 > c->n2 ? c->n1 : c->n2);
    } else if (c->type == CORE_DIT) {
        c->nt = c->n >= NLA_FFT_THREADS_MIN_N ? nt : 1;
        c->work = F(dit_shared)(c) + (int64_t)c->nt * F(dit_own)(c);
    }
}

/* The tables of W_n^e = lo[e % nlo] * hi[e / nlo], e < n, nlo | n:
   lo[t] = W_n^t, t < nlo; hi[t] = W_n^(t*nlo) = W_(n/nlo)^t, t < n/nlo */
static int F(tw_pair)(F(core) *c, int64_t nlo)
{
    c->nlo = nlo;
    c->lo = F(tw_table)(c->mem, c->n, nlo, c->fwd);
    c->hi = F(tw_table)(c->mem, c->n / nlo, c->n / nlo, c->fwd);
    return c->lo && c->hi ? 0 : -1;
}

/* n = n1*n2 */
static int F(fourstep_build)(F(core) *c, int64_t n1)
{
    c->type = CORE_4STEP;
    c->n1 = n1;
    c->n2 = c->n / n1;
    c->blk = 64 / (int64_t)sizeof(T);          /* 128 bytes of each row (COL_BLOCK) */
    c->c1 = F(stock_core)(c->mem, c->n1, c->fwd);
    c->c2 = F(stock_core)(c->mem, c->n2, c->fwd);
    if (!c->c1 || !c->c2 || F(tw_pair)(c, c->n1) != 0)
        return -1;
    F(core_threads)(c, 1);
    return 0;
}

/* n = R*M, R = n1 (at most NLA_FFT_TR_MAXB), M = n2: the rows by the rules,
   the columns on the default passes (their interleaved codelet for R =
   2^k <= 2^NLA_FFT_IL_LOG) */
static int F(dit_build)(F(core) *c, int64_t R)
{
    c->type = CORE_DIT;
    c->n1 = R;
    c->n2 = c->n / R;
    c->c1 = F(stock_core)(c->mem, c->n1, c->fwd);
    c->c2 = F(core_build)(c->mem, c->n2, c->fwd, NULL);
    /* lo and hi of about sqrt(n) values each */
    if (!c->c1 || !c->c2 || F(tw_pair)(c, F(split)(c->n)) != 0)
        return -1;
    F(core_threads)(c, 1);
    return 0;
}

/* Bluestein's core: its core of length m and room for its tables, which
   F(blue_tables) fills at the plan's first execution (F(plan_prepare)):
   they cost O(m log m), past 100 us from n of about 2^12. */
static int F(blue_build)(F(core) *c)
{
    int64_t n = c->n, m = (int64_t)1 << F(ilog2)(2 * n - 1);
    const int64_t nl = (n + 7) & ~(int64_t)7;   /* bf on a 64-byte line */

    c->type = CORE_BLUE;
    c->m = m;
    c->cm = F(core_build)(c->mem, m, 1, NULL);
    /* after the core: a block of their own (F(mem_need)) */
    c->chirp = c->cm ? F(tab)(c->mem, nl + m) : NULL;
    if (!c->chirp)
        return -1;
    c->bf = c->chirp + 2 * nl;
    c->work = m + c->cm->work;
    return 0;
}

/* The chirp and the transform of its conjugate, made in double precision
   (for float plans too, with a double core of their own), then rounded.
   A double plan transforms in bf itself.  0, or -1 when out of memory. */
static int F(blue_tables)(F(core) *c)
{
    int sign = c->fwd ? -1 : 1;
    int64_t n = c->n, m = c->m;
    const int own = sizeof(T) != sizeof(double);   /* a float plan's double core */
    /* the scratch, one block: a float plan's double core and b, the work */
    fft_mem scr = { NULL, (size_t)((own ? 2 : 1) * m) * 2 * sizeof(double) };
    d_core *dm = own ? d_core_build(&scr, m, 1, NULL) : (d_core *)(void *)c->cm;
    double *tmp, *b, *wk;

    tmp = !dm ? NULL : fft_mem_get(&scr, (size_t)((own ? m : 0) + (dm->work > 0 ? dm->work : 1))
                                             * 2 * sizeof(double));
    if (!tmp) {
        fft_mem_free(&scr);
        return -1;
    }
    b = own ? tmp : (double *)(void *)c->bf;
    wk = own ? tmp + 2 * m : tmp;
    memset(b, 0, (size_t)m * 2 * sizeof(double));
    /* (n-j)^2 = j^2 + n^2 (mod 2n): the chirp at n-j is the one at j,
       negated for odd n (exactly: the angles reduce alike, fft.c) */
    const double f = n % 2 ? -1.0 : 1.0;
    for (int64_t j = 0; j < n; j++) {
        double re, im;
        if (2 * j > n) {
            re = f * b[2 * (n - j)];
            im = -f * b[2 * (n - j) + 1];
        } else {
            chirp(j, n, sign, &re, &im);
        }
        c->chirp[2 * j] = (T)re;
        c->chirp[2 * j + 1] = (T)im;
        b[2 * j] = re;
        b[2 * j + 1] = -im;
        if (j > 0) {
            b[2 * (m - j)] = re;
            b[2 * (m - j) + 1] = -im;
        }
    }
    d_core_run(dm, nla_fft_kernels_get(), b, b, wk);
    const double inv = 1.0 / (double)m;   /* m = 2^k: exact */
    for (int64_t k = 0; k < 2 * m; k++)
        c->bf[k] = (T)(b[k] * inv);
    fft_mem_free(&scr);
    return 0;
}

/* The tables that c and its cores make at the first execution
   (F(blue_tables)), where not made yet.  0, or -1 when out of memory. */
static int F(core_prepare)(F(core) *c)
{
    if (!c)
        return 0;
    if (c->type == CORE_BLUE && !c->made) {
        if (F(blue_tables)(c) != 0)
            return -1;
        c->made = 1;
    }
    return F(core_prepare)(c->c1) || F(core_prepare)(c->c2) ? -1 : 0;
}

/* The tables that p leaves to its first execution (Bluestein's,
   F(core_prepare); the real step's, F(real_tables); a DCT's inner
   plan's), with prep_lock held.  -1: no memory. */
static int F(plan_tables)(F(plan) *p)
{
    if (atomic_load_explicit(&p->ready, memory_order_relaxed))
        return 0;
    if (F(core_prepare)(p->c) != 0 || (p->rtw && F(real_tables)(p) != 0) ||
        (p->dct && F(plan_tables)(F(dct_inner)(p->dct)) != 0))
        return -1;
    atomic_store_explicit(&p->ready, 1, memory_order_release);
    return 0;
}

/* Makes those tables once, at the first execution to come (fft.c's
   prep_lock; the others wait for it): an ESTIMATE plan so takes
   microseconds whatever its length (doc/tuning.md 4.13). */
static nla_status F(plan_prepare)(F(plan) *p)
{
    pthread_mutex_lock(&prep_lock);
    int rc = F(plan_tables)(p);
    pthread_mutex_unlock(&prep_lock);
    return rc == 0 ? NLA_OK : NLA_ENOMEM;
}

/* The core of length n by the choice ch (checked for n by
   nla_fft_choice_parse), or by the rules when ch is NULL. */
static F(core) *F(core_build)(fft_mem *mem, int64_t n, int fwd, const nla_fft_choice *ch)
{
    nla_fft_choice rule;
    F(core) *c;
    int rc = 0;

    if (!ch && n > 1) {
        F(rule_choice)(n, fwd, &rule);
        ch = &rule;
    }
    /* the first core in a plan's memory sizes its first block */
    if (mem && !mem->blk && n > 1)
        mem->first = F(mem_need)(n, ch);
    if (!(c = F(core_new)(mem)))
        return NULL;
    c->n = n;
    c->fwd = fwd;
    if (n == 1) {
        c->type = CORE_ONE;
        return c;
    }
    switch (ch->kind) {
    case 's':
        rc = F(stock_build)(c, ch->r, ch->nr);
        break;
    case 'c': {
        int r[MAX_STAGES], ns = F(radices)(n, r);
        rc = F(stock_build)(c, r, ns);
        if (F(has_codelet)(n, fwd))
            c->small = F(ilog2)(n);
        break;
    }
    case 'f':
        rc = F(fourstep_build)(c, ch->n1);
        break;
    case 'd':
        rc = F(dit_build)(c, ch->n1);
        break;
    default:
        rc = F(blue_build)(c);
        break;
    }
    if (rc != 0) {
        F(core_free)(c);
        return NULL;
    }
    return c;
}

/* (a core in a plan's memory goes with it) */
static void F(core_free)(F(core) *c)
{
    if (!c || c->mem)
        return;
    for (int i = 0; i < c->nst; i++) {
        free(c->st[i].tw);
        free(c->st[i].twl);
        free(c->st[i].cs);
    }
    F(core_free)(c->c1);
    F(core_free)(c->c2);
    F(core_free)(c->cm);
    free(c->lo);
    free(c->hi);
    free(c->chirp);   /* and bf, in the same block */
    free(c);
}
