#!/bin/sh
# Install into a temp prefix; build consumer.c with pkg-config and with CMake.
set -eu
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$LS_BUILD_DIR" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib* | head -n1)
ls "$libdir"/liblinsolve.so.* >/dev/null
test -f "$prefix/include/linsolve.h"
test -x "$prefix/bin/linsolve"

# 1. pkg-config
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs linsolve >/dev/null
"$LS_CC" -std=c11 "$LS_SOURCE_DIR/tests/install/consumer.c" -o "$work/consumer_pc" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs linsolve) -lm \
  -Wl,-rpath,"$libdir"
"$work/consumer_pc"

# 2. find_package(linsolve) -> linsolve::linsolve
mkdir -p "$work/proj"
cp "$LS_SOURCE_DIR/tests/install/consumer.c" "$work/proj/"
cat > "$work/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(linsolve 0.1 REQUIRED)
add_executable(consumer consumer.c)
target_link_libraries(consumer PRIVATE linsolve::linsolve m)
CM
cmake -S "$work/proj" -B "$work/proj/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_RPATH="$libdir" >/dev/null
cmake --build "$work/proj/build" >/dev/null
"$work/proj/build/consumer"
"$prefix/bin/linsolve" --version
echo "install_consumers: ok"
