# shellcheck shell=bash
# Disk use of the real-kernel labs; sourced by .ci/run and scripts/lab-src-cache.sh.
#
# A lab's ELF dumps are QEMU's dump-guest-memory of the whole guest (512 MiB), most of it pages
# the guest never wrote. Stored sparse (fallocate --dig-holes: the zero blocks become holes, a
# read returns the same bytes) a scenario's ELF takes about 45 MB instead of 513 MB, a lab of 14
# scenarios about 1 GB instead of 8. The scenarios run one at a time so that no more than one
# dense dump exists at once: a CI run on a nearly full disk once failed in the middle of the lab
# with "No space left on device", and every later step with it.

# lab_free_gib DIR: whole GiB free on the file system DIR is or will be on (0 when unknown). A
# folder not made yet (the lab cache on a fresh machine) is measured on its nearest existing
# parent: df on the missing path itself fails, and a fresh machine's run once read that as a full
# disk and skipped every lab it should have built.
lab_free_gib() {
  local dir=$1 n
  while [ ! -e "$dir" ] && [ "$dir" != / ] && [ "$dir" != . ]; do dir=$(dirname "$dir"); done
  n=$(df --output=avail -BG "$dir" 2>/dev/null | tail -n 1 | tr -dc 0-9)
  echo "${n:-0}"
}

# lab_sparsify DIR...: digs the holes of every ELF dump under DIR (cheap on one already sparse).
lab_sparsify() {
  local f
  while IFS= read -r -d '' f; do
    fallocate --dig-holes "$f" 2>/dev/null || true
  done < <(find "$@" -type f -name '*.elf' -print0 2>/dev/null)
}

# lab_scenarios MAKE_LAB_SH: the scenario names, one a line, read from the SCENARIOS table of
# ../shared/lab/make-lab.sh the way make-lab-src.sh reads it.
lab_scenarios() {
  (
    eval "$(sed -n '/^SCENARIOS=(/,/^)/p' "$1")"
    local s
    for s in "${SCENARIOS[@]}"; do echo "${s%%|*}"; done
  )
}

# lab_run_scenarios SCRIPT MAKE_LAB_SH VMCORES: runs SCRIPT's scenarios stage once per scenario of
# MAKE_LAB_SH, making each one's dumps under VMCORES sparse before the next. SCRIPT runs in the
# caller's environment (LAB_OUT, LAB_LOGS, ...). Fails when SCRIPT fails.
lab_run_scenarios() {
  local script=$1 table=$2 vmcores=$3 name names
  names=$(lab_scenarios "$table")
  [ -n "$names" ] || { echo "lab-disk: no SCENARIOS in $table" >&2; return 1; }
  for name in $names; do
    bash "$script" scenarios "$name" || return 1
    lab_sparsify "$vmcores"
  done
}
