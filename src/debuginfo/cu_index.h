// Which compilation unit holds a DWARF address, answered as libdwfl answers it,
// without reading .debug_aranges. A session that opens vmlinux's DWARF for a
// source line had libdw read every arange and touch the header of every CU
// (thousands of pages of .debug_info): a quarter of an `analyze --vmlinux` run
// whose addresses the profile had not seen. The index keeps what that lookup
// needs, in the profile, so that a later session goes straight to one CU.
//
// The rules are libdwfl's (elfutils libdwfl/cu.c, addrarange(), 0.188 as in
// Debian 12), so that an address gets the CU that dwfl_module_addrdie() and
// dwfl_module_getsrc() would give it:
//   - libdw's aranges, sorted by address, are folded into runs: consecutive
//     aranges of one CU are one run that starts where its first arange starts;
//   - an address belongs to the run with the greatest start at or below it, gaps
//     between aranges included ("the little gaps inside the module" count as
//     the surrounding CU);
//   - past the last run's start, only up to the last arange's end, that end
//     itself included (libdwfl tests addr > addr + length).
// Past libdwfl: a CU that no arange names (clang writes .debug_aranges for its assembler's CUs
// only) is found by its own ranges (DW_AT_ranges, low/high pc), which are laid over the runs;
// where the aranges name every CU, as GCC's do, the answers are libdwfl's exactly.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

struct Dwarf;

namespace btaudit {

class CuIndex {
 public:
  // One run: consecutive aranges of one CU.
  struct Run {
    std::uint64_t start = 0;   // the DWARF address its first arange starts at
    std::uint64_t cu_die = 0;  // the CU's DIE offset in .debug_info (as dwarf_getarangeinfo gives it)
    bool operator==(const Run&) const = default;
  };

  CuIndex() = default;
  CuIndex(std::vector<Run> runs, std::uint64_t last_end) : runs_(std::move(runs)), last_end_(last_end) {}

  // Folds libdw's aranges (in its order: sorted by address) into runs.
  class Builder {
   public:
    void add(std::uint64_t address, std::uint64_t length, std::uint64_t cu_die) {
      if (runs_.empty() || runs_.back().cu_die != cu_die) runs_.push_back({address, cu_die});
      last_end_ = address + length;
    }
    CuIndex finish() && { return CuIndex(std::move(runs_), last_end_); }

   private:
    std::vector<Run> runs_;
    std::uint64_t last_end_ = 0;
  };

  // The DIE offset of the CU holding `address` (a DWARF address: the module's bias taken off).
  std::optional<std::uint64_t> cu_at(std::uint64_t address) const {
    std::size_t l = 0;
    std::size_t u = runs_.size();
    while (l < u) {
      const std::size_t idx = l + (u - l) / 2;
      const std::uint64_t start = runs_[idx].start;
      if (address < start) {
        u = idx;
        continue;
      }
      if (address > start) {
        if (idx + 1 < runs_.size()) {
          if (address >= runs_[idx + 1].start) {
            l = idx + 1;
            continue;
          }
        } else if (address > last_end_) {
          return std::nullopt;
        }
      }
      return runs_[idx].cu_die;
    }
    return std::nullopt;
  }

  // libdw's aranges of `dwarf` (dwarf_getaranges, which libdwfl's lookup reads too), folded, and
  // the ranges of the CUs they leave out laid over them; nullopt when libdw cannot read the
  // aranges (libdwfl's lookup then fails as well).
  static std::optional<CuIndex> from_aranges(Dwarf* dwarf);

  const std::vector<Run>& runs() const { return runs_; }
  std::uint64_t last_end() const { return last_end_; }
  bool operator==(const CuIndex&) const = default;

 private:
  std::vector<Run> runs_;
  std::uint64_t last_end_ = 0;
};

}  // namespace btaudit
