"""Checks a repaired linsolve wheel against its manylinux policy.

usage: wheel_policy.py WHEEL  (run with the Python that has auditwheel)

Every shared object in the wheel may need only (a) objects the wheel itself
carries (linsolve/, linsolve.libs/), (b) the libraries the wheel's manylinux
policy allows from the system (auditwheel's own policy table: libc, libm,
libstdc++, ...) and the dynamic loader, or (c) the CUDA libraries the cuda13 extra declares
(linsolve/_cuda_libs.py's LIBRARIES) and the GPU driver, which only the CUDA
plugin may need. No CUDA library may have been grafted into the wheel.
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

DRIVER = {"libcuda.so.1"}
NOT_GRAFTED = re.compile(r"^lib(cuda|cudart|cublas|cublasLt|cusolver|cusparse|nvJitLink|cudss)[-.]")


def needed(data):
    elf = ELFFile(io.BytesIO(data))
    for section in elf.iter_sections():
        if isinstance(section, DynamicSection):
            return [t.needed for t in section.iter_tags() if t.entry.d_tag == "DT_NEEDED"]
    return []


def declared_cuda(z):
    """LIBRARIES of linsolve/_cuda_libs.py inside the wheel, read without importing it."""
    src = z.read("linsolve/_cuda_libs.py").decode()
    m = re.search(r"^LIBRARIES = \(([^)]*)\)", src, re.M)
    return set(re.findall(r'"([^"]+)"', m.group(1)))


def main(path):
    tag = re.search(r"-(manylinux_\d+_\d+)_x86_64\.whl$", os.path.basename(path))
    if not tag:
        print(f"wheel_policy: {path} has no manylinux_X_Y_x86_64 tag")
        return 1
    policy_file = os.path.join(os.path.dirname(auditwheel.__file__), "policy",
                               "manylinux-policy.json")
    with open(policy_file) as f:
        policy = {p["name"]: p for p in json.load(f)}[tag.group(1)]
    # and the dynamic loader, which auditwheel allows as every program's interpreter
    allowed = set(policy["lib_whitelist"]) | {"ld-linux-x86-64.so.2"}
    bad = 0
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
                wrong = [d for d in outside if d not in cuda | DRIVER]
                declared = sorted(set(outside) - set(wrong))
            else:
                wrong, declared = outside, []
            state = "ok" if not wrong else "external, not allowed: " + ", ".join(wrong)
            extra = f" (from NVIDIA's wheels: {', '.join(declared)})" if declared else ""
            print(f"  {n}: {state}{extra}")
            bad += len(wrong)
    print(f"wheel_policy: {tag.group(1)}, {len(names)} shared objects, {bad} violation(s)")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
