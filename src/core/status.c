/*
 * status.c - status strings, the version, and failure messages.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"

#ifndef NLA_VERSION_STRING
#define NLA_VERSION_STRING "unknown"
#endif

static _Thread_local char last_error[NLA_MSG_LEN];

NLA_API const char *nla_strerror(nla_status s)
{
    switch (s) {
    case NLA_OK:         return "success";
    case NLA_EINVAL:     return "invalid argument";
    case NLA_ENOMEM:     return "out of memory";
    case NLA_ENOTSUP:    return "operation not supported by this backend";
    case NLA_ENOBACKEND: return "backend not available";
    case NLA_EDEVICE:    return "device error";
    case NLA_EMAXITER:   return "iteration limit reached";
    case NLA_ENUMERIC:   return "non-finite value encountered";
    }
    return "unknown status";
}

NLA_API const char *nla_version(void)
{
    return NLA_VERSION_STRING;
}

NLA_API const char *nla_last_error(void)
{
    return last_error;
}

nla_status nla_fail(nla_context *ctx, nla_status s, const char *fn,
                    const char *fmt, ...)
{
    char body[NLA_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(last_error, sizeof last_error, "%.40s: %.200s", fn, body);
    if (ctx) {
        memcpy(ctx->msg, last_error, sizeof ctx->msg);
        ctx->form = "";
    }
    return s;
}

void nla_ok(nla_context *ctx)
{
    if (ctx) {
        ctx->msg[0] = '\0';
        ctx->form = "";
    }
}
