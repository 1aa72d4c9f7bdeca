// The pure pieces of batch: mailbox splitting, input screening, bucket
// merging, the deterministic input walk.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "batch/input_screen.h"
#include "batch/input_walk.h"
#include "batch/mbox.h"
#include "input/bucket_ndjson.h"
#include "input/input_error.h"
#include "model/bucket.h"
#include "model/saturating.h"

using namespace btaudit;

namespace {

Bucket one(const std::string& sig, const std::string& input, std::uint32_t line, const std::string& title,
           std::uint64_t unreliable = 0, std::uint64_t stale = 0) {
  Bucket b;
  b.signature = sig;
  b.title = title;
  b.kind = "warning";
  b.count = 1;
  b.first_input = b.last_input = b.example_input = input;
  b.example_line = line;
  b.unreliable_frames = unreliable;
  b.stale_frames = stale;
  return b;
}

bool same(const Bucket& a, const Bucket& b) {
  return a.signature == b.signature && a.title == b.title && a.count == b.count && a.first_input == b.first_input &&
         a.last_input == b.last_input && a.example_input == b.example_input && a.example_line == b.example_line &&
         a.unreliable_frames == b.unreliable_frames && a.stale_frames == b.stale_frames;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(batch)

BOOST_AUTO_TEST_CASE(bucket_merge_is_order_independent) {
  const Bucket a = one("s", "b.log", 7, "WARNING in f", 4, 1);
  const Bucket b = one("s", "a.log", 9, "WARNING in f (other build)", 2, 2);
  const Bucket c = one("s", "c.log", 1, "WARNING in f", 0, 0);
  Bucket abc = a;
  abc.merge(b);
  abc.merge(c);
  Bucket cba = c;
  cba.merge(b);
  cba.merge(a);
  Bucket bc = b;
  bc.merge(c);
  Bucket a_bc = a;
  a_bc.merge(bc);
  BOOST_TEST(same(abc, cba));
  BOOST_TEST(same(abc, a_bc));
  BOOST_TEST(abc.count == 3u);
  BOOST_TEST(abc.first_input == "a.log");
  BOOST_TEST(abc.last_input == "c.log");
  BOOST_TEST(abc.example_input == "a.log");  // the earliest report names the bucket
  BOOST_TEST(abc.title == "WARNING in f (other build)");
  BOOST_TEST(*abc.stale_share() == 0.5);
  BOOST_TEST(!c.stale_share().has_value());
}

BOOST_AUTO_TEST_CASE(bucket_table_sorts_by_count_then_signature) {
  BucketTable t;
  t.add(one("bb", "x", 1, "B"));
  t.add(one("aa", "x", 2, "A"));
  t.add(one("cc", "x", 3, "C"));
  t.add(one("cc", "y", 3, "C"));
  const auto s = t.sorted();
  BOOST_REQUIRE(s.size() == 3u);
  BOOST_TEST(s[0].signature == "cc");
  BOOST_TEST(s[1].signature == "aa");
  BOOST_TEST(s[2].signature == "bb");
  BOOST_TEST(t.reports() == 4u);
  const auto kinds = group_buckets(s, BucketGrouping::Kind);
  BOOST_REQUIRE(kinds.size() == 1u);
  BOOST_TEST(kinds[0].buckets == 3u);
  BOOST_TEST(kinds[0].reports == 4u);
  BOOST_TEST(kinds[0].example_title == "C");
}

BOOST_AUTO_TEST_CASE(mbox_splits_mails_and_keeps_file_lines) {
  const std::string box =
      "From a@b Mon Jan 1 00:00:00 2024\n"  // 1
      "Message-ID: <1@x>\n"                 // 2
      "Subject: first\n"                    // 3
      " continued\n"                        // 4
      "\n"                                  // 5
      "line one\n"                          // 6
      ">From the start\n"                   // 7
      "\n"                                  // 8
      "From c@d Mon Jan 1 00:00:00 2024\n"  // 9
      "Message-ID: <2@x>\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "a=3Db soft=\n"
      "break\n";
  BOOST_TEST(is_mbox(box));
  BOOST_TEST(!is_mbox("From here on, a log line\n[ 1.0] WARNING: x\n"));
  const auto mails = split_mbox(box);
  BOOST_REQUIRE(mails.size() == 2u);
  BOOST_TEST(mails[0].message_id == "<1@x>");
  BOOST_TEST(mails[0].subject == "first continued");
  BOOST_TEST(mails[0].body_line == 6u);
  BOOST_TEST(mails[0].body == "line one\nFrom the start\n");
  BOOST_TEST(!mails[0].reencoded);
  BOOST_TEST(mails[1].message_id == "<2@x>");
  BOOST_TEST(mails[1].body == "a=b softbreak\n");
  BOOST_TEST(mails[1].reencoded);
}

BOOST_AUTO_TEST_CASE(mbox_survives_hostile_input) {
  BOOST_TEST(split_mbox("From x\n").size() == 1u);  // headers never end
  BOOST_TEST(split_mbox("").empty());
  const auto m = split_mbox("From x\nContent-Transfer-Encoding: base64\n\nV0FSTklORzog\n=\n");
  BOOST_REQUIRE(m.size() == 1u);
  BOOST_TEST(m[0].body == "WARNING: ");
  const auto q = split_mbox("From x\nContent-Transfer-Encoding: quoted-printable\n\nend=\nx=Z=");
  BOOST_REQUIRE(q.size() == 1u);
  BOOST_TEST(q[0].body == "endx=Z=");
}

BOOST_AUTO_TEST_CASE(screen_keeps_noisy_console_logs) {
  std::string log = "[ 1.0] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2\n";
  log += std::string(200, '\0');  // QEMU console garbage
  log += "\x07\x08 Call Trace:\n";
  for (int i = 0; i < 40; ++i) log += "[ 1.1]  ? g+0x1/0x2\n";
  BOOST_TEST(!screen_input(log).has_value());
  BOOST_TEST(!screen_input("").has_value());
  BOOST_TEST(!screen_input("Ünïcödé lines are text: ✓\n").has_value());
}

BOOST_AUTO_TEST_CASE(screen_rejects_binary_and_huge_lines) {
  std::string elf(
      "\x7f"
      "ELF\x02\x01\x01",
      7);
  elf += std::string(4000, '\0');
  for (int i = 0; i < 1000; ++i) elf.push_back(static_cast<char>(0x80 + i % 100));
  const auto binary = screen_input(elf);
  BOOST_REQUIRE(binary.has_value());
  BOOST_TEST(binary->starts_with("binary data"));
  ScreenLimits limits;
  limits.max_line_bytes = 100;
  const auto huge = screen_input("short\n" + std::string(101, 'x') + "\n", limits);
  BOOST_REQUIRE(huge.has_value());
  BOOST_TEST(*huge == "line 2 is longer than 100 bytes");
  BOOST_TEST(!screen_input(std::string(100, 'x'), limits).has_value());
}

// The text share is counted eight bytes at a time over printable ASCII and a character at a time
// elsewhere: a head of exactly three quarters text is text, one byte less is binary. One probe
// byte (or UTF-8 sequence) decides, placed at every offset of two words, between fillers that
// run through all 95 printable bytes: every printable and whitespace byte counts, every other
// byte does not, and a well-formed sequence counts whole wherever it falls.
BOOST_AUTO_TEST_CASE(screening_counts_text_exactly_at_every_offset_of_a_word) {
  const std::size_t head_size = ScreenLimits{}.sniff_bytes;
  const std::size_t text_needed = head_size * 3 / 4;
  const auto printable = [](std::size_t n, std::size_t phase) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(0x20 + (i + phase) % 95));
    return s;
  };
  struct Probe {
    std::string bytes;
    std::size_t text;  // how many of them count as text
  };
  const std::vector<Probe> probes = {{" ", 1},
                                     {"~", 1},
                                     {"\t", 1},
                                     {"\n", 1},
                                     {"\r", 1},
                                     {"\f", 1},
                                     {"\x1b", 1},
                                     {"\x1f", 0},
                                     {"\x7f", 0},
                                     {std::string(1, '\0'), 0},
                                     {"\x01", 0},
                                     {"\x0b", 0},
                                     {"\x80", 0},
                                     {"\xff", 0},
                                     {"\xc3\xa9", 2},
                                     {"\xe2\x9c\x93", 3},
                                     {"\xf0\x9f\x98\x80", 4},
                                     {"\xc3", 0},
                                     {"\xe2\x9c", 0},
                                     {"\xc0\x80", 0}};
  for (const Probe& probe : probes) {
    for (std::size_t at = 0; at < 16; ++at) {
      // `at` text bytes, the probe, text up to three quarters if the probe counts (one byte short
      // of it if it does not), then NULs.
      const std::size_t filler = text_needed - at - std::max<std::size_t>(probe.text, 1);
      const auto head_with = [&](const std::string& middle) {
        std::string head = printable(at, at) + middle + printable(filler, 7 * at);
        head.resize(head_size, '\0');
        return head;
      };
      BOOST_TEST_CONTEXT("probe of " << probe.bytes.size() << " bytes, the first 0x" << std::hex
                                     << (static_cast<unsigned>(probe.bytes[0]) & 0xff) << std::dec << ", at " << at) {
        BOOST_TEST(screen_input(head_with(probe.bytes)).has_value() == (probe.text == 0));
        // The probe's bytes as NULs: one text byte or more short, binary.
        BOOST_TEST(screen_input(head_with(std::string(probe.bytes.size(), '\0'))).has_value());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(walk_is_sorted_depth_first_and_reports_problems) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("btaudit-walk-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "b" / "inner");
  fs::create_directories(root / "a");
  for (const char* f : {"b/inner/z.log", "b/y.log", "a/x.log", "c.log"}) std::ofstream(root / f) << "text\n";
  ::mkfifo((root / "d.fifo").c_str(), 0600);
  fs::create_directory_symlink(root / "a", root / "e-link");  // not followed below an argument
  InputWalk walk({(root / "missing").string(), root.string()});
  std::vector<std::string> seen;
  std::vector<std::string> errors;
  while (auto u = walk.next()) {
    const std::string rel = u->path.substr(root.string().size());
    seen.push_back(rel);
    if (u->error) errors.push_back(rel + ": " + *u->error);
  }
  fs::remove_all(root);
  const std::vector<std::string> want = {"/missing", "/a/x.log", "/b/inner/z.log", "/b/y.log", "/c.log", "/d.fifo"};
  BOOST_TEST(seen == want, boost::test_tools::per_element());
  BOOST_REQUIRE(errors.size() == 2u);
  BOOST_TEST(errors[0].starts_with("/missing: cannot open"));
  BOOST_TEST(errors[1] == "/d.fifo: not a regular file");
}

BOOST_AUTO_TEST_CASE(bucket_counts_saturate_instead_of_wrapping) {
  for (const std::uint64_t a : {std::uint64_t{1}, kSaturated / 2, kSaturated - 1, kSaturated}) {
    for (const std::uint64_t b : {std::uint64_t{0}, std::uint64_t{1}, kSaturated / 2 + 1, kSaturated}) {
      Bucket x = one("s", "a", 1, "t");
      Bucket y = one("s", "b", 2, "t");
      x.count = a;
      y.count = b == 0 ? 1 : b;
      BucketTable table;
      const bool first = table.add(x);
      const bool second = table.add(y);
      const bool exact = y.count <= kSaturated - a;
      BOOST_TEST_CONTEXT(a << " + " << y.count) {
        BOOST_TEST(first);
        BOOST_TEST(second == exact);
        BOOST_TEST(table.saturated() == !exact);
        const std::uint64_t got = table.sorted().at(0).count;
        BOOST_TEST(got == (exact ? a + y.count : kSaturated));
        BOOST_TEST(got >= a);  // never smaller than a part
      }
    }
  }
}

// NDJSON numbers as the reader takes them: whole, non-negative, in range, or an error naming the line.
BOOST_AUTO_TEST_CASE(ndjson_counts_must_be_counts) {
  const auto line = [](const std::string& count, const std::string& extra = "") {
    return R"({"signature":"ab","title":"t","kind":"warning","count":)" + count +
           R"(,"first_input":"a","last_input":"a","example":{"path":"a","line":1})" + extra + "}\n";
  };
  const struct {
    std::string text;
    bool ok;
  } cases[] = {
      {line("3"), true},
      {line("-1"), false},
      {line("1.5"), false},
      {line("\"3\""), false},
      {line("18446744073709551615") + line("18446744073709551615"), false},
      {line("1", R"(,"unreliable_frames":1,"stale_frames":2)"), false},
      {line("1", R"(,"unreliable_frames":-4)"), false},
      {R"({"signature":"ab","count":1,"example":{"path":"a","line":4294967296}})"
       "\n",
       false},
      {line("1", R"(,"unreliable_frames":18446744073709551615,"stale_frames":18446744073709551615)") +
           line("1", R"(,"unreliable_frames":1,"stale_frames":1)"),
       false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.text) {
      BucketTable table;
      bool threw = false;
      try {
        read_bucket_ndjson_text(c.text, "x.ndjson", table);
      } catch (const InputError& e) {
        threw = true;
        BOOST_TEST(std::string(e.what()).rfind("x.ndjson: line ", 0) == 0u);
      }
      BOOST_TEST(threw == !c.ok);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
