"""Call x86-64 functions of a shared library under bochscpu (Bochs's CPU
as a library: AVX-512 on any host), for tools/emu/l2check.py.

The emulated CPU sees this process's own pages, mapped one to one: the
library's (EMU_LIB), libc's and ld.so's, and an arena of SLOTS slots that
holds the stack, the return page and every array.  The first and last page
of each slot are left out of the emulator's page tables, so an array
placed against either (alloc's at_end) faults on any access past its end
or before its start.  Calls follow the SysV ABI; a call ends when the
function returns to a page of hlt instructions."""
import ctypes
import mmap
import os
import struct

import bochscpu
import bochscpu.cpu
import bochscpu.memory

PAGE = 4096
LIB = ctypes.CDLL(os.environ["EMU_LIB"], mode=os.RTLD_NOW | os.RTLD_GLOBAL)

SLOT = 4 << 20
SLOTS = 48
ARENA_BYTES = SLOT * SLOTS
_arena = mmap.mmap(-1, ARENA_BYTES, prot=mmap.PROT_READ | mmap.PROT_WRITE)
ARENA = ctypes.addressof(ctypes.c_char.from_buffer(_arena))
RET = ARENA + PAGE  # slot 0: the return page, then the stack
STACK_TOP = ARENA + SLOT - 2 * PAGE
ctypes.memmove(RET, b"\xf4" * 16, 16)  # hlt (a #GP at CPL 3: either ends the run)
_next_slot = [1]


def alloc(nbytes, off=0, at_end=False):
    """An array of nbytes in a slot of its own: off bytes after the slot's
    first mapped byte, or (at_end) ending off bytes before its last."""
    i = _next_slot[0]
    _next_slot[0] += 1
    if i >= SLOTS or nbytes + off > SLOT - 2 * PAGE:
        raise MemoryError("emulator arena: too many or too large arrays")
    base = ARENA + i * SLOT
    return base + SLOT - PAGE - off - nbytes if at_end else base + PAGE + off


def free_all():
    _next_slot[0] = 1


def _guard(va):
    return ARENA <= va < ARENA + ARENA_BYTES and (va - ARENA) % SLOT in (0, SLOT - PAGE)


def _regions():
    names = (os.path.basename(LIB._name), "libc.so", "ld-linux")
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split()
            lo, hi = (int(v, 16) for v in fields[0].split("-"))
            path = fields[5] if len(fields) > 5 else ""
            if fields[1][0] == "r" and any(n in path for n in names):
                out.append((lo, hi))
    out.append((ARENA, ARENA + ARENA_BYTES))
    return out


def _missing_page(gpa):
    raise RuntimeError(f"emulator: no page at physical {gpa:#x}")


_sess = bochscpu.Session()
_sess.missing_page_handler = _missing_page
_pt = bochscpu.memory.PageMapLevel4Table()
_gpa = 0x100_0000
for _lo, _hi in _regions():
    for _va in range(_lo, _hi, PAGE):
        if not _guard(_va):
            _pt.insert(_va, _gpa, 1)  # present, user, writable
            bochscpu.memory.page_insert(_gpa, _va)
            _gpa += PAGE
PML4 = _gpa + (16 << 20)
for _hva, _g in _pt.commit(PML4):
    bochscpu.memory.page_insert(_g, _hva)

_stop = {}
COVER = set()  # with EMU_COVER set: every rip executed


def _on_exception(sess, cpu_id, vector, error_code):
    _stop["exc"] = (vector, error_code, sess.cpu.rip, sess.cpu.cr2)
    sess.stop()


def _on_hlt(sess, cpu_id):
    _stop["hlt"] = True
    sess.stop()


_hook = bochscpu.Hook()
_hook.exception = _on_exception
_hook.hlt = _on_hlt
if os.environ.get("EMU_COVER"):
    def _on_before(sess, cpu_id, insn):
        COVER.add(sess.cpu.rip)
    _hook.before_execution = _on_before


def _segment(selector, attr):
    s = bochscpu.Segment()
    s.present = True
    s.selector = selector
    s.base = 0
    s.limit = 0xFFFFFFFF
    s.attr = attr
    return s


def _bits(v, double):
    return struct.unpack("<Q", struct.pack("<d", v))[0] if double else \
        struct.unpack("<I", struct.pack("<f", v))[0]


def call(fn, ints, floats=(), stack=(), double=True):
    """fn(...) with the integer arguments ints in rdi, rsi, rdx, rcx, r8, r9,
    the floating ones in xmm0.. (double or float) and the rest of the
    integer ones on the stack, in 64-bit long mode at CPL 3 with SSE, AVX and
    AVX-512 state enabled.  Raises RuntimeError if the run ends other than
    by returning (a fault: a page outside the mapped ones, say)."""
    st = bochscpu.State()
    bochscpu.cpu.set_long_mode(st)
    st.cr3 = PML4
    st.cr4 = st.cr4 | (1 << 9) | (1 << 10) | (1 << 18)  # OSFXSR, OSXMMEXCPT, OSXSAVE
    st.xcr0 = 0xE7  # x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
    st.cs = _segment(0x33, 0x22FB)  # 64-bit user code
    data = _segment(0x2B, 0xCF3)
    st.ds = st.ss = st.es = st.fs = st.gs = data
    st.rflags = 0x202
    st.mxcsr = 0x1F80
    words = [RET] + list(stack)
    sp = ((STACK_TOP - 8 * len(words) - 8) & ~15) + 8  # rsp + 8 16-aligned at entry
    ctypes.memmove(sp, struct.pack("<%dQ" % len(words), *words), 8 * len(words))
    st.rsp = sp
    st.rip = fn
    for reg, v in zip(("rdi", "rsi", "rdx", "rcx", "r8", "r9"), ints):
        setattr(st, reg, v & 0xFFFFFFFFFFFFFFFF)
    zmm = st.zmm
    for i, v in enumerate(floats):
        z = zmm[i]
        q = [0] * 8
        q[0] = _bits(v, double)
        z.q = q
        zmm[i] = z
    st.zmm = zmm
    _sess.cpu.state = st
    _stop.clear()
    _sess.run([_hook])
    if "hlt" in _stop:
        return
    vector, code, rip, cr2 = _stop.get("exc", (None, 0, 0, 0))
    if vector == 13 and RET <= rip < RET + 16:
        return
    raise RuntimeError(f"emulated call ended by exception {vector} (error code {code:#x}) "
                       f"at rip {rip:#x}, cr2 {cr2:#x}")
