// Register blocks: a report that prints __show_regs() more than once (the crash's
// registers, then the user-mode ones saved at syscall entry, or an interrupted
// context's inside a trace) keeps each block apart, so that "registers" in the JSON
// is one object with distinct names (the crash's) and the later blocks follow it in
// "more_registers" with their lines. Generated: each era's register layout, blocks
// separated by a RIP line or only by a repeated name, prefixes and line ends.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "input/read_input.h"
#include "input/report_json_read.h"
#include "render/json_writer.h"
#include "render/report_json.h"
#include "text/log_parser.h"

using btaudit::RegisterSet;
using btaudit::Report;
namespace fs = std::filesystem;

namespace {

// The register rows of one __show_regs() block as an era printed them: x86-64 with
// the segment before RSP (2.6.x-4.x "RSP: 0018:ffff..." and 5.x+), i386 with E names.
struct Layout {
  const char* name;
  const char* rip;  // the block's first line, before its rows
  std::vector<std::string> rows;
  std::vector<std::string> names;  // in row order
};

std::vector<Layout> layouts() {
  return {
      {"x86-64 5.x+",
       "RIP: 0010:foo+0x1/0x2",
       {"RSP: 0018:ffffc90000003e50 EFLAGS: 00010246",
        "RAX: 0000000000000001 RBX: 0000000000000002 RCX: 0000000000000003",
        "RDX: 0000000000000004 RSI: 0000000000000005 RDI: 0000000000000006",
        "RBP: 0000000000000007 R08: 0000000000000008 R09: 0000000000000009",
        "R10: 000000000000000a R11: 000000000000000b R12: 000000000000000c",
        "R13: 000000000000000d R14: 000000000000000e R15: 000000000000000f"},
       {"RSP", "EFLAGS", "RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "R08", "R09", "R10", "R11", "R12", "R13",
        "R14", "R15"}},
      {"x86-64 user registers at syscall entry",
       "RIP: 0033:0x7f0123456789",
       {"RSP: 002b:00007ffd12345678 EFLAGS: 00000246 ORIG_RAX: 0000000000000001",
        "RAX: ffffffffffffffda RBX: 0000000000000001 RCX: 00007f0123456789"},
       {"RSP", "EFLAGS", "ORIG_RAX", "RAX", "RBX", "RCX"}},
      {"i386",
       "EIP: 0060:[<c1234567>] EFLAGS: 00010246 CPU: 0",
       {"EAX: 00000001 EBX: 00000002 ECX: 00000003 EDX: 00000004",
        "ESI: 00000005 EDI: 00000006 EBP: 00000007 ESP: 00000008"},
       {"EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"}},
  };
}

std::vector<std::string> names_of(const RegisterSet& set) {
  std::vector<std::string> out;
  for (const auto& [name, value] : set.values) out.push_back(name);
  return out;
}

// A WARNING report whose trace holds `blocks` register blocks of `layout` (the first
// before the trace, as the kernel prints the crash's registers), each led by its RIP
// line or not, each line given `prefix` and ended by `end`.
std::string report_text(const Layout& layout, int blocks, bool rip_lines, const std::string& prefix,
                        const std::string& end) {
  std::vector<std::string> lines = {"------------[ cut here ]------------",
                                    "WARNING: CPU: 1 PID: 42 at kernel/foo.c:10 foo+0x1/0x2",
                                    "CPU: 1 PID: 42 Comm: sh Not tainted 6.1.0 #1"};
  for (int b = 0; b < blocks; ++b) {
    if (b == 1) lines.emplace_back("Call Trace:");
    if (b >= 1) lines.emplace_back(" bar+0x" + std::to_string(b) + "/0x40");
    if (rip_lines) lines.emplace_back(layout.rip);
    for (const std::string& row : layout.rows) lines.push_back(row);
  }
  if (blocks < 2) lines.emplace_back("Call Trace:");
  lines.emplace_back(" baz+0x5/0x40");
  lines.emplace_back("---[ end trace 0000000000000000 ]---");
  std::string text;
  for (const std::string& l : lines) text += prefix + l + end;
  return text;
}

std::string json_of(const Report& r) {
  std::string out;
  {
    btaudit::JsonWriter w(out);
    btaudit::write_report_json(w, r);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(register_blocks)

BOOST_AUTO_TEST_CASE(every_block_of_every_layout_is_kept_apart_with_its_line) {
  const std::vector<std::string> prefixes = {"", "[   12.345678] ", "<4>[    1.000000] ",
                                             "Dec  2 14:00:00 host kernel: ", "6,1234,5678901,-;"};
  const std::vector<std::string> ends = {"\n", "\r\n"};
  for (const Layout& layout : layouts())
    for (int blocks = 1; blocks <= 3; ++blocks)
      for (const bool rip_lines : {true, false})
        for (const std::string& prefix : prefixes)
          for (const std::string& end : ends) {
            const std::string text = report_text(layout, blocks, rip_lines, prefix, end);
            const auto reports = btaudit::parse_log(text, "t");
            BOOST_TEST_CONTEXT(layout.name << ", " << blocks << " blocks, rip lines " << rip_lines << ", prefix '"
                                           << prefix << "'") {
              BOOST_REQUIRE_EQUAL(reports.size(), 1u);
              const Report& r = reports[0];
              BOOST_REQUIRE_EQUAL(r.registers.size(), static_cast<std::size_t>(blocks));
              std::uint32_t previous_line = 0;
              for (const RegisterSet& set : r.registers) {
                BOOST_TEST(names_of(set) == layout.names, boost::test_tools::per_element());
                BOOST_TEST(set.line > previous_line);
                previous_line = set.line;
              }
              // Each block starts on its first row: the line after the RIP line, if any.
              const std::size_t first_row = text.find(layout.rows.front());
              const auto line_of_first_row =
                  static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + first_row, '\n') + 1);
              BOOST_TEST(r.registers.front().line == line_of_first_row);
            }
          }
}

BOOST_AUTO_TEST_CASE(the_json_names_each_register_once_and_lists_later_blocks) {
  for (const Layout& layout : layouts())
    for (int blocks = 1; blocks <= 3; ++blocks) {
      const auto reports = btaudit::parse_log(report_text(layout, blocks, true, "", "\n"), "t");
      BOOST_REQUIRE_EQUAL(reports.size(), 1u);
      const std::string text = json_of(reports[0]);
      // A JSON object with a name twice is read differently by different parsers (most keep
      // the last: the user-mode RSP instead of the crash's). nlohmann rejects none, so the
      // raw text of the object is checked for each name once.
      const std::size_t open = text.find("\"registers\":{");
      BOOST_REQUIRE(open != std::string::npos);
      const std::string object = text.substr(open, text.find('}', open) - open);
      for (const std::string& name : layout.names)
        BOOST_TEST(object.find("\"" + name + "\":") == object.rfind("\"" + name + "\":"), name);
      const auto doc = nlohmann::json::parse(text);
      BOOST_TEST(doc["registers"].contains("RAX") == (layout.names.front()[0] != 'E'),
                 layout.name << " " << doc["registers"].dump());
      BOOST_REQUIRE(doc["more_registers"].is_array());
      BOOST_TEST(doc["more_registers"].size() == static_cast<std::size_t>(blocks - 1));
      for (std::size_t i = 0; i < doc["more_registers"].size(); ++i) {
        BOOST_TEST(doc["more_registers"][i]["line"] == reports[0].registers[i + 1].line);
        BOOST_TEST(doc["more_registers"][i]["registers"].size() == layout.names.size());
      }
    }
}

BOOST_AUTO_TEST_CASE(the_crash_registers_are_the_first_block_read_back) {
  const auto reports = btaudit::parse_log(report_text(layouts()[0], 2, true, "", "\n"), "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  const Report back = btaudit::report_from_json_text(json_of(reports[0]));
  BOOST_REQUIRE_EQUAL(back.registers.size(), 2u);
  BOOST_TEST((back.registers[0].values == reports[0].registers[0].values));
  BOOST_TEST((back.registers[1] == reports[0].registers[1]));  // a later block keeps its line
  BOOST_TEST(json_of(back) == json_of(reports[0]));
}

BOOST_AUTO_TEST_CASE(no_sample_report_names_a_register_twice_in_a_block) {
  const fs::path corpora = fs::path(BTAUDIT_SOURCE_DIR) / "corpora";
  std::size_t reports_with_more = 0;
  for (const auto& e : fs::directory_iterator(corpora)) {
    if (e.path().extension() != ".log") continue;
    for (const Report& r : btaudit::parse_log(btaudit::read_input(e.path().string()), e.path().string())) {
      for (const RegisterSet& set : r.registers) {
        std::set<std::string> names;
        for (const auto& [name, value] : set.values) BOOST_TEST(names.insert(name).second, e.path() << " " << name);
      }
      if (r.registers.size() > 1) ++reports_with_more;
    }
  }
  BOOST_TEST(reports_with_more > 0u);  // the lab reports print the user-mode registers too
}

BOOST_AUTO_TEST_SUITE_END()
