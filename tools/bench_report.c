/*
 * bench_report.c - what `nla bench` prints: a table for people, or one
 * JSON object for machines (--json).
 */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"

/* ------------------------------------------------------------------ table */

static const char *const kind_rows[] = {
    [BENCH_LIB_CBLAS] = "gemv gbmv spmv gemm", [BENCH_LIB_FFTW] = "fft vs fftw",
    [BENCH_LIB_GSL] = "fft vs gsl"
};

void bench_report_refs(FILE *f)
{
    enum bench_lib_kind last = BENCH_LIB_GSL;

    fputs("references (loaded at run time; NLA_REF_PATH: more folders to search):\n", f);
    for (int i = 0; i < bench_libs_count(); i++) {
        const struct bench_lib *l = bench_libs_get(i);
        int first = i == 0 || l->kind != last;
        fprintf(f, "  %-22s %s: %s%s%s; %s\n", l->id,
                first ? "checks and times" : "timed beside it", kind_rows[l->kind],
                l->core[0] ? ", core " : "", l->core, l->threading);
        fprintf(f, "  %-22s   %s (%s%s%s)\n", "", l->version, l->path,
                l->prefix[0] ? ", names prefixed " : "", l->prefix);
        last = l->kind;
    }
    if (bench_libs_count() == 0)
        fputs("  none found: every row fails (Debian: apt-get install libopenblas0 "
              "libfftw3-3 libgsl27)\n", f);
}

void bench_report_header(FILE *f, const struct bench_config *cfg)
{
    fprintf(f, "libnla %s, CPU ISA %s (%s), tuning %s\n", nla_version(), nla_cpu_isa(),
            nla_cpu_isa_reason(), nla_cpu_tuning());
    fprintf(f, "backend %s", nla_backend_name(cfg->backend));
    if (cfg->backend_note)
        fprintf(f, " (auto; cuda: not available (%s))", cfg->backend_note);
    if (cfg->threads_list)
        fprintf(f, ", threads %s (libnla and reference; per row below)\n",
                cfg->threads_list);
    else
        fprintf(f, ", threads %d (libnla and reference)\n", cfg->threads);
    bench_report_refs(f);
    if (cfg->background_load)
        fprintf(f, "background load: on (--background-load): a second thread reads "
                "and writes %zu MiB, sweep after sweep, for the whole run\n",
                BENCH_LOAD_BYTES >> 20);
    if (cfg->env_kept)
        fprintf(f, "note: %s kept (--keep-openblas-env)\n", cfg->env_kept);
    if (cfg->env_removed)
        fprintf(f, "note: re-executed without %s so that OpenBLAS picks its own "
                "kernel; OpenBLAS chose core %s\n", cfg->env_removed,
                cfg->openblas_core);
    fprintf(f, "method: check against the reference, then %d interleaved samples "
            "per side, each >= %.0f ms", cfg->samples, cfg->min_sample_s * 1e3);
    if (cfg->settle_s > 0)
        fprintf(f, " after a %.0f ms pause", cfg->settle_s * 1e3);
    fprintf(f, "; median and p25..p75 of throughput; "
            "ratio = median over the pairs of libnla / reference");
    if (cfg->passes > 1)
        fprintf(f, "; %d passes over the rows, each row shown from its pass with the "
                "median ratio, then the lowest..highest pass ratio", cfg->passes);
    fputs("\n\n", f);
    fprintf(f, "%-5s %-4s %-24s %3s %-4s %24s %24s %-7s %6s  %s\n", "op", "prec",
            "shape", "thr", "on", "libnla median (IQR)", "ref median (IQR)",
            "unit", "ratio", "check");
}

static void fmt_stats(char *buf, size_t len, const struct bench_stats *s)
{
    snprintf(buf, len, "%.2f (%.2f..%.2f)", s->median, s->p25, s->p75);
}

void bench_report_row(FILE *f, const struct bench_result *r)
{
    char a[64] = "-", b[64] = "-", ratio[16] = "-";
    const char *check = r->error[0] ? "ERROR" : r->check_ok ? "ok" : "FAIL";

    if (r->timed) {
        fmt_stats(a, sizeof a, &r->nla);
        fmt_stats(b, sizeof b, &r->ref);
        snprintf(ratio, sizeof ratio, "%.2f", r->ratio);
    }
    fprintf(f, "%-5s %-4s %-24s %3d %-4s %24s %24s %-7s %6s  %s",
            r->c.op->name, bench_prec_name(r->c.prec), r->shape, r->threads, r->ran_on,
            a, b, r->c.op->unit, ratio, check);
    if (r->timed && r->triad_paired > 0) /* level-2 rows: / the triad beside them */
        fprintf(f, "  %3.0f%% of stream at %.1f (ref %3.0f%%), %3.0f%% of best",
                100 * r->stream_frac, r->triad_paired, 100 * r->ref_stream_frac,
                100 * r->nla.median / r->stream_gbs);
    else if (r->timed && r->stream_gbs > 0) /* libnla's median / the best triad */
        fprintf(f, "  %3.0f%% of stream (ref %3.0f%%)", 100 * r->nla.median / r->stream_gbs,
                100 * r->ref.median / r->stream_gbs);
    if (r->timed && r->read_gbs > 0)     /* and bytes moved / the read */
        fprintf(f, ", of read %3.0f%% (ref %3.0f%%)",
                100 * r->nla.median * r->moved_per_work / r->read_gbs,
                100 * r->ref.median * r->moved_per_work / r->read_gbs);
    if (r->timed && r->read_kinds[BENCH_READ_PLAIN] > 0) /* / the plain read alone */
        fprintf(f, ", of plain %3.0f%%",
                100 * r->nla.median * r->moved_per_work / r->read_kinds[BENCH_READ_PLAIN]);
    if (r->timed && r->passes > 1)
        fprintf(f, "  passes %.2f..%.2f", r->ratio_lo, r->ratio_hi);
    for (int k = 0; r->timed && k < r->nextra; k++) {
        const struct bench_extra *x = &r->extra[k];
        if (x->check_ok)
            fprintf(f, "%s %s %.2f", k ? "," : "  vs", x->lib->id, x->ratio);
        else
            fprintf(f, "%s %s disagrees (%.3g > tol %.3g)", k ? "," : "  vs", x->lib->id,
                    x->max_rel_err, r->tol);
    }
    fputc('\n', f);
    if (!r->error[0] && !r->check_ok)
        fprintf(f, "      check: max |nla-ref|/bound = %.3g > tol %.3g\n",
                r->max_rel_err, r->tol);
    if (r->error[0])
        fprintf(f, "      error: %s\n", r->error);
    fflush(f);
}

void bench_report_footer(FILE *f, int nrows, int nfail, double seconds)
{
    fprintf(f, "\n%d row%s, %d failed, %.1f s\n", nrows, nrows == 1 ? "" : "s",
            nfail, seconds);
}

/* ------------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.6g", x);
    else
        fputs("null", f);
}

static void json_key(FILE *f, const char *k)
{
    json_str(f, k);
    fputs(": ", f);
}

static void json_stats(FILE *f, const char *k, const struct bench_result *r,
                       const struct bench_stats *s)
{
    json_key(f, k);
    if (!r->timed) {
        fputs("null", f);
        return;
    }
    fputs("{\"median\": ", f);
    json_num(f, s->median);
    fputs(", \"p25\": ", f);
    json_num(f, s->p25);
    fputs(", \"p75\": ", f);
    json_num(f, s->p75);
    fputc('}', f);
}

static void json_dims(FILE *f, const struct bench_case *c)
{
    int d = c->op->dims;
    fprintf(f, "\"dims\": {\"m\": %lld, \"n\": %lld", (long long)c->m,
            (long long)c->n);
    if (d & BENCH_DIM_K)
        fprintf(f, ", \"k\": %lld", (long long)c->k);
    if (d & BENCH_DIM_BAND)
        fprintf(f, ", \"kl\": %lld, \"ku\": %lld", (long long)c->kl,
                (long long)c->ku);
    if (d & BENCH_DIM_TRANS)
        fprintf(f, ", \"trans\": \"%c\"", (char)c->trans);
    fputs("}", f);
}

static void json_machine(FILE *f, const struct bench_config *cfg)
{
    fputs("  \"machine\": {\"nla_version\": ", f);
    json_str(f, nla_version());
    fputs(", \"cpu_isa\": ", f);
    json_str(f, nla_cpu_isa());
    fputs(", \"cpu_isa_reason\": ", f);
    json_str(f, nla_cpu_isa_reason());
    fputs(", \"cpu_tuning\": ", f);
    json_str(f, nla_cpu_tuning());
    fprintf(f, ", \"online_cpus\": %ld, \"openblas_core\": ",
            sysconf(_SC_NPROCESSORS_ONLN));
    json_str(f, cfg->openblas_core);
    fputs(", \"openblas_config\": ", f);
    json_str(f, cfg->openblas_config);
    fputs("},\n", f);
}

static void json_config(FILE *f, const struct bench_config *cfg)
{
    fputs("  \"config\": {\"backend_requested\": ", f);
    json_str(f, nla_backend_name(cfg->backend_req));
    fputs(", \"backend\": ", f);
    json_str(f, nla_backend_name(cfg->backend));
    fputs(", \"backend_note\": ", f);
    json_str(f, cfg->backend_note);
    fprintf(f, ", \"threads\": %d, \"quick\": %s, \"samples\": %d, \"passes\": %d, "
            "\"min_sample_seconds\": ", cfg->threads,
            cfg->quick ? "true" : "false", cfg->samples, cfg->passes > 1 ? cfg->passes : 1);
    json_num(f, cfg->min_sample_s);
    fputs(", \"settle_seconds\": ", f);
    json_num(f, cfg->settle_s);
    fputs(", \"alpha\": ", f);
    json_num(f, BENCH_ALPHA);
    fputs(", \"beta\": ", f);
    json_num(f, BENCH_BETA);
    fputs(", \"openblas_env_removed\": ", f);
    json_str(f, cfg->env_removed);
    fputs(", \"openblas_env_kept\": ", f);
    json_str(f, cfg->env_kept);
    fprintf(f, ",\n             \"background_load\": %s, \"background_load_gbs\": ",
            cfg->background_load ? "true" : "false");
    json_num(f, cfg->background_load ? bench_load_gbs() : NAN);
    fputs(",\n             \"references\": [", f);
    for (int i = 0; i < bench_libs_count(); i++) {
        const struct bench_lib *l = bench_libs_get(i);
        static const char *const kind[] = { "cblas", "fftw", "gsl" };
        fputs(i ? ",\n                            {\"id\": " : "{\"id\": ", f);
        json_str(f, l->id);
        fprintf(f, ", \"kind\": \"%s\", \"library\": ", kind[l->kind]);
        json_str(f, l->path);
        fputs(", \"prefix\": ", f);
        json_str(f, l->prefix);
        fputs(", \"version\": ", f);
        json_str(f, l->version);
        fputs(", \"core\": ", f);
        json_str(f, l->core[0] ? l->core : NULL);
        fputs(", \"threading\": ", f);
        json_str(f, l->threading);
        fputc('}', f);
    }
    fputs("]},\n", f);
}

/* A level-2 row's bandwidth reference (GB/s, measured in the run) and
   both sides' fractions of it; nothing when it was not measured. */
static void json_ceiling(FILE *f, const struct bench_result *r, double gbs,
                         const char *name, const char *frac)
{
    if (gbs <= 0)
        return;
    fprintf(f, ", \"%s\": ", name);
    json_num(f, gbs);
    fprintf(f, ", \"%s\": ", frac);
    json_num(f, r->timed ? r->nla.median / gbs : NAN);
    fprintf(f, ", \"ref_%s\": ", frac);
    json_num(f, r->timed ? r->ref.median / gbs : NAN);
}

static void json_row(FILE *f, const struct bench_result *r)
{
    fputs("    {\"op\": ", f);
    json_str(f, r->c.op->name);
    fputs(", \"shape\": ", f);
    json_str(f, r->shape);
    fputs(", ", f);
    json_dims(f, &r->c);
    fprintf(f, ", \"precision\": \"%s\", \"threads\": %d, \"backend\": ",
            bench_prec_name(r->c.prec), r->threads);
    json_str(f, r->ran_on);
    fprintf(f, ", \"includes_transfers\": %s, \"unit\": ",
            strcmp(r->ran_on, "cuda") == 0 ? "true" : "false");
    json_str(f, r->c.op->unit);
    fputs(", \"ref_id\": ", f);
    json_str(f, r->ref_lib ? r->ref_lib->id : NULL);
    fputs(",\n     ", f);
    json_stats(f, "nla", r, &r->nla);
    fputs(", ", f);
    json_stats(f, "ref", r, &r->ref);
    fputs(", \"ratio\": ", f);
    if (r->timed)
        json_num(f, r->ratio);
    else
        fputs("null", f);
    fputs(", \"ratio_of_medians\": ", f);
    if (r->timed)
        json_num(f, r->ratio_medians);
    else
        fputs("null", f);
    if (r->timed && r->passes > 1) {
        fprintf(f, ", \"passes\": %d, \"ratio_lo\": ", r->passes);
        json_num(f, r->ratio_lo);
        fputs(", \"ratio_hi\": ", f);
        json_num(f, r->ratio_hi);
    }
    json_ceiling(f, r, r->stream_gbs, "stream_triad", "stream_fraction");
    if (r->timed && r->triad_paired > 0) {
        fputs(", \"stream_triad_paired\": ", f);
        json_num(f, r->triad_paired);
        fputs(", \"stream_paired_fraction\": ", f);
        json_num(f, r->stream_frac);
        fputs(", \"ref_stream_paired_fraction\": ", f);
        json_num(f, r->ref_stream_frac);
    }
    /* the read limit, in GB/s of the row's work (its bytes moved read at
       the read's speed): read_fraction is bytes moved / the read */
    json_ceiling(f, r, r->read_gbs / (r->moved_per_work > 0 ? r->moved_per_work : 1),
                 "read_limit", "read_fraction");
    if (r->read_gbs > 0) {
        fputs(", \"stream_read\": ", f);
        json_num(f, r->read_gbs);
        fputs(", \"moved_per_work\": ", f);
        json_num(f, r->moved_per_work);
        static const char *const kind[3] = { "plain", "prefetched", "runs" };
        for (int k = 0; k < 3; k++) {
            fprintf(f, ", \"stream_read_%s\": ", kind[k]);
            json_num(f, r->read_kinds[k]);
        }
    }
    fprintf(f, ", \"reps_nla\": %ld, \"reps_ref\": %ld,\n     \"check\": \"%s\", "
            "\"max_rel_err\": ", r->reps_nla, r->reps_ref,
            !r->error[0] && r->check_ok ? "ok" : "FAIL");
    json_num(f, r->max_rel_err);
    fputs(", \"tol\": ", f);
    json_num(f, r->tol);
    fputs(", \"error\": ", f);
    json_str(f, r->error[0] ? r->error : NULL);
    /* the other references, timed beside the checking one */
    fputs(",\n     \"other_refs\": [", f);
    for (int k = 0; k < r->nextra; k++) {
        const struct bench_extra *x = &r->extra[k];
        fputs(k ? ", {\"id\": " : "{\"id\": ", f);
        json_str(f, x->lib->id);
        fprintf(f, ", \"check\": \"%s\", \"max_rel_err\": ", x->check_ok ? "ok" : "FAIL");
        json_num(f, x->max_rel_err);
        fputs(", ", f);
        if (x->check_ok)
            json_stats(f, "throughput", r, &x->st);
        else
            fputs("\"throughput\": null", f);
        fputs(", \"ratio\": ", f);
        if (r->timed && x->check_ok)
            json_num(f, x->ratio);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputs("]}", f);
}

void bench_report_json(FILE *f, const struct bench_config *cfg,
                       const struct bench_result *r, int nrows, int nfail,
                       double seconds)
{
    fputs("{\n", f);
    json_machine(f, cfg);
    json_config(f, cfg);
    fputs("  \"results\": [\n", f);
    for (int i = 0; i < nrows; i++) {
        json_row(f, &r[i]);
        fputs(i + 1 < nrows ? ",\n" : "\n", f);
    }
    fprintf(f, "  ],\n  \"failures\": %d,\n  \"seconds\": ", nfail);
    json_num(f, seconds);
    fputs("\n}\n", f);
}
