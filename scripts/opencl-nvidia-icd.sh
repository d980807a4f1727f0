#!/bin/sh
# Register NVIDIA's OpenCL driver with the ocl-icd loader.
#
# On GPU machines (containers especially) libnvidia-opencl.so.1 is often
# present but not listed in /etc/OpenCL/vendors, so clGetPlatformIDs finds
# no NVIDIA platform. This script finds the library and writes an ICD file:
#   - /etc/OpenCL/vendors/nvidia.icd when that folder is writable (root);
#   - otherwise a private vendors folder, printed as an export line for
#     OCL_ICD_VENDORS (use: eval "$(scripts/opencl-nvidia-icd.sh)").
# Options: --dir DIR   write the .icd into DIR instead (sets OCL_ICD_VENDORS)
#          --check     only report what would be done
# Exit status: 0 registered (or already registered), 1 library not found,
#              2 cannot write the ICD file.
set -eu

target_dir=""
check_only=0
while [ $# -gt 0 ]; do
    case "$1" in
    --dir) target_dir="$2"; shift 2 ;;
    --check) check_only=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "opencl-nvidia-icd: unknown option $1" >&2; exit 2 ;;
    esac
done

find_library() {
    # ldconfig's cache first: it is what the loader itself will resolve.
    if command -v ldconfig >/dev/null 2>&1; then
        lib=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1 .*x86-64/ {print $NF; exit}')
        if [ -z "$lib" ]; then
            lib=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}')
        fi
        if [ -n "$lib" ] && [ -e "$lib" ]; then
            echo "$lib"
            return 0
        fi
    fi
    for dir in /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64 /usr/local/nvidia/lib \
               /usr/lib64 /usr/lib /usr/lib/aarch64-linux-gnu /usr/local/cuda/compat; do
        for cand in "$dir"/libnvidia-opencl.so.1 "$dir"/libnvidia-opencl.so.*; do
            if [ -e "$cand" ]; then
                echo "$cand"
                return 0
            fi
        done
    done
    return 1
}

if ! lib=$(find_library); then
    echo "opencl-nvidia-icd: libnvidia-opencl.so.1 not found (ldconfig -p," \
         "/usr/lib/x86_64-linux-gnu, /usr/local/nvidia/lib64, /usr/lib64)" >&2
    exit 1
fi
echo "opencl-nvidia-icd: found $lib" >&2

# Already registered? Any .icd naming an NVIDIA OpenCL library will do.
for d in ${OCL_ICD_VENDORS:-} /etc/OpenCL/vendors; do
    if [ -d "$d" ] && grep -qs "libnvidia-opencl" "$d"/*.icd; then
        echo "opencl-nvidia-icd: already registered in $d" >&2
        [ -n "$target_dir" ] || exit 0
    fi
done

if [ -z "$target_dir" ]; then
    if { [ -d /etc/OpenCL/vendors ] && [ -w /etc/OpenCL/vendors ]; } ||
       { [ ! -e /etc/OpenCL/vendors ] && mkdir -p /etc/OpenCL/vendors 2>/dev/null; }; then
        target_dir=/etc/OpenCL/vendors
    else
        target_dir=${TMPDIR:-/tmp}/linsolve-ocl-vendors
    fi
fi

if [ "$check_only" = 1 ]; then
    echo "opencl-nvidia-icd: would write $target_dir/nvidia.icd -> $lib" >&2
    exit 0
fi
mkdir -p "$target_dir" || exit 2
# The full path, so the loader needs no LD_LIBRARY_PATH.
if ! printf '%s\n' "$lib" > "$target_dir/nvidia.icd"; then
    echo "opencl-nvidia-icd: cannot write $target_dir/nvidia.icd" >&2
    exit 2
fi
echo "opencl-nvidia-icd: wrote $target_dir/nvidia.icd" >&2
if [ "$target_dir" != /etc/OpenCL/vendors ]; then
    # ocl-icd reads only OCL_ICD_VENDORS when it is set: keep the system
    # vendors (PoCL ...) visible by linking them in as well.
    for icd in /etc/OpenCL/vendors/*.icd; do
        if [ -e "$icd" ] && [ ! -e "$target_dir/$(basename "$icd")" ]; then
            ln -s "$icd" "$target_dir/$(basename "$icd")" 2>/dev/null || true
        fi
    done
    echo "export OCL_ICD_VENDORS=$target_dir"
fi
exit 0
