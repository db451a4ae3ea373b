/*
 * scalapack.h - the ScaLAPACK and BLACS entry points that libnla-mpi's
 * tests and bench call as references (Debian's libscalapack ships no C
 * header for them).
 */
#ifndef NLA_TEST_SCALAPACK_H
#define NLA_TEST_SCALAPACK_H

void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, char *order, int nprow, int npcol);
void Cblacs_gridexit(int icontxt);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *b, const int *ib, const int *jb,
             const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);
void psgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *ia, const int *ja,
             const int *desca, const float *b, const int *ib, const int *jb,
             const int *descb, const float *beta, float *c, const int *ic, const int *jc,
             const int *descc);

#endif
