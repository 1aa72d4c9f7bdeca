// The text renderer writes each frame's line in place (render/report_text.cpp: hex digits,
// indices and names appended to one buffer, the reasons used kept in a table by enum order).
// Its traces must read as the plain printf-style reading below writes them, byte for byte,
// whatever the frames hold: every optional field present or not, addresses of every width,
// stacks switching, colour on and off, and a report appended behind another's text.
#include "render/report_text.h"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

using btaudit::Frame;
using btaudit::Reason;
using btaudit::Report;
using btaudit::StackKind;
using btaudit::TextStyle;
using btaudit::Trace;
using btaudit::Verdict;

namespace {

std::string printf_hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string padded(const std::string& s, std::size_t width) {
  return s + std::string(s.size() < width ? width - s.size() : 1, ' ');
}

// A frame's line and the banner before it, as the renderer documents them (report_text.h).
std::string expected_frame_line(const Frame& f, std::size_t index, bool colour) {
  std::string name = f.exception ? *f.exception : std::string(to_string(f.stack));
  std::string where;
  if (f.function) {
    where = *f.function;
    if (f.offset) where += "+" + printf_hex(*f.offset);
    if (f.size) where += "/" + printf_hex(*f.size);
  } else if (f.address) {
    where = printf_hex(*f.address);
  } else {
    where = "?";
  }
  if (f.module) where += " [" + *f.module + "]";
  if (f.source) where += " " + *f.source;
  if (f.inlined) where += " [inline]";
  std::string line = padded("   " + std::to_string(index), 8) + padded(name, 8);
  if (colour) {
    const char* c = f.verdict == Verdict::Reliable    ? "\x1b[32m"
                    : f.verdict == Verdict::Stale     ? "\x1b[2;31m"
                    : f.verdict == Verdict::Plausible ? "\x1b[33m"
                                                      : "\x1b[0m";
    line += c;
  }
  line += padded(std::string(to_string(f.verdict)), 10) + (f.printed_unreliable ? "? " : "  ") + padded(where, 48) +
          std::string(reason_code(f.reason));
  if (colour) line += "\x1b[0m";
  return line + "\n";
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

// The traces and the reasons list: the end of the rendered text.
std::string expected_traces(const Report& r, bool colour) {
  std::string out;
  std::set<Reason> used;
  for (const Trace& t : r.traces) {
    out += "\n   " + t.label + (t.primary ? "" : "  (auxiliary)") + " [line " + std::to_string(t.line) + "]\n";
    std::string banner;
    for (std::size_t i = t.first_frame; i < t.first_frame + t.frame_count; ++i) {
      const Frame& f = r.frames[i];
      const std::string name =
          f.stack == StackKind::Exception && f.exception ? *f.exception : upper(std::string(to_string(f.stack)));
      if (name != banner) out += "   --- " + name + " stack ---\n";
      banner = name;
      used.insert(f.reason);
      out += expected_frame_line(f, i, colour);
    }
  }
  if (!used.empty()) {
    out += "\n   reasons:\n";
    for (const Reason reason : used)
      out += "     " + std::string(reason_code(reason)) + ": " + std::string(reason_description(reason)) + "\n";
  }
  return out + "\n";
}

std::uint64_t random_number(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0: return 0;
    case 1: return rng() % 16;
    case 2: return rng() % 0x10000;
    case 3: return ~std::uint64_t{0} - rng() % 3;
    default: return rng() >> (rng() % 64);
  }
}

std::string random_name(std::mt19937_64& rng) {
  static const std::vector<std::string> names = {"",
                                                 "f",
                                                 "do_syscall_64",
                                                 "entry_SYSCALL_64_after_hwframe",
                                                 "#DF",
                                                 "NMI",
                                                 "ext4",
                                                 "fs/ext4/inode.c:123",
                                                 std::string(70, 'x')};
  return names[rng() % names.size()];
}

Frame random_frame(std::mt19937_64& rng) {
  Frame f;
  if (rng() % 4 != 0) f.function = random_name(rng);
  if (rng() % 2) f.offset = random_number(rng);
  if (rng() % 2) f.size = random_number(rng);
  if (rng() % 3 == 0) f.address = random_number(rng);
  if (rng() % 4 == 0) f.module = random_name(rng);
  if (rng() % 4 == 0) f.source = random_name(rng);
  f.inlined = rng() % 5 == 0;
  f.printed_unreliable = rng() % 2 == 0;
  f.stack = static_cast<StackKind>(rng() % (static_cast<std::size_t>(StackKind::Unknown) + 1));
  if (rng() % 3 == 0) f.exception = random_name(rng);
  f.verdict = static_cast<Verdict>(rng() % (static_cast<std::size_t>(Verdict::Unknown) + 1));
  f.reason = static_cast<Reason>(rng() % btaudit::kReasonCount);
  return f;
}

Report random_report(std::mt19937_64& rng) {
  Report r;
  r.title = "WARNING in f";
  const std::size_t traces = rng() % 4;
  for (std::size_t t = 0; t < traces; ++t) {
    Trace trace;
    trace.label = t == 0 ? "Call Trace" : "NMI backtrace for cpu " + std::to_string(t);
    trace.primary = t == 0;
    trace.line = static_cast<std::uint32_t>(rng() % 100000);
    trace.first_frame = static_cast<std::uint32_t>(r.frames.size());
    trace.frame_count = static_cast<std::uint32_t>(rng() % 12);
    for (std::size_t i = 0; i < trace.frame_count; ++i) r.frames.push_back(random_frame(rng));
    r.traces.push_back(trace);
  }
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report_text)

BOOST_AUTO_TEST_CASE(frame_lines_read_as_a_printf_reading_writes_them_for_generated_reports) {
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 3000; ++round) {
    const Report r = random_report(rng);
    for (const bool colour : {false, true}) {
      TextStyle style;
      style.colour = colour;
      const std::string got = btaudit::render_text(r, style);
      const std::string want = expected_traces(r, colour);
      BOOST_TEST_REQUIRE(got.size() >= want.size());
      BOOST_TEST_REQUIRE(got.substr(got.size() - want.size()) == want);
    }
  }
}

BOOST_AUTO_TEST_CASE(append_text_adds_behind_what_the_buffer_holds) {
  std::mt19937_64 rng(7);
  std::string out = "earlier report\n";
  std::string want = out;
  for (int i = 0; i < 50; ++i) {
    const Report r = random_report(rng);
    btaudit::append_text(out, r, TextStyle{});
    want += btaudit::render_text(r, TextStyle{});
  }
  BOOST_TEST(out == want);
}

BOOST_AUTO_TEST_CASE(addresses_print_in_hex_without_leading_zeros_at_every_width) {
  for (unsigned bits = 0; bits <= 64; ++bits) {
    Report r;
    Frame f;
    f.function = "f";
    f.offset = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    f.size = bits == 0 ? 0 : std::uint64_t{1} << (bits - 1);
    r.frames.push_back(f);
    Trace t;
    t.label = "Call Trace";
    t.frame_count = 1;
    r.traces.push_back(t);
    const std::string text = btaudit::render_text(r, TextStyle{});
    BOOST_TEST(text.find("f+" + printf_hex(*f.offset) + "/" + printf_hex(*f.size) + " ") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
