#!/usr/bin/env bash
# Builds the fuzzers' seed corpora in OUT_DIR/{analyze,read_input,batch}:
#   analyze:    corpora/*, fuzz/seeds/analyze/* and every file of at most MAX_BYTES
#               (default 32 KiB) from the shared corpora when present
#   read_input: fuzz/seeds/read_input/* plus gzip/xz/zstd copies (whole, truncated,
#               concatenated) of a few small samples, made with the real tools
# Usage: fuzz/make-seeds.sh OUT_DIR [SHARED_CORPORA_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=$1
shared=${2:-$root/../shared/corpora}
max=${MAX_BYTES:-32768}
mkdir -p "$out/analyze" "$out/read_input" "$out/batch"

copy_flat() {  # copy_flat SRC_ROOT DEST: files keep their relative path, '/' -> '__', so names stay unique
  local src=$1 dest=$2 f rel
  while IFS= read -r -d '' f; do
    rel=${f#"$src"/}
    cp "$f" "$dest/${rel//\//__}"
  done < <(find "$src" -type f -size -"$((max + 1))"c ! -name '*.md' ! -name '*.tsv' ! -name '*.json' ! -name '*.yaml' -print0)
}

[ -d "$root/corpora" ] && copy_flat "$root/corpora" "$out/analyze"
[ -d "$here/seeds/analyze" ] && copy_flat "$here/seeds/analyze" "$out/analyze"
if [ -d "$shared" ]; then
  copy_flat "$shared" "$out/analyze"
else
  echo "make-seeds: $shared absent; seeds from corpora/ only" >&2
fi

[ -d "$here/seeds/read_input" ] && copy_flat "$here/seeds/read_input" "$out/read_input"
#   batch:      fuzz/seeds/batch/* (mailboxes, NDJSON report and bucket lines) and corpora/*
[ -d "$here/seeds/batch" ] && copy_flat "$here/seeds/batch" "$out/batch"
#   dump_header, vmcoreinfo, store_open, profile: fuzz/seeds/<target>/* (small synthetic dumps, VMCOREINFO
#               notes of a synthetic and a Debian 6.1 kernel, batch databases sound and altered)
for t in dump_header vmcoreinfo store_open profile; do
  mkdir -p "$out/$t"
  [ -d "$here/seeds/$t" ] && cp "$here/seeds/$t"/* "$out/$t/"
done
[ -d "$root/corpora" ] && copy_flat "$root/corpora" "$out/batch"
n=0
for f in $(find "$root/corpora" -type f -size -8k ! -name '*.md' 2>/dev/null | sort | head -n 6); do
  n=$((n + 1))
  gzip -9nc "$f" >"$out/read_input/$n.gz"
  xz -c "$f" >"$out/read_input/$n.xz"
  zstd -q -c "$f" >"$out/read_input/$n.zst"
  head -c 100 "$out/read_input/$n.gz" >"$out/read_input/$n.trunc.gz"
  head -c 100 "$out/read_input/$n.xz" >"$out/read_input/$n.trunc.xz"
  head -c 100 "$out/read_input/$n.zst" >"$out/read_input/$n.trunc.zst"
  cat "$out/read_input/$n.gz" "$out/read_input/$n.gz" >"$out/read_input/$n.twice.gz"
done
echo "make-seeds: $(find "$out/analyze" -type f | wc -l) analyze seeds, $(find "$out/read_input" -type f | wc -l) read_input seeds in $out"
