// What the triage page (`btaudit report`) shows: a run's buckets, each with
// the days its reports were seen and its example report as analyzed (frames,
// verdicts, reasons, sources when debuginfo was used), plus, for a report read
// from a crash dump, the walk of the CPU it ran on (frames at their stack
// slots). Pure data, no I/O: the CLI fills it from the store or NDJSON, the
// HTML renderer draws it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/bucket.h"
#include "model/report.h"

namespace btaudit {

struct TriageBucket {
  Bucket bucket;
  // (day as days since 1970-01-01 UTC, reports seen that day), days ascending. A
  // report is seen when its input file was last written (its mtime).
  std::vector<std::pair<std::int64_t, std::uint64_t>> days;
  std::optional<Report> example;    // the bucket's example report, when its text was kept
  std::optional<Report> dump_walk;  // for a dump-backed example: the walk of its CPU (frames with slots)
  std::string dump;                 // the dump the example came from, when it did

  std::optional<std::int64_t> last_day() const {
    if (days.empty()) return std::nullopt;
    return days.back().first;
  }
};

struct TriagePage {
  std::string source;  // what it was made from ("fleet.db", "3 NDJSON files")
  std::int64_t generated_day = 0;
  std::uint64_t reports = 0;
  std::vector<TriageBucket> buckets;  // largest first
};

}  // namespace btaudit
