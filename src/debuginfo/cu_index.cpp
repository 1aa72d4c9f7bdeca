#include "debuginfo/cu_index.h"

#include <elfutils/libdw.h>

namespace btaudit {

std::optional<CuIndex> CuIndex::from_aranges(Dwarf* dwarf) {
  Dwarf_Aranges* aranges = nullptr;
  std::size_t count = 0;
  if (!dwarf || dwarf_getaranges(dwarf, &aranges, &count) != 0) return std::nullopt;
  Builder index;
  for (std::size_t i = 0; i < count; ++i) {
    Dwarf_Addr start = 0;
    Dwarf_Word length = 0;
    Dwarf_Off cu_die = 0;
    if (dwarf_getarangeinfo(dwarf_onearange(aranges, i), &start, &length, &cu_die) != 0) return std::nullopt;
    index.add(start, length, cu_die);
  }
  return std::move(index).finish();
}

}  // namespace btaudit
