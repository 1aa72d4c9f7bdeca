// The VMCOREINFO lines a kernel exports for dump tools (OSRELEASE,
// KERNELOFFSET, SYMBOL(prb), OFFSET(printk_info.seq), ...), whoever reads
// them: libkdumpfile for btaudit vmcore, crash inside the crash extension.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace btaudit {

class VmcoreInfo {
 public:
  virtual ~VmcoreInfo() = default;
  // A line's value ("KEY=value"), or nothing when the dump has no such line.
  virtual std::optional<std::string> vmcoreinfo(const std::string& key) = 0;

  // SYMBOL(name)=hex address.
  virtual std::optional<std::uint64_t> vmcoreinfo_symbol(const std::string& name) {
    return vmcoreinfo_number("SYMBOL(" + name + ")", 16);
  }

  std::optional<std::uint64_t> vmcoreinfo_number(const std::string& key, int base = 10) {
    auto s = vmcoreinfo(key);
    if (!s || s->empty()) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s->c_str(), &end, base);
    if (errno != 0 || end == s->c_str()) return std::nullopt;
    return v;
  }
};

}  // namespace btaudit
