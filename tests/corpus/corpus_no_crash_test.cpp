// Runs every file of the shared corpora (../shared/corpora) through the whole
// analyze pipeline in-process: read (decompressing by magic), parse, analyze,
// render JSON. Nothing may throw, crash or take long, and every report must
// hold together (indices in range, line spans ordered). Exits 77 (ctest: skipped)
// when the corpora are not there, so a bare checkout still passes.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/analyze_report.h"
#include "input/input_error.h"
#include "input/read_input.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "text/log_parser.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  const fs::path root(BTAUDIT_SHARED_CORPORA);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return files;
  // Bounded walk: the corpora hold ~1,500 files; a runaway tree is cut, not followed.
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator() && files.size() < 100000; it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// What must hold for any report, whatever the input looked like.
void check_consistent(const btaudit::Report& r, const std::string& where) {
  BOOST_TEST_CONTEXT(where) {
    BOOST_TEST(r.input.first_line <= r.input.last_line);
    for (const btaudit::Frame& f : r.frames) {
      BOOST_TEST(f.trace < r.traces.size());
      BOOST_TEST(f.line >= r.input.first_line);
      BOOST_TEST(f.line <= r.input.last_line);
    }
    for (const btaudit::Trace& t : r.traces) BOOST_TEST(std::size_t{t.first_frame} + t.frame_count <= r.frames.size());
    for (const btaudit::StackSection& s : r.sections) {
      BOOST_TEST(std::size_t{s.first_frame} + s.frame_count <= r.frames.size());
      BOOST_TEST(s.trace < r.traces.size());
    }
    if (r.guilty) BOOST_TEST(*r.guilty < r.frames.size());
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(corpus_no_crash)

BOOST_AUTO_TEST_CASE(every_corpus_file_analyzes_quickly_and_consistently) {
  const std::vector<fs::path> files = corpus_files();
  if (files.empty()) {
    std::cout << "no corpora at " << BTAUDIT_SHARED_CORPORA << ": skipped\n";
    std::exit(77);
  }
  std::size_t reports = 0, frames = 0, unreadable = 0;
  for (const fs::path& p : files) {
    const std::string name = p.string();
    std::string text;
    try {
      text = btaudit::read_input(name);
    } catch (const btaudit::InputError&) {
      ++unreadable;  // a corrupt compressed file is an input error, reported, not a crash
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<btaudit::Report> got = btaudit::parse_log(text, name);
    for (btaudit::Report& r : got) {
      btaudit::analyze_report(r);
      check_consistent(r, name);
      frames += r.frames.size();
      BOOST_TEST(!btaudit::render_text(r, btaudit::TextStyle{}).empty());
    }
    const std::string json = btaudit::render_json(got);
    BOOST_TEST_CONTEXT(name) { BOOST_TEST((!json.empty() && json.front() == '{')); }
    reports += got.size();
    // Linear-time parsing handles these files in milliseconds; seconds means a loop went wrong.
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    BOOST_TEST_CONTEXT(name) { BOOST_TEST(ms.count() < 5000); }
  }
  std::cout << files.size() << " corpus files, " << reports << " reports, " << frames << " frames, " << unreadable
            << " unreadable\n";
  BOOST_TEST(reports > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
