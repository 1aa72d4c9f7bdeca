#include "crash_memory.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "crash_bridge.h"

namespace btaudit {

namespace {

constexpr std::uint64_t kPage = 4096;

}  // namespace

std::size_t CrashMemory::read(std::uint64_t kvaddr, std::span<std::uint8_t> out) {
  if (out.empty()) return 0;
  if (btaudit_crash_readmem(kvaddr, out.data(), out.size()) == out.size()) return out.size();
  std::size_t done = 0;
  // One readmem per page: bounded by out.size() / kPage + 1 iterations.
  while (done < out.size()) {
    const std::uint64_t addr = kvaddr + done;
    const std::size_t chunk = std::min<std::uint64_t>(out.size() - done, kPage - addr % kPage);
    if (btaudit_crash_readmem(addr, out.data() + done, chunk) != chunk) break;
    done += chunk;
  }
  return done;
}

std::optional<std::string> CrashMemory::vmcoreinfo(const std::string& key) {
  std::unique_ptr<char, decltype(&std::free)> value(btaudit_crash_vmcoreinfo(key.c_str()), &std::free);
  if (!value) return std::nullopt;
  return std::string(value.get());
}

}  // namespace btaudit
