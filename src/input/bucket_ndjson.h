// Reads what batch runs wrote back into buckets, for `btaudit merge` and
// `btaudit buckets FILE...`: NDJSON report lines (the analyze JSON contract),
// NDJSON bucket lines (`batch --buckets`, `merge`), or whole `analyze --format
// json` documents, in any mix.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/bucket.h"

namespace btaudit {

struct BucketReadStats {
  std::uint64_t report_lines = 0;
  std::uint64_t bucket_lines = 0;
};

// Adds every report and bucket of `path` ('-': standard input; gzip/xz/zstd
// accepted) to `table`. Throws InputError naming the file and line of the first
// line that is neither.
BucketReadStats read_bucket_ndjson(const std::string& path, BucketTable& table);
// The same over text already in memory; `name` names it in errors.
BucketReadStats read_bucket_ndjson_text(std::string_view text, const std::string& name, BucketTable& table);

}  // namespace btaudit
