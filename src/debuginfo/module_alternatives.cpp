#include "debuginfo/module_alternatives.h"

#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxModuleTableBytes = std::uint64_t{16} << 20;
// The relocations an alt_instr's offsets carry (arch/x86/include/asm/alternative.h: ".long 661b - .").
constexpr std::uint32_t kRelPc32 = 2;   // R_X86_64_PC32
constexpr std::uint32_t kRelPlt32 = 4;  // R_X86_64_PLT32 (newer binutils for the same)

Elf_Scn* section_named(Elf* elf, std::string_view name, GElf_Shdr& sh) {
  std::size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return nullptr;
  for (Elf_Scn* s = elf_nextscn(elf, nullptr); s; s = elf_nextscn(elf, s)) {
    if (!gelf_getshdr(s, &sh)) continue;
    const char* n = elf_strptr(elf, names, sh.sh_name);
    if (n && name == n) return s;
  }
  return nullptr;
}

// Applies the PC-relative relocations of the section with index `index` to `table` (its bytes,
// placed at `table_address`); false when one cannot be applied.
bool relocate(Elf* elf, GElf_Addr bias, std::size_t index, std::uint64_t table_address,
              std::vector<std::uint8_t>& table, std::string& why) {
  for (Elf_Scn* s = elf_nextscn(elf, nullptr); s; s = elf_nextscn(elf, s)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != index || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(s, nullptr);
    Elf_Scn* symscn = elf_getscn(elf, sh.sh_link);
    Elf_Data* symdata = symscn ? elf_getdata(symscn, nullptr) : nullptr;
    if (!data || !symdata) {
      why = "its relocations or symbols are unreadable";
      return false;
    }
    const std::size_t count = sh.sh_size / sh.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Rela rela;
      GElf_Sym sym;
      if (!gelf_getrela(data, static_cast<int>(i), &rela) ||
          !gelf_getsym(symdata, static_cast<int>(GELF_R_SYM(rela.r_info)), &sym)) {
        why = "relocation " + std::to_string(i) + " is unreadable";
        return false;
      }
      const auto type = static_cast<std::uint32_t>(GELF_R_TYPE(rela.r_info));
      if ((type != kRelPc32 && type != kRelPlt32) || rela.r_offset > table.size() || table.size() - rela.r_offset < 4) {
        why = "relocation " + std::to_string(i) + " is not a 32-bit PC-relative one inside the table";
        return false;
      }
      // S: the symbol's address as libdwfl placed its section (section symbols: the section itself).
      GElf_Shdr target;
      Elf_Scn* tscn =
          sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE ? elf_getscn(elf, sym.st_shndx) : nullptr;
      if (!tscn || !gelf_getshdr(tscn, &target)) continue;  // undefined: the entry stays 0, outside the module
      const std::uint64_t s_value = target.sh_addr + bias + sym.st_value;
      const std::int64_t value = static_cast<std::int64_t>(s_value + static_cast<std::uint64_t>(rela.r_addend) -
                                                           (table_address + rela.r_offset));
      if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
        continue;
      const auto v32 = static_cast<std::int32_t>(value);
      std::memcpy(table.data() + rela.r_offset, &v32, sizeof v32);  // little-endian host, as the .ko
    }
  }
  return true;
}

}  // namespace

ModuleAlternatives read_module_alternatives(Elf* elf, GElf_Addr bias, const std::optional<AltInstrLayout>& layout,
                                            std::uint64_t low, std::uint64_t high) {
  ModuleAlternatives out;
  GElf_Shdr sh;
  Elf_Scn* scn = section_named(elf, ".altinstructions", sh);
  if (!scn) {
    out.known = true;
    out.source = "none: the module has no .altinstructions";
    return out;
  }
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (sh.sh_size > kMaxModuleTableBytes || !data || !data->d_buf || data->d_size != sh.sh_size) {
    out.source = "none: .altinstructions is unreadable or over 16 MiB";
    return out;
  }
  const auto* bytes = static_cast<const std::uint8_t*>(data->d_buf);
  std::vector<std::uint8_t> table(bytes, bytes + data->d_size);
  const std::uint64_t table_address = sh.sh_addr + bias;
  std::string why;
  if (!relocate(elf, bias, elf_ndxscn(scn), table_address, table, why)) {
    out.source = "none: .rela.altinstructions: " + why;
    return out;
  }
  out.table = decode_alternatives(table, table_address, layout, low, high, out.source);
  out.known = out.table.size() > 0 || table.empty();
  return out;
}

}  // namespace btaudit
