// The triage page's model read from batch outputs: NDJSON report lines
// (`batch -o`), bucket lines (`batch --buckets`, `merge`), whole `analyze
// --format json` documents and `vmcore --format json` documents (whose reports
// are dump-backed: the walk of each report's CPU comes along), in any mix.
// A report is seen on the day its input file was last written (when that
// file is still there), else on the day the NDJSON file was; a bucket line
// counts all its reports on the NDJSON file's day.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "model/triage.h"

namespace btaudit {

// Throws InputError naming the file and line of the first line that is none of these.
TriagePage read_triage_ndjson(const std::vector<std::string>& paths);

// Days since 1970-01-01 UTC of a file's mtime; nullopt when it cannot be read.
std::optional<std::int64_t> file_day(const std::string& path);

}  // namespace btaudit
