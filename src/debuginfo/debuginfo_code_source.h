// Serves code bytes and symbols to the analysis layer from vmlinux/module files.
#pragma once
#include "debuginfo/kernel_debuginfo.h"
#include "provider/code_source.h"

namespace btaudit {

class DebugInfoCodeSource final : public CodeSource {
 public:
  explicit DebugInfoCodeSource(KernelDebugInfo& info) : info_(info) {}
  std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) override {
    return info_.read_code(address, out);
  }
  std::optional<Symbol> symbol_at(std::uint64_t address) override { return info_.symbol_at(address); }
  std::optional<Symbol> relocation_target(std::uint64_t address) override { return info_.relocation_target(address); }
  std::vector<CodePatch> patches_holding(std::uint64_t address) override { return info_.code_patches(address); }
  bool patches_known(std::uint64_t address) override { return info_.code_patches_known(address); }

 private:
  KernelDebugInfo& info_;
};

}  // namespace btaudit
