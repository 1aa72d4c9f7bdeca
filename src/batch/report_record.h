// What batch keeps of one analyzed report: its NDJSON line (the analyze JSON
// contract) and the few fields that buckets and the database index it by.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/bucket.h"
#include "model/report.h"

namespace btaudit {

struct ReportRecord {
  std::string input;      // the input's path as named on the command line (or found under a folder)
  std::uint32_t seq = 0;  // the report's index within its input
  std::string signature;  // hex
  std::string title;
  std::string kind;
  std::optional<std::string> guilty_function;
  std::uint32_t first_line = 0;
  std::uint32_t last_line = 0;
  std::uint32_t frames = 0;
  std::uint32_t unreliable_frames = 0;  // printed with '?'
  std::uint32_t stale_frames = 0;       // printed with '?' and proven stale
  bool corrupted = false;
  std::string json;  // one line, no trailing newline

  // This report as a bucket of one.
  Bucket as_bucket() const;
};

// `report` must have been through analyze_report (verdicts, title, signature).
ReportRecord make_record(const Report& report, std::uint32_t seq);

}  // namespace btaudit
