#!/usr/bin/env bash
# scripts/lab-disk.sh's helpers as .ci/run uses them, on folders made here.
#   A fresh machine has no lab cache folder yet: its free space is its nearest existing
#   parent's, not 0 (0 once made every lab build look like a full disk, and skip).
#   lab_scenarios reads the names of a make-lab.sh SCENARIOS table, one a line.
#   lab_sparsify digs the zero blocks of ELF dumps out and leaves their bytes as they were.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lab-disk.sh
source "$root/scripts/lab-disk.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "lab_disk_check: $*" >&2; exit 1; }

parent=$(lab_free_gib "$work")
[ "$parent" -gt 0 ] || fail "an existing folder reads $parent GiB free"
for missing in "$work/cache" "$work/not/made/yet" "$work/a/../b/c"; do
  got=$(lab_free_gib "$missing")
  [ "$got" = "$parent" ] || fail "$missing (not made yet) reads $got GiB free, its parent $parent"
done
(cd "$work" && [ "$(lab_free_gib relative/not/made)" = "$parent" ]) || fail "a relative missing path is not its parent's"
[ "$(lab_free_gib /)" -gt 0 ] || fail "/ reads 0 GiB free"

cat >"$work/make-lab.sh" <<'TABLE'
SCENARIOS=(
  "panic_task|nokaslr oops=panic"
  "warn_hardirq|nokaslr"
)
TABLE
[ "$(lab_scenarios "$work/make-lab.sh" | tr '\n' ' ')" = "panic_task warn_hardirq " ] || fail "lab_scenarios"

mkdir -p "$work/vmcores"
dump=$work/vmcores/a.elf
{ printf 'ELFHEAD'; head -c $((4 << 20)) /dev/zero; printf 'TAIL'; } >"$dump"
before=$(sha256sum <"$dump")
lab_sparsify "$work/vmcores"
[ "$(sha256sum <"$dump")" = "$before" ] || fail "lab_sparsify changed a dump's bytes"
echo "lab_disk_check: ok"
