#include "analysis/dump_symbols.h"

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

std::size_t DumpCodeSource::read_code(std::uint64_t a, std::span<std::uint8_t> out) {
  if (symbols_.module_at(a)) return memory_.read(a, out);
  return info_.read_code(a - static_cast<std::uint64_t>(symbols_.kaslr()), out);
}

std::vector<CodePatch> DumpCodeSource::patches_holding(std::uint64_t a) {
  if (symbols_.module_at(a)) return {};
  const auto shift = static_cast<std::uint64_t>(symbols_.kaslr());
  std::vector<CodePatch> patches = info_.code_patches(a - shift);
  for (CodePatch& p : patches) {
    p.address += shift;
    p.replacement += shift;
  }
  return patches;
}

bool DumpCodeSource::patches_known(std::uint64_t a) {
  if (symbols_.module_at(a)) return false;
  const std::uint64_t link = a - static_cast<std::uint64_t>(symbols_.kaslr());
  return info_.holds_kernel_address(link) && info_.alternatives().size() > 0;
}

std::optional<Symbol> DumpCodeSource::symbol_at(std::uint64_t a) {
  if (symbols_.module_at(a)) return symbols_.kallsyms_at(a);
  auto s = info_.symbol_at(a - static_cast<std::uint64_t>(symbols_.kaslr()));
  if (s) s->address += static_cast<std::uint64_t>(symbols_.kaslr());
  return s;
}

}  // namespace btaudit
