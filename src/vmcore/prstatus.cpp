#include "vmcore/prstatus.h"

#include <cstring>
#include <iterator>

namespace btaudit {

namespace {

constexpr std::size_t kPrRegOffset = 112;  // offsetof(struct elf_prstatus, pr_reg) on x86-64
constexpr std::size_t kPrPidOffset = 32;
constexpr std::size_t kRegCount = std::size(kPrstatusRegNames);
constexpr std::uint32_t kNtPrstatus = 1;

template <typename T>
T get(std::span<const std::uint8_t> b, std::size_t off) {
  T v{};
  std::memcpy(&v, b.data() + off, sizeof(T));  // callers check the bounds
  return v;
}

}  // namespace

std::optional<PrstatusRegs> parse_prstatus_desc(std::span<const std::uint8_t> desc) {
  if (desc.size() < kPrRegOffset + kRegCount * 8) return std::nullopt;
  PrstatusRegs out;
  out.pid = get<std::int32_t>(desc, kPrPidOffset);
  for (std::size_t r = 0; r < kRegCount; ++r)
    out.regs[std::string(kPrstatusRegNames[r])] = get<std::uint64_t>(desc, kPrRegOffset + r * 8);
  return out;
}

std::optional<PrstatusRegs> parse_prstatus_note(std::span<const std::uint8_t> note) {
  if (note.size() < 12) return std::nullopt;
  const auto namesz = get<std::uint32_t>(note, 0);
  const auto descsz = get<std::uint32_t>(note, 4);
  const auto type = get<std::uint32_t>(note, 8);
  const std::uint64_t name_at = 12;
  const std::uint64_t desc_at = name_at + ((std::uint64_t{namesz} + 3) & ~std::uint64_t{3});
  if (type != kNtPrstatus || namesz < 4 || desc_at > note.size() || note.size() - desc_at < descsz) return std::nullopt;
  if (std::memcmp(note.data() + name_at, "CORE", 4) != 0) return std::nullopt;
  return parse_prstatus_desc(note.subspan(desc_at, descsz));
}

}  // namespace btaudit
