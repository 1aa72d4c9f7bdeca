#include "render/bucket_render.h"

#include <algorithm>
#include <cstdio>

namespace btaudit {

namespace {

std::string percent(std::optional<double> share) {
  if (!share) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", *share * 100.0);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string right(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

void write_bucket_json(JsonWriter& w, const Bucket& b) {
  w.begin_object();
  w.field("signature", b.signature);
  w.field("title", b.title);
  w.field("kind", b.kind);
  w.field("guilty_function", b.guilty_function);
  w.field("count", b.count);
  w.field("first_input", b.first_input);
  w.field("last_input", b.last_input);
  w.key("example");
  w.begin_object();
  w.field("path", b.example_input);
  w.field("line", b.example_line);
  w.end_object();
  w.field("unreliable_frames", b.unreliable_frames);
  w.field("stale_frames", b.stale_frames);
  w.key("stale_share");
  if (const auto share = b.stale_share()) {
    // Three decimals: enough to read, and the same text from every run.
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.3f", *share);
    w.raw_number(buf);
  } else {
    w.null();
  }
  w.end_object();
}

std::string render_buckets_ndjson(const std::vector<Bucket>& buckets) {
  std::string out;
  for (const Bucket& b : buckets) {
    JsonWriter w(out);
    write_bucket_json(w, b);
    out.push_back('\n');
  }
  return out;
}

std::string render_bucket_table(const std::vector<Bucket>& buckets, std::size_t top) {
  std::string out = "  COUNT  STALE?  SIGNATURE         TITLE\n";
  const std::size_t n = top == 0 ? buckets.size() : std::min(top, buckets.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Bucket& b = buckets[i];
    out += right(std::to_string(b.count), 7) + "  " + right(percent(b.stale_share()), 6) + "  " + pad(b.signature, 16) +
           "  " + b.title + "\n";
    out += std::string(35, ' ') + "e.g. " + b.example_input + ":" + std::to_string(b.example_line);
    if (b.first_input != b.last_input) out += "  (" + b.first_input + " .. " + b.last_input + ")";
    out += "\n";
  }
  if (n < buckets.size()) out += "  ... " + std::to_string(buckets.size() - n) + " more buckets\n";
  return out;
}

std::string render_group_table(const std::vector<BucketGroup>& groups, std::string_view key_name, std::size_t top) {
  std::string out = "REPORTS  BUCKETS  " + pad(std::string(key_name), 32) + "  LARGEST BUCKET\n";
  const std::size_t n = top == 0 ? groups.size() : std::min(top, groups.size());
  for (std::size_t i = 0; i < n; ++i) {
    const BucketGroup& g = groups[i];
    out += right(std::to_string(g.reports), 7) + "  " + right(std::to_string(g.buckets), 7) + "  " + pad(g.key, 32) +
           "  " + g.example_title + "\n";
  }
  if (n < groups.size()) out += "  ... " + std::to_string(groups.size() - n) + " more\n";
  return out;
}

std::string render_groups_ndjson(const std::vector<BucketGroup>& groups, std::string_view key_name) {
  std::string out;
  for (const BucketGroup& g : groups) {
    JsonWriter w(out);
    w.begin_object();
    w.field(key_name, g.key);
    w.field("reports", g.reports);
    w.field("buckets", g.buckets);
    w.field("largest_bucket_title", g.example_title);
    w.end_object();
    out.push_back('\n');
  }
  return out;
}

}  // namespace btaudit
