#!/usr/bin/env bash
# usage: without_opencl_loader.sh COMMAND [ARG...]
# Runs COMMAND on this machine as one without an OpenCL ICD loader: in a
# mount namespace of its own (unshare; a user namespace too when not root),
# every folder that holds a libOpenCL.so* the dynamic loader knows of
# (ldconfig -p) is covered by a folder of links to its other entries, so
# that dlopen("libOpenCL.so.1") fails as on a machine without one ("cannot
# open shared object file"). Nothing changes outside the namespace, which
# ends with COMMAND.
# Exit status: COMMAND's; 77 when no mount namespace can be had here.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARG...]"; exit 2; }
if [ -z "${LS_NO_OPENCL_SHADOW:-}" ]; then
  userns=()
  [ "$(id -u)" = 0 ] || userns=(--map-root-user)
  if ! unshare --mount "${userns[@]}" true 2>/dev/null; then
    echo "without_opencl_loader: no mount namespace here (unshare --mount ${userns[*]} failed)"
    exit 77
  fi
  shadow=$(mktemp -d)
  set +e
  LS_NO_OPENCL_SHADOW=$shadow unshare --mount --propagation private "${userns[@]}" bash "$0" "$@"
  rc=$?
  set -e
  # Out here the bind mounts are gone: links and empty folders only. Never
  # rm -r: real*/ is the library folder itself wherever the mount still is.
  find "$shadow" -mindepth 2 -maxdepth 2 -path "$shadow/links*" -type l -delete
  rmdir "$shadow"/* "$shadow" 2>/dev/null || echo "without_opencl_loader: $shadow left behind"
  exit $rc
fi

# --- inside the namespace
dirs=$(/sbin/ldconfig -p | awk '$1 ~ /^libOpenCL\.so/ { print $NF }' |
       xargs -r -n1 readlink -f | xargs -r -n1 dirname | sort -u)
shadow=$LS_NO_OPENCL_SHADOW
i=0
for d in $dirs; do
  i=$((i + 1))
  mkdir "$shadow/real$i" "$shadow/links$i"
  mount --bind "$d" "$shadow/real$i"
  for f in "$shadow/real$i"/* "$shadow/real$i"/.[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    case ${f##*/} in libOpenCL.so*) continue ;; esac
    ln -s "$f" "$shadow/links$i/${f##*/}"
  done
  mount --bind "$shadow/links$i" "$d"
  echo "without_opencl_loader: $d shown without its libOpenCL.so*"
done
unset LS_NO_OPENCL_SHADOW
exec "$@"
