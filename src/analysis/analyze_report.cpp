#include "analysis/analyze_report.h"

#include "analysis/guilty.h"
#include "analysis/signature.h"
#include "analysis/text_verdicts.h"
#include "analysis/title.h"

namespace btaudit {

void analyze_report(Report& report) {
  assign_text_verdicts(report);
  report.guilty = find_guilty_frame(report);
  report.title = make_title(report);
  report.signature = compute_signature(report);
}

}  // namespace btaudit
