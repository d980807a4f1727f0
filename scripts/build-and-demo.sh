#!/usr/bin/env bash
# README command 1: install missing packages, build, and solve a demo system
# on the embedded default backend (auto: a GPU if there is one, else the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
./build/bin/linsolve gen randsvd -n 1000 --cond 1e6 --seed 1 -o build/demo_A.mtx
./build/bin/linsolve solve build/demo_A.mtx
