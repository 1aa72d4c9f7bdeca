// The JSON contract of `btaudit analyze --format json` (see man/btaudit.1,
// OUTPUT): names are fixed, fields may be added.
#pragma once
#include <string>
#include <vector>

#include "model/report.h"
#include "render/json_writer.h"

namespace btaudit {

void write_frame_json(JsonWriter& w, const Frame& f);
void write_report_json(JsonWriter& w, const Report& r);
// The whole document: {"btaudit": version, "reports": [...]}.
std::string render_json(const std::vector<Report>& reports);

}  // namespace btaudit
