#include "vmcore/vmcoreinfo_scan.h"

#include <algorithm>
#include <cstring>

namespace btaudit {

namespace {

constexpr std::string_view kFirstKey = "OSRELEASE=";
// VMCOREINFO_BYTES is PAGE_SIZE (include/linux/vmcore_info.h, crash_core.h before 6.9): 4096 on
// x86_64; nothing longer is a kernel's text.
constexpr std::size_t kMaxText = 4096;
// A release is at most __NEW_UTS_LEN (64) bytes.
constexpr std::size_t kMaxRelease = 64;

bool printable(char c) { return c >= 0x20 && c < 0x7f; }

}  // namespace

std::string_view vmcoreinfo_value(std::string_view text, std::string_view key) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == '=')
      return line.substr(key.size() + 1);
    at = end + 1;
  }
  return {};
}

bool plausible_vmcoreinfo(std::string_view text) {
  if (!text.starts_with(kFirstKey) || text.size() > kMaxText) return false;
  bool page_size = false;
  bool symbol = false;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    const std::size_t eq = line.find('=');
    if (eq == 0 || eq == std::string_view::npos) return false;
    if (!std::all_of(line.begin(), line.end(), printable)) return false;
    page_size = page_size || line.starts_with("PAGESIZE=");
    symbol = symbol || line.starts_with("SYMBOL(");
  }
  const std::string_view release = vmcoreinfo_value(text, "OSRELEASE");
  return page_size && symbol && !release.empty() && release.size() <= kMaxRelease;
}

void find_vmcoreinfo_texts(std::span<const std::uint8_t> bytes, std::uint64_t phys,
                           std::vector<VmcoreinfoCandidate>& out, std::size_t cap) {
  const auto* base = reinterpret_cast<const char*>(bytes.data());
  const std::string_view all(base, bytes.size());
  for (std::size_t at = all.find(kFirstKey); at != std::string_view::npos && out.size() < cap;
       at = all.find(kFirstKey, at + 1)) {
    const std::size_t limit = std::min(all.size(), at + kMaxText + 1);
    const void* nul = std::memchr(base + at, '\0', limit - at);
    if (nul == nullptr) continue;  // runs past the buffer (or past a page): read whole elsewhere, or none
    const std::string_view text = all.substr(at, static_cast<std::size_t>(static_cast<const char*>(nul) - (base + at)));
    if (!plausible_vmcoreinfo(text)) continue;
    const bool seen = std::any_of(out.begin(), out.end(), [&](const VmcoreinfoCandidate& c) { return c.text == text; });
    if (!seen) out.push_back(VmcoreinfoCandidate{phys + at, std::string(text)});
  }
}

}  // namespace btaudit
