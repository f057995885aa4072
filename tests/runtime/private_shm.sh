#!/bin/sh
# Runs a command in a mount namespace of its own whose /dev/shm is a fresh tmpfs of <size>, so that a test can fill
# it without touching the machine's. Exits 77 (ctest: skipped) where no mount namespace can be made (not root, a
# container).
# usage: private_shm.sh <size> <command>...
size=$1
shift
if ! unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' 2>/dev/null; then
  echo "private_shm.sh: no mount namespace with a tmpfs of its own can be made here (unshare -m, mount); skipped"
  exit 77
fi
exec unshare -m sh -c 'mount -t tmpfs -o size="$0" tmpfs /dev/shm && exec "$@"' "$size" "$@"
