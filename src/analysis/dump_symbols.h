// A dump's symbols at runtime addresses, as the crashed kernel itself looked
// them up: vmlinux's from the kernel's own kallsyms tables read from the dump
// (else vmlinux's, moved by the KASLR offset), each loaded module's from its
// symtab in the dump (provider/module_kallsyms.h), and the code bytes the
// call-site checker decodes (module text from the dump, vmlinux text from the
// file: it is what the debuginfo describes).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "debuginfo/kernel_debuginfo.h"
#include "memory/memory_source.h"
#include "provider/code_source.h"
#include "provider/kernel_kallsyms.h"
#include "provider/symbol_provider.h"
#include "vmcore/module_list.h"

namespace btaudit {

class DumpSymbols final : public SymbolProvider {
 public:
  DumpSymbols(MemorySource& memory, KernelDebugInfo& info, std::int64_t kaslr, std::vector<LoadedModule> modules);
  std::optional<Symbol> find(std::string_view name, std::string_view module = {}) override;
  std::optional<Symbol> kallsyms_at(std::uint64_t address) override;
  // Where vmlinux's names and sizes come from ("the dump's kallsyms tables", ...).
  const std::string& source() const { return source_; }
  std::int64_t kaslr() const { return kaslr_; }
  const LoadedModule* module_at(std::uint64_t address) const;
  const std::vector<LoadedModule>& modules() const { return modules_; }
  bool in_vmlinux_text(std::uint64_t address) const;

 private:
  KernelDebugInfo& info_;
  std::int64_t kaslr_;
  std::vector<LoadedModule> modules_;
  std::optional<KernelKallsyms> dump_kallsyms_;  // the kernel's own tables, read from the dump
  KallsymsTable vmlinux_kallsyms_;               // else vmlinux's, moved by the KASLR offset
  std::string source_;
};

// Kernel code at runtime addresses, for call-site checks of frames nothing on
// disk describes (a module without its .ko).
class DumpCodeSource final : public CodeSource {
 public:
  DumpCodeSource(MemorySource& memory, KernelDebugInfo& info, DumpSymbols& symbols)
      : memory_(memory), info_(info), symbols_(symbols) {}
  std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) override;
  std::optional<Symbol> symbol_at(std::uint64_t address) override;
  std::optional<Symbol> relocation_target(std::uint64_t) override { return std::nullopt; }  // relocated in memory
  // vmlinux's code comes from its file (read_code): the patches of its alternatives table, moved
  // by the KASLR offset. A module's code comes from memory, patched already.
  std::vector<CodePatch> patches_holding(std::uint64_t address) override;
  bool patches_known(std::uint64_t address) override;

 private:
  MemorySource& memory_;
  KernelDebugInfo& info_;
  DumpSymbols& symbols_;
};

}  // namespace btaudit
