#!/bin/sh
# check-cuda-sass.sh - make check: the compiled CUDA plugin, read with
# cuobjdump (no GPU needed).  A change that silently loses the FP64 tensor
# cores, starts spilling or drops the 16-byte loads fails here.
#   - every double GEMM kernel on the tensor cores has DMMA instructions;
#   - no kernel (GEMM, level 2, FFT, Frank-Wolfe) has a stack frame or
#     local memory (the launch bounds' register caps are met without
#     spilling);
#   - static shared memory of every kernel within 48 KiB;
#   - 16-byte global loads where the source asks for them: the aligned
#     GEMM copies (cp.async 16 bytes, LDGSTS.128; SIMT LDG.128), the
#     vector forms of gemv and gbmv (N: ldab == band; T: aligned) and
#     spmv's tiles (LDG.128).
# Skipped (77) without the plugin or without
# cuobjdump: NLA_CUOBJDUMP, PATH, the CUDA toolkit, or the venv that
# ./quickstart.sh check makes in the build folder (cuda-tools; PyPI's
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm).
b=${NLA_BUILDDIR:-.}
plugin=${NLA_CUDA_PLUGIN:-$b/.libs/libnla-cuda.so}
if [ "${NLA_WITH_CUDA:-no}" != yes ] || [ ! -f "$plugin" ]; then
    echo "SKIP: the CUDA plugin was not built (configure found no nvcc)"
    exit 77
fi
cuobj=${NLA_CUOBJDUMP:-}
[ -n "$cuobj" ] || cuobj=$(command -v cuobjdump 2>/dev/null)
for c in /usr/local/cuda/bin/cuobjdump; do
    [ -n "$cuobj" ] || { [ -x "$c" ] && cuobj=$c; }
done
[ -n "$cuobj" ] || cuobj=$(find "$b/cuda-tools" -name cuobjdump -type f 2>/dev/null | head -n 1)
if [ -z "$cuobj" ] || [ ! -x "$cuobj" ]; then
    echo "SKIP: no cuobjdump (set NLA_CUOBJDUMP, or pip install nvidia-cuda-cuobjdump" \
         "nvidia-cuda-nvdisasm; ./quickstart.sh check does)"
    exit 77
fi
# cuobjdump -sass runs nvdisasm from PATH
PATH=$(dirname "$cuobj"):$PATH
export PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nla-sass.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$cuobj" -res-usage "$plugin" >"$tmp/res" 2>&1 || { cat "$tmp/res"; bad "cuobjdump -res-usage"; }
"$cuobj" -sass "$plugin" >"$tmp/sass" 2>&1 || { tail -n 5 "$tmp/sass"; bad "cuobjdump -sass"; }
echo "cuobjdump: $("$cuobj" --version | tail -n 1); $(grep -c 'Function' "$tmp/res") kernels"

# resources: "Function NAME:" then "REG:n STACK:n SHARED:n LOCAL:n ..."
awk '/Function/ { f = $2; sub(/:$/, "", f) }
     /REG:/ { for (i = 1; i <= NF; i++) { split($i, kv, ":"); v[kv[1]] = kv[2] }
              print f, v["REG"], v["STACK"], v["SHARED"], v["LOCAL"] }' "$tmp/res" >"$tmp/kernels"
spill=$(awk '$3 > 0 || $5 > 0' "$tmp/kernels")
[ -z "$spill" ] || bad "kernels with a stack frame or local memory:
$spill"
big=$(awk '$4 > 49152 || $2 > 255' "$tmp/kernels")
[ -z "$big" ] || bad "kernels over 48 KiB of static shared memory or 255 registers: $big"
for f in gemm level2 fft fft_mixed fw; do
    [ "$(awk -v f="_${f}_cu_" 'index($1, f)' "$tmp/kernels" | wc -l)" -gt 0 ] ||
        bad "no kernel of $f.cu found in the plugin"
done
echo "resources: all $(wc -l <"$tmp/kernels") kernels (GEMM, level 2, FFT, Frank-Wolfe)" \
     "without stack or local memory"

# instructions per kernel: "Function : NAME" then its SASS
awk '/Function :/ { f = $3; n[f] = 0; d[f] = 0; g[f] = 0; l[f] = 0 }
     /DMMA/ { d[f]++ } /LDGSTS[.A-Z]*\.128/ { g[f]++ } /LDG\.E\.128/ { l[f]++ }
     END { for (k in n) print k, d[k], g[k], l[k] }' "$tmp/sass" >"$tmp/insns"
# dgemm_mma_kernel<Cfg, TA, TB, VEC (2: 16-byte copies), K16>
ndmma=$(grep -c 'dgemm_mma_kernel' "$tmp/insns")
[ "$ndmma" -ge 32 ] || bad "$ndmma tensor-core double GEMM kernels, expected 32"
nodmma=$(awk '$1 ~ /dgemm_mma_kernel/ && $2 == 0 { print $1 }' "$tmp/insns")
[ -z "$nodmma" ] || bad "double GEMM kernels without DMMA: $nodmma"
novec=$(awk '($1 ~ /dgemm_mma_kernel.*ELi2ELb[01]EEEvNS_8GemmArgsIdEE$/ && $3 == 0) ||
             ($1 ~ /gemm_simt_kernel.*Lb1EEEvNS_8GemmArgsIT_EE$/ && $4 == 0) ||
             ($1 ~ /gemv_[nt]I(dLi2|fLi4)E/ && $4 == 0) { print $1 }' "$tmp/insns")
[ -z "$novec" ] || bad "kernels meant for 16-byte loads without them: $novec"
nvec=$(awk '$1 ~ /dgemm_mma_kernel.*ELi2ELb[01]EEEvNS_8GemmArgsIdEE$|gemm_simt_kernel.*Lb1EEEvNS_8GemmArgsIT_EE$|gemv_[nt]I(dLi2|fLi4)E/' "$tmp/insns" | wc -l)
[ "$nvec" -ge 32 ] || bad "only $nvec kernels meant for 16-byte loads were found"
# gbmv_n<T, WIDE = false, VEC = true>, gbmv_t<T, lanes, VEC = true>, spmv_tiles<T, UPPER>
l2vec='gbmv_nI[df]Lb0ELb1E|gbmv_tI[df]Li[0-9]+ELb1E|spmv_tilesI[df]Lb[01]E'
nol2=$(awk -v p="$l2vec" '$1 ~ p && $4 == 0 { print $1 }' "$tmp/insns")
[ -z "$nol2" ] || bad "gbmv or spmv kernels meant for 16-byte loads without them: $nol2"
nl2=$(awk -v p="$l2vec" '$1 ~ p' "$tmp/insns" | wc -l)
[ "$nl2" -ge 18 ] || bad "only $nl2 gbmv and spmv kernels meant for 16-byte loads were found, expected 18"
echo "instructions: DMMA in all $ndmma tensor-core double GEMM kernels; 16-byte loads in" \
     "all $nvec GEMM and gemv kernels and $nl2 gbmv and spmv kernels meant for them"
[ $fail -eq 0 ] && echo "PASS: the compiled plugin keeps DMMA, no spills, 16-byte loads"
exit $fail
