#!/usr/bin/env bash
# Installs the Debian packages linsolve builds and tests with, skipping those
# already present. Run as root (CI and fresh machines) or with sudo.
set -euo pipefail
pkgs=(cmake gcc make pkg-config libopenblas-dev liblapacke-dev
      ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo gnuplot-nox python3
      # the LAPACK drop-in's tests: LAPACK's own test programs, the reference
      # LAPACK and BLAS (NaN/Inf oracle), Debian's NumPy run under the preload
      liblapack-test liblapack3 libblas3 python3-numpy
      # the OpenCL tests again on Ubuntu 24.04's PoCL 5.0, in a chroot
      # (scripts/opencl-pocl-distro.sh)
      debootstrap
      # the sparse direct solver (UMFPACK)
      libsuitesparse-dev
      # distributed LU (liblinsolve_dist): OpenMPI, and ScaLAPACK as the bench's peer
      libopenmpi-dev openmpi-bin libscalapack-openmpi-dev)
# the Python package (python/): its build, and its tests' NumPy, SciPy and pytest
pkgs+=(python3-dev python3-numpy python3-pip python3-venv python3-setuptools python3-pytest
       python3-scipy)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
