// A dump's symbols at runtime addresses, as the crashed kernel itself looked
// them up: vmlinux's from the kernel's own kallsyms tables read from the dump
// (else vmlinux's, moved by the KASLR offset), each loaded module's from its
// symtab in the dump (provider/module_kallsyms.h), and the code bytes the
// call-site checker decodes: the dump's own text where the dump holds it (the
// code as the CPU ran it, boot-time patching applied), else vmlinux's file.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
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

// Kernel code at runtime addresses, for the call-site checks of a dump's frames. The dump's
// memory holds the text as the CPU ran it: alternatives, retpolines, static calls and paravirt
// sites as the boot patched them for that CPU, which vmlinux's file cannot say (its
// .altinstructions only list what a CPU with or without a feature would get). A module's text
// comes from memory only (no .ko needed); vmlinux's from memory where the dump holds the page,
// else from the file, with the file's alternatives table moved by the KASLR offset. Init text
// always comes from the file: the kernel frees it after boot (poisoned with int3, then reused),
// and the return addresses left in it (start_kernel's, at the bottom of swapper's stack) are
// told by the code that ran before.
class DumpCodeSource final : public CodeSource {
 public:
  DumpCodeSource(MemorySource& memory, KernelDebugInfo& info, DumpSymbols& symbols)
      : memory_(memory), info_(info), symbols_(symbols) {}
  std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) override;
  std::optional<Symbol> symbol_at(std::uint64_t address) override;
  std::optional<Symbol> relocation_target(std::uint64_t) override { return std::nullopt; }  // relocated in memory
  // None where the code is read from memory (patched already); else the file's.
  std::vector<CodePatch> patches_holding(std::uint64_t address) override;
  // Memory's code is the code that ran: nothing there is rewritten later, so it is known.
  bool patches_known(std::uint64_t address) override;
  // Whether the code at `address` is read in the dump (a module's always; vmlinux's where the
  // dump holds its text page as it ran: asked once per page, so a dump made without kernel
  // text, or with holes, falls back to the file page by page).
  bool reads_dump(std::uint64_t address) { return symbols_.module_at(address) || memory_holds_text(address); }

 private:
  bool memory_holds_text(std::uint64_t address);
  bool in_init_text(std::uint64_t address);

  MemorySource& memory_;
  KernelDebugInfo& info_;
  DumpSymbols& symbols_;
  std::unordered_map<std::uint64_t, bool> text_pages_;                // page address -> memory holds it
  std::optional<std::pair<std::uint64_t, std::uint64_t>> init_text_;  // [_sinittext, _einittext) at runtime
  bool init_text_read_ = false;
};

}  // namespace btaudit
