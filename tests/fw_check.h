/*
 * fw_check.h - what the Frank-Wolfe test suites (test_fw.c, test_fw_quad.c)
 * share.
 */
#ifndef NLA_TEST_FW_CHECK_H
#define NLA_TEST_FW_CHECK_H

#include <criterion/criterion.h>
#include "nla.h"

/* options with the variant, step rule (and its L), tol and max_iter */
static inline nla_fw_options *options(nla_fw_variant v, nla_fw_step_rule rule, double L,
                                      double tol, int64_t max_iter)
{
    nla_fw_options *o = NULL;
    cr_assert_eq(nla_fw_options_create(&o), NLA_OK);
    cr_assert_eq(nla_fw_options_set_variant(o, v), NLA_OK);
    cr_assert_eq(nla_fw_options_set_step(o, rule, L), NLA_OK, "%s", nla_last_error());
    cr_assert_eq(nla_fw_options_set_tol(o, tol), NLA_OK);
    cr_assert_eq(nla_fw_options_set_max_iter(o, max_iter), NLA_OK);
    return o;
}

#endif
