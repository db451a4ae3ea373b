/*
 * api_storage.c - the storage front end, instantiated for double and float.
 */
#include "check.h"
#include "storage/storage.h"

#define T double
#define P d
#define PS "d"
#include "api_storage_tmpl.h"
#undef T
#undef P
#undef PS

#define T float
#define P s
#define PS "s"
#include "api_storage_tmpl.h"
#undef T
#undef P
#undef PS
