#!/usr/bin/env bash
# Builds the btaudit binary of an earlier commit, to measure today's binary against it in
# one run (bench/ratios.sh's BASE): "not slower than before" is a ratio of two binaries on
# the same machine at the same time, not a comparison with seconds noted on another day.
# The commit is checked out into a detached git worktree; only the btaudit target is built
# (RelWithDebInfo, as the default build). Prints the binary's path on its last line.
# usage: bench/build-base.sh REV [DIR=/tmp/btaudit-base-<short rev>]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
rev=$(git -C "$repo" rev-parse --verify "${1:?usage: build-base.sh REV [DIR]}^{commit}")
dir=${2:-/tmp/btaudit-base-${rev:0:12}}
if [ ! -d "$dir/.git" ] && [ ! -f "$dir/.git" ]; then
  git -C "$repo" worktree add --detach "$dir" "$rev" >&2
fi
[ "$(git -C "$dir" rev-parse HEAD)" = "$rev" ] || { echo "build-base: $dir holds another commit" >&2; exit 1; }
cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$dir/build" -j "$(nproc)" --target btaudit >&2
echo "$dir/build/btaudit"
