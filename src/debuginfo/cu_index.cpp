#include "debuginfo/cu_index.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <unordered_set>

namespace btaudit {

namespace {

// An address range of a CU that .debug_aranges leaves out, [start, end).
struct Extra {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t cu_die = 0;
};

// The ranges of every CU that no arange names: clang writes .debug_aranges only for its
// assembler's CUs unless told -gdwarf-aranges (a clang-built vmlinux covers a few dozen CUs of
// thousands there), and libdw, which trusts the section when it is present, then finds no CU
// and no line for most addresses (eu-addr2line prints "??:0"; binutils' addr2line and
// llvm-addr2line read each CU's DW_AT_ranges or low/high pc, as this does).
std::vector<Extra> unnamed_cu_ranges(Dwarf* dwarf, const std::unordered_set<std::uint64_t>& named) {
  std::vector<Extra> out;
  Dwarf_CU* cu = nullptr;
  Dwarf_Die cudie;
  Dwarf_Half version = 0;
  std::uint8_t unit_type = 0;
  constexpr std::size_t kMaxUnits = 1u << 20;  // a hostile file's unit count is capped
  constexpr std::size_t kMaxRangesPerCu = 1u << 16;
  for (std::size_t units = 0; units < kMaxUnits; ++units) {
    if (dwarf_get_units(dwarf, cu, &cu, &version, &unit_type, &cudie, nullptr) != 0) break;
    if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
    const std::uint64_t offset = dwarf_dieoffset(&cudie);
    if (named.contains(offset)) continue;
    Dwarf_Addr base = 0;
    Dwarf_Addr start = 0;
    Dwarf_Addr end = 0;
    std::ptrdiff_t at = 0;
    for (std::size_t n = 0; n < kMaxRangesPerCu; ++n) {
      at = dwarf_ranges(&cudie, at, &base, &start, &end);
      if (at <= 0) break;
      if (end > start) out.push_back({start, end, offset});
    }
  }
  std::sort(out.begin(), out.end(), [](const Extra& a, const Extra& b) { return a.start < b.start; });
  return out;
}

// `aranges` with `extra` laid over it: an address in an extra range answers that range's CU, any
// other address what `aranges` answered (so that a kernel whose aranges name every CU, as GCC's
// do, gets exactly libdwfl's answers).
CuIndex overlay(const CuIndex& aranges, const std::vector<Extra>& extra) {
  std::vector<std::uint64_t> points;
  points.reserve(aranges.runs().size() + 2 * extra.size());
  for (const CuIndex::Run& r : aranges.runs()) points.push_back(r.start);
  std::uint64_t last_end = aranges.last_end();
  for (const Extra& e : extra) {
    points.push_back(e.start);
    points.push_back(e.end);
    last_end = std::max(last_end, e.end - 1);  // cu_at takes last_end itself as inside
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<CuIndex::Run> runs;
  auto extra_at = [&extra](std::uint64_t a) -> std::optional<std::uint64_t> {
    // The extra range starting last at or below a (extra ranges of one vmlinux do not overlap).
    auto it =
        std::upper_bound(extra.begin(), extra.end(), a, [](std::uint64_t x, const Extra& e) { return x < e.start; });
    if (it == extra.begin()) return std::nullopt;
    --it;
    if (a < it->end) return it->cu_die;
    return std::nullopt;
  };
  for (const std::uint64_t p : points) {
    std::optional<std::uint64_t> cu = extra_at(p);
    if (!cu) cu = aranges.cu_at(p);
    if (!cu) continue;  // past every range: the previous run's gap rule answers, as libdwfl's would
    if (runs.empty() || runs.back().cu_die != *cu) runs.push_back({p, *cu});
  }
  return CuIndex(std::move(runs), last_end);
}

}  // namespace

std::optional<CuIndex> CuIndex::from_aranges(Dwarf* dwarf) {
  Dwarf_Aranges* aranges = nullptr;
  std::size_t count = 0;
  if (!dwarf || dwarf_getaranges(dwarf, &aranges, &count) != 0) return std::nullopt;
  Builder index;
  std::unordered_set<std::uint64_t> named;
  for (std::size_t i = 0; i < count; ++i) {
    Dwarf_Addr start = 0;
    Dwarf_Word length = 0;
    Dwarf_Off cu_die = 0;
    if (dwarf_getarangeinfo(dwarf_onearange(aranges, i), &start, &length, &cu_die) != 0) return std::nullopt;
    index.add(start, length, cu_die);
    named.insert(cu_die);
  }
  CuIndex folded = std::move(index).finish();
  const std::vector<Extra> extra = unnamed_cu_ranges(dwarf, named);
  if (extra.empty()) return folded;
  return overlay(folded, extra);
}

}  // namespace btaudit
