/*
 * fw_assign.c - the Birkhoff polytope's LMO: the permutation matrix P
 * minimizing <G, P>, an assignment problem, solved exactly in O(n^3) by
 * shortest augmenting paths with dual potentials (the Hungarian method in
 * Jonker and Volgenant's form, without their initialization heuristics).
 *
 * Rows are assigned one at a time.  For row i, a Dijkstra-like search over
 * the columns, on the reduced costs G[r][j] - u[r] - v[j] >= 0, finds the
 * cheapest alternating path from i to a free column; the potentials then
 * move by the path lengths, keeping every reduced cost non-negative and
 * every assigned one zero, and the path flips.  After n rows the
 * assignment is optimal (the potentials are a dual certificate).  The
 * search takes the lowest column on ties, so equal G give equal answers.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "opt/fw.h"

size_t fw_assign_bytes(int64_t n)
{
    return (size_t)(n + 1) * (3 * sizeof(double) + 2 * sizeof(int64_t) + 1);
}

/* v = the permutation matrix (n non-zeros of 1, indices ascending) of a
   least-cost assignment for the n-by-n column-major cost g: P[i][j] = 1
   assigns row i to column j.  buf: fw_assign_bytes(n). */
void fw_lmo_birkhoff(const double *g, int64_t n, fw_vertex *v, void *buf)
{
    /* index 0 is a virtual column that holds the row being assigned */
    double *u = buf, *pv = u + (n + 1), *minv = pv + (n + 1);
    int64_t *row = (int64_t *)(minv + (n + 1)), *prev = row + (n + 1);
    unsigned char *done = (unsigned char *)(prev + (n + 1));

    for (int64_t j = 0; j <= n; j++) {
        u[j] = pv[j] = 0;
        row[j] = 0;
    }
    for (int64_t i = 1; i <= n; i++) {
        int64_t j0 = 0, j1 = 0;
        row[0] = i;
        for (int64_t j = 0; j <= n; j++) {
            minv[j] = INFINITY;
            done[j] = 0;
        }
        do {                      /* grow the shortest-path tree by a column */
            int64_t r = row[j0];
            double delta = INFINITY;
            done[j0] = 1;
            for (int64_t j = 1; j <= n; j++) {
                double red;
                if (done[j])
                    continue;
                red = g[(r - 1) + (j - 1) * n] - u[r] - pv[j];
                if (red < minv[j]) {
                    minv[j] = red;
                    prev[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int64_t j = 0; j <= n; j++)
                if (done[j]) {
                    u[row[j]] += delta;
                    pv[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            j0 = j1;
        } while (row[j0] != 0);
        do {                      /* flip the path back to the virtual column */
            j1 = prev[j0];
            row[j0] = row[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    v->kind = FW_VX_SPARSE;
    v->nnz = n;
    for (int64_t j = 1; j <= n; j++) {
        v->idx[j - 1] = (row[j] - 1) + (j - 1) * n;
        v->val[j - 1] = 1;
    }
}
