// The JSON of a report's frames, registers, traces and sections is written straight into the
// writer's buffer (render/report_json.cpp, report_json_detail); it must be the text the
// general calls write, byte for byte, whatever the strings hold.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "render/report_json.h"

namespace detail = btaudit::report_json_detail;
using btaudit::Frame;
using btaudit::JsonWriter;
using btaudit::RegisterSet;
using btaudit::Report;
using btaudit::StackSection;
using btaudit::Trace;

namespace {

// Strings over plain bytes and every kind a JSON string escapes or checks (quote, backslash,
// control bytes, DEL, UTF-8 valid and not), short and long (past JsonWriter::kShort, and now
// and then past the direct writers' bound).
std::string random_text(std::mt19937& rng) {
  static const std::vector<std::string> pieces = {"a",    "foo_bar", "net/core/dev.c:12", " ",    "\"", "\\", "\n",
                                                  "\x01", "\x7f",    "\xc3\xa9",          "\xff", "#DF"};
  std::string s;
  const std::size_t n = rng() % 9 == 0 ? 40 : rng() % 8;
  for (std::size_t i = 0; i < n; ++i) s += pieces[rng() % 4 == 0 ? rng() % pieces.size() : rng() % 4];
  if (rng() % 500 == 0) s += std::string(9000, 'x');
  return s;
}

template <typename T>
void maybe(std::mt19937& rng, T& slot, const T& value) {
  if (rng() % 3 != 0) slot = value;
}

Frame random_frame(std::mt19937& rng) {
  Frame f;
  if (rng() % 4 != 0) f.function = random_text(rng);
  if (rng() % 2) f.offset = rng() % 5 == 0 ? std::uint64_t{rng()} << 32 | rng() : rng() % 4096;
  if (rng() % 2) f.size = rng() % 100000;
  if (rng() % 4 == 0) f.module = random_text(rng);
  if (rng() % 6 == 0) f.build_id = random_text(rng);
  if (rng() % 3 == 0) f.address = std::uint64_t{0xffffffff00000000ULL} | rng();
  if (rng() % 3 == 0) f.source = random_text(rng);
  if (rng() % 5 == 0) f.exception = random_text(rng);
  f.inlined = rng() % 4 == 0;
  f.printed_unreliable = rng() % 3 == 0;
  f.stack = static_cast<btaudit::StackKind>(rng() % (static_cast<unsigned>(btaudit::StackKind::Unknown) + 1));
  f.verdict = static_cast<btaudit::Verdict>(rng() % (static_cast<unsigned>(btaudit::Verdict::Unknown) + 1));
  f.reason = static_cast<btaudit::Reason>(rng() % (static_cast<unsigned>(btaudit::Reason::ScannedTextAddress) + 1));
  f.line = rng() % 3 == 0 ? rng() : rng() % 1000;
  f.trace = rng() % 20;
  if (rng() % 10 == 0) f.slot = std::uint64_t{rng()};
  return f;
}

// `items` written into an array by `direct` (falling back to `fields` when it declines, as
// write_report_json does) and by `fields` alone.
template <typename T, typename Direct, typename Fields>
void check_same(const std::vector<T>& items, Direct direct, Fields fields, std::size_t& compared) {
  std::string a;
  std::string b;
  {
    JsonWriter w(a);
    w.begin_array();
    for (const T& x : items)
      if (!direct(w, x)) fields(w, x);
    w.end_array();
  }
  {
    JsonWriter w(b);
    w.begin_array();
    for (const T& x : items) fields(w, x);
    w.end_array();
  }
  BOOST_TEST(a == b);
  ++compared;
}

std::optional<std::string> maybe_text(std::mt19937& rng) {
  if (rng() % 3 == 0) return std::nullopt;
  return random_text(rng);
}

btaudit::CodeLocation random_location(std::mt19937& rng) {
  btaudit::CodeLocation l;
  l.function = maybe_text(rng);
  if (rng() % 2) l.offset = rng() % 4096;
  if (rng() % 2) l.size = rng() % 100000;
  if (rng() % 4 == 0) l.module = random_text(rng);
  if (rng() % 3 == 0) l.address = std::uint64_t{0xffffffff00000000ULL} | rng();
  return l;
}

// A report with every member the JSON holds, each present or not, its strings from random_text.
Report random_report(std::mt19937& rng) {
  Report r;
  r.kind = static_cast<btaudit::ReportKind>(rng() % (static_cast<unsigned>(btaudit::ReportKind::Other) + 1));
  r.arch = static_cast<btaudit::Arch>(rng() % (static_cast<unsigned>(btaudit::Arch::M68k) + 1));
  r.title = random_text(rng);
  r.header = random_text(rng);
  r.corrupted = rng() % 3 == 0;
  if (rng() % 2) r.corrupted_reason = random_text(rng);  // written only when corrupted
  if (rng() % 10 == 0) r.truncated.push_back({"frames", rng() % 9000, 4096, 4096, "", "--max-frames"});
  if (rng() % 2) r.cpu = static_cast<int>(rng() % 64) - (rng() % 8 == 0 ? 100 : 0);
  if (rng() % 2) r.pid = static_cast<int>(rng());
  r.comm = maybe_text(rng);
  r.kernel = maybe_text(rng);
  if (rng() % 4 == 0) r.kernel_build_id = random_text(rng);
  r.tainted = maybe_text(rng);
  r.hardware = maybe_text(rng);
  r.panicked = rng() % 2 == 0;
  r.signature = rng() % 4 == 0 ? rng() : std::uint64_t{rng()} << 32 | rng();
  const std::size_t frames = rng() % 5;
  for (std::size_t i = 0; i < frames; ++i) r.frames.push_back(random_frame(rng));
  if (frames > 0 && rng() % 2) r.guilty = rng() % frames;
  r.guilty_file = maybe_text(rng);
  if (rng() % 2) r.rip = random_location(rng);
  if (rng() % 3 == 0) r.warn_site = random_location(rng);
  if (rng() % 2)
    r.kaslr_offset = rng() % 3 == 0 ? -static_cast<std::int64_t>(rng()) : static_cast<std::int64_t>(rng()) << 8;
  if (rng() % 3 == 0) r.kaslr_source = rng() % 2 ? std::string("frames") : random_text(rng);
  r.kaslr_agreeing_frames = static_cast<int>(rng() % 30);
  if (rng() % 8 == 0) r.rip_debug = btaudit::FrameDebugInfo{};
  for (std::size_t i = rng() % 3; i > 0; --i) r.debug_warnings.push_back(random_text(rng));
  r.input.path = rng() % 2 ? std::string("in.log") : random_text(rng);
  r.input.first_line = rng();
  r.input.last_line = rng();
  for (std::size_t i = rng() % 6; i > 0; --i) r.modules.push_back(rng() % 2 ? std::string("ext4") : random_text(rng));
  for (std::size_t i = rng() % 3; i > 0; --i) {
    RegisterSet set;
    set.line = rng();
    set.values.emplace_back("RAX", rng());
    r.registers.push_back(std::move(set));
  }
  if (rng() % 2) r.code_bytes = random_text(rng);
  return r;
}

// A string of n bytes, mostly of a kernel symbol's or a source path's characters, now and then
// one that needs escaping; its buffer holds more bytes past its end (left there by a longer
// string it was cut from, or reserved), plain or not: the 16-byte reads of
// json_detail::copy_plain_string see them and must leave them out.
std::string frame_text(std::mt19937& rng, std::size_t n) {
  static const std::string plain = "abcdefghijklmnopqrstuvwxyz_ABCXYZ0123456789.$/:-+ ";
  static const std::string special = "\"\\\n\x01\x7f\xc3\xa9\xff";
  std::string s;
  if (rng() % 3 == 0) s.reserve(n + rng() % 40);
  for (std::size_t i = 0; i < n; ++i) {
    const bool odd = rng() % 60 == 0;
    s += odd ? special[rng() % special.size()] : plain[rng() % plain.size()];
  }
  if (rng() % 2) {
    // Bytes past the end within the buffer: cut from a longer string.
    const std::size_t keep = s.size();
    for (std::size_t i = rng() % 24; i > 0; --i) s += rng() % 2 ? '"' : '\x01';
    s.resize(keep);
  }
  return s;
}

// A frame as text logs give them: a function name and a source of every length around the
// copy's 16- and 32-byte blocks, small offsets and line numbers; now and then one with
// module, build id, address or exception, debuginfo or a dump slot, or a string past the
// direct writer's bound.
Frame run_frame(std::mt19937& rng, std::uint32_t line) {
  Frame f;
  const auto length = [&rng]() -> std::size_t {
    switch (rng() % 8) {
      case 0: return rng() % 4;
      case 1: return 14 + rng() % 4;                                          // 14..17
      case 2: return 30 + rng() % 4;                                          // 30..33
      case 3: return rng() % 200 == 0 ? 1000 + rng() % 60 : 40 + rng() % 60;  // around the 1024-byte bound
      default: return rng() % 48;
    }
  };
  if (rng() % 10 != 0) f.function = frame_text(rng, length());
  if (rng() % 4 != 0) f.offset = rng() % 7 == 0 ? std::uint64_t{rng()} << 20 | rng() : rng() % 20000;
  if (rng() % 4 != 0) f.size = rng() % 100000;
  if (rng() % 30 == 0) f.module = frame_text(rng, length());
  if (rng() % 40 == 0) f.build_id = frame_text(rng, length());
  if (rng() % 20 == 0) f.address = std::uint64_t{0xffffffff00000000ULL} | rng();
  if (rng() % 30 == 0) f.exception = frame_text(rng, rng() % 6);
  if (rng() % 2) f.source = frame_text(rng, length());
  f.inlined = rng() % 5 == 0;
  f.printed_unreliable = rng() % 3 == 0;
  f.stack = static_cast<btaudit::StackKind>(rng() % (static_cast<unsigned>(btaudit::StackKind::Unknown) + 1));
  f.verdict = static_cast<btaudit::Verdict>(rng() % (static_cast<unsigned>(btaudit::Verdict::Unknown) + 1));
  f.reason = static_cast<btaudit::Reason>(rng() % (static_cast<unsigned>(btaudit::Reason::ScannedTextAddress) + 1));
  f.line = rng() % 50 == 0 ? rng() : line;
  f.trace = rng() % 10 == 0 ? rng() % 300 : rng() % 3;
  if (rng() % 60 == 0) f.debug = btaudit::FrameDebugInfo{};
  if (rng() % 60 == 0) f.slot = std::uint64_t{rng()};
  return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report_json_direct)

// write_frames_json (runs of direct writing, write_frame_json for what a run leaves out)
// against write_frame_fields, frame by frame, for arrays of up to 400 frames: into a string
// and through a sink of the smallest block size, so that runs cross the buffer's flushes.
BOOST_AUTO_TEST_CASE(a_run_of_frames_is_the_text_of_the_general_calls) {
  std::mt19937 rng(1409);
  std::size_t frames_compared = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<Frame> frames;
    const std::size_t n = round % 10 == 0 ? rng() % 3 : rng() % 400;
    std::uint32_t line = rng() % 100000;
    for (std::size_t i = 0; i < n; ++i) frames.push_back(run_frame(rng, line += 1 + rng() % 3));
    const auto write = [&frames](JsonWriter& w, bool direct) {
      w.begin_object();
      w.key("frames");
      w.begin_array();
      if (direct)
        detail::write_frames_json(w, frames);
      else
        for (const Frame& f : frames) detail::write_frame_fields(w, f);
      w.end_array();
      w.field("after", 1);
      w.end_object();
    };
    std::string general;
    {
      JsonWriter w(general);
      write(w, false);
    }
    std::string in_string;
    {
      JsonWriter w(in_string);
      write(w, true);
    }
    std::string through_sink;
    std::size_t blocks = 0;
    {
      JsonWriter w(
          [&](std::string_view block) {
            BOOST_TEST(block.size() <= JsonWriter::kStage);
            through_sink += block;
            ++blocks;
          },
          JsonWriter::kStage);
      write(w, true);
    }
    BOOST_TEST(in_string == general);
    BOOST_TEST(through_sink == general);
    if (general.size() > 2 * JsonWriter::kStage) BOOST_TEST(blocks > 1u);
    frames_compared += n;
  }
  BOOST_TEST(frames_compared > 50'000u);
}

// json_detail::copy_plain_string against copy_if_plain on strings of every length up to 80,
// plain or with one byte to escape at every position, with bytes to escape left past their end.
BOOST_AUTO_TEST_CASE(copy_plain_string_agrees_with_copy_if_plain) {
  std::mt19937 rng(16);
  for (std::size_t n = 0; n <= 80; ++n)
    for (std::size_t bad = 0; bad <= n; ++bad)  // bad == n: plain throughout
      for (int variant = 0; variant < 4; ++variant) {
        std::string s = frame_text(rng, n);
        for (char& c : s)
          if (!btaudit::json_detail::kPlain[static_cast<unsigned char>(c)]) c = 'q';
        if (bad < n) s[bad] = variant % 2 ? '"' : '\x1f';
        if (variant >= 2) {
          const std::size_t keep = s.size();
          s.append(20, '\\');
          s.resize(keep);
        }
        char a[128];
        char b[128];
        std::memset(a, '#', sizeof a);
        std::memset(b, '#', sizeof b);
        const bool fast = btaudit::json_detail::copy_plain_string(a, s);
        const bool general = btaudit::json_detail::copy_if_plain(b, s.data(), s.size());
        BOOST_TEST(fast == general, "length " << n << " bad byte at " << bad);
        if (fast && general) BOOST_TEST(std::string(a, n) == std::string(b, n));
        BOOST_TEST(std::string(a + std::max<std::size_t>(n, 16), a + sizeof a) ==
                   std::string(sizeof a - std::max<std::size_t>(n, 16), '#'));  // at most 16 bytes or n stored
      }
}

BOOST_AUTO_TEST_CASE(direct_writing_gives_the_text_of_the_general_calls) {
  std::mt19937 rng(14);
  std::size_t compared = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::size_t n = 1 + rng() % 4;  // one item and several: the commas between them
    std::vector<Frame> frames;
    std::vector<RegisterSet> registers;
    std::vector<Trace> traces;
    std::vector<StackSection> sections;
    for (std::size_t i = 0; i < n; ++i) {
      frames.push_back(random_frame(rng));
      RegisterSet set;
      set.line = rng();
      const std::size_t count = rng() % 20;
      for (std::size_t k = 0; k < count; ++k)
        set.values.emplace_back(rng() % 4 ? std::string("R") + char('A' + rng() % 26) + "X" : random_text(rng),
                                rng() % 3 ? std::uint64_t{rng()} << 32 | rng() : rng() % 10);
      registers.push_back(std::move(set));
      Trace t;
      t.label = rng() % 3 ? std::string("Call Trace") : random_text(rng);
      t.primary = rng() % 2 == 0;
      maybe(rng, t.first_frame, static_cast<std::uint32_t>(rng()));
      maybe(rng, t.frame_count, static_cast<std::uint32_t>(rng() % 100));
      maybe(rng, t.line, static_cast<std::uint32_t>(rng()));
      traces.push_back(std::move(t));
      StackSection s;
      s.stack = static_cast<btaudit::StackKind>(rng() % (static_cast<unsigned>(btaudit::StackKind::Unknown) + 1));
      if (rng() % 3 == 0) s.exception = random_text(rng);
      maybe(rng, s.trace, static_cast<std::uint32_t>(rng() % 10));
      maybe(rng, s.first_frame, static_cast<std::uint32_t>(rng()));
      maybe(rng, s.frame_count, static_cast<std::uint32_t>(rng() % 100));
      maybe(rng, s.line, static_cast<std::uint32_t>(rng()));
      sections.push_back(std::move(s));
    }
    check_same(frames, detail::write_frame_direct, detail::write_frame_fields, compared);
    check_same(registers, detail::write_register_values_direct, detail::write_register_values_fields, compared);
    check_same(traces, detail::write_trace_direct, detail::write_trace_fields, compared);
    check_same(sections, detail::write_section_direct, detail::write_section_fields, compared);
  }
  BOOST_TEST(compared == 12000u);
}

// Whole reports: write_report_json (the direct writers, each falling back when it declines)
// against the general calls alone, one report and several in an array.
BOOST_AUTO_TEST_CASE(a_report_written_directly_is_the_text_of_the_general_calls) {
  std::mt19937 rng(1914);
  std::size_t compared = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<Report> reports;
    for (std::size_t i = 1 + rng() % 3; i > 0; --i) reports.push_back(random_report(rng));
    check_same(
        reports,
        [](JsonWriter& w, const Report& r) {
          btaudit::write_report_json(w, r);
          return true;
        },
        detail::write_report_fields, compared);
    // Alone, outside any array (written as a whole document).
    std::string a;
    std::string b;
    {
      JsonWriter w(a);
      btaudit::write_report_json(w, reports.front());
    }
    {
      JsonWriter w(b);
      detail::write_report_fields(w, reports.front());
    }
    BOOST_TEST(a == b);
  }
  BOOST_TEST(compared == 3000u);
}

BOOST_AUTO_TEST_SUITE_END()
