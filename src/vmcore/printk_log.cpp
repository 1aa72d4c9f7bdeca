#include "vmcore/printk_log.h"

#include <cstdio>

#include "vmcore/dump_error.h"
#include "vmcore/printk_legacy.h"

namespace btaudit {

namespace {

// The ring's layout, from VMCOREINFO (kernel/printk/printk.c, log_buf_vmcoreinfo_setup).
struct RingLayout {
  std::uint64_t prb = 0;
  std::uint64_t desc_ring = 0, text_data_ring = 0;
  std::uint64_t count_bits = 0, descs = 0, infos = 0, head_id = 0, tail_id = 0;
  std::uint64_t prb_desc_size = 0, state_var = 0, text_blk_lpos = 0, lpos_begin = 0, lpos_next = 0;
  std::uint64_t info_size = 0, info_seq = 0, info_ts = 0, info_text_len = 0;
  std::optional<std::uint64_t> info_caller;
  std::uint64_t size_bits = 0, data = 0;
};

std::uint64_t need(MemorySource& m, VmcoreInfo& d, const std::string& key) {
  auto v = d.vmcoreinfo_number(key);
  if (!v) throw DumpError(m.describe() + ": VMCOREINFO has no " + key + " (not a 5.10+ printk ring buffer)");
  return *v;
}

RingLayout layout_of(MemorySource& m, VmcoreInfo& d) {
  RingLayout l;
  auto prb = d.vmcoreinfo_symbol("prb");
  if (!prb) throw DumpError(m.describe() + ": VMCOREINFO has no SYMBOL(prb)");
  // SYMBOL(prb) is the address of the pointer "struct printk_ringbuffer *prb".
  auto ring = m.read_u64(*prb);
  if (!ring) throw DumpError(m.describe() + ": the printk ring buffer pointer (prb) is not in the dump");
  l.prb = *ring;
  l.desc_ring = need(m, d, "OFFSET(printk_ringbuffer.desc_ring)");
  l.text_data_ring = need(m, d, "OFFSET(printk_ringbuffer.text_data_ring)");
  l.count_bits = need(m, d, "OFFSET(prb_desc_ring.count_bits)");
  l.descs = need(m, d, "OFFSET(prb_desc_ring.descs)");
  l.infos = need(m, d, "OFFSET(prb_desc_ring.infos)");
  l.head_id = need(m, d, "OFFSET(prb_desc_ring.head_id)");
  l.tail_id = need(m, d, "OFFSET(prb_desc_ring.tail_id)");
  l.prb_desc_size = need(m, d, "SIZE(prb_desc)");
  l.state_var = need(m, d, "OFFSET(prb_desc.state_var)");
  l.text_blk_lpos = need(m, d, "OFFSET(prb_desc.text_blk_lpos)");
  l.lpos_begin = need(m, d, "OFFSET(prb_data_blk_lpos.begin)");
  l.lpos_next = need(m, d, "OFFSET(prb_data_blk_lpos.next)");
  l.info_size = need(m, d, "SIZE(printk_info)");
  l.info_seq = need(m, d, "OFFSET(printk_info.seq)");
  l.info_ts = need(m, d, "OFFSET(printk_info.ts_nsec)");
  l.info_text_len = need(m, d, "OFFSET(printk_info.text_len)");
  l.info_caller = d.vmcoreinfo_number("OFFSET(printk_info.caller_id)");
  l.size_bits = need(m, d, "OFFSET(prb_data_ring.size_bits)");
  l.data = need(m, d, "OFFSET(prb_data_ring.data)");
  return l;
}

constexpr unsigned kStateShift = 62;  // DESC_FLAGS_SHIFT on 64-bit: state in the top two bits
constexpr std::uint64_t kIdMask = ~(std::uint64_t{3} << kStateShift);
constexpr std::uint64_t kCommitted = 1, kFinalized = 2;
constexpr std::uint64_t kMaxDescBits = 24;  // 16M records: more is a corrupt dump, not a log
constexpr std::uint64_t kMaxDataBits = 31;

}  // namespace

PrintkLog read_printk_log(MemorySource& dump, VmcoreInfo& lines) {
  if (!lines.vmcoreinfo_symbol("prb")) {
    if (auto log = read_record_log_buf(dump, lines)) return std::move(*log);
    if (auto log = read_text_log_buf(dump, lines)) return std::move(*log);
    throw DumpError(dump.describe() +
                    ": VMCOREINFO describes no kernel log (no SYMBOL(prb), no SYMBOL(log_buf) with its indices)");
  }
  const RingLayout l = layout_of(dump, lines);
  const std::uint64_t dr = l.prb + l.desc_ring;
  const std::uint64_t tr = l.prb + l.text_data_ring;
  auto count_bits = dump.read_u32(dr + l.count_bits);
  auto descs = dump.read_u64(dr + l.descs);
  auto infos = dump.read_u64(dr + l.infos);
  auto head = dump.read_u64(dr + l.head_id);
  auto tail = dump.read_u64(dr + l.tail_id);
  auto size_bits = dump.read_u32(tr + l.size_bits);
  auto data = dump.read_u64(tr + l.data);
  if (!count_bits || !descs || !infos || !head || !tail || !size_bits || !data)
    throw DumpError(dump.describe() + ": the printk ring buffer at " + std::to_string(l.prb) + " cannot be read");
  if (*count_bits > kMaxDescBits || *size_bits > kMaxDataBits)
    throw DumpError(dump.describe() + ": the printk ring buffer header is corrupt (count_bits " +
                    std::to_string(*count_bits) + ", size_bits " + std::to_string(*size_bits) + ")");
  const std::uint64_t count = std::uint64_t{1} << *count_bits;
  const std::uint64_t data_size = std::uint64_t{1} << *size_bits;

  PrintkLog log;
  const std::uint64_t first = *tail & kIdMask;
  const std::uint64_t last = *head & kIdMask;
  const std::uint64_t span = ((last - first) & kIdMask) + 1;
  if (span > count)
    log.problems.push_back("head and tail ids span more than the ring: read the last " + std::to_string(count));
  const std::uint64_t n = span > count ? count : span;
  const std::uint64_t start = span > count ? ((last - count + 1) & kIdMask) : first;
  std::vector<std::uint8_t> text;
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t id = (start + k) & kIdMask;
    const std::uint64_t idx = id & (count - 1);
    const std::uint64_t desc = *descs + idx * l.prb_desc_size;
    auto sv = dump.read_u64(desc + l.state_var);
    if (!sv) continue;
    const std::uint64_t state = *sv >> kStateShift;
    if ((*sv & kIdMask) != id || (state != kCommitted && state != kFinalized)) continue;
    auto begin = dump.read_u64(desc + l.text_blk_lpos + l.lpos_begin);
    auto next = dump.read_u64(desc + l.text_blk_lpos + l.lpos_next);
    const std::uint64_t info = *infos + idx * l.info_size;
    auto seq = dump.read_u64(info + l.info_seq);
    auto ts = dump.read_u64(info + l.info_ts);
    auto text_len = dump.read_u16(info + l.info_text_len);
    if (!begin || !next || !seq || !ts || !text_len) {
      log.problems.push_back("record " + std::to_string(id) + ": unreadable descriptor");
      continue;
    }
    LogRecord rec;
    rec.seq = *seq;
    rec.ts_nsec = *ts;
    if (l.info_caller) {
      if (auto c = dump.read_u32(info + *l.info_caller)) {
        rec.caller_id = *c;
        rec.has_caller = *c != 0;
      }
    }
    // Data-less records (failed or empty) have the low bits of lpos set.
    if ((*begin & 1) == 0 && *begin != *next) {
      std::uint64_t off = *begin & (data_size - 1);
      const bool wraps = (*begin / data_size) != (*next / data_size);
      if (wraps) off = 0;  // the block was placed at the start of the ring
      const std::uint64_t block_end = wraps ? (*next & (data_size - 1)) : off + (*next - *begin);
      std::uint64_t len = *text_len;
      if (off + 8 + len > block_end || block_end > data_size) {
        log.problems.push_back("record " + std::to_string(rec.seq) + ": text outside its data block");
        len = block_end > off + 8 ? block_end - off - 8 : 0;
      }
      text.resize(len);
      if (len && !dump.read_exact(*data + off + 8, text)) {
        log.problems.push_back("record " + std::to_string(rec.seq) + ": text not in the dump");
        continue;
      }
      rec.text.assign(text.begin(), text.end());
    }
    log.records.push_back(std::move(rec));
  }
  return log;
}

std::string format_log(const PrintkLog& log) {
  std::string out;
  char prefix[64];
  for (const LogRecord& r : log.records) {
    if (!r.has_timestamp) {
      out += r.text;
      out += '\n';
      continue;
    }
    std::snprintf(prefix, sizeof prefix, "[%5llu.%06llu] ", static_cast<unsigned long long>(r.ts_nsec / 1000000000ULL),
                  static_cast<unsigned long long>((r.ts_nsec % 1000000000ULL) / 1000ULL));
    std::size_t pos = 0;
    do {  // a record may hold several lines; dmesg prefixes each
      const std::size_t nl = r.text.find('\n', pos);
      out += prefix;
      out.append(r.text, pos, nl == std::string::npos ? std::string::npos : nl - pos);
      out += '\n';
      pos = nl == std::string::npos ? r.text.size() + 1 : nl + 1;
    } while (pos <= r.text.size() && pos < r.text.size());
  }
  return out;
}

}  // namespace btaudit
