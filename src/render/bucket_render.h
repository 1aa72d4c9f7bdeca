// Bucket summaries: NDJSON (one bucket a line, what `btaudit merge` reads back)
// and a text table for people.
#pragma once
#include <string>
#include <vector>

#include "model/bucket.h"
#include "render/json_writer.h"

namespace btaudit {

// One bucket as a JSON object (no newline): the fields of man/btaudit.1, BUCKETS.
void write_bucket_json(JsonWriter& w, const Bucket& b);
std::string render_buckets_ndjson(const std::vector<Bucket>& buckets);

// A table of the first `top` buckets (0: all), largest first.
std::string render_bucket_table(const std::vector<Bucket>& buckets, std::size_t top);
std::string render_group_table(const std::vector<BucketGroup>& groups, std::string_view key_name, std::size_t top);
std::string render_groups_ndjson(const std::vector<BucketGroup>& groups, std::string_view key_name);

}  // namespace btaudit
