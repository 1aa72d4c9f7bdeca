#include "unwind/orc_table.h"

#include <algorithm>
#include <numeric>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxEntries = 8 * 1024 * 1024;

OrcReg reg_of(unsigned n) {
  switch (n) {
    case 0: return OrcReg::Undefined;
    case 1: return OrcReg::PrevSp;
    case 2: return OrcReg::Dx;
    case 3: return OrcReg::Di;
    case 4: return OrcReg::Bp;
    case 5: return OrcReg::Sp;
    case 6: return OrcReg::R10;
    case 7: return OrcReg::R13;
    case 8: return OrcReg::BpIndirect;
    case 9: return OrcReg::SpIndirect;
    default: return OrcReg::Other;
  }
}

}  // namespace

OrcEntry decode_orc_entry(const std::uint8_t* p, int version) {
  OrcEntry e;
  e.sp_offset = static_cast<std::int16_t>(p[0] | (p[1] << 8));
  e.bp_offset = static_cast<std::int16_t>(p[2] | (p[3] << 8));
  const unsigned bits = p[4] | (p[5] << 8);
  e.sp_reg = reg_of(bits & 0xf);
  e.bp_reg = reg_of((bits >> 4) & 0xf);
  if (version >= 3) {
    switch ((bits >> 8) & 7) {
      case 1: e.type = OrcType::EndOfStack; break;
      case 2: e.type = OrcType::Call; break;
      case 3: e.type = OrcType::Regs; break;
      case 4: e.type = OrcType::RegsPartial; break;
      default: e.type = OrcType::Undefined; break;
    }
    e.signal = (bits >> 11) & 1;
  } else {
    switch ((bits >> 8) & 3) {
      case 0: e.type = OrcType::Call; break;
      case 1: e.type = OrcType::Regs; break;
      case 2: e.type = OrcType::RegsPartial; break;
      default: e.type = OrcType::Undefined; break;
    }
    if (version == 2) {
      e.signal = (bits >> 10) & 1;
      e.end = (bits >> 11) & 1;
    } else {
      e.end = (bits >> 10) & 1;
    }
    // v1/v2: sp_reg UNDEFINED with end set is the end of the stack.
    if (e.sp_reg == OrcReg::Undefined && e.end) e.type = OrcType::EndOfStack;
  }
  return e;
}

bool OrcTable::add(MemorySource& m, std::uint64_t ip_table, std::uint64_t entries, std::uint64_t count, int version) {
  if (count == 0 || count > kMaxEntries) return false;
  std::vector<std::uint8_t> ipb(count * 4), eb(count * 6);
  if (!m.read_exact(ip_table, ipb) || !m.read_exact(entries, eb)) return false;
  ips_.reserve(ips_.size() + count);
  entries_.reserve(entries_.size() + count);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::int32_t rel = 0;
    std::memcpy(&rel, ipb.data() + i * 4, 4);
    ips_.push_back(ip_table + i * 4 + static_cast<std::uint64_t>(static_cast<std::int64_t>(rel)));
    entries_.push_back(decode_orc_entry(eb.data() + i * 6, version));
  }
  return true;
}

void OrcTable::finish() {
  std::vector<std::size_t> order(ips_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ips_[a] < ips_[b]; });
  std::vector<std::uint64_t> ips(ips_.size());
  std::vector<OrcEntry> entries(entries_.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    ips[i] = ips_[order[i]];
    entries[i] = entries_[order[i]];
  }
  ips_ = std::move(ips);
  entries_ = std::move(entries);
}

std::optional<OrcEntry> OrcTable::find(std::uint64_t ip) const {
  // The rightmost entry at or below ip; among equal ips the last one (the
  // kernel's "real entry wins over a terminator" sorting puts it last).
  auto it = std::upper_bound(ips_.begin(), ips_.end(), ip);
  if (it == ips_.begin()) return std::nullopt;
  return entries_[static_cast<std::size_t>(it - ips_.begin()) - 1];
}

}  // namespace btaudit
