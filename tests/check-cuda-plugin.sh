#!/bin/sh
# The CUDA plugin from the outside (issue 7):
#   - libnla.so never links the CUDA driver or runtime (readelf -d);
#   - after a --with-cuda build, .libs/libnla-cuda.so exists, exports
#     nla_plugin_abi and nla_plugin_ops and nothing else, and loads:
#       * with no usable driver or device (CI): `nla info` reports cuda not
#         available with the plugin's own reason (no driver / no device),
#         AUTO resolves to the CPU, and NLA_BACKEND=cuda is refused with
#         that reason;
#       * with a device: `nla info` reports cuda available;
#       * either way `nla info` names the CUDA runtime and the driver the
#         plugin needs.
# Run by make check (NLA_BUILDDIR, NLA_WITH_CUDA, NLA_CUDA_PLUGIN set).
b=${NLA_BUILDDIR:-.}
lib="$b/.libs/libnla.so"
nla="$b/tools/nla"
fail() { echo "FAIL: $*"; exit 1; }

[ -f "$lib" ] || { echo "SKIP: $lib not built (static-only build)"; exit 77; }
needed=$(readelf -d "$lib" | grep NEEDED)
echo "$needed" | grep -i cuda && fail "$lib links CUDA"
echo "ok: $lib has no CUDA library among its NEEDED entries"

if [ "${NLA_WITH_CUDA:-no}" != yes ]; then
    echo "SKIP: the CUDA plugin was not built (configure --without-cuda, or no nvcc)"
    exit 77
fi
plugin=${NLA_CUDA_PLUGIN:-$b/.libs/libnla-cuda.so}
[ -f "$plugin" ] || fail "$plugin was not built"
echo "ok: $plugin exists"
exports=$(nm -D --defined-only "$plugin" | awk '{print $NF}' | sort | tr '\n' ' ')
[ "$exports" = "nla_plugin_abi nla_plugin_ops " ] ||
    fail "$plugin exports '$exports', not just nla_plugin_abi and nla_plugin_ops"
echo "ok: it exports nla_plugin_abi and nla_plugin_ops only"
readelf -d "$plugin" | grep NEEDED | grep -Ei 'libcudart|libcublas|libcufft' &&
    fail "$plugin links a shared CUDA runtime or a reference library"
echo "ok: it links the CUDA runtime statically, and neither cuBLAS nor cuFFT"

info=$(env -u NLA_BACKEND NLA_PLUGIN_PATH="$plugin" "$nla" info) || fail "nla info failed"
line=$(echo "$info" | grep '^  cuda ')
echo "nla info: $line"
# the driver this build's plugin needs (issue 38)
echo "$info" | grep -q "this build's plugin: CUDA [0-9.]* runtime" ||
    fail "nla info does not say which CUDA runtime (and driver) the plugin needs"
echo "$info" | grep -q "driver R[0-9]* or newer\|driver for CUDA" ||
    fail "nla info does not name the driver the plugin needs"
if echo "$line" | grep -q 'cuda  available'; then
    echo "$info" | grep -q '^  auto  -> cuda' || fail "a device is present, but AUTO is not cuda"
    echo "ok: a CUDA device is present; the plugin reports it available"
    exit 0
fi
# the loader opened the plugin and accepted its ABI: the reason is the plugin's
case $line in
    *"not found"*|*"cannot be loaded"*|*"not a libnla plugin"*|*ABI*)
        fail "the plugin did not load: $line" ;;
    *driver*|*device*) ;;
    *) fail "the reason names neither the driver nor a device: $line" ;;
esac
echo "$info" | grep -q '^  auto  -> cpu' || fail "AUTO does not fall back to the CPU"
echo "ok: no driver/device: cuda not available, AUTO -> cpu"
forced=$(NLA_BACKEND=cuda NLA_PLUGIN_PATH="$plugin" "$nla" info | grep '^  auto ')
echo "NLA_BACKEND=cuda: $forced"
case $forced in
    *fails*"not available"*driver*|*fails*"not available"*device*) ;;
    *) fail "NLA_BACKEND=cuda was not refused with the plugin's reason" ;;
esac
err=$(NLA_PLUGIN_PATH="$plugin" "$nla" bench --backend cuda --quick 2>&1 >/dev/null)
rc=$?
case $err in
    "CUDA backend not available: "*) [ "$rc" -eq 3 ] ;;
    *) false ;;
esac || fail "nla bench --backend cuda: exit $rc, '$err'"
echo "ok: NLA_BACKEND=cuda refused; nla bench --backend cuda exits 3 with the reason"
echo "PASS"
