/*
 * standalone.h - just enough of Criterion's API to run a suite as a plain
 * program: Criterion's runner cannot start under ThreadSanitizer (its
 * inheritable arena is mapped where TSan keeps its shadow), so the TSan
 * pass builds tests/test_threads with -DNLA_STANDALONE.  Tests run in
 * order in one process; the first failed assertion exits with status 1.
 */
#ifndef NLA_TESTS_STANDALONE_H
#define NLA_TESTS_STANDALONE_H

#include <stdio.h>
#include <stdlib.h>

typedef struct sa_test {
    const char *suite, *name;
    void (*fn)(void);
} sa_test;

void sa_register(const char *suite, const char *name, void (*fn)(void));
void sa_suite(void (*init)(void), void (*fini)(void));
void sa_fail(const char *file, int line, int fatal, const char *fmt, ...);

#define SA_FIRST_(fmt, ...) fmt
#define TestSuite(s, ...)                                                      \
    static struct { void (*init)(void); void (*fini)(void); int timeout; }     \
        sa_suite_##s = {__VA_ARGS__};                                          \
    __attribute__((constructor)) static void sa_suite_reg_##s(void)           \
    {                                                                          \
        sa_suite(sa_suite_##s.init, sa_suite_##s.fini);                        \
    }
#define Test(s, n, ...)                                                        \
    static void sa_##s##_##n(void);                                            \
    __attribute__((constructor)) static void sa_reg_##s##_##n(void)           \
    {                                                                          \
        sa_register(#s, #n, sa_##s##_##n);                                     \
    }                                                                          \
    static void sa_##s##_##n(void)
#define SA_CHECK(fatal, cond, ...)                                             \
    do {                                                                       \
        if (!(cond))                                                           \
            sa_fail(__FILE__, __LINE__, fatal, "" __VA_ARGS__);                \
    } while (0)
#define cr_assert(cond, ...) SA_CHECK(1, cond, __VA_ARGS__)
#define cr_expect(cond, ...) SA_CHECK(0, cond, __VA_ARGS__)
#define cr_assert_eq(a, b, ...) SA_CHECK(1, (a) == (b), __VA_ARGS__)
#define cr_expect_eq(a, b, ...) SA_CHECK(0, (a) == (b), __VA_ARGS__)
#define cr_assert_not_null(p, ...) SA_CHECK(1, (p) != NULL, __VA_ARGS__)

#endif
