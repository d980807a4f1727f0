# Sourced by the benchmark scripts. OpenBLAS 0.3.21's run-time CPU detection
# falls back to its generic Prescott kernels on CPUs it does not recognise
# (this workplace's VMs report "Intel(R) Xeon(R) Processor"), about 3x slower
# (measured on the 2-core CI machine, n = 2048 dgesv: 0.259 s vs 0.086 s).
# A peer must be timed at its best: pick the kernels from the CPU flags
# unless the caller chose. `linsolve info` and the bench header show the
# kernels OpenBLAS actually uses (cpu_lapack).
if [ -z "${OPENBLAS_CORETYPE:-}" ] && [ -r /proc/cpuinfo ]; then
  if grep -qw avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=Haswell
  fi
fi
