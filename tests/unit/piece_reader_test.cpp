// A log read a piece at a time (input/piece_reader.h, parse_log_pieces) must give exactly
// the reports of the same log parsed whole, wherever the pieces end, and the reports' console
// lines must stay readable after the reader has moved on.
#include "input/piece_reader.h"

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyze_report.h"
#include "render/report_json.h"
#include "temp_dir.h"
#include "text/log_parser.h"
#include "text/log_transport.h"

namespace fs = std::filesystem;
using namespace btaudit;

namespace {

// Every TempDir of this file is named after it.
class TempDir : public btaudit::testing::TempDir {
 public:
  TempDir() : btaudit::testing::TempDir("btaudit-piece-reader") {}
};

// A console log of `reports` reports of several kinds, with prose between them, a boot banner
// now and then, a report whose lines lie far apart (other contexts' lines between them) and,
// when `crlf`, serial-console line ends from the middle on.
std::string generated_log(int reports, bool crlf, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s;
  std::uint32_t t = 0;
  bool cr = false;
  const auto line = [&](const std::string& text) {
    ++t;
    s += "[" + std::to_string(1000 + t) + ".000000] " + text + (cr ? "\r\n" : "\n");
  };
  const char* const kinds[] = {"WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 smp_call_function_many_cond+0x3c4/0x3c8",
                               "BUG: KASAN: use-after-free in tcp_v4_rcv+0x1a/0x200",
                               "general protection fault: 0000 [#1] SMP KASAN",
                               "BUG: unable to handle page fault for address: ffffffffffffffe8",
                               "INFO: task syz-executor1:12659 blocked for more than 120 seconds."};
  for (int r = 0; r < reports; ++r) {
    if (crlf && r == reports / 2) cr = true;
    if (r % 7 == 3) line("Linux version 6.1.0-" + std::to_string(r) + " (gcc) #1 SMP");
    for (unsigned k = rng() % 6; k > 0; --k) line("eth0: link up, " + std::to_string(rng() % 1000) + " Mbps");
    line("------------[ cut here ]------------");
    line(kinds[rng() % 5]);
    line("CPU: 0 PID: 1 Comm: syz-executor Not tainted 6.1.0 #1");
    line("RIP: 0010:tcp_v4_rcv+0x1a/0x200");
    line("Call Trace:");
    for (unsigned f = 2 + rng() % 12; f > 0; --f) {
      line(" func_" + std::to_string(rng() % 50) + "+0x" + std::to_string(10 + rng() % 80) + "/0x100");
      // Far-apart lines of one report: unrelated lines between its frames.
      if (r % 5 == 1)
        for (int k = 0; k < 20; ++k) line("audit: type=1400 msg=" + std::to_string(k));
    }
    line("---[ end trace 0000000000000000 ]---");
    if (r % 4 == 2) line("Kernel panic - not syncing: Fatal exception");
  }
  s += "[9999.000000] a last line without its end";
  return s;
}

// Each report analyzed and rendered as `btaudit analyze --format json` renders it, as it arrives.
struct Rendered {
  std::vector<std::string> json;
  LogParser::Sink sink() {
    return [this](Report&& r) {
      analyze_report(r);  // reads the report's console lines (title rules)
      json.push_back(render_json(std::vector<Report>{std::move(r)}));
    };
  }
};

std::vector<std::string> parsed_whole(const std::string& log) {
  Rendered out;
  parse_log(log, "log", out.sink());
  return out.json;
}

// The log cut into pieces after the line ends chosen by `cut_here`, each piece a fresh copy
// that only the parser (and the reports viewing it) hold once handed on. The first piece holds
// the lines that tell the transport, as the reader's first piece does.
template <typename CutHere>
std::vector<std::string> parsed_in_pieces(const std::string& log, CutHere cut_here) {
  std::vector<std::size_t> ends;
  int lines = 0;
  for (std::size_t i = 0; i < log.size(); ++i)
    if (log[i] == '\n' && ++lines > 40 && cut_here()) ends.push_back(i + 1);
  ends.push_back(log.size());
  std::size_t at = 0;
  std::size_t next_end = 0;
  Rendered out;
  const bool console = parse_log_pieces("log", out.sink(), ParserLimits{}, [&]() -> std::optional<LogPiece> {
    if (next_end == ends.size()) return std::nullopt;
    const std::size_t end = ends[next_end++];
    auto storage = std::make_shared<const std::string>(log.substr(at, end - at));
    at = end;
    return LogPiece{*storage, storage, next_end == ends.size()};
  });
  BOOST_TEST(console);
  return out.json;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(piece_reader)

BOOST_AUTO_TEST_CASE(a_log_in_pieces_gives_the_reports_of_the_whole_log_wherever_the_pieces_end) {
  for (const bool crlf : {false, true}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      const std::string log = generated_log(60, crlf, seed);
      const std::vector<std::string> whole = parsed_whole(log);
      BOOST_REQUIRE_GE(whole.size(), 50u);
      // One piece per line: every report's lines span many pieces (the copy past kMaxPins).
      BOOST_TEST(parsed_in_pieces(log, [] { return true; }) == whole, "one line per piece, seed " << seed);
      BOOST_TEST(parsed_in_pieces(log, [] { return false; }) == whole, "one piece, seed " << seed);
      std::mt19937 rng(seed);
      for (const unsigned every : {3u, 40u, 400u})
        BOOST_TEST(parsed_in_pieces(log, [&] { return rng() % every == 0; }) == whole,
                   "a cut every ~" << every << " lines, seed " << seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_journal_export_is_left_to_the_whole_log_parser) {
  std::string journal;
  for (int i = 0; i < 40; ++i)
    journal += "{\"MESSAGE\":\"line " + std::to_string(i) + "\",\"_TRANSPORT\":\"kernel\"}\n";
  bool handed_on = false;
  int pieces = 0;
  const bool console = parse_log_pieces(
      "j", [&](Report&&) { handed_on = true; }, ParserLimits{},
      [&, storage = std::make_shared<const std::string>(journal)]() -> std::optional<LogPiece> {
        if (pieces++ > 0) return std::nullopt;
        return LogPiece{*storage, storage, true};
      });
  BOOST_TEST(!console);
  BOOST_TEST(!handed_on);
  BOOST_TEST(pieces == 1);  // only the first piece was read
}

BOOST_AUTO_TEST_CASE(a_first_piece_too_short_to_tell_the_transport_is_left_to_the_whole_log_parser) {
  const std::string log = generated_log(5, false, 1);
  int pieces = 0;
  std::size_t at = 0;
  const bool console = parse_log_pieces(
      "log", [](Report&&) { BOOST_FAIL("no report may be handed on"); }, ParserLimits{},
      [&]() -> std::optional<LogPiece> {
        const std::size_t end = log.find('\n', at) + 1;  // one line
        auto storage = std::make_shared<const std::string>(log.substr(at, end - at));
        at = end;
        ++pieces;
        return LogPiece{*storage, storage, false};
      });
  BOOST_TEST(!console);
  BOOST_TEST(pieces == 1);
}

BOOST_AUTO_TEST_CASE(the_transport_is_undecided_until_enough_lines_are_seen) {
  const std::string head = "first line\n\n\nsecond line\n";
  BOOST_TEST(!detect_transport_from(head, false).has_value());
  BOOST_TEST((detect_transport_from(head, true) == Transport::Console));
  BOOST_TEST((detect_transport_from("6,1,2,-;kmsg record\n", false) == Transport::Kmsg));
  std::string many;
  for (int i = 0; i < 40; ++i) many += "console line " + std::to_string(i) + "\n";
  BOOST_TEST((detect_transport_from(many, false) == Transport::Console));
}

BOOST_AUTO_TEST_CASE(a_file_is_read_in_pieces_of_whole_lines_that_outlive_the_reader) {
  TempDir dir;
  for (const bool ends_with_newline : {true, false}) {
    std::string content;
    for (int i = 0; content.size() < (std::size_t{3} << 20); ++i)
      content += "[" + std::to_string(i) + ".000000] line " + std::to_string(i * 7919 % 1000) + "\n";
    content += std::string(std::size_t{1300} << 10, 'x') + "\n";  // longer than a piece buffer
    content += "after the long line";
    if (ends_with_newline) content += "\n";
    const std::string path = dir.file("log", content);
    auto reader = PieceReader::open(path);
    BOOST_REQUIRE(reader);
    std::vector<PieceReader::Piece> pieces;
    while (auto p = reader->next()) pieces.push_back(std::move(*p));
    BOOST_TEST(!reader->failed());
    BOOST_REQUIRE_GE(pieces.size(), 5u);
    reader.reset();  // the pieces' storage lives on without the reader
    std::string joined;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const std::string_view t = pieces[i].text;
      BOOST_REQUIRE(!t.empty());
      if (i + 1 < pieces.size()) BOOST_TEST(t.back() == '\n');
      BOOST_TEST(pieces[i].last == (i + 1 == pieces.size()));
      joined.append(t);
    }
    BOOST_TEST(joined == content);
  }
}

BOOST_AUTO_TEST_CASE(a_file_truncated_while_it_is_read_says_so) {
  TempDir dir;
  std::string content;
  for (int i = 0; content.size() < (std::size_t{2} << 20); ++i) content += "line " + std::to_string(i) + "\n";
  const std::string path = dir.file("log", content);
  auto reader = PieceReader::open(path);
  BOOST_REQUIRE(reader);
  const auto first = reader->next();
  BOOST_REQUIRE(first);
  fs::resize_file(path, content.size() / 2);  // another process cuts the log short
  std::string joined(first->text);
  while (auto p = reader->next()) joined.append(p->text);
  BOOST_TEST(reader->failed());
  BOOST_TEST(joined.size() < content.size());
  BOOST_TEST(content.starts_with(joined));  // what was read is the file's start, nothing made up
}

BOOST_AUTO_TEST_CASE(what_is_not_a_plain_regular_file_is_left_to_load_input) {
  TempDir dir;
  BOOST_TEST(!PieceReader::open("-"));
  BOOST_TEST(!PieceReader::open(dir.file("empty", "")));
  BOOST_TEST(!PieceReader::open(dir.file("gz", std::string("\x1f\x8b\x08\x00", 4) + "rest")));
  BOOST_TEST(!PieceReader::open(dir.file("zst", std::string("\x28\xb5\x2f\xfd", 4) + "rest")));
  BOOST_TEST(!PieceReader::open(dir.file("missing", "x") + ".not-there"));
  BOOST_TEST(!PieceReader::open(fs::temp_directory_path().string()));  // a directory
  InputLimits small;
  small.max_bytes = 4;
  BOOST_TEST(!PieceReader::open(dir.file("big", "more than four bytes\n"), small));
  BOOST_TEST(PieceReader::open(dir.file("plain", "a line\n")) != nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
