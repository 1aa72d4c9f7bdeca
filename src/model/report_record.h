// What batch keeps of one analyzed report, and the store writes: its NDJSON
// line (the analyze JSON contract) and the few fields buckets and the database
// index it by. Pure data (batch/report_record.h makes one from a Report).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "model/bucket.h"

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

// One batch input's outcome as the store keeps it: the file as it was on disk
// (its identity for a rerun), why it was skipped if it was, and its reports.
struct InputIdentity {
  std::string path;
  std::uint64_t bytes = 0;    // on-disk size (0 for standard input)
  std::int64_t mtime_ns = 0;  // modification time (0 for standard input)
};

struct InputOutcome {
  InputIdentity input;
  std::optional<std::string> skip_kind;  // the skip's code ("binary", "too_large", ...) when skipped
  std::string skip_reason;
  std::span<const ReportRecord> reports;
};

}  // namespace btaudit
