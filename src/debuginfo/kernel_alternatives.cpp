#include "debuginfo/kernel_alternatives.h"

#include <algorithm>
#include <cstring>

namespace btaudit {

namespace {

// ALT_FLAG_NOT and the u16 cpuid's inverse bit (arch/x86/include/asm/alternative.h): the
// replacement goes in on CPUs without the feature.
constexpr std::uint32_t kFlagNot = 1U << 0;
constexpr std::uint32_t kFlagDirectCall = 1U << 1;  // ALT_FLAG_DIRECT_CALL
constexpr std::uint16_t kCpuidInverse = 1U << 15;

template <typename T>
T load(std::span<const std::uint8_t> bytes, std::uint64_t at) {
  T v{};
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

}  // namespace

std::optional<AltInstrLayout> alt_instr_layout(TypeProvider& types) {
  const auto size = types.type_size("alt_instr");
  const auto instr = types.member("alt_instr", "instr_offset");
  const auto repl = types.member("alt_instr", "repl_offset");
  const auto ilen = types.member("alt_instr", "instrlen");
  const auto rlen = types.member("alt_instr", "replacementlen");
  auto feature = types.member("alt_instr", "ft_flags");
  if (!feature) feature = types.member("alt_instr", "cpuid");
  if (!size || !instr || !repl || !ilen || !rlen || !feature) return std::nullopt;
  AltInstrLayout l{*size, instr->offset, repl->offset, feature->offset, feature->size, ilen->offset, rlen->offset};
  // The members as the kernel has always had them: s32 offsets, u8 lengths, a u16 or u32 feature.
  const bool sane = instr->size == 4 && repl->size == 4 && ilen->size == 1 && rlen->size == 1 &&
                    (l.feature_size == 2 || l.feature_size == 4) && l.instr_offset + 4 <= l.size &&
                    l.repl_offset + 4 <= l.size && l.feature + l.feature_size <= l.size && l.instrlen < l.size &&
                    l.replacementlen < l.size;
  if (!sane) return std::nullopt;
  return l;
}

std::vector<AltInstrLayout> known_alt_instr_layouts() {
  return {
      {14, 0, 4, 8, 4, 12, 13},  // 6.14, 6.18
      {13, 0, 4, 8, 2, 10, 11},  // 4.19
      {12, 0, 4, 8, 2, 10, 11},  // 5.10, 6.1
  };
}

KernelAlternatives::KernelAlternatives(std::span<const std::uint8_t> table, std::uint64_t table_address,
                                       const AltInstrLayout& l, std::uint64_t text_start, std::uint64_t text_end) {
  if (l.size == 0) return;
  const std::uint64_t count = table.size() / l.size;
  patches_.reserve(count);
  const auto inside = [&](std::uint64_t a, std::uint64_t n) {
    return a >= text_start && a < text_end && n <= text_end - a;
  };
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = i * l.size;
    const std::uint64_t entry = table_address + at;
    CodePatch p;
    // instr_va(): each offset is relative to the member holding it.
    p.address = entry + l.instr_offset +
                static_cast<std::uint64_t>(std::int64_t{load<std::int32_t>(table, at + l.instr_offset)});
    p.replacement =
        entry + l.repl_offset + static_cast<std::uint64_t>(std::int64_t{load<std::int32_t>(table, at + l.repl_offset)});
    p.length = table[at + l.instrlen];
    p.replacement_length = table[at + l.replacementlen];
    if (l.feature_size == 4) {
      const auto ft = load<std::uint32_t>(table, at + l.feature);
      p.feature = static_cast<std::uint16_t>(ft & 0xffff);
      p.when_absent = ((ft >> 16) & kFlagNot) != 0;
      p.target_from_pointer = ((ft >> 16) & kFlagDirectCall) != 0;
    } else {
      const auto cpuid = load<std::uint16_t>(table, at + l.feature);
      p.feature = static_cast<std::uint16_t>(cpuid & ~kCpuidInverse);
      p.when_absent = (cpuid & kCpuidInverse) != 0;
    }
    if (p.length == 0 || p.replacement_length > p.length || !inside(p.address, p.length) ||
        (p.replacement_length != 0 && !inside(p.replacement, p.replacement_length))) {
      ++skipped_;
      continue;
    }
    longest_ = std::max(longest_, p.length);
    patches_.push_back(p);
  }
  std::stable_sort(patches_.begin(), patches_.end(),
                   [](const CodePatch& a, const CodePatch& b) { return a.address < b.address; });
}

KernelAlternatives decode_alternatives(std::span<const std::uint8_t> table, std::uint64_t table_address,
                                       const std::optional<AltInstrLayout>& dwarf, std::uint64_t text_start,
                                       std::uint64_t text_end, std::string& source) {
  if (dwarf) {
    source = "struct alt_instr from DWARF (" + std::to_string(dwarf->size) + " bytes)";
    return KernelAlternatives(table, table_address, *dwarf, text_start, text_end);
  }
  KernelAlternatives best;
  for (const AltInstrLayout& l : known_alt_instr_layouts()) {
    if (table.size() % l.size != 0) continue;
    KernelAlternatives candidate(table, table_address, l, text_start, text_end);
    if (candidate.size() > 0 && (best.size() == 0 || candidate.skipped() < best.skipped())) {
      best = std::move(candidate);
      source = "struct alt_instr of " + std::to_string(l.size) + " bytes (no DWARF type)";
    }
  }
  if (best.size() == 0) source = "none: no known struct alt_instr layout fits the table";
  return best;
}

std::vector<CodePatch> KernelAlternatives::holding(std::uint64_t address) const {
  std::vector<CodePatch> out;
  // Patches start at most longest_ bytes before the address.
  const std::uint64_t from = address >= longest_ ? address - longest_ : 0;
  auto it = std::lower_bound(patches_.begin(), patches_.end(), from,
                             [](const CodePatch& p, std::uint64_t a) { return p.address < a; });
  for (; it != patches_.end() && it->address <= address; ++it)
    if (address - it->address < it->length) out.push_back(*it);
  return out;
}

}  // namespace btaudit
