// The kernel's debuginfo through libdwfl: vmlinux plus module .ko files,
// reported offline (no live system), with lazy DWARF. Answers the questions
// analysis asks: where is function F, which function holds address A, what
// are the code bytes at A, and which source line (with inlined callers) is A.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "debuginfo/kernel_alternatives.h"
#include "debuginfo/kernel_answers.h"
#include "debuginfo/kernel_profile.h"
#include "debuginfo/module_alternatives.h"
#include "model/debug_info.h"
#include "model/symbol.h"
#include "provider/kallsyms.h"

struct Dwfl;
struct Dwfl_Module;
struct Dwarf;

namespace btaudit {

// init/version.c's banner: "Linux version " and the rest of one line (release, builder,
// compiler, build number and date), read from at most kMaxBannerBytes.
inline constexpr std::string_view kBannerPrefix = "Linux version ";
inline constexpr std::size_t kMaxBannerBytes = 512;
// The banner at the start of `bytes`, up to its newline or NUL; nullopt when they hold none.
std::optional<std::string> banner_in(std::span<const std::uint8_t> bytes);

class BuildIdSource;

struct DebugInfoOptions {
  std::string vmlinux;                    // empty: find it under debug_dir by the report's release
  std::vector<std::string> module_paths;  // lib/modules/<release> trees, folders of .ko/.ko.debug, or files
  // Files named for a module by whoever loaded them (crash's "mod -s NAME FILE"), whatever their
  // name (crash takes kbuild's NAME.o): looked at before module_paths. (module, file) pairs.
  std::vector<std::pair<std::string, std::string>> module_files;
  std::string debug_dir = "/usr/lib/debug";
  // Where a release's kernel image (boot/vmlinuz-<release>) and modules
  // (lib/modules/<release>) are installed: their build ids name the debuginfo to fetch.
  std::string kernel_root = "/";
  BuildIdSource* server = nullptr;  // debuginfod, when enabled; not owned
  // Sessions of one run (batch workers) share their answers about vmlinux addresses here; not owned.
  KernelAnswerStore* shared_answers = nullptr;
  // The per-build-id profile (debuginfo/kernel_profile.h): off unless a command turns it on.
  ProfileCacheOptions cache;
};

// Decides which code addresses a module-relative symbol stands for; also the
// seam the tests use to check lookups without the CLI.
class KernelDebugInfo {
 public:
  // Opens vmlinux (throws DebugInfoError naming the file when it is unusable).
  static std::unique_ptr<KernelDebugInfo> open(const std::string& vmlinux, const DebugInfoOptions& options);
  ~KernelDebugInfo();
  KernelDebugInfo(const KernelDebugInfo&) = delete;
  KernelDebugInfo& operator=(const KernelDebugInfo&) = delete;

  const std::string& vmlinux_path() const { return vmlinux_path_; }
  // vmlinux's linux_banner, its one line ("Linux version 6.1.0-57-cloud-amd64 (...) #1 SMP ..."),
  // and the release it names ("6.1.0-57-cloud-amd64"), when they can be read.
  std::optional<std::string> banner();
  std::optional<std::string> release();
  std::optional<std::string> build_id() const { return build_id_; }

  // Loads a module's debuginfo once; false (and a warning) when no file is found.
  // A module without DWARF here is fetched from options.server by its build id.
  bool load_module(std::string_view module);
  // The build id a trace printed for a module ("[mod <build id>]", 5.14+): fetched by it when not found here.
  void note_module_build_id(std::string_view module, std::string_view build_id);
  const std::vector<std::string>& warnings() const { return warnings_; }

  // A function by name in vmlinux ("" module) or a module. With several
  // static functions of one name, the one whose size equals size_hint wins.
  std::optional<Symbol> function(std::string_view name, std::string_view module,
                                 std::optional<std::uint64_t> size_hint = std::nullopt);
  // kallsyms' answer for a vmlinux address (link address), as %pS prints it:
  // from the kernel's own kallsyms tables in vmlinux's .rodata when they
  // decode, else from its ELF symbols by scripts/kallsyms' rules (provider/kallsyms.h).
  std::optional<Symbol> kallsyms_at(std::uint64_t address);
  // The table kallsyms_at answers from (built on first use), and where it came from.
  const KallsymsTable& kallsyms();
  const std::string& kallsyms_source();
  // The table scripts/kallsyms would make from vmlinux's ELF symbols (what
  // kallsyms() falls back to; tests hold it against the kernel's own table).
  KallsymsTable elf_kallsyms(bool all_symbols = false);
  // The symbol covering an address (any loaded module).
  std::optional<Symbol> symbol_at(std::uint64_t address);
  // Copies code bytes at [address, address + out.size()) from the file; returns how many were available.
  std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out);
  // For a relocatable module: the symbol a relocation at `address` (the rel32 of a call) points to.
  std::optional<Symbol> relocation_target(std::uint64_t address);
  // The alternatives (kernel_alternatives.h) whose original holds an address: vmlinux's table, or
  // the table of the module (.ko) holding it, relocated as libdwfl placed it. Read on first use.
  std::vector<CodePatch> code_patches(std::uint64_t address);
  // Whether code_patches answers for an address from a table that was read (a module without one
  // has nothing rewritten at boot): a place it names no patch for is then not rewritten at boot by
  // an alternative.
  bool code_patches_known(std::uint64_t address);
  // The table code_patches answers from, and how it was read ("" until then).
  const KernelAlternatives& alternatives();
  // A loaded module's table (load_module first); an empty, unknown one for a module not loaded.
  const ModuleAlternatives& module_alternatives(std::string_view module);
  const std::string& alternatives_source() const { return alternatives_source_; }
  // vmlinux's DWARF (for type layouts); null when the file has none.
  Dwarf* kernel_dwarf();

  // File:line:column and inlined callers of a code address.
  void describe_source(std::uint64_t address, FrameDebugInfo& out);

  // Whether an address lies in vmlinux's own image (a link address, not a module's).
  bool holds_kernel_address(std::uint64_t address) const { return in_vmlinux(address); }
  // Where answers about vmlinux's own addresses outlive one report: the run's
  // shared store (options.shared_answers), else this session's own.
  KernelAnswers& kernel_answers();

  // The profile this session answers vmlinux questions from and adds to (null with the cache off).
  KernelProfile* profile() { return profile_.get(); }
  void profile_changed() { profile_dirty_ = true; }
  // How the profile began: "off", "warm <path>", "cold <path>" or "rebuilt <path>: <why the old one was not trusted>".
  const std::string& profile_state() const { return profile_state_; }
  // Writes what this session learned into the profile file when anything is new (a cold
  // session writes the whole profile). Returns the problem, "" when written or not needed.
  std::string save_profile();

 private:
  KernelDebugInfo() = default;
  // libdwfl is opened on the first question the profile cannot answer (at once without a warm profile).
  void ensure_dwfl();
  void open_profile();
  bool warm() const { return profile_warm_; }
  bool in_vmlinux(std::uint64_t address) const { return address >= kernel_start_ && address < kernel_end_; }
  std::size_t read_file_code(std::uint64_t address, std::span<std::uint8_t> out);
  const std::vector<SymbolView>& kernel_symbols_by_name();
  struct SymbolTable;
  SymbolTable& symbols_of(Dwfl_Module* mod);
  std::optional<Symbol> lookup_symbol(std::uint64_t address);
  void lookup_source(std::uint64_t address, FrameDebugInfo& out);
  const CuIndex* kernel_cu_index(Dwarf* dwarf);
  Dwfl_Module* module_for(std::string_view module) const;
  Dwfl_Module* module_at(std::uint64_t address) const;
  std::optional<std::string> find_module_file(std::string_view module) const;
  std::optional<std::string> fetch_module(std::string_view module, const std::optional<std::string>& local);

  struct DwflDeleter {
    void operator()(Dwfl* d) const;
  };
  std::unique_ptr<struct DwflCallbacksHolder> callbacks_;
  std::unique_ptr<Dwfl, DwflDeleter> dwfl_;
  Dwfl_Module* kernel_ = nullptr;
  std::string vmlinux_path_;
  std::optional<std::string> build_id_;
  DebugInfoOptions options_;
  std::map<std::string, Dwfl_Module*, std::less<>> modules_;  // loaded modules by name
  std::map<std::string, bool, std::less<>> module_tried_;
  std::map<std::string, std::string, std::less<>> module_build_ids_;  // printed in the trace
  std::map<Dwfl_Module*, std::unique_ptr<SymbolTable>> tables_;
  std::vector<std::string> warnings_;
  std::vector<std::pair<std::uint64_t, std::string_view>> text_symbols_;  // sorted, built on first use
  // symbol_at's answers: libdwfl's lookup scans the symbol table (elfutils 0.188), a
  // millisecond a call on vmlinux, and call-site checks ask about the same addresses
  // over and over. Bounded: emptied when it reaches kMaxCachedSymbols.
  static constexpr std::size_t kMaxCachedSymbols = std::size_t{1} << 20;
  std::unordered_map<std::uint64_t, std::optional<Symbol>> symbol_cache_;
  // function()'s answers for vmlinux, by name and size hint: a batch asks about the same
  // functions in report after report, and each answer is a search of ~150,000 names by name
  // and one of kallsyms by address (a tenth of a warm `batch --vmlinux` run). vmlinux's answers
  // depend on the file alone. Bounded like symbol_cache_.
  struct NameHash {  // looked up by string_view, kept as std::string
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  // By name, then (the few) size hints it was asked with.
  using HintAnswers = std::vector<std::pair<std::optional<std::uint64_t>, std::optional<Symbol>>>;
  static constexpr std::size_t kMaxHintsPerName = 16;
  std::unordered_map<std::string, HintAnswers, NameHash, std::equal_to<>> function_cache_;
  // kallsyms_at's answers, for the same reason (its search walks to the next symbol's start).
  std::unordered_map<std::uint64_t, std::optional<Symbol>> kallsyms_cache_;
  // function()'s search itself (vmlinux for an empty module, else a loaded module).
  std::optional<Symbol> find_function(std::string_view name, std::optional<std::uint64_t> size_hint,
                                      std::string_view module);
  // describe_source's answers, for the same reason: dwarf_getscopes walks the CU's
  // DIEs, a millisecond a call, and a stack may hold one address thousands of times.
  std::unordered_map<std::uint64_t, KernelAnswers::Source> source_cache_;
  // With options.shared_answers: the answers about vmlinux's own addresses
  // [kernel_start_, kernel_end_), shared with the run's other sessions instead.
  std::shared_ptr<KernelAnswers> shared_;
  std::uint64_t kernel_start_ = 0;
  std::uint64_t kernel_end_ = 0;
  bool shared_answer(std::uint64_t address) const { return shared_ && in_vmlinux(address); }
  std::unique_ptr<KernelAnswers> own_answers_;  // kernel_answers() without a shared store
  // vmlinux's CU index (cu_index.h) when there is no profile to keep it in.
  std::optional<CuIndex> cu_index_;
  // A module's, made only when libdwfl finds no CU for one of its addresses (a clang-built .ko,
  // whose C CUs no .debug_aranges names); nullopt when it cannot be made.
  const CuIndex* module_cu_index(Dwfl_Module* mod, Dwarf* dwarf);
  std::map<Dwfl_Module*, std::optional<CuIndex>> module_cu_indexes_;
  std::unique_ptr<KernelProfile> profile_;
  bool profile_warm_ = false;   // loaded whole from disk: libdwfl is not needed for what it holds
  bool profile_dirty_ = false;  // holds answers the file does not
  std::string profile_state_ = "off";
  std::uint64_t vmlinux_size_ = 0;
  // read_code's file with a warm profile (closed with the session).
  struct FileHandle {
    int fd = -1;
    FileHandle() = default;
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    ~FileHandle();
  };
  FileHandle vmlinux_file_;
  std::unique_ptr<KernelAlternatives> alternatives_;  // read on first use
  std::string alternatives_source_;
  // struct alt_instr from vmlinux's DWARF (modules have the same), read on first use.
  const std::optional<AltInstrLayout>& kernel_alt_instr_layout();
  std::optional<AltInstrLayout> kernel_alt_layout_;
  bool alt_instr_layout_read_ = false;
  const ModuleAlternatives& module_alternatives(Dwfl_Module* mod);
  const ModuleAlternatives& module_alternatives_at(std::uint64_t address);  // of the loaded module holding it
  std::map<Dwfl_Module*, std::unique_ptr<ModuleAlternatives>> module_alternatives_;
  const ModuleAlternatives not_loaded_alternatives_{{}, false, "none: the module is not loaded"};
  std::pair<KallsymsTable, std::string> decode_kallsyms();  // the table and where it came from
  std::optional<KallsymsTable> kallsyms_;                   // built on first use (without a warm profile)
  std::string kallsyms_source_;
};

}  // namespace btaudit
