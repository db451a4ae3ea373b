/*
 * bench_svg.c - `nla bench --svg FILE`: the run as one self-contained SVG
 * chart, written by hand (no plotting dependency).
 *
 * One panel per operation and precision (dgemm, sgemv, fft d, ...) with
 * the median throughput against the size: libnla solid with filled
 * markers, the reference dashed with hollow ones, one colour per variant
 * (trans, uplo, transform kind, thread count), and a bar from p25 to p75
 * at each point.  The x axis is logarithmic when the sizes span a decade.
 * The title names the machine (CPU model, ISA, threads) and the date.
 * Rows that are not of the panel's square family (gemm m != n != k) are
 * left out and counted in the panel's note.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"

#define MAX_PANELS 16
#define MAX_SERIES 10
#define MAX_POINTS 40

/* panel geometry: the plot area, then the legend to its right */
#define PANEL_W 580
#define PANEL_H 320
#define PLOT_X 70          /* left margin inside the panel */
#define PLOT_Y 36
#define PLOT_W 330
#define PLOT_H 230
#define COLS 2
#define HEAD_H 112

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                       "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };
#define NCOLORS (sizeof palette / sizeof palette[0])

struct point {
    double x;
    struct bench_stats nla, ref;
};

struct series {
    char label[64];
    int npt;
    struct point pt[MAX_POINTS];
};

struct panel {
    const struct bench_op *op;
    bench_prec prec;
    const char *xlabel;
    int nser, skipped;
    struct series ser[MAX_SERIES];
};

/* ------------------------------------------------------------- text */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);
        }
    }
}

static void text(FILE *f, double x, double y, const char *anchor, const char *style,
                 const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
            style ? " " : "", style ? style : "");
    xml_text(f, s);
    fputs("</text>\n", f);
}

/* 1500 -> "1.5k", 1048576 -> "1M" (decimal prefixes; 2^k sizes read
   well enough as 65.5k and 4.19M) */
static void fmt_si(char *buf, size_t len, double v)
{
    static const char *const sfx[] = { "", "k", "M", "G", "T" };
    int i = 0;
    while (fabs(v) >= 1000 && i < 4) {
        v /= 1000;
        i++;
    }
    snprintf(buf, len, "%.3g%s", v, sfx[i]);
}

/* ------------------------------------------------------ machine info */

static void cpu_model(char *buf, size_t len)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(buf, len, "unknown CPU");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

/* ---------------------------------------------------------- grouping */

/* Where a row goes: its x value, its variant's label and the axis name.
   Returns 0 for a row that is left out of the chart. */
static int place_row(const struct bench_case *c, double *x, char *variant, size_t len,
                     const char **xlabel)
{
    const char *name = c->op->name;
    *x = (double)c->n;
    variant[0] = '\0';
    if (strcmp(name, "gemm") == 0) {
        *xlabel = "m = n = k";
        snprintf(variant, len, "m = n = k");
        return c->m == c->n && c->n == c->k;
    }
    if (strcmp(name, "gemv") == 0) {
        *xlabel = c->m == c->n ? "m = n" : "n";
        snprintf(variant, len, "trans %c", (char)c->trans);
    } else if (strcmp(name, "gbmv") == 0) {
        char n[16];
        static char label[64];
        fmt_si(n, sizeof n, (double)c->n);
        *x = (double)c->kl;
        snprintf(label, sizeof label, "kl = ku (n = %s)", n);
        *xlabel = label;
        snprintf(variant, len, "trans %c", (char)c->trans);
    } else if (strcmp(name, "spmv") == 0) {
        *xlabel = "n";
        snprintf(variant, len, "%s", c->uplo == NLA_UPPER ? "upper" : "lower");
    } else if (strncmp(name, "fft", 3) == 0) {
        /* bench_fft.c (fft, fftplan): m is the kind (0 c2c, 1 r2c), k the
           reference (0 FFTW, 1 GSL) */
        int pow2 = c->n > 0 && (c->n & (c->n - 1)) == 0;
        *xlabel = "n";
        snprintf(variant, len, "%s%s vs %s", c->m == 0 ? "c2c" : "r2c",
                 pow2 ? "" : " non-2^k", c->k == 1 ? "GSL" : "FFTW");
    } else {
        *xlabel = "n";
    }
    return 1;
}

static struct panel *find_panel(struct panel *p, int *np, const struct bench_case *c)
{
    for (int i = 0; i < *np; i++)
        if (p[i].op == c->op && p[i].prec == c->prec)
            return &p[i];
    if (*np == MAX_PANELS)
        return NULL;
    memset(&p[*np], 0, sizeof p[*np]);
    p[*np].op = c->op;
    p[*np].prec = c->prec;
    return &p[(*np)++];
}

static struct series *find_series(struct panel *p, const char *label)
{
    for (int i = 0; i < p->nser; i++)
        if (strcmp(p->ser[i].label, label) == 0)
            return &p->ser[i];
    if (p->nser == MAX_SERIES)
        return NULL;
    snprintf(p->ser[p->nser].label, sizeof p->ser[p->nser].label, "%s", label);
    return &p->ser[p->nser++];
}

static int cmp_point(const void *a, const void *b)
{
    double x = ((const struct point *)a)->x, y = ((const struct point *)b)->x;
    return (x > y) - (x < y);
}

static int group(const struct bench_result *r, int nrows, int many_threads,
                 struct panel *panels)
{
    int np = 0;
    for (int i = 0; i < nrows; i++) {
        char variant[48], label[64];
        const char *xlabel;
        double x;
        struct panel *p = find_panel(panels, &np, &r[i].c);
        struct series *s;
        if (!p || !r[i].timed)
            continue;
        if (!place_row(&r[i].c, &x, variant, sizeof variant, &xlabel) || !(x > 0)) {
            p->skipped++;
            continue;
        }
        p->xlabel = xlabel;
        if (many_threads)
            snprintf(label, sizeof label, "%s%s%d thread%s", variant, variant[0] ? ", " : "",
                     r[i].threads, r[i].threads == 1 ? "" : "s");
        else
            snprintf(label, sizeof label, "%s", variant[0] ? variant : "libnla");
        if (!(s = find_series(p, label)) || s->npt == MAX_POINTS)
            continue;
        s->pt[s->npt].x = x;
        s->pt[s->npt].nla = r[i].nla;
        s->pt[s->npt].ref = r[i].ref;
        s->npt++;
    }
    for (int i = 0; i < np; i++)
        for (int j = 0; j < panels[i].nser; j++)
            qsort(panels[i].ser[j].pt, (size_t)panels[i].ser[j].npt,
                  sizeof(struct point), cmp_point);
    return np;
}

/* -------------------------------------------------------------- axes */

struct axis {
    double lo, hi;     /* data range shown */
    int log;
    double pos0, len;  /* pixels: where lo is, and the length (may be < 0) */
};

static double axis_map(const struct axis *a, double v)
{
    double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
                      : (v - a->lo) / (a->hi - a->lo);
    return a->pos0 + t * a->len;
}

/* 1, 2 or 5 times a power of ten, at least raw */
static double nice_step(double raw)
{
    double p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* The x range of a panel: log when the sizes span a decade or more. */
static void x_axis(const struct panel *p, struct axis *a)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < p->nser; i++)
        for (int j = 0; j < p->ser[i].npt; j++) {
            lo = fmin(lo, p->ser[i].pt[j].x);
            hi = fmax(hi, p->ser[i].pt[j].x);
        }
    if (!(hi > 0)) {
        lo = 1;
        hi = 10;
    }
    a->log = hi / lo >= 10;
    if (a->log) {
        a->lo = lo / 1.25;
        a->hi = hi * 1.25;
    } else if (hi == lo) {
        a->lo = lo * 0.5;
        a->hi = hi * 1.5;
    } else {
        double pad = 0.08 * (hi - lo);
        a->lo = fmax(0, lo - pad);
        a->hi = hi + pad;
    }
}

static double y_max(const struct panel *p)
{
    double hi = 0;
    for (int i = 0; i < p->nser; i++)
        for (int j = 0; j < p->ser[i].npt; j++) {
            const struct point *q = &p->ser[i].pt[j];
            hi = fmax(hi, fmax(fmax(q->nla.p75, q->nla.median),
                               fmax(q->ref.p75, q->ref.median)));
        }
    return hi > 0 ? hi : 1;
}

static void draw_x_ticks(FILE *f, const struct axis *a, double y0, double ytop)
{
    char buf[32];
    if (a->log) {
        /* decades, with 2 and 5 when there are few of them */
        int d0 = (int)floor(log10(a->lo)), d1 = (int)ceil(log10(a->hi));
        int minor = d1 - d0 <= 3;
        for (int d = d0; d <= d1; d++)
            for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
                double v = m * pow(10, d);
                double px;
                if (v < a->lo || v > a->hi || (m > 1 && !minor))
                    continue;
                px = axis_map(a, v);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#e5e5e5\"/>\n", px, y0, px, ytop);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#444\"/>\n", px, y0, px, y0 + 4);
                fmt_si(buf, sizeof buf, v);
                text(f, px, y0 + 16, "middle", NULL, buf);
            }
        return;
    }
    double step = nice_step((a->hi - a->lo) / 5);
    for (double v = ceil(a->lo / step) * step; v <= a->hi + 1e-9 * step; v += step) {
        double px = axis_map(a, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#e5e5e5\"/>\n", px, y0, px, ytop);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
                px, y0, px, y0 + 4);
        fmt_si(buf, sizeof buf, v);
        text(f, px, y0 + 16, "middle", NULL, buf);
    }
}

static void draw_y_ticks(FILE *f, const struct axis *a, double x0, double xright)
{
    char buf[32];
    double step = nice_step(a->hi / 5);
    for (double v = 0; v <= a->hi + 1e-9 * step; v += step) {
        double py = axis_map(a, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#e5e5e5\"/>\n", x0, py, xright, py);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
                x0 - 4, py, x0, py);
        fmt_si(buf, sizeof buf, v);
        text(f, x0 - 7, py + 4, "end", NULL, buf);
    }
}

/* ------------------------------------------------------------ series */

static void marker(FILE *f, double x, double y, const char *color, int filled)
{
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" fill=\"%s\" stroke=\"%s\" "
            "stroke-width=\"1.4\"/>\n", x, y, filled ? color : "#fff", color);
}

static void draw_side(FILE *f, const struct series *s, const struct axis *ax,
                      const struct axis *ay, int ref, const char *color)
{
    const char *dash = ref ? " stroke-dasharray=\"5,3\"" : "";
    /* libnla's points a little left, the reference's a little right, so
       that their p25..p75 bars do not hide each other */
    double dx = ref ? 2.5 : -2.5;
    if (s->npt > 1) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s points=\"",
                color, dash);
        for (int j = 0; j < s->npt; j++) {
            const struct bench_stats *st = ref ? &s->pt[j].ref : &s->pt[j].nla;
            fprintf(f, "%s%.1f,%.1f", j ? " " : "", axis_map(ax, s->pt[j].x) + dx,
                    axis_map(ay, st->median));
        }
        fputs("\"/>\n", f);
    }
    for (int j = 0; j < s->npt; j++) {
        const struct bench_stats *st = ref ? &s->pt[j].ref : &s->pt[j].nla;
        double px = axis_map(ax, s->pt[j].x) + dx;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-opacity=\"0.6\"/>\n", px, axis_map(ay, st->p25), px,
                axis_map(ay, st->p75), color);
        marker(f, px, axis_map(ay, st->median), color, !ref);
    }
}

static void draw_panel(FILE *f, const struct panel *p, double ox, double oy,
                       const char *refname)
{
    struct axis ax, ay;
    char title[96];
    double x0 = ox + PLOT_X, y0 = oy + PLOT_Y + PLOT_H, lx = x0 + PLOT_W + 18;

    x_axis(p, &ax);
    ax.pos0 = x0;
    ax.len = PLOT_W;
    ay.log = 0;
    ay.lo = 0;
    ay.hi = nice_step(y_max(p) / 5) * ceil(y_max(p) / nice_step(y_max(p) / 5));
    ay.pos0 = y0;
    ay.len = -PLOT_H;

    fprintf(f, "<g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#fff\" "
            "stroke=\"#ccc\"/>\n", ox, oy, PANEL_W, PANEL_H);
    snprintf(title, sizeof title, "%s%s  (%s)", strcmp(p->op->name, "fft") == 0 ? "" :
             bench_prec_name(p->prec), p->op->name, p->op->unit);
    if (strcmp(p->op->name, "fft") == 0)
        snprintf(title, sizeof title, "fft, %s  (%s)",
                 p->prec == BENCH_D ? "double" : "single", p->op->unit);
    text(f, ox + 12, oy + 22, "start", "font-size=\"15\" font-weight=\"bold\"", title);
    draw_y_ticks(f, &ay, x0, x0 + PLOT_W);
    draw_x_ticks(f, &ax, y0, oy + PLOT_Y);
    fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
            "stroke=\"#444\"/>\n", x0, (int)(oy + PLOT_Y), PLOT_W, PLOT_H);
    for (int i = 0; i < p->nser; i++) {
        const char *color = palette[i % NCOLORS];
        draw_side(f, &p->ser[i], &ax, &ay, 1, color);
        draw_side(f, &p->ser[i], &ax, &ay, 0, color);
    }
    {
        char xl[96];
        snprintf(xl, sizeof xl, "%s%s", p->xlabel ? p->xlabel : "n",
                 ax.log ? " (log scale)" : "");
        text(f, x0 + PLOT_W / 2.0, y0 + 34, "middle", NULL, xl);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 %.1f %.1f)\">", ox + 18, oy + PLOT_Y + PLOT_H / 2.0,
            ox + 18, oy + PLOT_Y + PLOT_H / 2.0);
    xml_text(f, p->op->unit);
    fputs("</text>\n", f);

    /* the panel's legend: one colour per variant, then the two line styles */
    double ly = oy + PLOT_Y + 8;
    for (int i = 0; i < p->nser; i++, ly += 20) {
        const char *color = palette[i % NCOLORS];
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3\"/>\n", lx, ly, lx + 18, ly, color);
        text(f, lx + 24, ly + 4, "start", "font-size=\"12\"", p->ser[i].label);
    }
    ly += 8;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
            "stroke-width=\"1.8\"/>\n", lx, ly, lx + 18, ly);
    marker(f, lx + 9, ly, "#333", 1);
    text(f, lx + 24, ly + 4, "start", "font-size=\"12\"", "libnla");
    ly += 20;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
            "stroke-width=\"1.8\" stroke-dasharray=\"5,3\"/>\n", lx, ly, lx + 18, ly);
    marker(f, lx + 9, ly, "#333", 0);
    text(f, lx + 24, ly + 4, "start", "font-size=\"12\"", refname);
    if (p->skipped) {
        char note[64];
        snprintf(note, sizeof note, "+%d row%s of other shapes", p->skipped,
                 p->skipped == 1 ? "" : "s");
        text(f, lx, ly + 24, "start", "font-size=\"11\" fill=\"#666\"", note);
        text(f, lx, ly + 38, "start", "font-size=\"11\" fill=\"#666\"", "(see the table)");
    }
    fputs("</g>\n", f);
}

/* ------------------------------------------------------------- write */

int bench_svg_write(const char *path, const struct bench_config *cfg,
                    const struct bench_result *r, int nrows)
{
    static struct panel panels[MAX_PANELS];
    char cpu[256], date[32], line[640], ref_blas[64];
    time_t t = time(NULL);
    int np, rows, w, h;
    FILE *f;

    np = group(r, nrows, cfg->threads_list != NULL, panels);
    rows = (np + COLS - 1) / COLS;
    w = COLS * PANEL_W + (COLS + 1) * 16;
    h = HEAD_H + (rows ? rows : 1) * (PANEL_H + 16) + 24;
    if (!(f = fopen(path, "w")))
        return -1;
    cpu_model(cpu, sizeof cpu);
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&t));
    snprintf(ref_blas, sizeof ref_blas, "%.*s", (int)strcspn(cfg->openblas_config, " "),
             cfg->openblas_config);

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
            "font-size=\"12\" fill=\"#222\">\n", w, h, w, h);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#f7f7f7\"/>\n", w, h);
    snprintf(line, sizeof line, "nla bench%s: libnla %s against the reference "
             "(median throughput; bars p25..p75)", cfg->quick ? " --quick" : "",
             nla_version());
    text(f, 16, 30, "start", "font-size=\"19\" font-weight=\"bold\"", line);
    if (cfg->threads_list)
        snprintf(line, sizeof line, "%s, %ld CPUs online; libnla ISA %s; threads %s "
                 "(both sides; per series); %s", cpu, sysconf(_SC_NPROCESSORS_ONLN),
                 nla_cpu_isa(), cfg->threads_list, date);
    else
        snprintf(line, sizeof line, "%s, %ld CPUs online; libnla ISA %s; %d thread%s "
                 "(both sides); %s", cpu, sysconf(_SC_NPROCESSORS_ONLN), nla_cpu_isa(),
                 cfg->threads, cfg->threads == 1 ? "" : "s", date);
    text(f, 16, 54, "start", "font-size=\"14\"", line);
    snprintf(line, sizeof line, "reference: %s (core %s) for the BLAS panels; FFTW "
             "(MEASURE) and GSL radix-2 for fft", cfg->openblas_config, cfg->openblas_core);
    text(f, 16, 74, "start", "font-size=\"12\" fill=\"#555\"", line);
    text(f, 16, 92, "start", "font-size=\"12\" fill=\"#555\"",
         "solid line, filled marker: libnla  |  dashed line, hollow marker: reference  |  "
         "colour: variant (per panel)  |  higher is better");
    if (!np)
        text(f, 16, HEAD_H + 20, "start", NULL, "no timed rows");
    for (int i = 0; i < np; i++) {
        double ox = 16 + (i % COLS) * (PANEL_W + 16);
        double oy = HEAD_H + (i / COLS) * (PANEL_H + 16);
        const char *refname = strncmp(panels[i].op->name, "fft", 3) == 0
                              ? "FFTW / GSL" : ref_blas;
        draw_panel(f, &panels[i], ox, oy, refname);
    }
    fputs("</svg>\n", f);
    return fclose(f) == 0 ? 0 : -1;
}
