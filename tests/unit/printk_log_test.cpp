// The kernel-log readers on synthetic memory laid out the way each era's
// kernel lays out its log, located through VMCOREINFO lines as a dump gives them.
#include "vmcore/printk_log.h"

#include <boost/test/unit_test.hpp>
#include <cstring>
#include <map>
#include <string>

#include "memory/synthetic_memory.h"
#include "vmcore/dump_error.h"

using namespace btaudit;

namespace {

class MapVmcoreInfo final : public VmcoreInfo {
 public:
  std::map<std::string, std::string> lines;
  std::optional<std::string> vmcoreinfo(const std::string& key) override {
    auto it = lines.find(key);
    if (it == lines.end()) return std::nullopt;
    return it->second;
  }
};

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

constexpr std::uint64_t kVars = 0xffffffff82000000;  // log_buf, log_buf_len, log_first_idx, log_next_idx, ...
constexpr std::uint64_t kBuf = 0xffff888000100000;
constexpr std::uint32_t kHeader = 16;  // struct printk_log without CONFIG_PRINTK_CALLER

void put_u32(std::vector<std::uint8_t>& b, std::size_t off, std::uint32_t v) { std::memcpy(&b[off], &v, 4); }

// Writes one struct printk_log record at `idx`; returns the next index (records are 8-aligned).
std::uint32_t put_record(std::vector<std::uint8_t>& buf, std::uint32_t idx, std::uint64_t ts, const std::string& text) {
  const std::uint16_t len = static_cast<std::uint16_t>((kHeader + text.size() + 7) & ~std::size_t{7});
  const auto text_len = static_cast<std::uint16_t>(text.size());
  std::memcpy(&buf[idx], &ts, 8);
  std::memcpy(&buf[idx + 8], &len, 2);
  std::memcpy(&buf[idx + 10], &text_len, 2);
  std::memcpy(&buf[idx + kHeader], text.data(), text.size());
  return idx + len;
}

struct RecordDump {
  SyntheticMemory memory;
  MapVmcoreInfo info;
  std::vector<std::uint8_t> buf = std::vector<std::uint8_t>(256);
  RecordDump() {
    info.lines = {{"SYMBOL(log_buf)", hex(kVars)},
                  {"SYMBOL(log_buf_len)", hex(kVars + 8)},
                  {"SYMBOL(log_first_idx)", hex(kVars + 12)},
                  {"SYMBOL(log_next_idx)", hex(kVars + 16)},
                  {"SIZE(printk_log)", "16"},
                  {"OFFSET(printk_log.ts_nsec)", "0"},
                  {"OFFSET(printk_log.len)", "8"},
                  {"OFFSET(printk_log.text_len)", "10"}};
  }
  void finish(std::uint32_t first, std::uint32_t next) {
    std::vector<std::uint8_t> vars(24);
    std::memcpy(&vars[0], &kBuf, 8);
    put_u32(vars, 8, static_cast<std::uint32_t>(buf.size()));
    put_u32(vars, 12, first);
    put_u32(vars, 16, next);
    memory.map(kVars, vars);
    memory.map(kBuf, buf);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(printk_log)

BOOST_AUTO_TEST_CASE(record_ring_in_order_across_the_wrap) {
  RecordDump d;
  // Oldest records at 128.., then the end-of-buffer marker (len 0), then the newest at 0..
  std::uint32_t i = put_record(d.buf, 128, 1'500'000'000, "oldest line");
  i = put_record(d.buf, i, 2'000'001'000, "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2");
  BOOST_REQUIRE(i + kHeader <= d.buf.size());  // room for the marker's len field
  std::uint32_t j = put_record(d.buf, 0, 3'000'000'000, "newest\nsecond line of it");
  d.finish(128, j);
  const PrintkLog log = read_printk_log(d.memory, d.info);
  BOOST_REQUIRE(log.records.size() == 3u);
  BOOST_TEST(log.records[0].text == "oldest line");
  BOOST_TEST(log.records[1].ts_nsec == 2'000'001'000u);
  BOOST_TEST(log.records[2].text == "newest\nsecond line of it");
  BOOST_TEST(log.problems.empty());
  BOOST_TEST(format_log(log) ==
             "[    1.500000] oldest line\n"
             "[    2.000001] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2\n"
             "[    3.000000] newest\n"
             "[    3.000000] second line of it\n");
}

BOOST_AUTO_TEST_CASE(record_ring_of_3_5_to_3_10_uses_struct_log_names) {
  RecordDump d;
  for (const char* f :
       {"SIZE(printk_log)", "OFFSET(printk_log.ts_nsec)", "OFFSET(printk_log.len)", "OFFSET(printk_log.text_len)"}) {
    std::string k = f;
    const std::string v = d.info.lines[k];
    d.info.lines.erase(k);
    k.replace(k.find("printk_log"), 10, "log");
    d.info.lines[k] = v;
  }
  const std::uint32_t next = put_record(d.buf, 0, 42, "hello");
  d.finish(0, next);
  const PrintkLog log = read_printk_log(d.memory, d.info);
  BOOST_REQUIRE(log.records.size() == 1u);
  BOOST_TEST(log.records[0].text == "hello");
}

BOOST_AUTO_TEST_CASE(corrupt_record_ring_stops_with_a_problem) {
  RecordDump d;
  put_record(d.buf, 0, 1, "a");
  // log_next_idx never reached: a record whose length points past the buffer.
  const std::uint16_t bad = 0xfff0;
  std::memcpy(&d.buf[24 + 8], &bad, 2);
  put_record(d.buf, 24, 2, "b");
  std::memcpy(&d.buf[24 + 8], &bad, 2);
  d.finish(0, 200);
  const PrintkLog log = read_printk_log(d.memory, d.info);
  BOOST_TEST(!log.problems.empty());
  BOOST_TEST(log.records.size() <= 2u);

  RecordDump loop;  // two end-of-buffer markers: the chain would loop forever
  loop.finish(0, 8);
  const PrintkLog l2 = read_printk_log(loop.memory, loop.info);
  BOOST_TEST(l2.records.empty());
  BOOST_TEST(!l2.problems.empty());

  RecordDump missing;  // the buffer itself is not in the dump
  missing.info.lines["SYMBOL(log_buf)"] = hex(kVars + 0x1000);
  missing.finish(0, 0);
  BOOST_CHECK_THROW(read_printk_log(missing.memory, missing.info), DumpError);
}

BOOST_AUTO_TEST_CASE(text_ring_before_3_5) {
  SyntheticMemory memory;
  MapVmcoreInfo info;
  info.lines = {{"SYMBOL(log_buf)", hex(kVars)},
                {"SYMBOL(log_buf_len)", hex(kVars + 8)},
                {"SYMBOL(log_end)", hex(kVars + 12)},
                {"SYMBOL(logged_chars)", hex(kVars + 16)}};
  // A 64-byte ring that has wrapped: 100 characters written, the last 64 kept.
  const std::string written = "<6>[    0.000000] lost line\n<4>[   12.345678] WARNING: at x.c:1\n<6>no timestamp\n";
  std::vector<std::uint8_t> ring(64);
  for (std::size_t i = 0; i < written.size(); ++i) ring[i % 64] = static_cast<std::uint8_t>(written[i]);
  std::vector<std::uint8_t> vars(24);
  std::memcpy(&vars[0], &kBuf, 8);
  put_u32(vars, 8, 64);
  put_u32(vars, 12, static_cast<std::uint32_t>(written.size()));
  put_u32(vars, 16, static_cast<std::uint32_t>(written.size()));
  memory.map(kVars, vars);
  memory.map(kBuf, ring);
  const PrintkLog log = read_printk_log(memory, info);
  BOOST_REQUIRE(log.records.size() == 2u);  // the partly overwritten first line is dropped
  BOOST_TEST(log.records[0].text == "WARNING: at x.c:1");
  BOOST_TEST(log.records[0].ts_nsec == 12'345'678'000u);
  BOOST_TEST(log.records[1].text == "no timestamp");
  BOOST_TEST(format_log(log) == "[   12.345678] WARNING: at x.c:1\nno timestamp\n");
}

BOOST_AUTO_TEST_CASE(no_log_described_is_an_error) {
  SyntheticMemory memory;
  MapVmcoreInfo info;
  BOOST_CHECK_THROW(read_printk_log(memory, info), DumpError);
}

BOOST_AUTO_TEST_SUITE_END()
