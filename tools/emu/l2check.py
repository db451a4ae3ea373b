"""libnla's level-2 kernel tables (tools/emu/tabs.c) against float64
references: gemv N/T, gbmv N/T and spmv U/L, double and float.

ISA=avx512 runs that table under the emulator (x86emu.py); any other
table (avx2, generic) runs natively, the control.  For gbmv every
tuning profile's thresholds are tried, so that each band form runs; the
zen3 and zen5small rows are also run in thread blocks (lo, hi) and must
give the same bits (src/blas/kernels/level2_kernels.h).  Arrays sit
against unmapped pages in the emulator, so a read outside them fails
the case.  Run by tools/emu/run.sh; QUICK=1 drops the large sizes, SEED
picks the inputs, EMU_COVER=1 reports the instructions of each function
that ran, and EMU_COVER=lines also the source lines of those that did
not (addr2line)."""
import ctypes as C
import os
import re
import struct
import subprocess
import sys

import numpy as np

import x86emu as emu

TABLES = {"generic": 0, "avx2": 1, "avx512": 2}
KERNELS = {"gemv_n": 0, "gemv_t": 1, "gbmv_n": 2, "gbmv_t": 3, "spmv_u": 4, "spmv_l": 5}
ISA = os.environ.get("ISA", "avx512")
EMULATED = ISA == "avx512"
emu.LIB.emu_l2_table.restype = C.c_void_p
emu.LIB.emu_l2_table.argtypes = [C.c_int]
TABLE = emu.LIB.emu_l2_table(TABLES[ISA])

# nla_l2_tune (level2_kernels.h), each profile as src/blas/level2.c sets it;
# zen3small streams from 2 KiB (and the transposed Trans form's runs from 2
# KiB of band) so that the small cases take those forms too; zen5small
# takes the NoTrans column form's large-band path (y scaled as the passes
# reach it, two columns a pass from 192-byte columns) at every size
BIG = (1 << 63) - 1
PROFILES = {
    "zen5": (12 << 20, 8192, 120, BIG, 108, 0, 512, 256, 0, 0, 0, 0, 0, 0, 0, 128 << 20),
    "xeon": (12 << 20, BIG, BIG, BIG, BIG, 1, 320, 320, 1, 1, 0, 0, 0, 0, 0, 0),
    "zen3": (0, 8192, 120, 96, 64, 0, 256, 256, 0, 0, 65536, 100, 12 << 20, 32 << 20, 64, 0),
    "zen3small": (0, 8192, 120, 96, 64, 0, 256, 256, 0, 0, 2048, 100, 0, 2048, 64, 0),
    "zen5small": (12 << 20, 8192, 120, BIG, 108, 0, 512, 256, 0, 0, 0, 0, 0, 0, 0, 1),
}
TUNE_FMT = "<5qi4x2qii6q"
emu.LIB.emu_l2_tune_size.restype = C.c_size_t
if emu.LIB.emu_l2_tune_size() != struct.calcsize(TUNE_FMT):
    sys.exit("l2check.py: nla_l2_tune changed; update TUNE_FMT and PROFILES")
EPS = {"d": float(np.finfo(np.float64).eps), "s": float(np.finfo(np.float32).eps)}
# each kernel's parameters in order: i integer or pointer, f T
SIGS = {"gemv_n": "iiiiifii", "gemv_t": "iiiiiffi", "gbmv_n": "iiiiiiiffiiiii",
        "gbmv_t": "iiiiiiiffiiiii", "spmv_u": "iiiiiii", "spmv_l": "iiiiiii"}

fails = []
nchecks = [0]


def kernel(p, name):
    return C.c_void_p.from_address(TABLE + 8 + 8 * (6 * (p == "s") + KERNELS[name])).value


def run(p, name, args, tag):
    """args in the kernel's order; False if the call faulted"""
    sig = SIGS[name]
    ints = [a for a, s in zip(args, sig) if s == "i"]
    flts = [a for a, s in zip(args, sig) if s == "f"]
    if EMULATED:
        try:
            emu.call(kernel(p, name), ints[:6], flts, ints[6:], double=(p == "d"))
        except RuntimeError as e:
            fails.append(f"{tag}: {e}")
            return False
        return True
    T = C.c_double if p == "d" else C.c_float
    proto = C.CFUNCTYPE(None, *[T if s == "f" else C.c_int64 for s in sig])
    proto(kernel(p, name))(*args)
    return True


def array(n, p, at_end, off):
    dt = np.float64 if p == "d" else np.float32
    size = np.dtype(dt).itemsize
    ptr = emu.alloc(max(n, 1) * size, off * size, at_end)
    return np.frombuffer((C.c_char * (max(n, 1) * size)).from_address(ptr), dtype=dt)[:n], ptr


def tune(name):
    b = struct.pack(TUNE_FMT, *PROFILES[name])
    ptr = emu.alloc(len(b))
    C.memmove(ptr, b, len(b))
    return ptr


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


def gemv_case(rng, p, trans, m, n, ldx, cached, at_end, off, alpha, beta):
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
    tag = f"{ISA} {p}gemv {trans} m={m} n={n} lda={lda} cached={cached} off={off}"
    if trans == "N":  # the kernel adds alpha*A*x to y; the driver scales y first
        ok = run(p, "gemv_n", [m, n, ap, lda, xp, alpha, yp, cached], tag)
        yb = y0
    else:
        ok = run(p, "gemv_t", [m, n, ap, lda, xp, alpha, beta, yp], tag)
        yb = beta * y0
    if ok:
        check_axpy(tag, p, np.array(y), yb, alpha, Ad, np.array(x, dtype=np.float64), lx)


def gbmv_case(rng, p, trans, m, n, kl, ku, ldx, prof, at_end, off, alpha, beta, team, splits):
    emu.free_all()
    w = kl + ku + 1
    ldab = w + ldx
    ab, abp = array(ldab * n, p, at_end, off)
    ab[:] = rng.standard_normal(ldab * n)
    A = np.zeros((m, n))
    for j in range(n):
        i0, i1 = max(0, j - ku), min(m, j + kl + 1)
        A[i0:i1, j] = ab[j * ldab + ku + i0 - j: j * ldab + ku + i1 - j]
    Ad = A if trans == "N" else A.T
    lx, ly = (n, m) if trans == "N" else (m, n)
    x, xp = array(lx, p, at_end, (off * 3) % 8)
    x[:] = rng.standard_normal(lx)
    y, yp = array(ly, p, not at_end, (off * 5) % 8)
    # beta == 0 must not read y: it starts as NaN
    y0 = (rng.standard_normal(ly) if beta != 0 else np.full(ly, np.nan)).astype(y.dtype)
    tp = tune(prof)
    name = "gbmv_n" if trans == "N" else "gbmv_t"
    tag = (f"{ISA} {p}gbmv {trans} m={m} n={n} kl={kl} ku={ku} ldab={ldab} {prof} "
           f"off={off}{' at end' if at_end else ''} alpha={alpha} beta={beta} team={team}")
    outs = []
    for cuts in splits:
        y[:] = y0
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            args = [m, n, kl, ku, abp, ldab, xp, alpha, beta, yp, lo, hi]
            args += [team, tp]
            if lo < hi and not run(p, name, args, tag):
                return
        outs.append(np.array(y))
    yb = np.zeros(ly) if beta == 0 else beta * y0.astype(np.float64)
    check_axpy(tag, p, outs[0], yb, alpha, Ad, np.array(x, dtype=np.float64), w)
    for out, cuts in zip(outs[1:], splits[1:]):
        nchecks[0] += 1
        if out.tobytes() != outs[0].tobytes():
            fails.append(f"{tag}: blocks {cuts} change the bits")


def spmv_case(rng, p, uplo, n, cuts, pf, at_end, off):
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
    name = "spmv_u" if uplo == "U" else "spmv_l"
    for j0, j1 in zip(cuts[:-1], cuts[1:]):
        acc, accp = array(n, p, not at_end, 0)
        acc[:] = 0
        tag = f"{ISA} {p}spmv {uplo} n={n} columns [{j0}, {j1}) pf={pf} off={off}"
        if not run(p, name, [n, app, xp, accp, j0, j1, pf], tag):
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
            for m, n in [(1, 1), (7, 5), (33, 40), (100, 97), (260, 300)] + ([] if quick else [(700, 690)]):
                for ldx in (0, 3):
                    gemv_case(rng, p, trans, m, n, ldx, int(m * n < 5000), bool(ldx),
                              offs[(m + n) % 4], 0.75, 0.5)
        for uplo in "UL":
            for n in (1, 2, 5, 17, 64, 131) + (() if quick else (400,)):
                for pf in (0, 1):
                    spmv_case(rng, p, uplo, n, [0, n] if n < 5 else [0, n // 3, n], pf,
                              bool(pf), offs[n % 4])
        # every diagonal-wise width (1..8), the transposed and slab widths,
        # both sides of the aligned form's threshold, and wide bands
        widths = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (0, 3), (2, 2), (2, 3), (3, 3),
                  (3, 4), (4, 4), (5, 2), (4, 5), (5, 5), (6, 5), (6, 6), (7, 7), (8, 8),
                  (5, 11), (12, 11), (15, 15), (16, 16), (20, 12), (31, 31), (32, 32),
                  (24, 23), (40, 23), (64, 64), (0, 40), (40, 0)]
        sizes = [(300, 300), (301, 250), (250, 301)] + ([] if quick else [(2400, 2400)])
        for kl, ku in widths:
            for m, n in sizes:
                if kl > m - 1 or ku > n - 1:
                    continue
                for trans in "NT":
                    ly = m if trans == "N" else n
                    # narrow bands: unpadded storage (ldab = w) has forms of its own
                    for ldx, prof in [(ldx, prof) for prof in PROFILES
                                      for ldx in ((0, 2) if kl + ku < 8 else ((kl + ku) % 3,))]:
                        splits = [[0, ly]]
                        if prof in ("zen3", "zen5small"):  # blocks start at multiples of 64
                            splits += [[0, ly // 128 * 64, ly], [0, 64, 128, ly]]
                        for team in (1, 2):
                            gbmv_case(rng, p, trans, m, n, kl, ku, ldx, prof,
                                      bool((kl + m) % 2), offs[(kl * 7 + ku) % 4],
                                      [1.0, -0.5][(m + ku) % 2],
                                      [0.5, 0.0, 1.0][(kl + ku + team) % 3], team, splits)


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
