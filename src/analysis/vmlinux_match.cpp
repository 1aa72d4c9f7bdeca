#include "analysis/vmlinux_match.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <span>

namespace btaudit {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

bool build_ids_differ(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return true;
  return !std::all_of(b.begin() + static_cast<std::ptrdiff_t>(a.size()), b.end(), [](char c) { return c == '0'; });
}

std::optional<std::string> vmlinux_mismatch(const DumpFacts& facts, KernelDebugInfo& info, MemorySource& memory) {
  const std::optional<std::string> file_id = info.build_id();
  if (!facts.build_id.empty() && file_id && !file_id->empty()) {
    if (build_ids_differ(facts.build_id, *file_id))
      return "the dump's kernel is build " + facts.build_id + " (VMCOREINFO BUILD-ID) but " + info.vmlinux_path() +
             " is build " + *file_id;
    return std::nullopt;  // the build id settles it
  }
  const auto symbol = info.function("linux_banner", "");
  if (!symbol) return std::nullopt;
  std::array<std::uint8_t, kMaxBannerBytes> in_dump{};
  const std::size_t from_dump = memory.read(symbol->address + static_cast<std::uint64_t>(facts.kaslr), in_dump);
  const auto file_banner = info.banner();
  const auto dump_banner = banner_in(std::span(in_dump).first(from_dump));
  if (!file_banner || !dump_banner || *file_banner == *dump_banner) return std::nullopt;
  return "the dump's kernel says \"" + *dump_banner + "\" but " + info.vmlinux_path() + " says \"" + *file_banner +
         "\" (linux_banner)";
}

}  // namespace btaudit
