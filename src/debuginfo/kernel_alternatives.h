// vmlinux's alternatives table (.altinstructions, between the linker's __alt_instructions and
// __alt_instructions_end): where boot-time patching rewrites the code the file holds, and with
// what. The call-site checker reads a return address's call from the file; where an ALTERNATIVE
// replaced the file's instruction with a call at boot (copy_user_generic's "rep movsb" becoming
// "call rep_movs_alternative"), the call is in the replacement only.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "provider/code_source.h"
#include "provider/type_provider.h"

namespace btaudit {

// The byte layout of struct alt_instr in one kernel (every member little-endian, the struct packed).
struct AltInstrLayout {
  std::uint64_t size = 0;
  std::uint64_t instr_offset = 0, repl_offset = 0;  // s32 each, relative to the member's own address
  std::uint64_t feature = 0;
  std::uint64_t feature_size = 0;  // 2: u16 cpuid (before 6.3); 4: u32 ft_flags (cpuid | flags << 16)
  std::uint64_t instrlen = 0, replacementlen = 0;
};

// The layout from the kernel's DWARF (struct alt_instr), else nullopt.
std::optional<AltInstrLayout> alt_instr_layout(TypeProvider& types);

// The layouts x86 kernels have had, for a vmlinux without DWARF (pahole on the labs' kernels):
// 13 bytes on 4.19 (u16 cpuid, u8 instrlen, replacementlen, padlen), 12 on 5.10 and 6.1 (no padlen),
// 14 on 6.14 and 6.18 (u32 ft_flags: cpuid in its low half, flags in its high half).
std::vector<AltInstrLayout> known_alt_instr_layouts();

class KernelAlternatives;

// A table decoded with the kernel's layout: `dwarf`'s when the DWARF has struct alt_instr, else
// the known layout whose size divides the table and that skips fewest entries. `source` says which
// ("struct alt_instr from DWARF (14 bytes)"), or why none ("none: ...").
KernelAlternatives decode_alternatives(std::span<const std::uint8_t> table, std::uint64_t table_address,
                                       const std::optional<AltInstrLayout>& dwarf, std::uint64_t text_start,
                                       std::uint64_t text_end, std::string& source);

class KernelAlternatives {
 public:
  KernelAlternatives() = default;
  // Decodes `table`, the bytes of .altinstructions at link address `table_address`. Entries
  // whose original or replacement falls outside [text_start, text_end) or whose replacement is
  // longer than its original (apply_alternatives() refuses them) are skipped and counted.
  KernelAlternatives(std::span<const std::uint8_t> table, std::uint64_t table_address, const AltInstrLayout& layout,
                     std::uint64_t text_start, std::uint64_t text_end);

  // The patches whose original holds `address`, in table order.
  std::vector<CodePatch> holding(std::uint64_t address) const;
  std::size_t size() const { return patches_.size(); }
  std::size_t skipped() const { return skipped_; }
  const std::vector<CodePatch>& patches() const { return patches_; }  // sorted by address, then table order

 private:
  std::vector<CodePatch> patches_;
  std::uint8_t longest_ = 0;
  std::size_t skipped_ = 0;
};

}  // namespace btaudit
