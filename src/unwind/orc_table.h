// ORC unwind tables (.orc_unwind_ip / .orc_unwind), read from kernel memory so
// vmlinux and module tables are handled alike. Format versions (drgn's numbering,
// ../shared/docs/kernel-facts.md section 7):
//   v1 4.14-6.2  sp_reg:4 bp_reg:4 type:2 end:1         CALL 0, REGS 1, REGS_PARTIAL 2
//   v2 6.3       sp_reg:4 bp_reg:4 type:2 signal:1 end:1
//   v3 6.4-7.0   sp_reg:4 bp_reg:4 type:3 signal:1       UNDEFINED 0, END_OF_STACK 1, CALL 2, REGS 3, REGS_PARTIAL 4
//   v4 7.1+      as v3, registers renumbered (1735858caa4b "objtool/x86: Reorder ORC register numbering")
// The register numbers of each version are the rows of kOrcRegisters in orc_table.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "memory/memory_source.h"

namespace btaudit {

enum class OrcReg { Undefined, PrevSp, Ax, Dx, Di, Bp, Sp, R10, R13, BpIndirect, SpIndirect, Other };
enum class OrcType { Undefined, EndOfStack, Call, Regs, RegsPartial };

struct OrcEntry {
  std::int16_t sp_offset = 0;
  std::int16_t bp_offset = 0;
  OrcReg sp_reg = OrcReg::Undefined;
  OrcReg bp_reg = OrcReg::Undefined;
  OrcType type = OrcType::Undefined;
  bool signal = false;
  bool end = false;
};

// One table per code owner, as the kernel keeps them: vmlinux's, and each
// module's used only for that module's text. (A module's table can hold
// entries for its freed init text, which another module may now occupy.)
class OrcTable {
 public:
  // Adds `count` entries whose ip table starts at `ip_table` and entry table at
  // `entries`, answering for ips in [begin, end). Returns false when memory cannot be read.
  bool add(MemorySource& m, std::uint64_t ip_table, std::uint64_t entries, std::uint64_t count, int version,
           std::uint64_t begin = 0, std::uint64_t end = ~std::uint64_t{0});
  // As add() for vmlinux's table (the whole address space), which a dump holds sorted (at build
  // time, or by the kernel at boot): a table of hundreds of thousands of entries, of which a walk
  // asks about tens, is read a block at a time as find() reaches it, not copied whole. The pages of
  // both tables are checked present here, as add()'s whole reads check them; a block found out of
  // order makes the table read whole and sorted, as add() would have. `m` must outlive the table.
  // A small table is read whole (add()).
  bool add_sorted_lazily(MemorySource& m, std::uint64_t ip_table, std::uint64_t entries, std::uint64_t count,
                         int version);
  std::optional<OrcEntry> find(std::uint64_t ip) const;
  std::size_t size() const;

 private:
  class LazyTable;
  // Both tables stay as the kernel has them (ips as 32-bit offsets from their own
  // slots, entries in their 6-byte form) in buffers left uninitialised before the read,
  // and are decoded when found: a table has hundreds of thousands, a walk asks about
  // tens. (Widening and zeroing them first was a third of a warm `vmcore bt`.)
  struct Part {
    std::uint64_t begin = 0, end = 0;
    int version = 1;
    std::uint64_t count = 0;
    std::uint64_t ip_table = 0;                    // where the kernel's ip table is
    std::unique_ptr<std::uint8_t[]> relative_ips;  // count x s32, as read (sorted tables)
    std::vector<std::uint64_t> sorted_ips;         // ips sorted here (tables the kernel sorts at boot)
    std::unique_ptr<std::uint8_t[]> entries;       // count x 6 bytes, in the order of the ips
    std::shared_ptr<LazyTable> lazy;               // add_sorted_lazily's: the two above stay empty
    std::uint64_t ip_at(std::uint64_t i) const;
  };
  void insert(Part&& p);
  std::vector<Part> parts_;  // modules first matched by range, vmlinux (the whole space) last
};

OrcEntry decode_orc_entry(const std::uint8_t* six_bytes, int version);

// The register a 4-bit ORC register number stands for in a format version (Other: none).
OrcReg orc_reg_of(unsigned number, int version);

// The ORC register number of the frame-pointer fallback entry's bp_reg (PREV_SP) in a version:
// what tells v4 from v1-v3 in the kernel's own orc_fp_entry (orc_loader.h).
unsigned orc_prev_sp_number(int version);

}  // namespace btaudit
