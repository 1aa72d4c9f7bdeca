#include "unwind/orc_table.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxEntries = 8 * 1024 * 1024;

// ORC register numbers per format version (arch/x86/include/asm/orc_types.h), one row a
// number: what it means in v1-v3, then in v4.
//  v1-v3: 39358a033b2e (4.14) and later additions; AX 10 from 96f3b16a9de5 "objtool: Support
//         Clang RAX DRAP sequence", offered to the 6.12-7.0 stable trees in the old numbering.
//  v4:    1735858caa4b "objtool/x86: Reorder ORC register numbering" (7.1).
struct OrcRegisterRow {
  unsigned number;
  OrcReg v1_to_v3;
  OrcReg v4;
};
constexpr OrcRegisterRow kOrcRegisters[] = {
    {0, OrcReg::Undefined, OrcReg::Undefined},  //
    {1, OrcReg::PrevSp, OrcReg::Ax},            //
    {2, OrcReg::Dx, OrcReg::Dx},                //
    {3, OrcReg::Di, OrcReg::Sp},                //
    {4, OrcReg::Bp, OrcReg::Bp},                //
    {5, OrcReg::Sp, OrcReg::Di},                //
    {6, OrcReg::R10, OrcReg::R10},              //
    {7, OrcReg::R13, OrcReg::R13},              //
    {8, OrcReg::BpIndirect, OrcReg::PrevSp},    //
    {9, OrcReg::SpIndirect, OrcReg::SpIndirect},
    {10, OrcReg::Ax, OrcReg::BpIndirect},
};

}  // namespace

OrcReg orc_reg_of(unsigned number, int version) {
  for (const OrcRegisterRow& row : kOrcRegisters)
    if (row.number == number) return version >= 4 ? row.v4 : row.v1_to_v3;
  return OrcReg::Other;
}

unsigned orc_prev_sp_number(int version) {
  for (const OrcRegisterRow& row : kOrcRegisters)
    if ((version >= 4 ? row.v4 : row.v1_to_v3) == OrcReg::PrevSp) return row.number;
  return 0;
}

OrcEntry decode_orc_entry(const std::uint8_t* p, int version) {
  OrcEntry e;
  e.sp_offset = static_cast<std::int16_t>(p[0] | (p[1] << 8));
  e.bp_offset = static_cast<std::int16_t>(p[2] | (p[3] << 8));
  const unsigned bits = p[4] | (p[5] << 8);
  e.sp_reg = orc_reg_of(bits & 0xf, version);
  e.bp_reg = orc_reg_of((bits >> 4) & 0xf, version);
  if (version >= 3) {  // v4 keeps v3's bit layout and types
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

std::uint64_t OrcTable::Part::ip_at(std::uint64_t i) const {
  if (!sorted_ips.empty()) return sorted_ips[i];
  std::int32_t rel = 0;
  std::memcpy(&rel, relative_ips.get() + i * 4, 4);
  return ip_table + i * 4 + static_cast<std::uint64_t>(static_cast<std::int64_t>(rel));  // orc_ip()
}

bool OrcTable::add(MemorySource& m, std::uint64_t ip_table, std::uint64_t entries, std::uint64_t count, int version,
                   std::uint64_t begin, std::uint64_t end) {
  if (count == 0 || count > kMaxEntries - std::min<std::uint64_t>(kMaxEntries, size())) return false;  // all parts
  Part p;
  p.begin = begin;
  p.end = end;
  p.version = version;
  p.count = count;
  p.ip_table = ip_table;
  p.relative_ips.reset(new std::uint8_t[count * 4]);  // not value-initialised: the read fills them
  p.entries.reset(new std::uint8_t[count * 6]);
  if (!m.read_exact(ip_table, {p.relative_ips.get(), count * 4}) ||
      !m.read_exact(entries, {p.entries.get(), count * 6}))
    return false;
  bool sorted = true;
  for (std::uint64_t i = 1; i < count && sorted; ++i) sorted = p.ip_at(i - 1) <= p.ip_at(i);
  if (!sorted) {
    // Sorted at build time (scripts/sorttable, 5.5+) or already at boot, as a dump's are;
    // otherwise sorted here as the kernel does at boot or load: a stable sort keeps its
    // order among equal ips (a real entry after a terminator at the same ip).
    std::vector<std::uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return p.ip_at(a) < p.ip_at(b); });
    std::vector<std::uint64_t> ips(count);
    std::unique_ptr<std::uint8_t[]> sorted_entries(new std::uint8_t[count * 6]);
    for (std::uint64_t k = 0; k < count; ++k) {
      ips[k] = p.ip_at(order[k]);
      std::memcpy(sorted_entries.get() + k * 6, p.entries.get() + std::size_t{order[k]} * 6, 6);
    }
    p.sorted_ips = std::move(ips);
    p.entries = std::move(sorted_entries);
    p.relative_ips.reset();
  }
  // Narrow ranges first, so a module's range wins over vmlinux's catch-all.
  auto pos =
      std::find_if(parts_.begin(), parts_.end(), [&](const Part& q) { return (q.end - q.begin) > (p.end - p.begin); });
  parts_.insert(pos, std::move(p));
  return true;
}

std::size_t OrcTable::size() const {
  std::size_t n = 0;
  for (const Part& p : parts_) n += p.count;
  return n;
}

std::optional<OrcEntry> OrcTable::find(std::uint64_t ip) const {
  for (const Part& p : parts_) {
    if (ip < p.begin || ip >= p.end) continue;
    // The rightmost entry at or below ip.
    std::uint64_t lo = 0, hi = p.count;  // the first entry above ip
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (ip < p.ip_at(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (lo == 0) return std::nullopt;
    return decode_orc_entry(p.entries.get() + (lo - 1) * 6, p.version);
  }
  return std::nullopt;
}

}  // namespace btaudit
