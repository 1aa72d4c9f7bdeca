// JsonWriter: every document it writes must parse (nlohmann::json is the
// reference parser, strict about UTF-8), and strings must come back as they
// went in, except invalid UTF-8, which becomes U+FFFD.
#include "render/json_writer.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "render/report_json.h"

using btaudit::JsonWriter;
using nlohmann::json;
using namespace std::string_literals;

namespace {

const std::string kReplacement = "\xef\xbf\xbd";  // U+FFFD in UTF-8

// Writes `s` as a key and as a value and parses the document back.
json round_trip(std::string_view s) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("v", s);
  w.key(s);
  w.value(true);
  w.end_object();
  BOOST_REQUIRE_MESSAGE(json::accept(out), "not valid JSON: " << out);
  return json::parse(out);
}

std::string value_of(std::string_view s) { return round_trip(s)["v"].get<std::string>(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(json_writer)

BOOST_AUTO_TEST_CASE(empty_containers) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("a");
  w.begin_array();
  w.end_array();
  w.key("o");
  w.begin_object();
  w.end_object();
  w.end_object();
  BOOST_TEST(out == R"({"a":[],"o":{}})");
}

BOOST_AUTO_TEST_CASE(commas_between_siblings_at_every_depth) {
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  w.value(1);
  w.begin_object();
  w.field("x", 1);
  w.key("y");
  w.begin_array();
  w.value("a");
  w.null();
  w.begin_array();
  w.end_array();
  w.end_array();
  w.field("z", false);
  w.end_object();
  w.begin_object();
  w.end_object();
  w.value("last");
  w.end_array();
  const json doc = json::parse(out);
  BOOST_TEST(doc == json::parse(R"([1,{"x":1,"y":["a",null,[]],"z":false},{},"last"])"));
}

BOOST_AUTO_TEST_CASE(scalars_keep_their_type_and_range) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("min", std::numeric_limits<std::int64_t>::min());
  w.field("max", std::numeric_limits<std::int64_t>::max());
  w.field("umax", std::numeric_limits<std::uint64_t>::max());  // kernel addresses use all 64 bits
  w.field("int", -42);
  w.field("unsigned", 42u);
  w.field("t", true);
  w.field("f", false);
  w.field("cstr", "text");
  w.end_object();
  const json doc = json::parse(out);
  BOOST_TEST(doc["min"].get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  BOOST_TEST(doc["max"].get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST(doc["umax"].get<std::uint64_t>() == std::numeric_limits<std::uint64_t>::max());
  BOOST_TEST(doc["int"].get<int>() == -42);
  BOOST_TEST(doc["unsigned"].get<unsigned>() == 42u);
  BOOST_TEST(doc["t"].get<bool>());
  BOOST_TEST(!doc["f"].get<bool>());
  BOOST_TEST(doc["cstr"].get<std::string>() == "text");
}

BOOST_AUTO_TEST_CASE(optional_is_null_or_value) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("none", std::optional<std::string>{});
  w.field("some", std::optional<std::string>{"f"});
  w.field("n", std::optional<std::uint64_t>{});
  w.field("addr", std::optional<std::uint64_t>{0xffffffff81000000ull});
  w.end_object();
  const json doc = json::parse(out);
  BOOST_TEST(doc["none"].is_null());
  BOOST_TEST(doc["some"].get<std::string>() == "f");
  BOOST_TEST(doc["n"].is_null());
  BOOST_TEST(doc["addr"].get<std::uint64_t>() == 0xffffffff81000000ull);
}

BOOST_AUTO_TEST_CASE(quotes_backslashes_and_whitespace_escapes) {
  const std::string s = "say \"hi\" \\ path C:\\x\n\r\t/end";
  BOOST_TEST(value_of(s) == s);
  BOOST_TEST(round_trip(s).contains(s));  // as a key too
}

BOOST_AUTO_TEST_CASE(every_control_character_round_trips) {
  std::string s;
  for (int c = 0; c < 0x20; ++c) s.push_back(static_cast<char>(c));
  s.push_back('\x7f');
  std::string out;
  JsonWriter w(out);
  w.value(std::string_view(s));
  for (const char c : out) BOOST_TEST(static_cast<unsigned char>(c) >= 0x20, "raw control byte in " << out);
  BOOST_TEST(json::parse(out).get<std::string>() == s);
  BOOST_TEST(value_of("\0"s) == "\0"s);  // NUL inside a console line
}

BOOST_AUTO_TEST_CASE(valid_utf8_is_kept) {
  for (const std::string s : {"caf\xc3\xa9", "\xe2\x82\xac 5", "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xee\x80\x80",
                              "\xf4\x8f\xbf\xbf", "\xc2\x80"}) {
    BOOST_TEST(value_of(s) == s);
  }
}

BOOST_AUTO_TEST_CASE(invalid_utf8_becomes_replacement_characters) {
  const struct {
    const char* what;
    std::string in;
    std::string out;
  } cases[] = {
      {"lone continuation byte", "a\x80z", "a" + kReplacement + "z"},
      {"overlong two-byte C0", "\xc0\xaf", kReplacement + kReplacement},
      {"overlong two-byte C1", "\xc1\xbf", kReplacement + kReplacement},
      {"overlong three-byte", "\xe0\x80\xaf", kReplacement + kReplacement + kReplacement},
      {"UTF-16 surrogate", "\xed\xa0\x80", kReplacement + kReplacement + kReplacement},
      {"above U+10FFFF", "\xf4\x90\x80\x80", kReplacement + kReplacement + kReplacement + kReplacement},
      {"sequence cut by end of string", "ok\xe2\x82", "ok" + kReplacement + kReplacement},
      {"sequence cut by ASCII", "\xe2\x82z", kReplacement + kReplacement + "z"},
      {"lead byte F5", "\xf5\x80\x80\x80", kReplacement + kReplacement + kReplacement + kReplacement},
      {"lead byte FF + two continuations", "\xff\x84\x84", kReplacement + kReplacement + kReplacement},
      {"lead byte F8 + three continuations", "\xf8\x88\x80\x80",
       kReplacement + kReplacement + kReplacement + kReplacement},
      {"lead byte FE", "\xfe", kReplacement},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) { BOOST_TEST(value_of(c.in) == c.out); }
  }
}

// Random bytes, biased toward the troublesome ones: whatever comes in, the
// document parses, and ASCII-only strings come back unchanged.
BOOST_AUTO_TEST_CASE(random_bytes_always_give_valid_json) {
  std::mt19937 rng(1129);  // fixed seed: a failure is reproducible
  const std::string interesting = "\"\\\n\r\t\x7f\x80\xbf\xc0\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff\0a "s;
  std::uniform_int_distribution<int> len(0, 40);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> pick(0, interesting.size() - 1);
  for (int round = 0; round < 5000; ++round) {
    std::string s;
    const int n = len(rng);
    for (int i = 0; i < n; ++i) s.push_back(rng() % 2 ? interesting[pick(rng)] : static_cast<char>(byte(rng)));
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    w.value(std::string_view(s));
    w.end_array();
    BOOST_TEST_CONTEXT("round " << round) {
      BOOST_REQUIRE_MESSAGE(json::accept(out), "invalid JSON for input of " << s.size() << " bytes");
      bool ascii = true;
      for (const char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
      if (ascii) BOOST_TEST(json::parse(out)[0].get<std::string>() == s);
    }
  }
}

BOOST_AUTO_TEST_CASE(render_json_of_no_reports_is_a_document) {
  const json doc = json::parse(btaudit::render_json({}));
  BOOST_TEST(doc["btaudit"].is_string());
  BOOST_TEST(doc["reports"].is_array());
  BOOST_TEST(doc["reports"].empty());
}

// Everything is written into the writer's buffer first: it reaches the string on flush(),
// when the outermost container closes, and when the writer goes away.
BOOST_AUTO_TEST_CASE(staged_fields_reach_the_string) {
  std::string out;
  {
    JsonWriter w(out);
    w.begin_object();
    w.field("a", 1);
    w.field("b", std::string_view("x"));
    BOOST_TEST(out.empty());
    w.flush();
    BOOST_TEST(out == R"({"a":1,"b":"x")");
    w.field("c", std::optional<int>());
    w.field("d", std::string(200, 'y'));  // too long for the scalar path: the general path, after the key
    w.flush();
    BOOST_TEST(out == R"({"a":1,"b":"x","c":null,"d":")" + std::string(200, 'y') + "\"");
    w.field("e", true);
  }
  BOOST_TEST(out == R"({"a":1,"b":"x","c":null,"d":")" + std::string(200, 'y') + R"(","e":true)");
}

// A pre-formatted number after staged fields lands after them (bucket stale_share).
BOOST_AUTO_TEST_CASE(raw_number_follows_staged_fields) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("count", 3);
  w.key("share");
  w.raw_number("0.500");
  w.end_object();
  BOOST_TEST(out == R"({"count":3,"share":0.500})");
}

// copy_if_plain, the check behind every scalar string: for every length around its
// word and block sizes, a plain string is copied exactly (nothing outside [p, p+n)
// written), and one special byte anywhere (first, last, every position) is caught.
BOOST_AUTO_TEST_CASE(copy_if_plain_finds_every_special_byte_at_every_position) {
  const std::string special = "\"\\\x00\x01\x1f\x7f\x80\xc3\xff"s;
  for (std::size_t n = 0; n <= 70; ++n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(' ' + (i * 7) % 95));  // printable ASCII
    for (char& c : s)
      if (c == '\\' || c == '"') c = 'x';
    std::string dst(n + 32, '#');
    BOOST_TEST_CONTEXT("length " << n) {
      BOOST_TEST(btaudit::json_detail::copy_if_plain(dst.data() + 16, s.data(), n));
      BOOST_TEST(dst.substr(16, n) == s);
      BOOST_TEST(dst.substr(0, 16) == std::string(16, '#'));
      BOOST_TEST(dst.substr(16 + n) == std::string(16, '#'));
      for (std::size_t at = 0; at < n; ++at) {
        for (const char c : special) {
          std::string t = s;
          t[at] = c;
          BOOST_TEST(!btaudit::json_detail::copy_if_plain(dst.data() + 16, t.data(), n),
                     "byte " << int(c) << " at " << at);
        }
      }
    }
  }
  // Every byte value on its own, against the table.
  for (int c = 0; c < 256; ++c) {
    const char b = static_cast<char>(c);
    char out = '#';
    const bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
    BOOST_TEST(btaudit::json_detail::copy_if_plain(&out, &b, 1) == plain, "byte " << c);
  }
}

// A sink-writer hands its text over in blocks no larger than its buffer, and the
// blocks put together are the document a string-writer writes.
BOOST_AUTO_TEST_CASE(sink_blocks_make_the_same_document) {
  std::string expected;
  std::string joined;
  std::size_t largest = 0;
  const auto write = [](JsonWriter& w) {
    w.begin_array();
    for (int i = 0; i < 3000; ++i) {
      w.begin_object();
      w.field("i", i);
      w.field("name", "function_" + std::to_string(i));
      w.field("long", std::string(static_cast<std::size_t>(i % 300), 'z'));
      w.field("escaped", std::string("a\"b\\c\n") + std::string(static_cast<std::size_t>(i % 40), '\x01'));
      w.end_object();
    }
    w.end_array();
  };
  {
    JsonWriter w(expected);
    write(w);
  }
  {
    JsonWriter w(
        [&](std::string_view block) {
          largest = std::max(largest, block.size());
          joined += block;
        },
        JsonWriter::kStage);
    write(w);
  }
  BOOST_TEST(json::accept(expected));
  BOOST_TEST(joined == expected);
  BOOST_TEST(largest <= JsonWriter::kStage);
  BOOST_TEST(expected.size() > 4 * JsonWriter::kStage);  // the buffer filled several times
}

namespace {

// A frame as the general calls write it (write_frame_json's members, one field at a time):
// the reference the direct writing must match byte for byte.
void reference_frame(JsonWriter& w, const btaudit::Frame& f) {
  w.begin_object();
  w.field("function", f.function);
  w.field("offset", f.offset);
  w.field("size", f.size);
  w.field("module", f.module);
  w.field("build_id", f.build_id);
  w.field("address", f.address);
  w.field("printed_unreliable", f.printed_unreliable);
  w.field("stack", to_string(f.stack));
  w.field("exception", f.exception);
  w.field("verdict", to_string(f.verdict));
  w.field("reason", btaudit::reason_code(f.reason));
  w.field("line", f.line);
  w.field("trace", f.trace);
  if (f.source) w.field("source_text", *f.source);
  if (f.inlined) w.field("inlined_marker", true);
  if (f.debug) btaudit::write_debug_fields(w, *f.debug);
  if (f.slot) w.field("slot", *f.slot);
  w.end_object();
}

}  // namespace

// Generated frames (every enum value, absent and present members, plain, escaped, long
// and non-ASCII strings, debuginfo and slots): write_frame_json's text is the reference's.
BOOST_AUTO_TEST_CASE(direct_frames_match_the_general_calls) {
  using btaudit::Frame;
  std::mt19937_64 rng(1402);
  const std::vector<std::optional<std::string>> strings = {std::nullopt,
                                                           ""s,
                                                           "f"s,
                                                           "do_sys_openat2"s,
                                                           "entry_SYSCALL_64_after_hwframe"s,
                                                           std::string(95, 'a'),
                                                           std::string(97, 'b'),
                                                           std::string(5000, 'c'),
                                                           "quo\"te"s,
                                                           "back\\slash"s,
                                                           "tab\there"s,
                                                           "caf\xc3\xa9"s,
                                                           "bad\xff"s,
                                                           "_RNvCs1234_7mycrate3foo"s,
                                                           "lib/dump_stack.c:16"s};
  const auto any = [&](const auto& v) { return v[rng() % v.size()]; };
  for (int round = 0; round < 20'000; ++round) {
    Frame f;
    f.function = any(strings);
    f.module = rng() % 4 == 0 ? any(strings) : std::nullopt;
    f.build_id = rng() % 8 == 0 ? any(strings) : std::nullopt;
    f.exception = rng() % 8 == 0 ? any(strings) : std::nullopt;
    f.source = rng() % 4 == 0 ? any(strings) : std::nullopt;
    if (rng() % 2) f.offset = rng() >> (rng() % 64);
    if (rng() % 2) f.size = rng() >> (rng() % 64);
    if (rng() % 2) f.address = rng() % 3 ? 0xffffffff81000000ull + rng() % 0x1000000 : rng();
    f.printed_unreliable = rng() % 2;
    f.inlined = rng() % 5 == 0;
    f.stack = static_cast<btaudit::StackKind>(rng() % (static_cast<unsigned>(btaudit::StackKind::Unknown) + 1));
    f.verdict = static_cast<btaudit::Verdict>(rng() % (static_cast<unsigned>(btaudit::Verdict::Unknown) + 1));
    f.reason = static_cast<btaudit::Reason>(rng() % (static_cast<unsigned>(btaudit::Reason::ScannedTextAddress) + 1));
    f.line = static_cast<std::uint32_t>(rng());
    f.trace = static_cast<std::uint32_t>(rng() % 5);
    if (rng() % 10 == 0) f.slot = rng();
    if (rng() % 10 == 0) {
      btaudit::FrameDebugInfo d;
      d.address = rng();
      d.innermost_function = any(strings);
      d.kallsyms = any(strings);
      d.note = rng() % 2 ? "no \"debuginfo\"" : "";
      f.debug = d;
    }
    // In an array, after a sibling, and after a key: the comma comes out right in each place.
    std::string direct;
    std::string reference;
    {
      JsonWriter w(direct);
      w.begin_array();
      btaudit::write_frame_json(w, f);
      btaudit::write_frame_json(w, f);
      w.begin_object();
      w.key("guilty");
      btaudit::write_frame_json(w, f);
      w.end_object();
      w.end_array();
    }
    {
      JsonWriter w(reference);
      w.begin_array();
      reference_frame(w, f);
      reference_frame(w, f);
      w.begin_object();
      w.key("guilty");
      reference_frame(w, f);
      w.end_object();
      w.end_array();
    }
    BOOST_TEST_CONTEXT("round " << round) {
      BOOST_REQUIRE(direct == reference);
      BOOST_REQUIRE(json::accept(direct));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
