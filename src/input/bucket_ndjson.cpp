#include "input/bucket_ndjson.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "input/input_error.h"
#include "input/read_input.h"

namespace btaudit {

namespace {

using nlohmann::json;

std::optional<std::string> optional_string(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// A count or line number: absent is 0; present, it must be a whole number that
// fits (a negative count, a fraction or a line past 2^32 is an error, not 0).
std::uint64_t unsigned_of(const json& j, const char* key, std::uint64_t max = ~std::uint64_t{0}) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return 0;
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
    throw std::invalid_argument(std::string("\"") + key + "\" is not a count");
  const auto v = it->get<std::uint64_t>();
  if (v > max) throw std::invalid_argument(std::string("\"") + key + "\" is out of range: " + std::to_string(v));
  return v;
}

constexpr std::uint64_t kMaxLine = 0xffffffff;

// A report object of the analyze contract as a bucket of one.
Bucket report_bucket(const json& r) {
  Bucket b;
  b.signature = r.at("signature").get<std::string>();
  b.title = r.value("title", std::string());
  b.kind = r.value("kind", std::string());
  const auto guilty = r.find("guilty");
  if (guilty != r.end() && guilty->is_object()) b.guilty_function = optional_string(*guilty, "function");
  b.count = 1;
  const json& input = r.at("input");
  b.first_input = b.last_input = b.example_input = input.value("path", std::string());
  b.example_line = static_cast<std::uint32_t>(unsigned_of(input, "first_line", kMaxLine));
  for (const json& f : r.at("frames")) {
    if (!f.value("printed_unreliable", false)) continue;
    ++b.unreliable_frames;
    if (f.value("verdict", std::string()) == "stale") ++b.stale_frames;
  }
  return b;
}

Bucket bucket_line(const json& j) {
  Bucket b;
  b.signature = j.at("signature").get<std::string>();
  b.title = j.value("title", std::string());
  b.kind = j.value("kind", std::string());
  b.guilty_function = optional_string(j, "guilty_function");
  b.count = unsigned_of(j, "count");
  b.first_input = j.value("first_input", std::string());
  b.last_input = j.value("last_input", std::string());
  const json& example = j.at("example");
  b.example_input = example.value("path", std::string());
  b.example_line = static_cast<std::uint32_t>(unsigned_of(example, "line", kMaxLine));
  b.unreliable_frames = unsigned_of(j, "unreliable_frames");
  b.stale_frames = unsigned_of(j, "stale_frames");
  if (b.stale_frames > b.unreliable_frames)
    throw std::invalid_argument(R"("stale_frames" exceeds "unreliable_frames")");
  return b;
}

}  // namespace

BucketReadStats read_bucket_ndjson(const std::string& path, BucketTable& table) {
  const InputBuffer input = load_input(path);
  return read_bucket_ndjson_text(input.view(), path, table);
}

BucketReadStats read_bucket_ndjson_text(std::string_view text, const std::string& path, BucketTable& table) {
  BucketReadStats stats;
  std::size_t pos = 0;
  std::uint64_t line_no = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto add = [&](const Bucket& b) {
      if (!table.add(b))
        throw InputError(
            path, "line " + std::to_string(line_no) + ": counts pass 2^64-1 when merged (a corrupt or hostile input)");
    };
    try {
      const json j = json::parse(line);
      if (j.contains("reports") && j.at("reports").is_array()) {  // an analyze document
        for (const json& r : j.at("reports")) {
          add(report_bucket(r));
          ++stats.report_lines;
        }
      } else if (j.contains("frames")) {
        add(report_bucket(j));
        ++stats.report_lines;
      } else if (j.contains("count")) {
        const Bucket b = bucket_line(j);
        if (b.count == 0 || b.signature.empty())
          throw InputError(path, "line " + std::to_string(line_no) + ": a bucket without signature or count");
        add(b);
        ++stats.bucket_lines;
      } else {
        throw InputError(path, "line " + std::to_string(line_no) + ": neither a report nor a bucket");
      }
    } catch (const json::exception& e) {
      throw InputError(
          path, "line " + std::to_string(line_no) + ": not a btaudit report or bucket (" + std::string(e.what()) + ")");
    } catch (const std::invalid_argument& e) {
      throw InputError(path, "line " + std::to_string(line_no) + ": " + e.what());
    }
  }
  return stats;
}

}  // namespace btaudit
