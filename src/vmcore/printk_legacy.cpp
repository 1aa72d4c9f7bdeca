#include "vmcore/printk_legacy.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "vmcore/dump_error.h"

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxLogBuf = std::uint64_t{1} << 31;  // CONFIG_LOG_BUF_SHIFT tops out at 25; 2 GiB is corrupt

// A record layout key under either name the kernel used: "printk_log" (3.11+) or "log" (3.5 - 3.10).
std::optional<std::uint64_t> record_key(VmcoreInfo& d, const std::string& kind, const std::string& field) {
  for (const char* name : {"printk_log", "log"}) {
    std::string key = kind;
    key.append("(").append(name);
    if (!field.empty()) key.append(".").append(field);
    key.append(")");
    if (auto v = d.vmcoreinfo_number(key)) return v;
  }
  return std::nullopt;
}

// The log buffer: SYMBOL(log_buf) is the address of "char *log_buf".
std::pair<std::uint64_t, std::uint32_t> log_buffer(MemorySource& m, std::uint64_t log_buf_sym, std::uint64_t len_sym) {
  auto buf = m.read_u64(log_buf_sym);
  auto len = m.read_u32(len_sym);
  if (!buf || !len) throw DumpError(m.describe() + ": the kernel log buffer pointer or length is not in the dump");
  if (*len == 0 || *len > kMaxLogBuf)
    throw DumpError(m.describe() + ": the kernel log buffer length " + std::to_string(*len) + " is corrupt");
  return {*buf, *len};
}

std::vector<std::uint8_t> read_all(MemorySource& m, std::uint64_t addr, std::uint32_t len) {
  std::vector<std::uint8_t> bytes(len);
  if (!m.read_exact(addr, bytes)) throw DumpError(m.describe() + ": the kernel log buffer is not (all) in the dump");
  return bytes;
}

template <typename T>
std::optional<T> load(const std::vector<std::uint8_t>& b, std::uint64_t off) {
  if (off + sizeof(T) > b.size()) return std::nullopt;
  T v{};
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

}  // namespace

std::optional<PrintkLog> read_record_log_buf(MemorySource& m, VmcoreInfo& d) {
  auto log_buf = d.vmcoreinfo_symbol("log_buf");
  auto log_buf_len = d.vmcoreinfo_symbol("log_buf_len");
  auto first_idx = d.vmcoreinfo_symbol("log_first_idx");
  auto next_idx = d.vmcoreinfo_symbol("log_next_idx");
  auto rec_size = record_key(d, "SIZE", "");
  if (!log_buf || !log_buf_len || !first_idx || !next_idx || !rec_size) return std::nullopt;
  auto off_ts = record_key(d, "OFFSET", "ts_nsec");
  auto off_len = record_key(d, "OFFSET", "len");
  auto off_text_len = record_key(d, "OFFSET", "text_len");
  auto off_caller = record_key(d, "OFFSET", "caller_id");
  if (!off_ts || !off_len || !off_text_len)
    throw DumpError(m.describe() + ": VMCOREINFO describes a log_buf of records but not their fields");
  const auto [buf_addr, buf_len] = log_buffer(m, *log_buf, *log_buf_len);
  auto first = m.read_u32(*first_idx);
  auto next = m.read_u32(*next_idx);
  if (!first || !next) throw DumpError(m.describe() + ": log_first_idx or log_next_idx is not in the dump");
  const std::vector<std::uint8_t> buf = read_all(m, buf_addr, buf_len);

  PrintkLog log;
  std::uint32_t idx = *first;
  // Each record is at least a header long, so a buffer holds at most this many:
  // the walk cannot loop longer even if the indices are corrupt.
  const std::uint64_t max_records = buf_len / std::max<std::uint64_t>(*rec_size, 1) + 2;
  bool wrapped = false;
  for (std::uint64_t n = 0; idx != *next; ++n) {
    if (n > max_records) {
      log.problems.push_back("the record chain does not reach log_next_idx: stopped");
      break;
    }
    auto len = load<std::uint16_t>(buf, std::uint64_t{idx} + *off_len);
    if (!len) {
      log.problems.push_back("record index " + std::to_string(idx) + " is outside the buffer");
      break;
    }
    if (*len == 0) {  // the end-of-buffer marker: the next record is at the start
      if (wrapped) {
        log.problems.push_back("two end-of-buffer markers in one pass: stopped");
        break;
      }
      wrapped = true;
      idx = 0;
      continue;
    }
    auto ts = load<std::uint64_t>(buf, std::uint64_t{idx} + *off_ts);
    auto text_len = load<std::uint16_t>(buf, std::uint64_t{idx} + *off_text_len);
    const std::uint64_t text_at = std::uint64_t{idx} + *rec_size;
    if (!ts || !text_len || *len < *rec_size || text_at + *text_len > buf.size()) {
      log.problems.push_back("record at index " + std::to_string(idx) + " is corrupt: stopped");
      break;
    }
    LogRecord rec;
    rec.seq = n;
    rec.ts_nsec = *ts;
    if (off_caller) {
      if (auto c = load<std::uint32_t>(buf, std::uint64_t{idx} + *off_caller)) {
        rec.caller_id = *c;
        rec.has_caller = *c != 0;
      }
    }
    rec.text.assign(reinterpret_cast<const char*>(buf.data() + text_at), *text_len);
    log.records.push_back(std::move(rec));
    idx += *len;
  }
  return log;
}

std::optional<PrintkLog> read_text_log_buf(MemorySource& m, VmcoreInfo& d) {
  auto log_buf = d.vmcoreinfo_symbol("log_buf");
  auto log_buf_len = d.vmcoreinfo_symbol("log_buf_len");
  auto log_end = d.vmcoreinfo_symbol("log_end");
  auto logged = d.vmcoreinfo_symbol("logged_chars");
  if (!log_buf || !log_buf_len || !log_end) return std::nullopt;
  const auto [buf_addr, buf_len] = log_buffer(m, *log_buf, *log_buf_len);
  auto end = m.read_u32(*log_end);
  if (!end) throw DumpError(m.describe() + ": log_end is not in the dump");
  const std::vector<std::uint8_t> buf = read_all(m, buf_addr, buf_len);
  // log_end counts every character ever written; the ring holds the last
  // min(logged_chars, log_buf_len) of them, ending at log_end mod log_buf_len.
  std::uint64_t count = buf_len;
  if (logged)
    if (auto c = m.read_u32(*logged)) count = std::min<std::uint64_t>(*c, buf_len);
  count = std::min<std::uint64_t>(count, *end);
  std::string text;
  text.reserve(count);
  for (std::uint64_t i = *end - count; i < *end; ++i) text.push_back(static_cast<char>(buf[i % buf_len]));

  PrintkLog log;
  std::size_t pos = 0;
  std::uint64_t seq = 0;
  if (count == buf_len) pos = std::min(text.size(), text.find('\n') + 1);  // the oldest line lost its start
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    LogRecord rec;
    rec.seq = seq++;
    if (line.size() >= 3 && line[0] == '<' && line[2] == '>') line.remove_prefix(3);  // "<6>" log level
    rec.has_timestamp = false;
    // "[ 1234.567890] " (CONFIG_PRINTK_TIME), as the kernel printed it.
    if (line.size() > 2 && line[0] == '[') {
      const std::size_t close = line.find("] ");
      const std::size_t dot = line.find('.');
      if (close != std::string_view::npos && dot != std::string_view::npos && dot < close) {
        std::uint64_t sec = 0, usec = 0;
        bool ok = true;
        for (std::size_t i = 1; i < dot && ok; ++i) {
          if (line[i] == ' ') continue;
          ok = line[i] >= '0' && line[i] <= '9';
          sec = sec * 10 + static_cast<std::uint64_t>(line[i] - '0');
        }
        for (std::size_t i = dot + 1; i < close && ok; ++i) {
          ok = line[i] >= '0' && line[i] <= '9';
          usec = usec * 10 + static_cast<std::uint64_t>(line[i] - '0');
        }
        if (ok && close - dot - 1 == 6) {
          rec.ts_nsec = sec * 1000000000ULL + usec * 1000ULL;
          rec.has_timestamp = true;
          line.remove_prefix(close + 2);
        }
      }
    }
    rec.text.assign(line);
    log.records.push_back(std::move(rec));
  }
  return log;
}

}  // namespace btaudit
