#include "analysis/analyze_report.h"

#include "analysis/guilty.h"
#include "analysis/guilty_file.h"
#include "analysis/signature.h"
#include "analysis/text_verdicts.h"
#include "analysis/title.h"

namespace btaudit {

void analyze_report(Report& report) {
  assign_text_verdicts(report);
  const auto rules = title_from_rules(report.text);  // once: guilty frame and title share it
  report.guilty = find_guilty_frame(report, rules);
  report.title = make_title(report, rules);
  report.guilty_file = find_guilty_file(report.title, report.text);
  report.signature = compute_signature(report);
  // The console lines served the title rules; reports live on until rendering, their lines need not.
  std::vector<std::string_view>().swap(report.text);
  report.text_storage.reset();
}

}  // namespace btaudit
