// Golden tests: runs the real `btaudit analyze --format json` on one sample
// of corpora/ and compares the stable part of its output with
// tests/golden/expected/<sample>.json.
//
// Only fields that describe the analysis are compared (kind, title, context,
// signature, and per frame its location, '?' mark, stack and verdict), not
// line numbers, paths or registers, so a change shows up as a short,
// meaningful diff. BTAUDIT_UPDATE_GOLDEN=1 rewrites the expected file instead.
//
// Usage (ctest does this): btaudit_golden_tests --run_test=golden -- SAMPLE EXPECTED_JSON
#include <sys/wait.h>

#include <array>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

using nlohmann::json;
using nlohmann::ordered_json;  // keeps the golden files in the field order listed below

namespace {

struct Output {
  std::string text;
  int status = -1;
};

// Runs a command and collects its standard output.
Output run(const std::string& command) {
  Output out;
  auto closer = [&out](FILE* f) { out.status = ::pclose(f); };
  std::unique_ptr<FILE, decltype(closer)> pipe(::popen(command.c_str(), "r"), closer);
  BOOST_REQUIRE_MESSAGE(pipe != nullptr, "cannot run " << command);
  std::array<char, 1 << 16> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe.get())) > 0) out.text.append(buf.data(), n);
  pipe.reset();
  return out;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }  // paths here never hold a quote

// The fields the golden files pin down; everything else may change freely.
ordered_json stable_part(const json& document) {
  static const char* const kReportFields[] = {"kind", "title",  "corrupted", "cpu",      "pid",
                                              "comm", "kernel", "tainted",   "signature"};
  static const char* const kFrameFields[] = {"function", "offset", "printed_unreliable", "stack", "exception",
                                             "verdict",  "reason"};
  ordered_json reports = ordered_json::array();
  for (const json& r : document.at("reports")) {
    ordered_json s = ordered_json::object();
    for (const char* f : kReportFields) s[f] = r.value(f, json());
    ordered_json frames = ordered_json::array();
    for (const json& fr : r.at("frames")) {
      ordered_json t = ordered_json::object();
      for (const char* f : kFrameFields) t[f] = fr.value(f, json());
      frames.push_back(t);
    }
    s["frames"] = frames;
    reports.push_back(s);
  }
  return reports;
}

// One report field per line and one frame per line: reviewable diffs.
std::string format_golden(const ordered_json& reports) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    os << (i ? ",\n  {\n" : "\n  {\n");
    const ordered_json& r = reports[i];
    bool first = true;
    for (const auto& [key, value] : r.items()) {
      if (key == "frames") continue;
      os << (first ? "" : ",\n") << "    " << ordered_json(key).dump() << ": " << value.dump();
      first = false;
    }
    os << ",\n    \"frames\": [";
    const ordered_json& frames = r.at("frames");
    for (std::size_t k = 0; k < frames.size(); ++k) os << (k ? ",\n      " : "\n      ") << frames[k].dump();
    os << (frames.empty() ? "]" : "\n    ]") << "\n  }";
  }
  os << (reports.empty() ? "]\n" : "\n]\n");
  return os.str();
}

// Readable mismatch: one line per JSON-patch operation, with the old value.
std::string describe_difference(const json& expected, const json& actual) {
  std::ostringstream os;
  int shown = 0;
  for (const json& op : json::diff(expected, actual)) {
    if (++shown > 40) {
      os << "  ... more differences\n";
      break;
    }
    const std::string path = op.at("path").get<std::string>();
    os << "  " << op.at("op").get<std::string>() << " " << path;
    if (op.contains("value")) os << " = " << op.at("value").dump();
    if (op.at("op") != "add") {
      const json::json_pointer ptr(path);
      if (expected.contains(ptr)) os << "  (expected " << expected.at(ptr).dump() << ")";
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(golden)

BOOST_AUTO_TEST_CASE(sample_matches_expected_output) {
  const auto& suite = boost::unit_test::framework::master_test_suite();
  BOOST_REQUIRE_MESSAGE(suite.argc == 3, "usage: btaudit_golden_tests --run_test=golden -- SAMPLE EXPECTED_JSON");
  const std::string sample = suite.argv[1];
  const std::string expected_path = suite.argv[2];

  const Output out = run(std::string(BTAUDIT_BINARY) + " analyze --format json " + quoted(sample));
  BOOST_REQUIRE_MESSAGE(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0,
                        "btaudit analyze --format json failed on " << sample);
  const ordered_json stable = stable_part(json::parse(out.text));
  const json actual = json::parse(stable.dump());  // compared without regard to key order
  // The text renderer must also get through every sample.
  const Output text = run(std::string(BTAUDIT_BINARY) + " analyze --color never " + quoted(sample));
  BOOST_TEST((WIFEXITED(text.status) && WEXITSTATUS(text.status) == 0), "text output failed on " << sample);
  BOOST_TEST(!text.text.empty());

  const char* update = std::getenv("BTAUDIT_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(expected_path, std::ios::binary) << format_golden(stable);
    BOOST_TEST_MESSAGE("golden: rewrote " << expected_path);
    return;
  }
  std::ifstream in(expected_path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(
      in.good(), "no expected output " << expected_path << "; create it with BTAUDIT_UPDATE_GOLDEN=1 ctest -L golden");
  const json expected = json::parse(in);
  BOOST_TEST(expected == actual, "output of " << sample << " differs from " << expected_path << ":\n"
                                              << describe_difference(expected, actual)
                                              << "If the change is intended: BTAUDIT_UPDATE_GOLDEN=1 ctest -L golden");
}

BOOST_AUTO_TEST_SUITE_END()
