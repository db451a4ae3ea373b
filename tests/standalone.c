/* standalone.c - the runner behind tests/standalone.h. */
#include <stdarg.h>
#include "standalone.h"

#define SA_MAX 64
static sa_test tests[SA_MAX];
static int ntests, failures;
static void (*suite_init)(void), (*suite_fini)(void);

void sa_register(const char *suite, const char *name, void (*fn)(void))
{
    if (ntests < SA_MAX)
        tests[ntests++] = (sa_test){suite, name, fn};
}

void sa_suite(void (*init)(void), void (*fini)(void))
{
    suite_init = init;
    suite_fini = fini;
}

void sa_fail(const char *file, int line, int fatal, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: assertion failed: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    failures++;
    if (fatal)
        exit(1);
}

int main(void)
{
    for (int i = 0; i < ntests; i++) {
        int before = failures;
        if (suite_init)
            suite_init();
        tests[i].fn();
        if (suite_fini)
            suite_fini();
        printf("%s: %s::%s\n", failures == before ? "PASS" : "FAIL", tests[i].suite,
               tests[i].name);
    }
    printf("standalone: %d tests, %d failed assertions\n", ntests, failures);
    return failures != 0;
}
