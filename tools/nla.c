/*
 * nla.c - the `nla` command: subcommand dispatch.
 *
 *   nla info      what libnla chose on this machine (ISA, threads, backends)
 *   nla bench     time libnla against the CBLAS reference
 *   nla wisdom    measured FFT plans, their wisdom written out
 *
 * Exit status: 0 success, 1 failure, 2 usage error, 3 backend not available.
 */
#include <string.h>
#include "bench.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: nla COMMAND [ARGS]\n"
               "\n"
               "commands:\n"
               "  info     version, CPU ISA and configuration and why, level-2 forms,\n"
               "           threads, backends, environment (nla info gbmv d|s N|T M N KL KU,\n"
               "           nla info gemv d|s N|T M N LDA, nla info spmv d|s U|L N: the form\n"
               "           one shape runs, and why)\n"
               "  bench    time libnla against the reference (nla bench --help)\n"
               "  wisdom   measure FFT plans of the given sizes and write their wisdom\n"
               "           (nla wisdom --help)\n"
               "  help     this message (nla help bench, nla help wisdom: theirs)\n"
               "  version  print the libnla version\n");
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;

    if (!cmd) {
        usage(stderr);
        return NLA_EXIT_USAGE;
    }
    if (strcmp(cmd, "info") == 0)
        return nla_info_main(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) {
        nla_bench_reexec(argc, argv);
        return nla_bench_main(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "wisdom") == 0)
        return nla_wisdom_main(argc - 1, argv + 1);
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "-h") == 0) {
        if (argc > 2 && strcmp(argv[2], "bench") == 0)
            nla_bench_usage(stdout);
        else if (argc > 2 && strcmp(argv[2], "wisdom") == 0)
            nla_wisdom_usage(stdout);
        else
            usage(stdout);
        return NLA_EXIT_OK;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("libnla %s\n", nla_version());
        return NLA_EXIT_OK;
    }
    fprintf(stderr, "nla: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return NLA_EXIT_USAGE;
}
