"""Checks a repaired linsolve wheel against its manylinux policy.

usage: wheel_policy.py WHEEL [--glibc-at-most 2.28]
       (run with the Python that has auditwheel)

Every shared object in the wheel may need only (a) objects the wheel itself
carries (linsolve/, linsolve.libs/), (b) the libraries the wheel's manylinux
policy allows from the system (auditwheel's own policy table: libc, libm,
libstdc++, ...) and the dynamic loader, or (c) the CUDA libraries the cuda13 extra declares
(linsolve/_cuda_libs.py's LIBRARIES) and the GPU driver, which only the CUDA
plugin may need, or (d) the OpenCL ICD loader libOpenCL.so.1, which only the
OpenCL plugin may need: the user's system or GPU driver provides it (the zig
toolchain's wheel does not graft it; the system toolchain's does). No CUDA
library may have been grafted into the wheel.

The manylinux tag is the newest glibc symbol version that any object asks for.
Each line names that version for its object, with the symbols that need the
newest one in the wheel. Our own objects (linsolve/) may not need a newer
glibc than every grafted library (linsolve.libs/) and glibc 2.28 (BASELINE)
do: such a symbol alone would raise the tag, and cmake/wheel_glibc_symver.h
should bind it older.
With --glibc-at-most X.Y (scripts/build-wheel.sh's LS_WHEEL_TOOLCHAIN=zig
wheel: 2.28), the wheel must claim manylinux_X_Y or an older policy, and no
shared object in it may need a glibc symbol newer than X.Y: checked here,
symbol by symbol, not taken from auditwheel's word.
A wheel may carry several tags (manylinux_2_27_x86_64.manylinux_2_28_x86_64):
the oldest, whose policy is the strictest, is the one checked.
Prints one line per shared object; exit status = the number of violations.
"""
import io
import json
import os
import re
import sys
import zipfile

import auditwheel
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection

DRIVER = {"libcuda.so.1"}
# the OpenCL ICD loader: the system's or the GPU driver's, which finds the
# installed OpenCL implementations (/etc/OpenCL/vendors)
OPENCL_LOADER = {"libOpenCL.so.1"}
# glibc 2.28 (manylinux_2_28, cibuildwheel's default image): our own objects
# may always need this much, even where every grafted library needs less.
BASELINE = (2, 28)
NOT_GRAFTED = re.compile(r"^lib(cuda|cudart|cublas|cublasLt|cusolver|cusparse|nvJitLink|cudss)[-.]")


def needed(data):
    elf = ELFFile(io.BytesIO(data))
    for section in elf.iter_sections():
        if isinstance(section, DynamicSection):
            return [t.needed for t in section.iter_tags() if t.entry.d_tag == "DT_NEEDED"]
    return []


def glibc_needs(data):
    """{symbol: (2, minor[, patch])}: the glibc version each imported symbol is bound to."""
    elf = ELFFile(io.BytesIO(data))
    names = {}
    for section in elf.iter_sections():
        if isinstance(section, GNUVerNeedSection):
            for _, auxs in section.iter_versions():
                for aux in auxs:
                    names[aux.entry.vna_other] = aux.name
    versym, dynsym = elf.get_section_by_name(".gnu.version"), elf.get_section_by_name(".dynsym")
    out = {}
    if versym is None or dynsym is None:
        return out
    for i, sym in enumerate(dynsym.iter_symbols()):
        ndx = versym.get_symbol(i)["ndx"]
        if sym["st_shndx"] != "SHN_UNDEF" or not isinstance(ndx, int):
            continue
        v = names.get(ndx & 0x7FFF, "")  # bit 15: a hidden version
        if v.startswith("GLIBC_2."):
            out[sym.name] = tuple(int(x) for x in v[len("GLIBC_"):].split("."))
    return out


def newest(needs):
    return max(needs.values(), default=(2, 0))


def declared_cuda(z):
    """LIBRARIES of linsolve/_cuda_libs.py inside the wheel, read without importing it."""
    src = z.read("linsolve/_cuda_libs.py").decode()
    m = re.search(r"^LIBRARIES = \(([^)]*)\)", src, re.M)
    return set(re.findall(r'"([^"]+)"', m.group(1)))


def manylinux_tags(path):
    """[(2, minor), ...] of the wheel name's platform tags, oldest first."""
    plat = os.path.basename(path)[:-len(".whl")].split("-")[-1]
    return sorted(tuple(int(x) for x in m.groups())
                  for m in (re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", t)
                            for t in plat.split(".")) if m)


def main(path, at_most=None):
    tags = manylinux_tags(path)
    if not tags:
        print(f"wheel_policy: {path} has no manylinux_X_Y_x86_64 tag")
        return 1
    name = "manylinux_{}_{}".format(*tags[0])
    policy_file = os.path.join(os.path.dirname(auditwheel.__file__), "policy",
                               "manylinux-policy.json")
    with open(policy_file) as f:
        policy = {p["name"]: p for p in json.load(f)}[name]
    # and the dynamic loader, which auditwheel allows as every program's interpreter
    allowed = set(policy["lib_whitelist"]) | {"ld-linux-x86-64.so.2"}
    bad = 0
    glibc = {}
    with zipfile.ZipFile(path) as z:
        names = [n for n in z.namelist() if re.search(r"\.so(\.|$)", os.path.basename(n))]
        carried = {os.path.basename(n) for n in names}
        cuda = declared_cuda(z)
        for n in sorted(names):
            base = os.path.basename(n)
            if NOT_GRAFTED.match(base):
                print(f"  {n}: a CUDA library grafted into the wheel (the cuda13 extra provides it)")
                bad += 1
            outside = [d for d in needed(z.read(n)) if d not in carried and d not in allowed]
            if base.startswith("liblinsolve_cuda"):
                external, source = cuda | DRIVER, "NVIDIA's wheels"
            elif base.startswith("liblinsolve_opencl"):
                external, source = OPENCL_LOADER, "the system's OpenCL ICD loader"
            else:
                external, source = set(), ""
            wrong = [d for d in outside if d not in external]
            declared = sorted(set(outside) - set(wrong))
            state = "ok" if not wrong else "external, not allowed: " + ", ".join(wrong)
            extra = f" (from {source}: {', '.join(declared)})" if declared else ""
            glibc[n] = glibc_needs(z.read(n))
            print(f"  {n}: {state}{extra}; glibc {'.'.join(map(str, newest(glibc[n])))}")
            bad += len(wrong)
    bad += glibc_report(glibc)
    if at_most:
        bad += glibc_at_most(tags[0], glibc, at_most)
    print(f"wheel_policy: {name}, {len(names)} shared objects, {bad} violation(s)")
    return bad


def glibc_at_most(tag, glibc, limit):
    """The number of violations of --glibc-at-most: the tag, then each object."""
    text = ".".join(map(str, limit))
    bad = 0
    if tag > limit:
        print(f"  the wheel's oldest tag manylinux_{tag[0]}_{tag[1]} is newer than glibc {text}")
        bad += 1
    for n, needs in sorted(glibc.items()):
        over = sorted(f"{s}@{'.'.join(map(str, v))}" for s, v in needs.items() if v > limit)
        if over:
            print(f"  {n} needs more than glibc {text}: {', '.join(over)}")
            bad += 1
    if not bad:
        print(f"  every object runs on glibc {text}")
    return bad


def glibc_report(glibc):
    """Which objects set the tag's glibc; 1 if one of ours alone sets it, else 0."""
    top = max((newest(v) for v in glibc.values()), default=(2, 0))
    for n, needs in sorted(glibc.items()):
        at_top = sorted(s for s, v in needs.items() if v == top)
        if at_top:
            print(f"  glibc {'.'.join(map(str, top))} for {n}: {', '.join(at_top)}")
    grafted = [newest(v) for n, v in glibc.items() if not n.startswith("linsolve/")]
    ours = {n: newest(v) for n, v in glibc.items() if n.startswith("linsolve/")}
    ceiling = max(grafted + [BASELINE])
    above = sorted(n for n, v in ours.items() if v > ceiling)
    for n in above:
        print(f"  {n} alone raises the tag: it needs glibc {'.'.join(map(str, ours[n]))},"
              f" more than every grafted library and than {'.'.join(map(str, BASELINE))}"
              " (bind the symbols named above older in cmake/wheel_glibc_symver.h)")
    return 1 if above else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = None
    if len(args) == 3 and args[1] == "--glibc-at-most":
        limit = tuple(int(x) for x in args[2].split("."))
    elif len(args) != 1:
        sys.exit(__doc__)
    sys.exit(main(args[0], limit))
