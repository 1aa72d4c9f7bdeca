#include "analysis/signature.h"

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <string>

#include "analysis/analyze_report.h"
#include "text/log_parser.h"

using namespace btaudit;

namespace {

Report first_report(const std::string& log) {
  auto reports = parse_log(log, "t");
  BOOST_REQUIRE(!reports.empty());
  analyze_report(reports[0]);
  return std::move(reports[0]);
}

const char* kWarnA =
    "[  1.0] WARNING: CPU: 0 PID: 1234 at net/core/dev.c:12 dev_watchdog+0x1/0x2\n"
    "[  1.1] CPU: 0 PID: 1234 Comm: syz-executor.3 Not tainted 5.10.0 #1\n"
    "[  1.2] RIP: 0010:dev_watchdog+0x1/0x2\n"
    "[  1.3] Call Trace:\n"
    "[  1.4]  ? __warn+0x1/0x2\n"
    "[  1.5]  call_timer_fn+0x1/0x2\n";

// The same bug on another build, task and CPU, with other '?' frames.
const char* kWarnB =
    "[  9.0] WARNING: CPU: 1 PID: 99 at net/core/dev.c:15 dev_watchdog+0x7/0x90\n"
    "[  9.1] CPU: 1 PID: 99 Comm: kworker/1:0 Not tainted 6.1.0 #1\n"
    "[  9.2] RIP: 0010:dev_watchdog+0x7/0x90\n"
    "[  9.3] Call Trace:\n"
    "[  9.4]  ? report_bug+0x1/0x2\n"
    "[  9.5]  run_timer_softirq+0x1/0x2\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(signature)

BOOST_AUTO_TEST_CASE(same_bug_across_builds_hashes_equal) {
  const Report a = first_report(kWarnA);
  const Report b = first_report(kWarnB);
  BOOST_TEST(a.title == b.title);
  BOOST_TEST(a.signature == b.signature);
}

BOOST_AUTO_TEST_CASE(different_functions_hash_apart) {
  const Report a = first_report(kWarnA);
  const Report c = first_report(
      "[  1.0] WARNING: CPU: 0 PID: 1 at net/core/dev.c:12 dev_open+0x1/0x2\n"
      "[  1.2] RIP: 0010:dev_open+0x1/0x2\n");
  BOOST_TEST(a.signature != c.signature);
}

BOOST_AUTO_TEST_CASE(different_classes_in_one_function_hash_apart) {
  const Report gpf = first_report(
      "[  1.0] general protection fault: 0000 [#1] SMP\n"
      "[  1.1] RIP: 0010:dev_watchdog+0x1/0x2\n");
  const Report warn = first_report(kWarnA);
  BOOST_TEST(gpf.signature != warn.signature);
}

BOOST_AUTO_TEST_CASE(hex_form_is_sixteen_lower_case_digits_as_printf_writes_them) {
  BOOST_TEST(signature_hex(0x1234) == "0000000000001234");
  // Every nibble position and value, against printf's "%016llx".
  for (unsigned shift = 0; shift < 64; shift += 4)
    for (std::uint64_t nibble = 0; nibble < 16; ++nibble) {
      const std::uint64_t v = (nibble << shift) | (0x0123456789abcdefULL & ~(std::uint64_t{0xf} << shift));
      char want[17];
      std::snprintf(want, sizeof want, "%016llx", static_cast<unsigned long long>(v));
      BOOST_TEST(signature_hex(v) == want);
    }
}

BOOST_AUTO_TEST_SUITE_END()
