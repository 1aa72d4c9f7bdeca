// Reports read back from the analyze JSON contract (man/btaudit.1, OUTPUT):
// what batch keeps in its database and NDJSON, and what `vmcore --format json`
// prints, turned back into Report objects for the triage page.
#pragma once
#include <string_view>

#include "model/report.h"

namespace btaudit {

// One report object's text. Throws InputError-free std::runtime_error
// (nlohmann's) on malformed JSON; unknown enum words read as Other/Unknown.
Report report_from_json_text(std::string_view text);

}  // namespace btaudit
