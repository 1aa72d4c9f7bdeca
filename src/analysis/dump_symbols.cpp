#include "analysis/dump_symbols.h"

#include <array>

#include "provider/kernel_kallsyms.h"

namespace btaudit {

DumpSymbols::DumpSymbols(MemorySource& memory, KernelDebugInfo& info, std::int64_t kaslr,
                         std::vector<LoadedModule> modules)
    : info_(info), kaslr_(kaslr), modules_(std::move(modules)) {
  const auto shift = static_cast<std::uint64_t>(kaslr);
  auto at = [&](const char* name) -> std::optional<std::uint64_t> {
    auto s = info.function(name, "");
    return s ? std::optional<std::uint64_t>(s->address + shift) : std::nullopt;
  };
  std::string problem = "vmlinux names no kallsyms_* tables";
  auto num = at("kallsyms_num_syms"), names = at("kallsyms_names"), table = at("kallsyms_token_table"),
       index = at("kallsyms_token_index");
  if (num && names && table && index) {
    const KernelKallsymsLayout layout{
        *num, *names, *table, *index, at("kallsyms_offsets"), at("kallsyms_relative_base"), at("kallsyms_addresses")};
    dump_kallsyms_ = KernelKallsyms::read(memory, layout, problem);
    if (dump_kallsyms_) {
      source_ = "the kernel's kallsyms tables in the dump";
      return;
    }
  }
  vmlinux_kallsyms_ = info.kallsyms();
  vmlinux_kallsyms_.relocate(kaslr);
  source_ = info.kallsyms_source() + " (" + problem + ")";
}

std::optional<Symbol> DumpSymbols::find(std::string_view name, std::string_view module) {
  if (module.empty()) {
    auto s = info_.function(name, "");
    if (s) s->address += static_cast<std::uint64_t>(kaslr_);
    return s;
  }
  for (const LoadedModule& mod : modules_) {
    if (mod.name != module) continue;
    for (const ModuleSymtabEntry& e : mod.kallsyms.symtab)
      if (e.shndx != 0 && e.name == name) return Symbol{e.name, e.value, 0, mod.name};
  }
  return std::nullopt;
}

const LoadedModule* DumpSymbols::module_at(std::uint64_t a) const {
  for (const LoadedModule& mod : modules_)
    if (mod.kallsyms.holds(a)) return &mod;
  return nullptr;
}

bool DumpSymbols::in_vmlinux_text(std::uint64_t a) const {
  return (dump_kallsyms_ ? dump_kallsyms_->covers(a) : vmlinux_kallsyms_.covers(a)) && !module_at(a);
}

std::optional<Symbol> DumpSymbols::kallsyms_at(std::uint64_t a) {
  if (const LoadedModule* mod = module_at(a)) return module_kallsyms_lookup(mod->kallsyms, a);
  return dump_kallsyms_ ? dump_kallsyms_->lookup(a) : vmlinux_kallsyms_.lookup(a);
}

namespace {
constexpr std::uint64_t kPageSize = 4096;
// Code reads are a function's bytes at most (the checker sweeps 64 KiB at most): bounded, so a
// hostile request cannot make the page probe loop long.
constexpr std::size_t kMaxCodeRead = 256 * 1024;
}  // namespace

bool DumpCodeSource::in_init_text(std::uint64_t a) {
  if (!init_text_read_) {
    init_text_read_ = true;
    const auto start = info_.function("_sinittext", ""), end = info_.function("_einittext", "");
    const auto shift = static_cast<std::uint64_t>(symbols_.kaslr());
    if (start && end && start->address < end->address)
      init_text_ = std::make_pair(start->address + shift, end->address + shift);
  }
  return init_text_ && a >= init_text_->first && a < init_text_->second;
}

bool DumpCodeSource::memory_holds_text(std::uint64_t a) {
  if (in_init_text(a)) return false;
  const std::uint64_t page = a & ~(kPageSize - 1);
  if (auto it = text_pages_.find(page); it != text_pages_.end()) return it->second;
  std::array<std::uint8_t, 1> probe{};
  const bool held = memory_.read(page, probe) == 1;
  text_pages_.emplace(page, held);
  return held;
}

std::size_t DumpCodeSource::read_code(std::uint64_t a, std::span<std::uint8_t> out) {
  if (symbols_.module_at(a)) return memory_.read(a, out);
  if (out.size() > kMaxCodeRead) out = out.first(kMaxCodeRead);
  // Every page of the range from memory, or the whole range from the file: one read never
  // mixes the two (a patched call could straddle them).
  bool from_memory = !out.empty();
  for (std::uint64_t p = a & ~(kPageSize - 1); from_memory && p < a + out.size(); p += kPageSize)
    from_memory = memory_holds_text(p);
  if (from_memory) {
    const std::size_t got = memory_.read(a, out);
    if (got == out.size()) return got;
  }
  return info_.read_code(a - static_cast<std::uint64_t>(symbols_.kaslr()), out);
}

std::vector<CodePatch> DumpCodeSource::patches_holding(std::uint64_t a) {
  if (symbols_.module_at(a) || memory_holds_text(a)) return {};
  const auto shift = static_cast<std::uint64_t>(symbols_.kaslr());
  std::vector<CodePatch> patches = info_.code_patches(a - shift);
  for (CodePatch& p : patches) {
    p.address += shift;
    p.replacement += shift;
  }
  return patches;
}

bool DumpCodeSource::patches_known(std::uint64_t a) {
  if (symbols_.module_at(a)) return true;  // the module's text as the kernel loaded and patched it
  if (memory_holds_text(a)) return true;
  return info_.code_patches_known(a - static_cast<std::uint64_t>(symbols_.kaslr()));
}

std::optional<Symbol> DumpCodeSource::symbol_at(std::uint64_t a) {
  if (symbols_.module_at(a)) return symbols_.kallsyms_at(a);
  auto s = info_.symbol_at(a - static_cast<std::uint64_t>(symbols_.kaslr()));
  if (s) s->address += static_cast<std::uint64_t>(symbols_.kaslr());
  return s;
}

}  // namespace btaudit
