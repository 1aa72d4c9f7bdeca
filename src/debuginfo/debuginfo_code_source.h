// Serves code bytes and symbols to the analysis layer from vmlinux/module files.
#pragma once
#include "analysis/code_source.h"
#include "debuginfo/kernel_debuginfo.h"

namespace btaudit {

class DebugInfoCodeSource final : public CodeSource {
 public:
  explicit DebugInfoCodeSource(KernelDebugInfo& info) : info_(info) {}
  std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) override {
    return info_.read_code(address, out);
  }
  std::optional<CodeSymbol> symbol_at(std::uint64_t address) override { return convert(info_.symbol_at(address)); }
  std::optional<CodeSymbol> relocation_target(std::uint64_t address) override {
    return convert(info_.relocation_target(address));
  }

 private:
  static std::optional<CodeSymbol> convert(const std::optional<DebugSymbol>& s) {
    if (!s) return std::nullopt;
    return CodeSymbol{s->name, s->address, s->size};
  }
  KernelDebugInfo& info_;
};

}  // namespace btaudit
