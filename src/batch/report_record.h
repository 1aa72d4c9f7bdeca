// What batch keeps of one analyzed report: its NDJSON line (the analyze JSON
// contract) and the few fields that buckets and the database index it by.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/report.h"
#include "model/report_record.h"

namespace btaudit {

// `report` must have been through analyze_report (verdicts, title, signature).
ReportRecord make_record(const Report& report, std::uint32_t seq);

}  // namespace btaudit
