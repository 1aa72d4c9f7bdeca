#!/usr/bin/env bash
# Builds the benchmark input: every input log of the shared corpora (index.tsv
# rows whose role is not "expected"; syzkaller files without their header
# block), concatenated, then repeated until the file reaches MIN_MB.
# Usage: bench/make-input.sh OUT_FILE [SHARED_CORPORA] [MIN_MB=200]
# Prints the number of repetitions. Reuses OUT_FILE when it is already big enough
# and newer than the corpus index.
set -euo pipefail
out=$1
shared=${2:-$(cd "$(dirname "$0")/.." && pwd)/../shared/corpora}
min_mb=${3:-200}
[ -f "$shared/index.tsv" ] || { echo "make-input: $shared/index.tsv not found" >&2; exit 77; }

unit=$out.unit
if [ ! -s "$unit" ] || [ "$shared/index.tsv" -nt "$unit" ]; then
  : >"$unit.tmp"
  # Columns: source, path, role, ... (see ../shared/corpora/README.md).
  tail -n +2 "$shared/index.tsv" | while IFS=$'\t' read -r source path role _; do
    [ "$role" = expected ] && continue
    f=$shared/$path
    [ -f "$f" ] || continue
    if [ "$source" = syzkaller ]; then
      awk 'BEGIN{h=1} h&&/^$/{h=0;next} !h{print}' "$f" >>"$unit.tmp"  # drop the expected-result header
    else
      cat "$f" >>"$unit.tmp"
      [ -z "$(tail -c1 "$f")" ] || echo >>"$unit.tmp"  # keep the next file's first line a line of its own
    fi
  done
  mv "$unit.tmp" "$unit"
fi

unit_bytes=$(stat -c %s "$unit")
reps=$(( (min_mb * 1024 * 1024 + unit_bytes - 1) / unit_bytes ))
want=$(( unit_bytes * reps ))
if [ ! -f "$out" ] || [ "$(stat -c %s "$out")" -ne "$want" ] || [ "$unit" -nt "$out" ]; then
  : >"$out.tmp"
  for _ in $(seq "$reps"); do cat "$unit" >>"$out.tmp"; done
  mv "$out.tmp" "$out"
fi
echo "$reps"
