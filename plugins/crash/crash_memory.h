// Kernel memory and VMCOREINFO as crash reads them: the MemorySource and
// VmcoreInfo behind the crash extension, so that analyze_dump, the walker and
// the log reader run inside crash unchanged.
#pragma once
#include <string>

#include "memory/memory_source.h"
#include "vmcore/vmcoreinfo.h"

namespace btaudit {

class CrashMemory final : public MemorySource, public VmcoreInfo {
 public:
  explicit CrashMemory(std::string name) : name_(std::move(name)) {}
  // crash's readmem() is all or nothing; a failed read is retried page by
  // page so that a read crossing into a filtered page returns its first part.
  std::size_t read(std::uint64_t kvaddr, std::span<std::uint8_t> out) override;
  std::string describe() const override { return name_; }
  std::optional<std::string> vmcoreinfo(const std::string& key) override;

 private:
  std::string name_;
};

}  // namespace btaudit
