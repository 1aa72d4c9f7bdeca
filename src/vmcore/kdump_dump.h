// A crash dump opened with libkdumpfile: ELF vmcores (/proc/vmcore copies,
// QEMU dump-guest-memory) and kdump-compressed ones (makedumpfile, QEMU -z),
// also in makedumpfile's flattened format (reassembled first: flattened_dump.h).
// Address translation is libkdumpfile's (libaddrxlat), never our own.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "vmcore/cpu_registers.h"
#include "vmcore/dump_error.h"
#include "vmcore/dump_facts.h"
#include "vmcore/vmcoreinfo.h"

struct _kdump_ctx;

namespace btaudit {

class KdumpDump final : public MemorySource, public VmcoreInfo {
 public:
  // Throws DumpError naming the file when it cannot be opened as a dump.
  static std::unique_ptr<KdumpDump> open(const std::string& path);
  ~KdumpDump() override;
  KdumpDump(const KdumpDump&) = delete;
  KdumpDump& operator=(const KdumpDump&) = delete;

  std::size_t read(std::uint64_t kvaddr, std::span<std::uint8_t> out) override;
  std::string describe() const override { return path_; }

  const std::string& path() const { return path_; }
  std::string format() const;                                              // "elf", "diskdump", ...
  std::optional<std::string> vmcoreinfo(const std::string& key) override;  // a VMCOREINFO line's value
  std::optional<std::uint64_t> vmcoreinfo_symbol(const std::string& name) override;
  int cpu_count() const;
  std::vector<CpuRegisters> cpu_registers() const;  // from the dump's PRSTATUS notes
  // Path, format, VMCOREINFO release and KASLR offset, and the registers: what analyze_dump needs besides memory.
  DumpFacts facts();
  // What the caller should tell the user about how the file was read (a flattened dump reassembled).
  const std::vector<std::string>& notes() const { return notes_; }
  // Where VMCOREINFO came from when the file carries none: "the kernel's copy in memory at 0x..."
  // (recover_vmcoreinfo), "" when the file holds it or no copy was found.
  const std::string& vmcoreinfo_from_memory() const { return vmcoreinfo_from_memory_; }

 private:
  KdumpDump() = default;
  void replace_with_reassembled();
  void recover_vmcoreinfo();
  bool names_its_kernel(const std::string& text);
  bool hand_over_vmcoreinfo(const std::string& text);
  void scan_physical_memory(const std::function<bool(std::span<const std::uint8_t>, std::uint64_t)>& visit);
  template <typename F>
  void in_library(const char* what, F&& call) const;
  std::string path_;
  std::string data_path_;  // where the dump's bytes are when not at path_ (a reassembled copy)
  std::vector<std::string> notes_;
  std::string vmcoreinfo_from_memory_;
  int fd_ = -1;
  _kdump_ctx* ctx_ = nullptr;
  mutable bool faulted_ = false;  // libkdumpfile faulted: ctx_ must not be used again
};

}  // namespace btaudit
