/*
 * plugin.c - load the CUDA backend, libnla-cuda.so, once per process.
 *
 * libnla never links the CUDA runtime: the plugin does, and is opened with
 * dlopen the first time anything asks for CUDA.  Every failure (no file,
 * missing symbols, wrong ABI number, no driver, no device) just makes the
 * backend unavailable, with a reason kept for `nla info`.  Nothing prints.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "internal.h"

#ifndef NLA_PKGLIBDIR
#define NLA_PKGLIBDIR "/usr/local/lib/nla"
#endif
#define PLUGIN_FILE "libnla-cuda.so"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct nla_backend_ops *cuda_ops;
static char reason[1400];

/* NLA_PLUGIN_PATH names the plugin file or a folder that holds it. */
static void plugin_path(char *path, size_t len)
{
    const char *env = getenv("NLA_PLUGIN_PATH");
    struct stat st;
    if (env && *env) {
        if (stat(env, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(path, len, "%s/%s", env, PLUGIN_FILE);
        else
            snprintf(path, len, "%s", env);
    } else {
        snprintf(path, len, "%s/%s", NLA_PKGLIBDIR, PLUGIN_FILE);
    }
}

static void load(void)
{
    char path[1024], why[256];
    void *h;
    nla_plugin_abi_fn abi_fn;
    nla_plugin_ops_fn ops_fn;
    const struct nla_backend_ops *ops;
    int abi;

    plugin_path(path, sizeof path);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        struct stat st;
        const char *env = getenv("NLA_PLUGIN_PATH");
        if (stat(path, &st) != 0)
            snprintf(reason, sizeof reason, "%s not found (%s)%s", PLUGIN_FILE, path,
                     env && *env ? ""
                                 : "; NLA_PLUGIN_PATH names the plugin or its folder "
                                   "(in a build tree: .libs)");
        else
            snprintf(reason, sizeof reason, "%s cannot be loaded: %.200s", path,
                     e ? e : "unknown error");
        return;
    }
    *(void **)&abi_fn = dlsym(h, "nla_plugin_abi");
    *(void **)&ops_fn = dlsym(h, "nla_plugin_ops");
    if (!abi_fn || !ops_fn) {
        snprintf(reason, sizeof reason, "%s is not a libnla plugin (no entry points)",
                 path);
        dlclose(h);
        return;
    }
    abi = abi_fn();
    if (abi != NLA_PLUGIN_ABI) {
        snprintf(reason, sizeof reason,
                 "%s has plugin ABI %d, libnla needs %d", path, abi, NLA_PLUGIN_ABI);
        dlclose(h);
        return;
    }
    ops = ops_fn();
    if (!ops || ops->abi != NLA_PLUGIN_ABI) {
        snprintf(reason, sizeof reason, "%s returned %s", path,
                 ops ? "a backend table of another ABI" : "no backend table");
        dlclose(h);
        return;
    }
    why[0] = '\0';
    if (!ops->available || !ops->available(why, sizeof why)) {
        snprintf(reason, sizeof reason, "%s", why[0] ? why : "no usable device");
        dlclose(h);
        return;
    }
    /* the handle stays open for the life of the process */
    cuda_ops = ops;
}

const struct nla_backend_ops *nla_plugin_cuda(void)
{
    pthread_once(&load_once, load);
    return cuda_ops;
}

NLA_API const char *nla_backend_unavailable_reason(nla_backend b)
{
    if (b == NLA_BACKEND_CUDA)
        return nla_plugin_cuda() ? "" : reason;
    if (b == NLA_BACKEND_CPU || b == NLA_BACKEND_AUTO)
        return "";
    return "unknown backend";
}
