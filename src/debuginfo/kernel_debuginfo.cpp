#include "debuginfo/kernel_debuginfo.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>

#include "debuginfo/build_id_source.h"
#include "debuginfo/kernel_build_id.h"
#include "debuginfo/kernel_types.h"
#include "provider/debuginfo_error.h"
#include "provider/kernel_kallsyms.h"

namespace btaudit {

namespace fs = std::filesystem;

// The callbacks struct must outlive the Dwfl that points at it; it lives in
// the KernelDebugInfo, never in a global.
struct DwflCallbacksHolder {
  std::string debuginfo_path;
  char* debuginfo_path_ptr = nullptr;
  Dwfl_Callbacks callbacks{};
};

void KernelDebugInfo::DwflDeleter::operator()(Dwfl* d) const { dwfl_end(d); }

// The symbols of one module, built once from the ELF symbol table: sorted by
// name and, within a name, in symbol-table order (the order the profile keeps).
struct KernelDebugInfo::SymbolTable {
  std::vector<SymbolView> by_name;
};

KernelDebugInfo::FileHandle::~FileHandle() {
  if (fd >= 0) ::close(fd);
}

namespace {

std::string normalize_module_name(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// "foo.ko", "foo.ko.xz", "foo.ko.zst", "foo.ko.gz", "foo.ko.debug" -> "foo"
std::optional<std::string> module_stem(const std::string& filename) {
  const std::size_t ko = filename.find(".ko");
  if (ko == std::string::npos || ko == 0) return std::nullopt;
  const std::string rest = filename.substr(ko);
  if (rest != ".ko" && rest != ".ko.xz" && rest != ".ko.zst" && rest != ".ko.gz" && rest != ".ko.debug")
    return std::nullopt;
  return normalize_module_name(filename.substr(0, ko));
}

std::string hex_bytes(const unsigned char* p, int n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < n; ++i) {
    s.push_back(kHex[p[i] >> 4]);
    s.push_back(kHex[p[i] & 15]);
  }
  return s;
}

// Calls f(name, sym, address, section index, elf) for every named symbol of a module.
template <typename F>
void for_each_symbol(Dwfl_Module* mod, F&& f) {
  const int n = dwfl_module_getsymtab(mod);
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    GElf_Word shndx = 0;
    Elf* elf = nullptr;
    Dwarf_Addr bias = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
    if (name && *name) f(name, sym, addr, shndx, elf);
  }
}

const char* die_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  return name ? name : "??";
}

}  // namespace

std::unique_ptr<KernelDebugInfo> KernelDebugInfo::open(const std::string& vmlinux, const DebugInfoOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(vmlinux, ec)) throw DebugInfoError(vmlinux + ": no such vmlinux file");
  std::unique_ptr<KernelDebugInfo> info(new KernelDebugInfo());
  info->options_ = options;
  info->vmlinux_path_ = vmlinux;
  info->vmlinux_size_ = fs::file_size(vmlinux, ec);
  if (options.cache.enabled) info->open_profile();
  // Without a warm profile libdwfl opens now, so that an unusable file is named at once.
  if (!info->warm()) info->ensure_dwfl();
  if (options.shared_answers)
    info->shared_ =
        options.shared_answers->for_image(info->build_id_ ? "build-id " + *info->build_id_ : "path " + vmlinux);
  return info;
}

KernelAnswers& KernelDebugInfo::kernel_answers() {
  if (shared_) return *shared_;
  if (!own_answers_) own_answers_ = std::make_unique<KernelAnswers>();
  return *own_answers_;
}

void KernelDebugInfo::open_profile() {
  const auto facts = elf_file_facts(vmlinux_path_);
  std::string dir = options_.cache.dir.empty() ? default_profile_dir() : options_.cache.dir;
  if (!facts || !facts->build_id || dir.empty()) return;  // no key (or nowhere to keep it): no profile
  build_id_ = facts->build_id;
  options_.cache.dir = dir;
  const std::string path = profile_path(dir, *build_id_, vmlinux_size_);
  std::string problem;
  auto loaded = load_profile_file(path, *build_id_, vmlinux_size_, problem);
  if (loaded && !loaded->complete()) problem = "incomplete tables";
  if (loaded && problem.empty()) {
    vmlinux_file_.fd = ::open(vmlinux_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (vmlinux_file_.fd >= 0) {
      profile_ = std::move(loaded);
      profile_warm_ = true;
      kernel_start_ = profile_->kernel_start;
      kernel_end_ = profile_->kernel_end;
      profile_state_ = "warm " + path;
      return;
    }
    problem = vmlinux_path_ + " cannot be opened";
  }
  profile_ = std::make_unique<KernelProfile>();
  profile_->build_id = *build_id_;
  profile_->vmlinux_size = vmlinux_size_;
  profile_dirty_ = true;
  profile_state_ = problem.empty() ? "cold " + path : "rebuilt " + path + ": " + problem;
}

void KernelDebugInfo::ensure_dwfl() {
  if (dwfl_) return;
  const std::string& vmlinux = vmlinux_path_;
  callbacks_ = std::make_unique<DwflCallbacksHolder>();
  auto& cb = *callbacks_;
  cb.debuginfo_path = "-:.debug:" + options_.debug_dir;
  cb.debuginfo_path_ptr = cb.debuginfo_path.data();
  cb.callbacks.find_elf = dwfl_build_id_find_elf;
  cb.callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  cb.callbacks.section_address = dwfl_offline_section_address;
  cb.callbacks.debuginfo_path = &cb.debuginfo_path_ptr;
  dwfl_.reset(dwfl_begin(&cb.callbacks));
  if (!dwfl_) throw DebugInfoError(vmlinux + ": cannot start libdwfl: " + dwfl_errmsg(-1));
  dwfl_report_begin(dwfl_.get());
  kernel_ = dwfl_report_offline(dwfl_.get(), "kernel", vmlinux.c_str(), -1);
  if (!kernel_) throw DebugInfoError(vmlinux + ": not a usable ELF file: " + dwfl_errmsg(-1));
  dwfl_report_end(dwfl_.get(), nullptr, nullptr);
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(kernel_, &bias);
  GElf_Ehdr ehdr;
  if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64)
    throw DebugInfoError(vmlinux + ": not an x86-64 kernel image");
  if (dwfl_module_getsymtab(kernel_) <= 0) throw DebugInfoError(vmlinux + ": has no symbol table");
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int n = dwfl_module_build_id(kernel_, &bits, &vaddr);
  if (n > 0) build_id_ = hex_bytes(bits, n);
  Dwarf_Addr start = 0;
  Dwarf_Addr end = 0;
  dwfl_module_info(kernel_, nullptr, &start, &end, nullptr, nullptr, nullptr, nullptr);
  kernel_start_ = start;
  kernel_end_ = end;
}

std::string KernelDebugInfo::save_profile() {
  if (!profile_) return {};
  if (!warm()) {
    // A cold session fills the tables every later session reads. Without DWARF there is
    // no profile: its answers would depend on where DWARF was looked for, not on the file.
    ensure_dwfl();
    if (!kernel_dwarf()) return {};
    KernelProfile& p = *profile_;
    p.kernel_start = kernel_start_;
    p.kernel_end = kernel_end_;
    kernel_symbols_by_name();  // built: the swaps below lend both tables to the profile without a copy
    // kallsyms only when this session decoded it (see KernelProfile::kallsyms).
    p.kallsyms_source = kallsyms_ ? kallsyms_source_ : std::string();
    p.sections.clear();
    GElf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(kernel_, &bias);
    for (Elf_Scn* scn = elf ? elf_nextscn(elf, nullptr) : nullptr; scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC)) continue;
      const bool bytes = sh.sh_type != SHT_NOBITS && !(sh.sh_flags & SHF_COMPRESSED);
      p.sections.push_back({sh.sh_addr + bias, sh.sh_size, bytes ? sh.sh_offset : ProfileSection::kNoBytes});
    }
  }
  if (!profile_dirty_) return {};
  std::vector<SymbolView>* table = warm() ? nullptr : &symbols_of(kernel_).by_name;
  if (table) {
    std::swap(*table, profile_->symbols_by_name);
    std::swap(kallsyms_, profile_->kallsyms);
  }
  std::string problem = save_profile_file(*profile_, options_.cache.dir, options_.cache.max_bytes);
  if (table) {
    std::swap(*table, profile_->symbols_by_name);
    std::swap(kallsyms_, profile_->kallsyms);
  }
  if (problem.empty()) profile_dirty_ = false;
  return problem;
}

KernelDebugInfo::~KernelDebugInfo() = default;

std::optional<std::string> KernelDebugInfo::find_module_file(std::string_view module) const {
  const std::string want = normalize_module_name(module);
  for (const auto& [name, file] : options_.module_files) {
    std::error_code ec;
    if (normalize_module_name(name) == want && fs::is_regular_file(file, ec)) return file;
  }
  std::optional<std::string> best;
  auto consider = [&](const fs::path& p) {
    const auto stem = module_stem(p.filename().string());
    if (!stem || *stem != want) return false;
    // Prefer a file with DWARF (.ko.debug or an unstripped .ko) over a compressed release .ko.
    const std::string name = p.filename().string();
    if (!best || name.ends_with(".debug")) best = p.string();
    return name.ends_with(".debug");
  };
  for (const std::string& root : options_.module_paths) {
    std::error_code ec;
    if (fs::is_regular_file(root, ec)) {
      if (consider(root)) return best;
      continue;
    }
    if (!fs::is_directory(root, ec)) continue;
    std::size_t budget = 500000;  // a hostile or huge tree cannot make this walk forever
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
         it != end && budget > 0; it.increment(ec), --budget) {
      if (ec) break;
      if (it->is_regular_file(ec) && consider(it->path())) return best;
    }
  }
  return best;
}

bool KernelDebugInfo::load_module(std::string_view module) {
  if (module.empty()) return true;
  if (modules_.count(module)) return true;
  if (auto tried = module_tried_.find(module); tried != module_tried_.end()) return tried->second;
  module_tried_[std::string(module)] = false;
  auto file = find_module_file(module);
  if (options_.server) file = fetch_module(module, file);
  if (!file) {
    warnings_.push_back("no debuginfo for module " + std::string(module) + " (give --modules DIR)");
    return false;
  }
  ensure_dwfl();  // only now: a module without a file needs no libdwfl session
  dwfl_report_begin_add(dwfl_.get());
  Dwfl_Module* mod = dwfl_report_offline(dwfl_.get(), std::string(module).c_str(), file->c_str(), -1);
  dwfl_report_end(dwfl_.get(), nullptr, nullptr);
  if (!mod) {
    warnings_.push_back(*file + ": cannot load module debuginfo: " + dwfl_errmsg(-1));
    return false;
  }
  modules_[std::string(module)] = mod;
  module_tried_[std::string(module)] = true;
  symbol_cache_.clear();  // addresses that held no module may now hold this one
  source_cache_.clear();
  return true;
}

void KernelDebugInfo::note_module_build_id(std::string_view module, std::string_view build_id) {
  module_build_ids_.try_emplace(normalize_module_name(module), build_id);
}

// A local file with DWARF wins; otherwise the module's build id (printed in the
// trace, or read from the stripped file found here) asks the server.
std::optional<std::string> KernelDebugInfo::fetch_module(std::string_view module,
                                                         const std::optional<std::string>& local) {
  std::optional<std::string> build_id;
  if (const auto it = module_build_ids_.find(normalize_module_name(module)); it != module_build_ids_.end())
    build_id = it->second;
  if (local) {
    const auto facts = elf_file_facts(*local);
    if (!facts || facts->has_dwarf) return local;  // compressed or with DWARF: libdwfl reads it as it is
    if (!build_id) build_id = facts->build_id;
  }
  if (!build_id) return local;
  try {
    return options_.server->debuginfo(*build_id, "module " + std::string(module));
  } catch (const DebugInfoError& e) {
    warnings_.push_back(e.what());
    return local;
  }
}

Dwfl_Module* KernelDebugInfo::module_for(std::string_view module) const {
  if (module.empty()) return kernel_;
  const auto it = modules_.find(module);
  return it == modules_.end() ? nullptr : it->second;
}

Dwfl_Module* KernelDebugInfo::module_at(std::uint64_t address) const { return dwfl_addrmodule(dwfl_.get(), address); }

KernelDebugInfo::SymbolTable& KernelDebugInfo::symbols_of(Dwfl_Module* mod) {
  auto& slot = tables_[mod];
  if (slot) return *slot;
  slot = std::make_unique<SymbolTable>();
  const int n = dwfl_module_getsymtab(mod);
  slot->by_name.reserve(n > 0 ? static_cast<std::size_t>(n) : 0);
  for_each_symbol(mod, [&](const char* name, const GElf_Sym& sym, GElf_Addr addr, GElf_Word, Elf*) {
    const int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT) return;
    if (sym.st_shndx == SHN_UNDEF) return;
    slot->by_name.push_back(SymbolView{name, addr, sym.st_size});
  });
  std::stable_sort(slot->by_name.begin(), slot->by_name.end(),
                   [](const SymbolView& a, const SymbolView& b) { return a.name < b.name; });
  return *slot;
}

const std::vector<SymbolView>& KernelDebugInfo::kernel_symbols_by_name() {
  ensure_dwfl();
  return symbols_of(kernel_).by_name;
}

std::optional<Symbol> KernelDebugInfo::function(std::string_view name, std::string_view module,
                                                std::optional<std::uint64_t> size_hint) {
  if (module.empty()) {
    auto it = function_cache_.find(name);
    if (it != function_cache_.end()) {
      for (const auto& [hint, answer] : it->second)
        if (hint == size_hint) return answer;
    } else {
      if (function_cache_.size() >= kMaxCachedSymbols) function_cache_.clear();
      it = function_cache_.emplace(std::string(name), HintAnswers{}).first;
    }
    std::optional<Symbol> s = find_function(name, size_hint, module);
    // A name is printed with one size, or a few for statics; a log that prints it with
    // thousands (a hostile one) is answered without being remembered past the first few.
    if (it->second.size() < kMaxHintsPerName) it->second.emplace_back(size_hint, s);
    return s;
  }
  if (!load_module(module)) return std::nullopt;
  return find_function(name, size_hint, module);
}

std::optional<Symbol> KernelDebugInfo::find_function(std::string_view name, std::optional<std::uint64_t> size_hint,
                                                     std::string_view module) {
  // The symbols of this name, in symbol-table order.
  std::vector<Symbol> named;
  if (module.empty() && warm()) {
    named = profile_->symbols_named(name);
  } else {
    const std::vector<SymbolView>* table = nullptr;
    if (module.empty()) {
      table = &kernel_symbols_by_name();
    } else {
      Dwfl_Module* mod = module_for(module);
      if (!mod) return std::nullopt;
      table = &symbols_of(mod).by_name;
    }
    struct ByName {
      bool operator()(const SymbolView& a, std::string_view b) const { return a.name < b; }
      bool operator()(std::string_view a, const SymbolView& b) const { return a < b.name; }
    };
    const auto [first, last] = std::equal_range(table->begin(), table->end(), name, ByName{});
    for (auto it = first; it != last; ++it)
      named.push_back(Symbol{std::string(it->name), it->address, it->size, std::string(module)});
  }
  std::optional<Symbol> best;
  if (size_hint && module.empty()) {
    // vmlinux: the static whose kallsyms size is the printed one, exactly.
    for (const Symbol& s : named)
      if (auto k = kallsyms_at(s.address); k && k->address == s.address && k->size == *size_hint) return s;
  }
  for (const Symbol& s : named) {
    // kallsyms prints the distance to the next symbol, which includes alignment padding.
    if (size_hint && s.size <= *size_hint && *size_hint - s.size < 64) return s;
    // Prefer sized (function) symbols over zero-size aliases.
    if (!best || (best->size == 0 && s.size != 0)) best = s;
  }
  return best;
}

std::optional<Symbol> KernelDebugInfo::symbol_at(std::uint64_t address) {
  if (profile_ && in_vmlinux(address)) {
    auto& answers = profile_->symbol_answers;
    if (auto it = answers.find(address); it != answers.end()) return it->second;
    std::optional<Symbol> s;
    if (auto known = shared_answer(address) ? shared_->symbol(address) : std::nullopt) {
      s = *known;
    } else {
      s = lookup_symbol(address);
      if (shared_answer(address)) shared_->put_symbol(address, s);
    }
    if (answers.size() < kMaxCachedSymbols) {
      answers.emplace(address, s);
      profile_dirty_ = true;
    }
    return s;
  }
  if (warm() && modules_.empty()) return std::nullopt;  // outside vmlinux nothing is loaded
  if (shared_answer(address)) {
    if (auto known = shared_->symbol(address)) return *known;
    std::optional<Symbol> s = lookup_symbol(address);
    shared_->put_symbol(address, s);
    return s;
  }
  if (auto it = symbol_cache_.find(address); it != symbol_cache_.end()) return it->second;
  if (symbol_cache_.size() >= kMaxCachedSymbols) symbol_cache_.clear();
  return symbol_cache_.emplace(address, lookup_symbol(address)).first->second;
}

std::optional<Symbol> KernelDebugInfo::lookup_symbol(std::uint64_t address) {
  ensure_dwfl();
  Dwfl_Module* mod = module_at(address);
  if (!mod) return std::nullopt;
  GElf_Off offset = 0;
  GElf_Sym sym;
  GElf_Word shndx = 0;
  Elf* elf = nullptr;
  Dwarf_Addr bias = 0;
  const char* name = dwfl_module_addrinfo(mod, address, &offset, &sym, &shndx, &elf, &bias);
  if (!name) return std::nullopt;
  const char* modname = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  Symbol s;
  s.name = name;
  s.address = address - offset;
  s.size = sym.st_size;
  s.module = mod == kernel_ || !modname ? std::string() : std::string(modname);
  return s;
}

namespace {

// vmlinux's file as memory at its link addresses, for the kallsyms decoder.
class VmlinuxFileMemory final : public MemorySource {
 public:
  explicit VmlinuxFileMemory(KernelDebugInfo& info) : info_(info) {}
  std::size_t read(std::uint64_t kvaddr, std::span<std::uint8_t> out) override { return info_.read_code(kvaddr, out); }
  std::string describe() const override { return info_.vmlinux_path(); }

 private:
  KernelDebugInfo& info_;
};

ElfSymbolFacts facts_of(const char* name, const GElf_Sym& sym, GElf_Addr addr, GElf_Word shndx, Elf* elf) {
  ElfSymbolFacts f;
  f.name = name;
  f.address = addr;
  switch (GELF_ST_BIND(sym.st_info)) {
    case STB_LOCAL: f.binding = ElfSymbolFacts::Binding::Local; break;
    case STB_WEAK: f.binding = ElfSymbolFacts::Binding::Weak; break;
    case STB_GNU_UNIQUE: f.binding = ElfSymbolFacts::Binding::Unique; break;
    default: f.binding = ElfSymbolFacts::Binding::Global; break;
  }
  switch (GELF_ST_TYPE(sym.st_info)) {
    case STT_NOTYPE: f.kind = ElfSymbolFacts::Kind::NoType; break;
    case STT_OBJECT:
    case STT_TLS:
    case STT_COMMON: f.kind = ElfSymbolFacts::Kind::Object; break;
    case STT_FUNC: f.kind = ElfSymbolFacts::Kind::Function; break;
    case STT_SECTION: f.kind = ElfSymbolFacts::Kind::Section; break;
    case STT_FILE: f.kind = ElfSymbolFacts::Kind::File; break;
    case STT_GNU_IFUNC: f.kind = ElfSymbolFacts::Kind::Ifunc; break;
    default: f.kind = ElfSymbolFacts::Kind::Other; break;
  }
  if (sym.st_shndx == SHN_UNDEF) {
    f.where = ElfSymbolFacts::Where::Undefined;
  } else if (sym.st_shndx == SHN_ABS) {
    f.where = ElfSymbolFacts::Where::Absolute;
  } else if (sym.st_shndx == SHN_COMMON) {
    f.where = ElfSymbolFacts::Where::Common;
  } else {
    GElf_Shdr sh;
    Elf_Scn* scn = elf ? elf_getscn(elf, shndx) : nullptr;
    if (scn && gelf_getshdr(scn, &sh)) {
      f.alloc = (sh.sh_flags & SHF_ALLOC) != 0;
      f.write = (sh.sh_flags & SHF_WRITE) != 0;
      f.exec = (sh.sh_flags & SHF_EXECINSTR) != 0;
      f.nobits = sh.sh_type == SHT_NOBITS;
    } else {
      f.alloc = false;
    }
  }
  return f;
}

}  // namespace

const KallsymsTable& KernelDebugInfo::kallsyms() {
  if (warm()) {
    if (const KallsymsTable* stored = profile_->kallsyms_table()) return *stored;
  } else if (kallsyms_) {
    return *kallsyms_;
  }
  auto [table, source] = decode_kallsyms();
  if (warm()) {
    // The first session that asks stores it; until then the profile goes without.
    profile_->kallsyms = std::move(table);
    profile_->kallsyms_source = std::move(source);
    profile_dirty_ = true;
    return *profile_->kallsyms;
  }
  kallsyms_ = std::move(table);
  kallsyms_source_ = std::move(source);
  return *kallsyms_;
}

std::pair<KallsymsTable, std::string> KernelDebugInfo::decode_kallsyms() {
  // The kernel's own table, when vmlinux has one: exactly what the kernel printed from.
  // With a warm profile this needs no DWARF: names come from the stored symbols, bytes
  // from the file through the stored section table.
  auto at = [&](const char* name) -> std::optional<std::uint64_t> {
    auto s = function(name, "");
    return s ? std::optional<std::uint64_t>(s->address) : std::nullopt;
  };
  auto num = at("kallsyms_num_syms"), names = at("kallsyms_names"), table = at("kallsyms_token_table"),
       index = at("kallsyms_token_index");
  std::string problem = "vmlinux has no kallsyms_* tables";
  if (num && names && table && index) {
    const KernelKallsymsLayout layout{
        *num, *names, *table, *index, at("kallsyms_offsets"), at("kallsyms_relative_base"), at("kallsyms_addresses")};
    VmlinuxFileMemory file(*this);
    if (auto t = read_kernel_kallsyms(file, layout, problem))
      return {std::move(*t), "the kernel's kallsyms tables in " + vmlinux_path_};
  }
  return {elf_kallsyms(), "the ELF symbols of " + vmlinux_path_ + " by scripts/kallsyms' rules (" + problem + ")"};
}

KallsymsTable KernelDebugInfo::elf_kallsyms(bool all_symbols) {
  ensure_dwfl();
  std::vector<ElfSymbolFacts> symbols;
  for_each_symbol(kernel_, [&](const char* name, const GElf_Sym& sym, GElf_Addr addr, GElf_Word shndx, Elf* elf) {
    symbols.push_back(facts_of(name, sym, addr, shndx, elf));
  });
  return KallsymsTable::from_elf(symbols, all_symbols);
}

const std::string& KernelDebugInfo::kallsyms_source() {
  if (!warm() || !profile_->has_kallsyms()) kallsyms();
  return warm() ? profile_->kallsyms_source : kallsyms_source_;
}

std::optional<Symbol> KernelDebugInfo::kallsyms_at(std::uint64_t address) {
  if (auto it = kallsyms_cache_.find(address); it != kallsyms_cache_.end()) return it->second;
  if (kallsyms_cache_.size() >= kMaxCachedSymbols) kallsyms_cache_.clear();
  std::optional<Symbol> s = warm() && profile_->has_kallsyms() ? profile_->kallsyms_at(address)  // no decoding
                                                               : kallsyms().lookup(address);
  kallsyms_cache_.emplace(address, s);
  return s;
}

// With a warm profile, vmlinux's bytes come from its file through the section table
// the profile keeps: the first allocated section holding the address, as libdwfl finds it.
std::size_t KernelDebugInfo::read_file_code(std::uint64_t address, std::span<std::uint8_t> out) {
  for (const ProfileSection& s : profile_->sections) {
    if (address < s.address || address - s.address >= s.size) continue;
    if (s.offset == ProfileSection::kNoBytes) return 0;  // .bss and the like: nothing in the file
    const std::uint64_t rel = address - s.address;
    const std::size_t n = std::min<std::uint64_t>(out.size(), s.size - rel);
    const ssize_t got = ::pread(vmlinux_file_.fd, out.data(), n, static_cast<off_t>(s.offset + rel));
    return got > 0 ? static_cast<std::size_t>(got) : 0;
  }
  return 0;
}

std::size_t KernelDebugInfo::read_code(std::uint64_t address, std::span<std::uint8_t> out) {
  if (warm() && in_vmlinux(address)) return read_file_code(address, out);
  if (warm() && modules_.empty()) return 0;
  ensure_dwfl();
  Dwfl_Module* mod = module_at(address);
  if (!mod) return 0;
  Dwarf_Addr rel = address;
  Dwarf_Addr bias = 0;
  Elf_Scn* scn = dwfl_module_address_section(mod, &rel, &bias);
  if (!scn) return 0;
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data || !data->d_buf || rel >= data->d_size) return 0;
  const std::size_t n = std::min<std::size_t>(out.size(), data->d_size - rel);
  std::memcpy(out.data(), static_cast<const std::uint8_t*>(data->d_buf) + rel, n);
  return n;
}

namespace {
// The largest .altinstructions read: a distribution kernel's holds a few hundred KiB.
constexpr std::uint64_t kMaxAltTableBytes = std::uint64_t{64} << 20;
}  // namespace

const KernelAlternatives& KernelDebugInfo::alternatives() {
  if (alternatives_) return *alternatives_;
  alternatives_ = std::make_unique<KernelAlternatives>();
  const auto start = function("__alt_instructions", "");
  const auto end = function("__alt_instructions_end", "");
  if (!start || !end || end->address < start->address || end->address - start->address > kMaxAltTableBytes) {
    alternatives_source_ = "none: vmlinux has no __alt_instructions table";
    return *alternatives_;
  }
  std::vector<std::uint8_t> table(end->address - start->address);
  if (read_code(start->address, table) != table.size()) {
    alternatives_source_ = "none: the bytes of .altinstructions are not in vmlinux";
    return *alternatives_;
  }
  *alternatives_ = decode_alternatives(table, start->address, kernel_alt_instr_layout(), kernel_start_, kernel_end_,
                                       alternatives_source_);
  return *alternatives_;
}

const std::optional<AltInstrLayout>& KernelDebugInfo::kernel_alt_instr_layout() {
  if (!alt_instr_layout_read_) {
    alt_instr_layout_read_ = true;
    KernelTypes types(*this);
    kernel_alt_layout_ = alt_instr_layout(types);
  }
  return kernel_alt_layout_;
}

const ModuleAlternatives& KernelDebugInfo::module_alternatives(std::string_view module) {
  Dwfl_Module* mod = module.empty() ? nullptr : module_for(module);
  return mod ? module_alternatives(mod) : not_loaded_alternatives_;
}

const ModuleAlternatives& KernelDebugInfo::module_alternatives(Dwfl_Module* mod) {
  auto& slot = module_alternatives_[mod];
  if (slot) return *slot;
  slot = std::make_unique<ModuleAlternatives>();
  Dwarf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(mod, &bias);
  Dwarf_Addr low = 0, high = 0;
  if (!elf || !dwfl_module_info(mod, nullptr, &low, &high, nullptr, nullptr, nullptr, nullptr)) {
    slot->source = "none: libdwfl gives no ELF or range for the module";
    return *slot;
  }
  *slot = read_module_alternatives(elf, bias, kernel_alt_instr_layout(), low, high);
  return *slot;
}

const ModuleAlternatives& KernelDebugInfo::module_alternatives_at(std::uint64_t address) {
  if (modules_.empty()) return not_loaded_alternatives_;
  ensure_dwfl();
  Dwfl_Module* mod = module_at(address);
  return mod && mod != kernel_ ? module_alternatives(mod) : not_loaded_alternatives_;
}

std::vector<CodePatch> KernelDebugInfo::code_patches(std::uint64_t address) {
  if (in_vmlinux(address)) return alternatives().holding(address);
  return module_alternatives_at(address).table.holding(address);
}

bool KernelDebugInfo::code_patches_known(std::uint64_t address) {
  if (in_vmlinux(address)) return alternatives().size() > 0;
  // A module whose .ko has no table has nothing rewritten at boot; one whose table could not be
  // read says nothing.
  return module_alternatives_at(address).known;
}

std::optional<Symbol> KernelDebugInfo::relocation_target(std::uint64_t address) {
  if (!dwfl_) return std::nullopt;  // no module loaded: nothing is relocatable
  Dwfl_Module* mod = module_at(address);
  if (!mod || mod == kernel_) return std::nullopt;
  Dwarf_Addr rel = address;
  Dwarf_Addr bias = 0;
  Elf_Scn* scn = dwfl_module_address_section(mod, &rel, &bias);
  if (!scn) return std::nullopt;
  Elf* elf = dwfl_module_getelf(mod, &bias);
  if (!elf) return std::nullopt;
  const std::size_t target_index = elf_ndxscn(scn);
  for (Elf_Scn* s = elf_nextscn(elf, nullptr); s; s = elf_nextscn(elf, s)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != target_index) continue;
    Elf_Data* data = elf_getdata(s, nullptr);
    if (!data || sh.sh_entsize == 0) continue;
    Elf_Scn* symscn = elf_getscn(elf, sh.sh_link);
    GElf_Shdr symsh;
    if (!symscn || !gelf_getshdr(symscn, &symsh)) continue;
    Elf_Data* symdata = elf_getdata(symscn, nullptr);
    const std::size_t count = sh.sh_size / sh.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Rela rela;
      if (!gelf_getrela(data, static_cast<int>(i), &rela) || rela.r_offset != rel) continue;
      GElf_Sym sym;
      if (!symdata || !gelf_getsym(symdata, static_cast<int>(GELF_R_SYM(rela.r_info)), &sym)) return std::nullopt;
      const char* name = elf_strptr(elf, symsh.sh_link, sym.st_name);
      if (!name || !*name) return std::nullopt;
      Symbol t;
      t.name = name;
      t.size = sym.st_size;
      return t;
    }
  }
  return std::nullopt;
}

void KernelDebugInfo::describe_source(std::uint64_t address, FrameDebugInfo& out) {
  const auto fresh_answer = [&] {
    FrameDebugInfo fresh;
    lookup_source(address, fresh);
    return KernelAnswers::Source{fresh.innermost_function, fresh.source, fresh.inlined};
  };
  std::optional<KernelAnswers::Source> shared;
  if (profile_ && in_vmlinux(address)) {
    auto& answers = profile_->source_answers;
    auto it = answers.find(address);
    if (it == answers.end()) {
      std::optional<KernelAnswers::Source> known = shared_answer(address) ? shared_->source(address) : std::nullopt;
      if (!known) {
        known = fresh_answer();
        if (shared_answer(address)) shared_->put_source(address, *known);
      }
      if (answers.size() >= kMaxCachedSymbols) {
        shared = std::move(known);
      } else {
        it = answers.emplace(address, std::move(*known)).first;
        profile_dirty_ = true;
      }
    }
    if (it != answers.end()) shared = it->second;
  } else if (shared_answer(address)) {
    shared = shared_->source(address);
    if (!shared) {
      shared = fresh_answer();
      shared_->put_source(address, *shared);
    }
  }
  auto it = source_cache_.end();
  if (!shared) {
    it = source_cache_.find(address);
    if (it == source_cache_.end()) {
      if (source_cache_.size() >= kMaxCachedSymbols) source_cache_.clear();
      it = source_cache_.emplace(address, fresh_answer()).first;
    }
  }
  const KernelAnswers::Source& a = shared ? *shared : it->second;
  if (a.source) out.source = a.source;
  if (!out.innermost_function) out.innermost_function = a.innermost_function;
  out.inlined.insert(out.inlined.end(), a.inlined.begin(), a.inlined.end());
}

const CuIndex* KernelDebugInfo::module_cu_index(Dwfl_Module* mod, Dwarf* dwarf) {
  auto [it, fresh] = module_cu_indexes_.try_emplace(mod);
  if (fresh) it->second = CuIndex::from_aranges(dwarf);
  return it->second ? &*it->second : nullptr;
}

const CuIndex* KernelDebugInfo::kernel_cu_index(Dwarf* dwarf) {
  // Kept in the profile when there is one (it joins the file), else by the session.
  std::optional<CuIndex>& index = profile_ ? profile_->cu_index : cu_index_;
  if (!index) {
    index = CuIndex::from_aranges(dwarf);
    if (!index) return nullptr;
    if (profile_) profile_dirty_ = true;
  }
  return &*index;
}

void KernelDebugInfo::lookup_source(std::uint64_t address, FrameDebugInfo& out) {
  ensure_dwfl();
  Dwfl_Module* mod = module_at(address);
  if (!mod) return;
  Dwarf_Addr bias = 0;
  // vmlinux's CU comes from its index (the profile's, once a session made it), which
  // answers as libdwfl does without reading every arange; a module's from libdwfl.
  Dwarf_Die cu_storage;
  Dwarf_Die* cudie = nullptr;
  Dwarf* const module_dwarf = mod == kernel_ ? dwfl_module_getdwarf(mod, &bias) : nullptr;
  const CuIndex* index = module_dwarf ? kernel_cu_index(module_dwarf) : nullptr;
  if (index) {
    if (auto die = index->cu_at(address - bias)) cudie = dwarf_offdie(module_dwarf, *die, &cu_storage);
  } else {
    cudie = dwfl_module_addrdie(mod, address, &bias);
    // libdwfl finds a module's CU through .debug_aranges only, which clang writes for its
    // assembler's CUs alone: the other CUs are found by their own ranges, as vmlinux's are.
    Dwarf* const dwarf = cudie || mod == kernel_ ? nullptr : dwfl_module_getdwarf(mod, &bias);
    if (dwarf && (index = module_cu_index(mod, dwarf)) != nullptr)
      if (auto die = index->cu_at(address - bias)) cudie = dwarf_offdie(dwarf, *die, &cu_storage);
  }
  // Relative file names are shown under the CU's compilation directory, as
  // eu-addr2line shows them, so that both tools print the same path.
  std::string comp_dir;
  if (cudie) {
    Dwarf_Attribute attr;
    if (const char* dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr))) comp_dir = dir;
  }
  auto full_path = [&comp_dir](const char* file) {
    if (file[0] == '/' || comp_dir.empty()) return std::string(file);
    return comp_dir + "/" + file;
  };
  if (index) {
    // dwfl_module_getsrc's search over that CU's lines (libdw's is the same one).
    if (Dwarf_Line* line = cudie ? dwarf_getsrc_die(cudie, address - bias) : nullptr) {
      int lineno = 0;
      int col = 0;
      dwarf_lineno(line, &lineno);
      dwarf_linecol(line, &col);
      if (const char* file = dwarf_linesrc(line, nullptr, nullptr))
        out.source = SourceLocation{full_path(file), lineno, col};
    }
  } else if (Dwfl_Line* line = dwfl_module_getsrc(mod, address)) {
    int lineno = 0;
    int col = 0;
    if (const char* file = dwfl_lineinfo(line, nullptr, &lineno, &col, nullptr, nullptr))
      out.source = SourceLocation{full_path(file), lineno, col};
  }
  // Assembly has no DWARF function: the ELF symbol names it, as in eu-addr2line.
  auto symbol_name = [&]() -> std::string {
    const char* name = dwfl_module_addrname(mod, address);
    return name ? name : "??";
  };
  if (!cudie) {
    out.innermost_function = symbol_name();
    return;
  }
  Dwarf_Die* scopes = nullptr;
  int nscopes = dwarf_getscopes(cudie, address - bias, &scopes);
  if (nscopes <= 0) {
    free(scopes);
    out.innermost_function = symbol_name();
    return;
  }
  // Re-derive the chain from the innermost scope's DIE, so that lexical blocks
  // between an inlined instance and its caller do not hide the caller.
  Dwarf_Die innermost;
  Dwarf* dwarf = dwfl_module_getdwarf(mod, &bias);
  const bool have = dwarf && dwarf_offdie(dwarf, dwarf_dieoffset(&scopes[0]), &innermost) != nullptr;
  free(scopes);
  scopes = nullptr;
  if (!have) return;
  nscopes = dwarf_getscopes_die(&innermost, &scopes);
  Dwarf_Files* files = nullptr;
  if (nscopes > 0 && dwarf_getsrcfiles(cudie, &files, nullptr) == 0) {
    const int limit = std::min(nscopes, 256);  // a corrupt DIE tree cannot make this loop long
    // The innermost named scope is where the code really is; every inlined
    // instance on the way out names its caller and the call's location.
    // (A subprogram scope does not end the walk: the out-of-line ".part"
    // and ".isra" clones continue into the scopes they were inlined from.)
    for (int i = 0; i < limit; ++i) {
      const int tag = dwarf_tag(&scopes[i]);
      if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
      if (!out.innermost_function) out.innermost_function = die_name(&scopes[i]);
      if (tag != DW_TAG_inlined_subroutine || i == limit - 1) continue;
      InlinedCall call;
      for (int j = i + 1; j < limit; ++j) {
        const int ptag = dwarf_tag(&scopes[j]);
        if (ptag == DW_TAG_inlined_subroutine || ptag == DW_TAG_subprogram || ptag == DW_TAG_entry_point) {
          call.function = die_name(&scopes[j]);
          break;
        }
      }
      Dwarf_Attribute attr;
      Dwarf_Word val = 0;
      if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &val) == 0) {
        const char* src = dwarf_filesrc(files, val, nullptr, nullptr);
        if (src) call.call.file = full_path(src);
      }
      if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &val) == 0)
        call.call.line = static_cast<int>(val);
      if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_column, &attr), &val) == 0)
        call.call.column = static_cast<int>(val);
      out.inlined.push_back(std::move(call));
    }
  }
  if (!out.innermost_function) out.innermost_function = symbol_name();
  free(scopes);
}

Dwarf* KernelDebugInfo::kernel_dwarf() {
  ensure_dwfl();
  Dwarf_Addr bias = 0;
  return dwfl_module_getdwarf(kernel_, &bias);
}

std::optional<std::string> banner_in(std::span<const std::uint8_t> bytes) {
  const std::string_view s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (!s.starts_with(kBannerPrefix)) return std::nullopt;
  const std::size_t end = s.find_first_of(std::string_view("\n\0", 2));
  if (end == std::string_view::npos) return std::nullopt;  // no end within the bytes: not a banner
  return std::string(s.substr(0, end));
}

std::optional<std::string> KernelDebugInfo::banner() {
  auto symbol = function("linux_banner", "");
  if (!symbol) return std::nullopt;
  std::array<std::uint8_t, kMaxBannerBytes> buf{};
  return banner_in(std::span(buf).first(read_code(symbol->address, buf)));
}

std::optional<std::string> KernelDebugInfo::release() {
  auto b = banner();
  if (!b) return std::nullopt;
  const std::string_view s = std::string_view(*b).substr(kBannerPrefix.size());
  return std::string(s.substr(0, s.find(' ')));
}

}  // namespace btaudit
