/*
 * storage.c - band and packed-symmetric conversions, instantiated for
 * double and float from one template.
 */
#include "storage.h"

#define T double
#define P d
#include "storage_tmpl.h"
#undef T
#undef P

#define T float
#define P s
#include "storage_tmpl.h"
#undef T
#undef P
