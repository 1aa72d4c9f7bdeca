// A crash dump opened with libkdumpfile: ELF vmcores (/proc/vmcore copies,
// QEMU dump-guest-memory) and kdump-compressed ones (makedumpfile, QEMU -z).
// Address translation is libkdumpfile's (libaddrxlat), never our own.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "memory/memory_source.h"

struct _kdump_ctx;

namespace btaudit {

class DumpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CpuRegisters {
  int cpu = 0;
  std::map<std::string, std::uint64_t> regs;  // "rip", "rsp", "rbp", ... as libkdumpfile names them
  std::optional<std::uint64_t> get(const std::string& name) const {
    auto it = regs.find(name);
    if (it == regs.end()) return std::nullopt;
    return it->second;
  }
};

class KdumpDump final : public MemorySource {
 public:
  // Throws DumpError naming the file when it cannot be opened as a dump.
  static std::unique_ptr<KdumpDump> open(const std::string& path);
  ~KdumpDump() override;
  KdumpDump(const KdumpDump&) = delete;
  KdumpDump& operator=(const KdumpDump&) = delete;

  std::size_t read(std::uint64_t kvaddr, std::span<std::uint8_t> out) override;
  std::string describe() const override { return path_; }

  const std::string& path() const { return path_; }
  std::string format() const;                                    // "elf", "diskdump", ...
  std::optional<std::string> vmcoreinfo(const std::string& key);  // a VMCOREINFO line's value
  std::optional<std::uint64_t> vmcoreinfo_number(const std::string& key, int base = 10);
  std::optional<std::uint64_t> vmcoreinfo_symbol(const std::string& name);
  int cpu_count() const;
  std::vector<CpuRegisters> cpu_registers() const;  // from the dump's PRSTATUS notes

 private:
  KdumpDump() = default;
  std::string path_;
  int fd_ = -1;
  _kdump_ctx* ctx_ = nullptr;
};

}  // namespace btaudit
