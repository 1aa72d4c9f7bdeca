// The triage page of `btaudit report`: one self-contained HTML file (inline
// style and script; no network, no external fonts) with the buckets as a table
// sortable by count, last seen, kind and guilty function, a filter box, a
// small per-bucket SVG of reports per day, and, per bucket on demand, its
// example trace with verdict colours and reasons, sources when debuginfo was
// used, and the stack picture of a dump-backed report. Keyboard: rows are
// focusable (arrows move, Enter/Space open), sort headers are buttons, '/'
// goes to the filter. A print stylesheet prints the table and the opened
// buckets. Model in, bytes out.
#pragma once
#include <string>

#include "model/triage.h"

namespace btaudit {

std::string render_triage_html(const TriagePage& page);

// The parts, for tests and for the page itself.
std::string render_triage_detail(const TriageBucket& b, std::int64_t first_day, std::int64_t last_day);
// Reports per day over [first_day, last_day] as bars: an SVG path, and what it shows in words.
struct DaySparkline {
  std::string path;   // SVG path data, only digits, '.', ',', '-' and path letters
  std::string label;  // "12 reports, 2026-11-02 to 2026-11-29"
  int width = 0, height = 0;
};
DaySparkline day_sparkline(const TriageBucket& b, std::int64_t first_day, std::int64_t last_day, int width, int height);
std::string render_day_sparkline(const TriageBucket& b, std::int64_t first_day, std::int64_t last_day, int width,
                                 int height);
std::string render_stack_picture(const Report& walk);
std::string format_day(std::int64_t day);  // "2026-11-29"

}  // namespace btaudit
