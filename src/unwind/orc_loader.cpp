#include "unwind/orc_loader.h"

namespace btaudit {

int orc_version_of(TypeProvider& types) {
  const bool has_signal = types.member("orc_entry", "signal").has_value();
  const bool has_end = types.member("orc_entry", "end").has_value();
  if (has_signal && !has_end) return 3;
  if (has_signal) return 2;
  return 1;
}

LoadedOrc load_orc(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, std::int64_t kaslr,
                   const std::vector<LoadedModule>& modules, std::vector<std::string>& problems) {
  LoadedOrc out;
  out.version = orc_version_of(types);
  auto at = [&](const char* name) -> std::optional<std::uint64_t> {
    auto s = symbols.find(name);
    if (!s) return std::nullopt;
    return s->address + static_cast<std::uint64_t>(kaslr);
  };
  auto ip_start = at("__start_orc_unwind_ip");
  auto ip_stop = at("__stop_orc_unwind_ip");
  auto orc_start = at("__start_orc_unwind");
  out.frame_pointer_kernel = !(ip_start && ip_stop && orc_start && *ip_stop > *ip_start);
  if (!out.frame_pointer_kernel) {
    if (!out.table.add(m, *ip_start, *orc_start, (*ip_stop - *ip_start) / 4, out.version))
      problems.push_back("vmlinux's ORC tables are not in the dump: frame-pointer fallback only");
  } else {
    problems.push_back("no ORC symbols in vmlinux: walked with frame pointers, as CONFIG_UNWINDER_FRAME_POINTER");
  }
  for (const LoadedModule& mod : modules)
    if (mod.num_orcs && mod.orc_ip && mod.orc_entries)
      if (!out.table.add(m, mod.orc_ip, mod.orc_entries, mod.num_orcs, out.version, mod.text_begin, mod.text_end))
        problems.push_back("module " + mod.name + ": ORC tables not in the dump");
  return out;
}

}  // namespace btaudit
