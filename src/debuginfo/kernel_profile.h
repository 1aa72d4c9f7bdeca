// A per-build-id kernel profile: what btaudit learned about one vmlinux, kept
// on disk so that the next run on the same kernel does not open its DWARF.
// It holds the bulk tables a run needs whatever it analyzes (vmlinux's ELF
// symbols by name, its kallsyms as the kernel computes them, where its
// allocated sections are in the file) and the answers earlier runs computed
// (symbol and source of code addresses, struct sizes and member offsets) and,
// once a session read DWARF for a source line, which CU holds which addresses.
// A question the profile cannot answer opens libdwfl as before, and its
// answer joins the profile when the run ends.
//
// File: $XDG_CACHE_HOME/btaudit/<build-id>.<vmlinux size> (else ~/.cache/btaudit):
//   "BTAUDPRF", format version (u32), payload size (u64), CRC-32 of the payload
//   (zlib's), the build id (u32 length + bytes), then the payload (below).
// A file whose magic, version, size, checksum, build id or vmlinux size does
// not match is stale or corrupt: it is ignored and rewritten, never trusted.
// Every length inside is bounds-checked: the file is input like any other.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "debuginfo/cu_index.h"
#include "debuginfo/kernel_answers.h"
#include "model/debug_info.h"
#include "model/symbol.h"
#include "provider/kallsyms.h"
#include "provider/type_provider.h"

namespace btaudit {

// Where profiles live and how much room they may take.
struct ProfileCacheOptions {
  bool enabled = false;                                // the library default; the commands turn it on unless --no-cache
  std::string dir;                                     // empty: default_profile_dir()
  std::uint64_t max_bytes = std::uint64_t{512} << 20;  // all profiles together; oldest go first
};

// $XDG_CACHE_HOME/btaudit, else $HOME/.cache/btaudit; empty when neither is set.
std::string default_profile_dir();

// An allocated section of vmlinux, in section-header order: read_code answers
// from the file through the first one holding an address, as libdwfl does.
struct ProfileSection {
  static constexpr std::uint64_t kNoBytes = ~std::uint64_t{0};  // the offset of SHT_NOBITS
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
};

// A profile's kallsyms as stored: arrays in the file's bytes that a lookup
// binary-searches in place, with kallsyms_lookup's rules. A batch worker or an
// `analyze --vmlinux` run asks for a few dozen addresses: decoding 130,000 names
// into a KallsymsTable first was half of such a run.
struct StoredKallsyms {
  KallsymsRanges ranges;
  std::uint32_t count = 0;
  const char* addresses = nullptr;  // count x u64
  const char* types = nullptr;      // count x nm type letter
  const char* name_ends = nullptr;  // count x u32: name i is names[end(i - 1), end(i))
  std::string_view names;

  // false when the bytes are not whole arrays with sorted addresses and names inside.
  bool parse(std::string_view stored, std::string* source);
  std::optional<Symbol> lookup(std::uint64_t address) const;
  KallsymsTable table() const;  // every entry decoded
  std::uint64_t address_at(std::size_t i) const;
  std::string_view name_at(std::size_t i) const;
};

struct KernelProfile {
  // 2: kallsyms as arrays (StoredKallsyms), stored when asked; 3: the CU index;
  // 4: the payload's checksum is XXH3-64 (was zlib's CRC-32, a tenth of a warm run); 5: the CU
  // index also holds the CUs .debug_aranges leaves out (a clang-built kernel's: cu_index.cpp);
  // 6: the call-site checker's answers (call_site_answers, reach_answers)
  static constexpr std::uint32_t kFormatVersion = 6;

  std::string build_id;
  std::uint64_t vmlinux_size = 0;                  // a file of the same build id but another size is not this kernel's
  std::uint64_t kernel_start = 0, kernel_end = 0;  // vmlinux's address range as libdwfl reports it
  std::vector<ProfileSection> sections;
  // The two bulk tables: vmlinux's defined function, object and untyped ELF symbols sorted
  // by name and, within a name, in symbol-table order (what KernelDebugInfo::function
  // searches), which every session fills; its kallsyms as the kernel computes them, which
  // joins the profile only once a session asked for it (a `vmcore` session reads the
  // dump's own table and never does: decoding and storing vmlinux's would make its cold
  // run slower than a run without the cache). The names of symbols_by_name are borrowed
  // from libelf's string table (a cold session's) or from what file_bytes keeps.
  std::vector<SymbolView> symbols_by_name;
  std::optional<KallsymsTable> kallsyms;
  std::string kallsyms_source;
  // Answers: nullopt inside means "asked, and there is none".
  std::map<std::uint64_t, std::optional<Symbol>> symbol_answers;
  std::map<std::uint64_t, KernelAnswers::Source> source_answers;
  std::map<std::string, std::optional<std::uint64_t>, std::less<>> type_sizes;      // "struct name"
  std::map<std::string, std::optional<MemberInfo>, std::less<>> members;            // "type\0member.path"
  std::map<std::string, std::optional<std::uint64_t>, std::less<>> variable_sizes;  // variable name
  // Whether a direct call's target leads, through tail calls, to a function (analysis/
  // call_site_check.h), by (call target, function): the answer is decoded from vmlinux's own
  // code bytes and symbols, so it holds for every run on this file. Without it each run
  // decoded again what an earlier run already followed (through x64_sys_call's switch, a third
  // of a one-report batch run's instructions).
  std::map<std::pair<std::uint64_t, std::uint64_t>, Reach> reach_answers;
  // What the instruction before a return address is, by (return address, start of the function
  // it was checked in, the name the report printed there): decoded from the file as the reach
  // answers are, and as many as a report has frames.
  std::map<KernelAnswers::CallSiteKey, CallSiteFinding> call_site_answers;
  // Which CU holds a vmlinux address (cu_index.h): stored by the first session that read
  // DWARF for a source line, so that later ones open only the CU they need.
  std::optional<CuIndex> cu_index;

  // A loaded profile reads its bulk tables from the file's bytes as they are asked for:
  // a name is a binary search over fixed records, kallsyms is decoded on first use.
  std::vector<Symbol> symbols_named(std::string_view name) const;
  // nullptr when no session has stored kallsyms yet (check has_kallsyms first).
  const KallsymsTable* kallsyms_table();
  std::optional<Symbol> kallsyms_at(std::uint64_t address) const;  // has_kallsyms(): without decoding
  bool has_kallsyms() const { return kallsyms || !stored_kallsyms.empty(); }
  bool complete() const { return symbol_count() > 0; }
  std::size_t symbol_count() const;

  // The file's bytes and the stored forms of the bulk tables (set by parse_profile).
  std::shared_ptr<const void> file_bytes;  // a mapping of the file, or a copy: what stored views point into
  std::string_view stored_symbols;   // u64 count, count x {u32 name offset, u32 length, u64 address, u64 size}, names
  std::string_view stored_kallsyms;  // empty (not stored), or StoredKallsyms' arrays
  StoredKallsyms kallsyms_arrays;
};

std::string serialize_profile(const KernelProfile& p);
// The checksum a profile's header holds for its payload (the bytes after the header).
std::uint64_t profile_checksum(std::string_view payload);
// nullptr and `problem` set when the bytes are not a whole, valid profile of `build_id`.
// `owner` keeps `bytes` alive as long as the profile.
std::unique_ptr<KernelProfile> parse_profile(std::string_view bytes, std::shared_ptr<const void> owner,
                                             std::string_view build_id, std::string& problem);

// The profile file of a vmlinux in a cache directory: <build-id>.<file size>. Two files of
// one build id (a copy with a .gdb_index added, say) keep a profile each: the section
// offsets read_code uses are the file's own.
std::string profile_path(const std::string& dir, const std::string& build_id, std::uint64_t vmlinux_size);

// Reads a profile file. nullopt with an empty `problem` when there is none;
// with `problem` set when there is one but it cannot be trusted.
std::unique_ptr<KernelProfile> load_profile_file(const std::string& path, std::string_view build_id,
                                                 std::uint64_t vmlinux_size, std::string& problem);

// Writes atomically (a temporary file renamed over the old one), then removes
// the oldest other profiles until the directory holds at most max_bytes.
// Returns the problem, or "" when written.
std::string save_profile_file(const KernelProfile& p, const std::string& dir, std::uint64_t max_bytes);

}  // namespace btaudit
