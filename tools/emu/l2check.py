"""libnla's level-2 kernel tables (tools/emu/tabs.c) against float64
references: gemv N/T, every gbmv band form (N rows and cols, T diag and
dots) and spmv U/L (few and many columns a pass), double and float.

ISA=avx512 runs that table under the emulator (x86emu.py); any other
table (avx2, generic) runs natively, the control.  Every band form runs
on every shape tried (the driver's crossovers play no part), unpadded
(ldab == w) and padded, and each form is also run in thread blocks
(lo, hi) that start at multiples of 64: the bits must be those of the
whole range at once (src/blas/kernels/level2_kernels.h), in any order of
the blocks, and the same for every ldab.  Blocks at other rows must
still give right values.  Arrays
sit against unmapped pages in the emulator, so a read outside them fails
the case; entries of ab outside the band (the corners and the padding)
are NaN, and so is y where beta == 0 (it must not be read).  Run by
tools/emu/run.sh; QUICK=1 drops the large sizes, SEED picks the inputs,
EMU_COVER=1 reports the instructions of each function that ran, and
EMU_COVER=lines also the source lines of those that did not (addr2line)."""
import ctypes as C
import os
import re
import subprocess
import sys

import numpy as np

import x86emu as emu

TABLES = {"generic": 0, "avx2": 1, "avx512": 2}
# tabs.c's numbering; gbmv's forms in nla_l2_gbmv_form's order
KERNELS = {"gemv_n": 0, "gemv_t": 1, "rows": 2, "cols": 3, "diag": 4, "dots": 5,
           "spmv": 6}
FORMS = {"N": ("rows", "cols"), "T": ("diag", "dots")}
ISA = os.environ.get("ISA", "avx512")
EMULATED = ISA == "avx512"
emu.LIB.emu_l2_kernel.restype = C.c_void_p
emu.LIB.emu_l2_kernel.argtypes = [C.c_int, C.c_int, C.c_int]
FNS = {(p, name): emu.LIB.emu_l2_kernel(TABLES[ISA], int(p == "s"), k)
       for p in "ds" for name, k in KERNELS.items()}
if not all(FNS.values()):
    sys.exit("l2check.py: a kernel of the table is missing (tabs.c)")
EPS = {"d": float(np.finfo(np.float64).eps), "s": float(np.finfo(np.float32).eps)}
# each kernel's parameters in order: i integer or pointer, f T
GBMV_SIG = "iiiiiiiffiii"  # m n kl ku ab ldab x alpha beta y lo hi
SIGS = {"gemv_n": "iiiiifii", "gemv_t": "iiiiiffii", "spmv": "iiiiiiii",
        **{f: GBMV_SIG for fs in FORMS.values() for f in fs}}
# thread blocks start at multiples of this (L2_ALIGN, src/blas/level2.c)
ALIGN = 64

fails = []
nchecks = [0]


def run(p, name, args, tag):
    """args in the kernel's order; False if the call faulted"""
    sig = SIGS[name]
    assert len(args) == len(sig), (name, args)
    ints = [a for a, s in zip(args, sig) if s == "i"]
    flts = [a for a, s in zip(args, sig) if s == "f"]
    if EMULATED:
        try:
            emu.call(FNS[p, name], ints[:6], flts, ints[6:], double=(p == "d"))
        except RuntimeError as e:
            fails.append(f"{tag}: {e}")
            return False
        return True
    T = C.c_double if p == "d" else C.c_float
    proto = C.CFUNCTYPE(None, *[T if s == "f" else C.c_int64 for s in sig])
    proto(FNS[p, name])(*args)
    return True


def array(n, p, at_end, off):
    """n elements against an unmapped page: after it, off elements in, or
    (at_end) ending right before the next one, so that any read past
    either end faults"""
    dt = np.float64 if p == "d" else np.float32
    size = np.dtype(dt).itemsize
    ptr = emu.alloc(max(n, 1) * size, 0 if at_end else off * size, at_end)
    if at_end and n == 0:
        ptr += size
    return np.frombuffer((C.c_char * (max(n, 1) * size)).from_address(ptr), dtype=dt)[:n], ptr


def check(tag, got, want, bound):
    nchecks[0] += 1
    bad = ~(np.abs(got.astype(np.float64) - want) <= bound)
    if bad.any():
        i = int(np.argmax(bad))
        fails.append(f"{tag}: {int(bad.sum())} wrong, first y[{i}] = {float(got[i])!r}, "
                     f"want {float(want[i])!r} within {float(bound[i]):.3g}")


def bound(p, terms, absprod, absy):
    return 3 * (terms + 4) * EPS[p] * (absprod + absy) + 1e-300


def check_axpy(tag, p, got, yb, alpha, Ad, xd, terms):
    """got = yb + alpha*Ad*xd, each entry a sum of terms products"""
    check(tag, got, yb + alpha * (Ad @ xd),
          bound(p, terms, abs(alpha) * (np.abs(Ad) @ np.abs(xd)), np.abs(yb)))


def gemv_case(rng, p, trans, m, n, ldx, at_end, off, alpha, beta, many):
    emu.free_all()
    lda = m + ldx
    a, ap = array(lda * n, p, at_end, off)
    a[:] = rng.standard_normal(lda * n)
    A = np.array(a, dtype=np.float64).reshape(n, lda).T[:m, :]
    lx, ly = (n, m) if trans == "N" else (m, n)
    x, xp = array(lx, p, at_end, (off * 3) % 8)
    x[:] = rng.standard_normal(lx)
    y, yp = array(ly, p, not at_end, (off * 5) % 8)
    y[:] = rng.standard_normal(ly)
    y0 = np.array(y, dtype=np.float64)
    Ad = A if trans == "N" else A.T
    tag = f"{ISA} {p}gemv {trans} m={m} n={n} lda={lda} off={off} many={many}"
    if trans == "N":  # the kernel adds alpha*A*x to y; the driver scales y first
        ok = run(p, "gemv_n", [m, n, ap, lda, xp, alpha, yp, many], tag)
        yb = y0
    else:
        ok = run(p, "gemv_t", [m, n, ap, lda, xp, alpha, beta, yp, many], tag)
        yb = beta * y0
    if ok:
        check_axpy(tag, p, np.array(y), yb, alpha, Ad, np.array(x, dtype=np.float64), lx)


def splits(ly, odd):
    """the blocks (lo, hi) each split of [0, ly) makes, in the order they run:
    the whole range; blocks at multiples of ALIGN, in order and reversed
    (a block that wrote outside itself would spoil its neighbour), and one
    cut in two (the bits must not change); with odd, blocks at other rows
    (values checked, bits not)"""
    out = [("whole", [(0, ly)], True)]
    cuts = list(range(0, ly, ALIGN)) + [ly]
    if len(cuts) > 2:
        blocks = list(zip(cuts[:-1], cuts[1:]))
        out.append((f"blocks of {ALIGN}", blocks, True))
        out.append((f"blocks of {ALIGN} reversed", blocks[::-1], True))
        mid = ly // (2 * ALIGN) * ALIGN
        if 0 < mid < ly and len(blocks) > 2:
            out.append((f"[0, {mid}) [{mid}, {ly})", [(0, mid), (mid, ly)], True))
    if odd and ly > 3:
        c = sorted({1, ly // 3 + 1, ly - 2 * (ly // 5) - 3, ly - 1} - {0, ly})
        cuts = [0] + [v for v in c if 0 < v < ly] + [ly]
        out.append((f"cuts {cuts[1:-1]}", list(zip(cuts[:-1], cuts[1:])), False))
    return out


def band_values(rng, m, n, kl, ku):
    """the band of an m x n matrix as LAPACK stores it, ldab = w (NaN for
    the entries of the corners, outside the matrix), and A itself"""
    w = kl + ku + 1
    k = np.arange(w)[:, None]
    j = np.arange(n)[None, :]
    i = j - ku + k  # row of entry k of column j
    inside = (i >= 0) & (i < m)
    band = rng.standard_normal((w, n))
    band[~inside] = np.nan
    return band, inside, i


def gbmv_case(rng, p, trans, m, n, kl, ku, ldxs, at_end, off, alpha, betas, odd):
    """every form of trans on this shape, for each padding ldab - w in ldxs,
    the same values for all: a form's bits must not depend on ldab (the
    AVX-512 vector paths for ldab == w sum in the scalar paths' order)"""
    w = kl + ku + 1
    band, inside, rows = band_values(rng, m, n, kl, ku)
    band = band.astype(np.float64 if p == "d" else np.float32)
    A = np.zeros((m, n))
    jj = np.broadcast_to(np.arange(n)[None, :], band.shape)
    A[rows[inside], jj[inside]] = band[inside]
    Ad = A if trans == "N" else A.T
    lx, ly = (n, m) if trans == "N" else (m, n)
    xv = rng.standard_normal(lx).astype(band.dtype).astype(np.float64)
    yv = rng.standard_normal(ly)
    u = np.uint64 if p == "d" else np.uint32
    for fi, form in enumerate(FORMS[trans]):
        beta = betas[fi % len(betas)]
        first = None  # the whole range's result, and its ldab
        for li, ldx in enumerate(ldxs):
            ldab = w + ldx
            place = at_end ^ bool((fi + li) % 2)
            emu.free_all()
            ab, abp = array(ldab * n, p, place, off)
            ab2 = ab.reshape(n, ldab)
            ab2[:, :w] = band.T
            ab2[:, w:] = np.nan
            x, xp = array(lx, p, place, (off * 3) % 8)
            x[:] = xv
            y, yp = array(ly, p, not place, (off * 5) % 8)
            # beta == 0 must not read y: it starts as NaN
            y0 = (yv if beta != 0 else np.full(ly, np.nan)).astype(y.dtype)
            tag = (f"{ISA} {p}gbmv {trans} {form} m={m} n={n} kl={kl} ku={ku} ldab={ldab} "
                   f"off={off}{' at end' if place else ''} alpha={alpha} beta={beta}")
            yb = np.zeros(ly) if beta == 0 else beta * y0.astype(np.float64)
            whole = None
            for what, blocks, same in splits(ly, odd):
                y[:] = y0
                ok = True
                for lo, hi in blocks:
                    args = [m, n, kl, ku, abp, ldab, xp, alpha, beta, yp, lo, hi]
                    if not run(p, form, args, f"{tag} lo={lo} hi={hi} ({what})"):
                        ok = False
                        break
                if not ok:
                    continue
                got = np.array(y)
                if what == "whole":
                    whole = got
                    if first is not None:
                        nchecks[0] += 1
                        bad = np.flatnonzero(got.view(u) != first[0].view(u))
                        if len(bad):
                            i = int(bad[0])
                            fails.append(f"{tag}: the bits of {len(bad)} differ from ldab="
                                         f"{first[1]}'s (first y[{i}] = {float(got[i])!r}, "
                                         f"there {float(first[0][i])!r})")
                    else:
                        first = (got, ldab)
                if same and whole is not None and got is not whole:
                    nchecks[0] += 1
                    bad = np.flatnonzero(got.view(u) != whole.view(u))
                    if len(bad):
                        i = int(bad[0])
                        fails.append(f"{tag}: {what} change the bits of {len(bad)} "
                                     f"(first y[{i}] = {float(got[i])!r}, "
                                     f"whole range {float(whole[i])!r})")
                else:
                    check_axpy(f"{tag} ({what})", p, got, yb, alpha, Ad, xv, w)


def spmv_case(rng, p, uplo, n, cuts, at_end, off, many):
    emu.free_all()
    npk = n * (n + 1) // 2
    ap, app = array(npk, p, at_end, off)
    ap[:] = rng.standard_normal(npk)
    x, xp = array(n, p, at_end, (off * 3) % 8)
    x[:] = rng.standard_normal(n)
    xd = np.array(x, dtype=np.float64)
    col = {}
    k = 0
    for j in range(n):
        rows = range(0, j + 1) if uplo == "U" else range(j, n)
        col[j] = (rows, np.array(ap[k:k + len(rows)], dtype=np.float64))
        k += len(rows)
    for j0, j1 in zip(cuts[:-1], cuts[1:]):
        acc, accp = array(n, p, not at_end, 0)
        acc[:] = 0
        tag = f"{ISA} {p}spmv {uplo} n={n} columns [{j0}, {j1}) off={off} many={many}" \
              f"{' at end' if at_end else ''}"
        if not run(p, "spmv", [int(uplo == "U"), n, app, xp, accp, j0, j1, many], tag):
            continue
        B = np.zeros((n, n))  # the columns' entries, each in both places
        for j in range(j0, j1):
            rows, v = col[j]
            B[rows.start:rows.stop, j] = v
            B[j, rows.start:rows.stop] = v
        check(tag, np.array(acc), B @ xd, bound(p, n, np.abs(B) @ np.abs(xd), 0))


def cases(rng, quick):
    offs = [0, 1, 3, 5]
    for p in "ds":
        for trans in "NT":
            for m, n in [(1, 1), (7, 5), (33, 40), (100, 97), (260, 300), (40, 129)] + ([] if quick else [(700, 690)]):
                for ldx in (0, 3):
                    for many in (0, 1):  # gemv's columns a pass: few, many
                        gemv_case(rng, p, trans, m, n, ldx, bool(ldx), offs[(m + n) % 4], 0.75,
                                  0.5, many)
        for uplo in "UL":
            for n in (1, 2, 5, 17, 64, 131) + (() if quick else (400,)):
                for at_end in (False, True):
                    for many in (0, 1):  # spmv's columns a pass: few, many
                        spmv_case(rng, p, uplo, n, [0, n] if n < 5 else [0, n // 3, n],
                                  at_end, offs[n % 4], many)
        # every width the narrow forms unroll (1..9) and past it (the
        # runtime width), AVX-512's vector paths (rows 2..5 unpadded,
        # regrouped, and vectors of rows from 6; diag 2..12) and their ends, the column form's narrow widths (1..3), and
        # wide bands; each unpadded and padded up to width 13
        widths = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (0, 3), (2, 2), (2, 3), (3, 3),
                  (3, 4), (4, 4), (5, 2), (7, 0), (0, 8), (4, 5), (5, 5), (6, 5), (0, 11),
                  (11, 0), (6, 6), (7, 7), (8, 8), (5, 11), (12, 11), (15, 15), (16, 16),
                  (20, 12), (31, 31), (32, 32), (24, 23), (40, 23), (64, 64), (0, 40),
                  (40, 0)]
        sizes = [(300, 300), (301, 250), (250, 301)] + ([] if quick else [(2400, 2400)])
        for kl, ku in widths:
            for m, n in sizes:
                if kl > m - 1 or ku > n - 1:
                    continue
                for trans in "NT":
                    w = kl + ku + 1
                    gbmv_case(rng, p, trans, m, n, kl, ku,
                              (0, 1 + w % 3) if w <= 13 else ((kl + ku) % 3,),
                              bool((kl + m) % 2), offs[(kl * 7 + ku) % 4],
                              [1.0, -0.5][(m + ku) % 2], [0.5, 0.0, 1.0][w % 3:] +
                              [0.5, 0.0, 1.0][:w % 3], (m, kl) == (301, 2) or w == 9)
        # small and borderline shapes: the band clipped to the matrix (kl =
        # m-1, ku = n-1), the vector paths' first and last groups, and sizes
        # with no whole vector group
        small = [(1, 1), (2, 3), (3, 2), (5, 7), (7, 5), (16, 16), (17, 9), (9, 17),
                 (33, 40), (40, 33), (48, 48), (49, 47), (64, 64), (65, 70), (90, 66)]
        if quick:
            small = small[::2] + [(64, 64)]
        for m, n in small:
            shapes = {(m - 1, n - 1), (min(m - 1, 1), min(n - 1, 2)), (min(m - 1, 3), 0),
                      (0, min(n - 1, 4)), (min(m - 1, 2), min(n - 1, 2)),
                      (min(m - 1, 5), min(n - 1, 6)), (min(m - 1, 7), min(n - 1, 8))}
            for kl, ku in sorted(shapes):
                for trans in "NT":
                    w = kl + ku + 1
                    gbmv_case(rng, p, trans, m, n, kl, ku, (0, 2), bool((kl + n) % 2),
                              offs[(m + ku) % 4], [0.75, -1.0][(n + kl) % 2],
                              [0.0, 0.5, 1.0][w % 3:] + [0.0, 0.5, 1.0][:w % 3], True)


def coverage():
    """instructions run / instructions, per function of the emulated table"""
    lib = emu.LIB._name
    base = min(int(l.split("-")[0], 16) for l in open("/proc/self/maps")
               if os.path.basename(lib) in l)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib],
                         capture_output=True, text=True).stdout
    funcs, cur = [], None
    for line in dis.splitlines():
        head = re.match(r"^([0-9a-f]+) <(.*)>:$", line)
        if head:
            cur = [head.group(2), []]
            funcs.append(cur)
        elif cur and re.match(r"^\s+[0-9a-f]+:\s", line):
            cur[1].append(int(line.split(":")[0], 16))
    ran = {r - base for r in emu.COVER}
    missed = []
    for name, addrs in funcs:
        n = sum(a in ran for a in addrs)
        if n:
            print(f"cover {name:32s} {n:6d} of {len(addrs):6d} instructions")
            missed += [a for a in addrs if a not in ran]
    if os.environ.get("EMU_COVER") == "lines" and missed:
        # the source lines of the instructions that never ran
        out = subprocess.run(["addr2line", "-e", lib] + [hex(a) for a in missed],
                             capture_output=True, text=True).stdout.split()
        lines = {}
        for where in out:
            lines[where] = lines.get(where, 0) + 1
        for where, k in sorted(lines.items()):
            print(f"missed {where} ({k} instructions)")


def main():
    rng = np.random.default_rng(int(os.environ.get("SEED", "7")))
    cases(rng, bool(os.environ.get("QUICK")))
    print(f"{ISA}{' (emulated)' if EMULATED else ''}: {nchecks[0]} checks, {len(fails)} failed")
    for f in fails[:40]:
        print("FAIL", f)
    if emu.COVER:
        coverage()
    sys.stdout.flush()
    os._exit(1 if fails else 0)  # (skips bochscpu's teardown, which crashes)


main()
