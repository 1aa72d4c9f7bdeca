#include "unwind/orc_table.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxEntries = 8 * 1024 * 1024;
// add_sorted_lazily's block: 4 KiB of ips, 6 KiB of entries. Tables below 16 blocks are read whole.
constexpr std::uint64_t kBlockEntries = 1024;
constexpr std::uint64_t kLazyMinEntries = 16 * kBlockEntries;
constexpr std::uint64_t kPageBytes = 4096;

// orc_ip(): an ip-table slot holds its ip as an offset from the slot itself.
std::uint64_t ip_of_slot(std::uint64_t slot_address, const std::uint8_t* four_bytes) {
  std::int32_t rel = 0;
  std::memcpy(&rel, four_bytes, 4);
  return slot_address + static_cast<std::uint64_t>(static_cast<std::int64_t>(rel));
}

// The first of entries [lo, hi) whose ip is above `ip` (hi when none is), ips sorted: the
// entry before it is the rightmost at or below ip, the one the kernel's unwinder takes.
template <typename IpAt>
std::uint64_t first_above(std::uint64_t lo, std::uint64_t hi, std::uint64_t ip, IpAt ip_at) {
  // (Not std::ranges::partition_point over an iota view: clang 14 cannot compile libstdc++ 12's.)
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (ip < ip_at(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Whether every page [at, at + bytes) touches can be read (one byte of each): what a read of the
// whole range would have needed.
bool pages_readable(MemorySource& m, std::uint64_t at, std::uint64_t bytes) {
  if (bytes == 0) return true;
  std::uint8_t probe[1];
  const std::uint64_t last = at + bytes - 1;
  for (std::uint64_t page = at & ~(kPageBytes - 1);; page += kPageBytes) {
    if (!m.read_exact(std::max(page, at), probe)) return false;
    if (last - page < kPageBytes) return true;  // the last page
  }
}

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
  return ip_of_slot(ip_table + i * 4, relative_ips.get() + i * 4);
}

// A sorted table in the dump, read a block at a time: the first ip of every block is read up
// front, so a lookup finds its block without reading any other, and reads that one once. The
// blocks read are a cache: find() stays const.
class OrcTable::LazyTable {
 public:
  LazyTable(MemorySource& m, std::uint64_t ip_table, std::uint64_t entries, std::uint64_t count, int version)
      : m_(m), ip_table_(ip_table), entries_(entries), count_(count), version_(version) {}

  // The first ip of every block; false when one cannot be read or they are out of order.
  bool read_block_starts() {
    const std::uint64_t n = (count_ + kBlockEntries - 1) / kBlockEntries;
    first_ips_.reserve(n);
    for (std::uint64_t b = 0; b < n; ++b) {
      const std::uint64_t slot = ip_table_ + b * kBlockEntries * 4;
      std::uint8_t rel[4];
      if (!m_.read_exact(slot, rel)) return false;
      first_ips_.push_back(ip_of_slot(slot, rel));
      if (b > 0 && first_ips_[b] < first_ips_[b - 1]) return false;
    }
    blocks_.resize(n);
    return true;
  }

  std::optional<OrcEntry> find(std::uint64_t ip) {
    if (whole_) return whole_->find(ip);
    const auto after = std::upper_bound(first_ips_.begin(), first_ips_.end(), ip);
    if (after == first_ips_.begin()) return std::nullopt;  // below the first ip
    const auto b = static_cast<std::uint64_t>(after - first_ips_.begin()) - 1;
    const Block& block = fetch(b);
    if (whole_) return whole_->find(ip);  // the block showed the table unsorted
    if (!block.ok) return std::nullopt;
    // The block's first entry is at or below ip (ip >= first_ips_[b]): the search starts after it.
    const std::uint64_t above = first_above(1, block.count, ip, [&](std::uint64_t i) { return block.ip(i); });
    return decode_orc_entry(block.entries.get() + (above - 1) * 6, version_);
  }

 private:
  struct Block {
    bool fetched = false, ok = false;
    std::uint64_t count = 0, first_slot = 0;
    std::unique_ptr<std::uint8_t[]> ips, entries;
    std::uint64_t ip(std::uint64_t i) const { return ip_of_slot(first_slot + i * 4, ips.get() + i * 4); }
  };

  const Block& fetch(std::uint64_t b) {
    Block& block = blocks_[b];
    if (block.fetched) return block;
    block.fetched = true;
    block.count = std::min(kBlockEntries, count_ - b * kBlockEntries);
    block.first_slot = ip_table_ + b * kBlockEntries * 4;
    block.ips.reset(new std::uint8_t[block.count * 4]);  // filled by the reads
    block.entries.reset(new std::uint8_t[block.count * 6]);
    if (!m_.read_exact(block.first_slot, {block.ips.get(), block.count * 4}) ||
        !m_.read_exact(entries_ + b * kBlockEntries * 6, {block.entries.get(), block.count * 6}))
      return block;
    bool sorted = block.ip(0) == first_ips_[b];
    for (std::uint64_t i = 1; i < block.count && sorted; ++i) sorted = block.ip(i - 1) <= block.ip(i);
    if (sorted && b + 1 < first_ips_.size()) sorted = block.ip(block.count - 1) <= first_ips_[b + 1];
    block.ok = sorted;
    if (!sorted) {
      // Not the order the kernel keeps: read whole and sorted, as add() reads any table.
      whole_ = std::make_unique<OrcTable>();
      if (!whole_->add(m_, ip_table_, entries_, count_, version_)) whole_->parts_.clear();
    }
    return block;
  }

  MemorySource& m_;
  const std::uint64_t ip_table_, entries_, count_;
  const int version_;
  std::vector<std::uint64_t> first_ips_;
  std::vector<Block> blocks_;
  std::unique_ptr<OrcTable> whole_;
};

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
  insert(std::move(p));
  return true;
}

bool OrcTable::add_sorted_lazily(MemorySource& m, std::uint64_t ip_table, std::uint64_t entries, std::uint64_t count,
                                 int version) {
  if (count < kLazyMinEntries) return add(m, ip_table, entries, count, version);
  if (count > kMaxEntries - std::min<std::uint64_t>(kMaxEntries, size())) return false;
  if (!pages_readable(m, ip_table, count * 4) || !pages_readable(m, entries, count * 6)) return false;
  auto lazy = std::make_shared<LazyTable>(m, ip_table, entries, count, version);
  if (!lazy->read_block_starts()) return add(m, ip_table, entries, count, version);  // unsorted: read whole
  Part p;
  p.begin = 0;
  p.end = ~std::uint64_t{0};
  p.version = version;
  p.count = count;
  p.ip_table = ip_table;
  p.lazy = std::move(lazy);
  insert(std::move(p));
  return true;
}

void OrcTable::insert(Part&& p) {
  // Narrow ranges first, so a module's range wins over vmlinux's catch-all.
  auto pos =
      std::find_if(parts_.begin(), parts_.end(), [&](const Part& q) { return (q.end - q.begin) > (p.end - p.begin); });
  parts_.insert(pos, std::move(p));
}

std::size_t OrcTable::size() const {
  std::size_t n = 0;
  for (const Part& p : parts_) n += p.count;
  return n;
}

std::optional<OrcEntry> OrcTable::find(std::uint64_t ip) const {
  for (const Part& p : parts_) {
    if (ip < p.begin || ip >= p.end) continue;
    if (p.lazy) return p.lazy->find(ip);
    const std::uint64_t above = first_above(0, p.count, ip, [&](std::uint64_t i) { return p.ip_at(i); });
    if (above == 0) return std::nullopt;  // below the first ip
    return decode_orc_entry(p.entries.get() + (above - 1) * 6, p.version);
  }
  return std::nullopt;
}

}  // namespace btaudit
