#include "debuginfo/kernel_profile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>  // Debian's libxxhash picks SSE2, AVX2 or AVX-512 at run time
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace btaudit {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "BTAUDPRF";
constexpr std::uint64_t kMaxProfileBytes = std::uint64_t{1} << 30;  // a larger file is not one of ours
constexpr std::uint32_t kMaxCount = 1u << 24;                       // any one table's rows
constexpr std::uint32_t kMaxString = 1u << 16;                      // any one name or path
constexpr std::uint32_t kMaxInlined = 256;                          // as lookup_source's scope limit

// XXH3-64 of a payload fed in pieces, as the writer streams it. The state is
// xxHash's own (XXH3_createState), freed with the checksum.
class StreamedChecksum {
 public:
  StreamedChecksum() : state_(XXH3_createState()) {
    if (!state_ || XXH3_64bits_reset(state_.get()) != XXH_OK) throw std::bad_alloc();
  }
  void update(std::string_view bytes) { XXH3_64bits_update(state_.get(), bytes.data(), bytes.size()); }
  std::uint64_t value() const { return XXH3_64bits_digest(state_.get()); }

 private:
  struct Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::unique_ptr<XXH3_state_t, Free> state_;
};

// Builds a profile's bytes in memory, or streams them to a file in pieces of
// kPiece with their checksum and count (a cold session's 5 MB profile then costs no
// 5 MB buffer: on this project's VMs its page faults were most of the write).
class Writer {
 public:
  static constexpr std::size_t kPiece = std::size_t{256} << 10;
  Writer() = default;
  explicit Writer(int fd) : fd_(fd) { out_.reserve(kPiece * 2); }

  template <typename T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // little-endian: the profile is read back on the machine that wrote it
    raw({b, sizeof(T)});
  }
  void raw(std::string_view bytes) {
    if (fd_ >= 0 && bytes.size() >= kPiece) {
      // A bulk table a loaded profile writes back as it is: from the old file's mapping
      // straight to the new file, not copied through the piece buffer first.
      if (flush()) send(bytes);
      return;
    }
    out_.append(bytes);
    if (fd_ >= 0 && out_.size() >= kPiece) flush();
  }
  void str(std::string_view s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    raw(s);
  }
  void symbol(const Symbol& s) {
    str(s.name);
    put(s.address);
    put(s.size);
    str(s.module);
  }
  void location(const SourceLocation& l) {
    str(l.file);
    put<std::int32_t>(l.line);
    put<std::int32_t>(l.column);
  }
  void count(std::size_t n) { put<std::uint32_t>(static_cast<std::uint32_t>(n)); }
  // The bytes written so far (streamed or not).
  std::uint64_t position() const { return sent_ + out_.size(); }
  // In memory: everything; streamed: what has not gone out yet.
  std::string& bytes() { return out_; }
  // Streamed: sends the rest. false when a write failed (errno says why).
  bool flush() {
    if (fd_ < 0 || failed_) return !failed_;
    if (!send(out_)) return false;
    out_.clear();
    return true;
  }
  std::uint64_t streamed_checksum() const { return checksum_.value(); }
  // A table written after its announced size: a different count of bytes is a bug
  // that would make every later run reject and rebuild the file.
  void check_size(std::uint64_t start, std::uint64_t announced) {
    if (position() - start != announced) size_mismatch_ = true;
  }
  bool size_mismatch() const { return size_mismatch_; }

 private:
  // Writes bytes to the file and counts them into the checksum. false when a write failed.
  bool send(std::string_view bytes) {
    if (failed_) return false;
    checksum_.update(bytes);
    for (std::string_view left = bytes; !left.empty();) {
      const ssize_t n = ::write(fd_, left.data(), left.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        return false;
      }
      left.remove_prefix(static_cast<std::size_t>(n));
    }
    sent_ += bytes.size();
    return true;
  }

  int fd_ = -1;
  std::string out_;
  std::uint64_t sent_ = 0;
  StreamedChecksum checksum_;
  bool failed_ = false;
  bool size_mismatch_ = false;
};

// Every read is checked against what is left; the first failure sticks.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  T get() {
    T v{};
    if (failed_ || in_.size() - at_ < sizeof(T)) {
      failed_ = true;
      return v;
    }
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string str() {
    const auto n = get<std::uint32_t>();
    if (failed_ || n > kMaxString || in_.size() - at_ < n) {
      failed_ = true;
      return {};
    }
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  std::uint32_t count(std::uint32_t limit = kMaxCount) {
    const auto n = get<std::uint32_t>();
    if (n > limit) failed_ = true;
    return failed_ ? 0 : n;
  }
  bool flag() { return get<std::uint8_t>() != 0; }
  // The next `n` bytes as they are.
  std::string_view view(std::uint64_t n) {
    if (failed_ || in_.size() - at_ < n) {
      failed_ = true;
      return {};
    }
    std::string_view v = in_.substr(at_, n);
    at_ += n;
    return v;
  }
  void skip_str() {
    const auto n = get<std::uint32_t>();
    if (failed_ || n > kMaxString) failed_ = true;
    view(n);
  }
  Symbol symbol() {
    Symbol s;
    s.name = str();
    s.address = get<std::uint64_t>();
    s.size = get<std::uint64_t>();
    s.module = str();
    return s;
  }
  SourceLocation location() {
    SourceLocation l;
    l.file = str();
    l.line = get<std::int32_t>();
    l.column = get<std::int32_t>();
    return l;
  }
  bool failed() const { return failed_; }
  bool at_end() const { return at_ == in_.size(); }

 private:
  std::string_view in_;
  std::size_t at_ = 0;
  bool failed_ = false;
};

template <typename T, typename PutValue>
void put_answers(Writer& w, const std::map<std::string, std::optional<T>, std::less<>>& m, PutValue put_value) {
  w.count(m.size());
  for (const auto& [key, value] : m) {
    w.str(key);
    w.put<std::uint8_t>(value.has_value());
    if (value) put_value(*value);
  }
}

template <typename T, typename GetValue>
void get_answers(Reader& r, std::map<std::string, std::optional<T>, std::less<>>& m, GetValue get_value) {
  for (std::uint32_t n = r.count(); n > 0 && !r.failed(); --n) {
    std::string key = r.str();
    std::optional<T> value;
    if (r.flag()) value = get_value();
    m.emplace(std::move(key), std::move(value));
  }
}

constexpr std::size_t kSymbolRecord = 24;  // u32 name offset, u32 name length, u64 address, u64 size

std::uint64_t stored_symbols_size(const std::vector<SymbolView>& symbols) {
  std::uint64_t n = 8 + symbols.size() * kSymbolRecord;
  for (const SymbolView& s : symbols) n += s.name.size();
  return n;
}

void put_stored_symbols(Writer& w, const std::vector<SymbolView>& symbols) {
  w.put<std::uint64_t>(symbols.size());
  std::uint64_t names = 0;
  for (const SymbolView& s : symbols) {
    w.put<std::uint32_t>(static_cast<std::uint32_t>(names));
    w.put<std::uint32_t>(static_cast<std::uint32_t>(s.name.size()));
    w.put(s.address);
    w.put(s.size);
    names += s.name.size();
  }
  for (const SymbolView& s : symbols) w.raw(s.name);
}

// kallsyms as arrays a lookup binary-searches in place (KernelProfile::kallsyms_at):
//   u8 all_symbols, source, u32 count, u64 stext, etext, sinittext, einittext, end,
//   count x u64 address, count x u8 type, count x u32 end of the name in names, names.
std::uint64_t stored_kallsyms_size(const KallsymsTable& t, const std::string& source) {
  std::uint64_t n = 1 + 4 + source.size() + 4 + 5 * 8;
  for (const KallsymsEntry& e : t.entries()) n += 8 + 1 + 4 + e.name.size();
  return n;
}

void put_stored_kallsyms(Writer& w, const KallsymsTable& t, const std::string& source) {
  const KallsymsRanges& r = t.ranges();
  w.put<std::uint8_t>(r.all);
  w.str(source);
  w.count(t.entries().size());
  for (std::uint64_t v : {r.stext, r.etext, r.sinittext, r.einittext, r.end}) w.put(v);
  for (const KallsymsEntry& e : t.entries()) w.put(e.address);
  for (const KallsymsEntry& e : t.entries()) w.put(e.type);
  std::uint32_t end = 0;
  for (const KallsymsEntry& e : t.entries()) w.put<std::uint32_t>(end += static_cast<std::uint32_t>(e.name.size()));
  for (const KallsymsEntry& e : t.entries()) w.raw(e.name);
}

template <typename T>
T load(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

}  // namespace

// Checks the arrays once when the file is read (addresses sorted, name ends rising
// within the names), so that lookups read them without checks.
bool StoredKallsyms::parse(std::string_view stored, std::string* source) {
  Reader r(stored);
  ranges.all = r.flag();
  if (source) {
    *source = r.str();
  } else {
    r.skip_str();
  }
  count = r.count();
  for (std::uint64_t* v : {&ranges.stext, &ranges.etext, &ranges.sinittext, &ranges.einittext, &ranges.end})
    *v = r.get<std::uint64_t>();
  addresses = r.view(std::uint64_t{count} * 8).data();
  types = r.view(count).data();
  name_ends = r.view(std::uint64_t{count} * 4).data();
  if (r.failed()) return false;
  const std::uint32_t names_size = count ? load<std::uint32_t>(name_ends + (count - 1) * 4) : 0;
  names = r.view(names_size);
  if (r.failed() || !r.at_end()) return false;
  std::uint64_t last_address = 0;
  std::uint32_t last_end = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto address = address_at(i);
    const auto end = load<std::uint32_t>(name_ends + std::size_t{i} * 4);
    if (address < last_address || end < last_end) return false;
    last_address = address;
    last_end = end;
  }
  return true;
}

std::uint64_t StoredKallsyms::address_at(std::size_t i) const { return load<std::uint64_t>(addresses + i * 8); }

std::string_view StoredKallsyms::name_at(std::size_t i) const {
  const std::uint32_t begin = i ? load<std::uint32_t>(name_ends + (i - 1) * 4) : 0;
  return names.substr(begin, load<std::uint32_t>(name_ends + i * 4) - begin);
}

std::optional<Symbol> StoredKallsyms::lookup(std::uint64_t address) const {
  return kallsyms_lookup(
      count, [&](std::size_t i) { return address_at(i); }, [&](std::size_t i) { return name_at(i); }, ranges, address);
}

KallsymsTable StoredKallsyms::table() const {
  std::vector<KallsymsEntry> entries;
  entries.reserve(count);
  for (std::size_t i = 0; i < count; ++i) entries.push_back({address_at(i), types[i], std::string(name_at(i))});
  return KallsymsTable::from_kernel(std::move(entries), ranges.all);
}

namespace {

// Every record's name lies inside the names that follow the records. (Every warm run checks
// all of them, ~150,000 on a distribution kernel: the records are read in place, their count
// and size checked once, not through a Reader's per-field checks.)
bool check_stored_symbols(std::string_view stored) {
  std::uint64_t count = 0;
  if (stored.size() < 8) return false;
  std::memcpy(&count, stored.data(), 8);
  if (count > kMaxCount || (stored.size() - 8) / kSymbolRecord < count) return false;
  const std::uint64_t names = stored.size() - 8 - count * kSymbolRecord;
  const char* record = stored.data() + 8;
  bool inside = true;
  for (std::uint64_t i = 0; i < count; ++i, record += kSymbolRecord) {
    std::uint32_t off = 0;
    std::uint32_t len = 0;
    std::memcpy(&off, record, 4);
    std::memcpy(&len, record + 4, 4);
    inside &= std::uint64_t{off} + len <= names;  // no early exit: the loop stays branch-free
  }
  return inside;
}

void put_payload(Writer& w, const KernelProfile& p) {
  w.put(p.vmlinux_size);
  w.put(p.kernel_start);
  w.put(p.kernel_end);
  w.count(p.sections.size());
  for (const ProfileSection& s : p.sections) {
    w.put(s.address);
    w.put(s.size);
    w.put(s.offset);
  }
  // The two bulk tables, each after its size; a loaded profile writes them back as they are.
  if (p.symbols_by_name.empty()) {
    w.put<std::uint64_t>(p.stored_symbols.size());
    w.raw(p.stored_symbols);
  } else {
    const std::uint64_t size = stored_symbols_size(p.symbols_by_name);
    w.put(size);
    const std::uint64_t start = w.position();
    put_stored_symbols(w, p.symbols_by_name);
    w.check_size(start, size);
  }
  if (p.kallsyms) {
    const std::uint64_t size = stored_kallsyms_size(*p.kallsyms, p.kallsyms_source);
    w.put(size);
    const std::uint64_t start = w.position();
    put_stored_kallsyms(w, *p.kallsyms, p.kallsyms_source);
    w.check_size(start, size);
  } else {
    w.put<std::uint64_t>(p.stored_kallsyms.size());
    w.raw(p.stored_kallsyms);
  }
  w.count(p.symbol_answers.size());
  for (const auto& [address, s] : p.symbol_answers) {
    w.put(address);
    w.put<std::uint8_t>(s.has_value());
    if (s) w.symbol(*s);
  }
  w.count(p.source_answers.size());
  for (const auto& [address, a] : p.source_answers) {
    w.put(address);
    w.put<std::uint8_t>(a.innermost_function.has_value());
    if (a.innermost_function) w.str(*a.innermost_function);
    w.put<std::uint8_t>(a.source.has_value());
    if (a.source) w.location(*a.source);
    w.count(a.inlined.size());
    for (const InlinedCall& c : a.inlined) {
      w.str(c.function);
      w.location(c.call);
    }
  }
  const auto put_u64 = [&](std::uint64_t v) { w.put(v); };
  put_answers(w, p.type_sizes, put_u64);
  put_answers(w, p.members, [&](const MemberInfo& m) {
    w.put(m.offset);
    w.put(m.size);
  });
  put_answers(w, p.variable_sizes, put_u64);
  w.put<std::uint8_t>(p.cu_index.has_value());
  if (p.cu_index) {
    w.count(p.cu_index->runs().size());
    for (const CuIndex::Run& run : p.cu_index->runs()) {
      w.put(run.start);
      w.put(run.cu_die);
    }
    w.put(p.cu_index->last_end());
  }
  const auto put_u64_if = [&](const std::optional<std::uint64_t>& v) {
    w.put<std::uint8_t>(v.has_value());
    if (v) w.put(*v);
  };
  const auto put_str_if = [&](const std::optional<std::string>& v) {
    w.put<std::uint8_t>(v.has_value());
    if (v) w.str(*v);
  };
  w.count(p.call_site_answers.size());
  for (const auto& [key, f] : p.call_site_answers) {
    w.put(key.return_address);
    w.put(key.function_start);
    w.str(key.function_name);
    w.put(static_cast<std::uint8_t>(f.site.kind));
    put_u64_if(f.site.address);
    put_str_if(f.site.target);
    w.str(f.site.insn);
    put_str_if(f.site.patched_by);
    w.put<std::uint8_t>(f.site.read_in_dump);
    put_u64_if(f.target_address);
    w.put<std::uint8_t>(f.decided);
    w.put<std::uint8_t>(f.after_padded_original);
    w.str(f.note);
  }
  w.count(p.reach_answers.size());
  for (const auto& [key, reach] : p.reach_answers) {
    w.put(key.first);
    w.put(key.second);
    w.put(static_cast<std::uint8_t>(reach));
  }
}

bool get_payload(Reader& r, KernelProfile& p) {
  p.vmlinux_size = r.get<std::uint64_t>();
  p.kernel_start = r.get<std::uint64_t>();
  p.kernel_end = r.get<std::uint64_t>();
  for (std::uint32_t n = r.count(); n > 0 && !r.failed(); --n) {
    ProfileSection s;
    s.address = r.get<std::uint64_t>();
    s.size = r.get<std::uint64_t>();
    s.offset = r.get<std::uint64_t>();
    p.sections.push_back(s);
  }
  p.stored_symbols = r.view(r.get<std::uint64_t>());
  p.stored_kallsyms = r.view(r.get<std::uint64_t>());
  if (r.failed() || !check_stored_symbols(p.stored_symbols) ||
      (!p.stored_kallsyms.empty() && !p.kallsyms_arrays.parse(p.stored_kallsyms, &p.kallsyms_source)))
    return false;
  for (std::uint32_t n = r.count(); n > 0 && !r.failed(); --n) {
    const auto address = r.get<std::uint64_t>();
    std::optional<Symbol> s;
    if (r.flag()) s = r.symbol();
    p.symbol_answers.emplace(address, std::move(s));
  }
  for (std::uint32_t n = r.count(); n > 0 && !r.failed(); --n) {
    const auto address = r.get<std::uint64_t>();
    KernelAnswers::Source a;
    if (r.flag()) a.innermost_function = r.str();
    if (r.flag()) a.source = r.location();
    for (std::uint32_t k = r.count(kMaxInlined); k > 0 && !r.failed(); --k) {
      InlinedCall c;
      c.function = r.str();
      c.call = r.location();
      a.inlined.push_back(std::move(c));
    }
    p.source_answers.emplace(address, std::move(a));
  }
  const auto get_u64 = [&] { return r.get<std::uint64_t>(); };
  get_answers(r, p.type_sizes, get_u64);
  get_answers(r, p.members, [&] {
    MemberInfo m;
    m.offset = r.get<std::uint64_t>();
    m.size = r.get<std::uint64_t>();
    return m;
  });
  get_answers(r, p.variable_sizes, get_u64);
  if (r.flag()) {
    // Runs as libdw sorts its aranges; unsorted ones would make lookups answer at random.
    const std::uint32_t n = r.count();
    Reader rows(r.view(std::uint64_t{n} * 16));  // the bytes are there before anything is allocated
    std::vector<CuIndex::Run> runs(r.failed() ? 0 : n);
    for (CuIndex::Run& run : runs) {
      run.start = rows.get<std::uint64_t>();
      run.cu_die = rows.get<std::uint64_t>();
    }
    const auto last_end = r.get<std::uint64_t>();
    const auto by_start = [](const CuIndex::Run& a, const CuIndex::Run& b) { return a.start < b.start; };
    if (r.failed() || !std::is_sorted(runs.begin(), runs.end(), by_start) ||
        (!runs.empty() && last_end < runs.back().start))
      return false;
    p.cu_index = CuIndex(std::move(runs), last_end);
  }
  const auto get_u64_if = [&]() -> std::optional<std::uint64_t> {
    if (!r.flag()) return std::nullopt;
    return r.get<std::uint64_t>();
  };
  const auto get_str_if = [&]() -> std::optional<std::string> {
    if (!r.flag()) return std::nullopt;
    return r.str();
  };
  for (std::uint32_t n = r.count(); n > 0 && !r.failed(); --n) {
    const auto ret = r.get<std::uint64_t>();
    const auto start = r.get<std::uint64_t>();
    std::string name = r.str();
    CallSiteFinding f;
    const auto kind = r.get<std::uint8_t>();
    if (kind > static_cast<std::uint8_t>(CallKind::None)) return false;  // no such kind
    f.site.kind = static_cast<CallKind>(kind);
    f.site.address = get_u64_if();
    f.site.target = get_str_if();
    f.site.insn = r.str();
    f.site.patched_by = get_str_if();
    f.site.read_in_dump = r.flag();
    f.target_address = get_u64_if();
    f.decided = r.flag();
    f.after_padded_original = r.flag();
    f.note = r.str();
    if (!r.failed()) p.call_site_answers.emplace(KernelAnswers::CallSiteKey{ret, start, std::move(name)}, std::move(f));
  }
  for (std::uint32_t n = r.count(); n > 0 && !r.failed(); --n) {
    const auto target = r.get<std::uint64_t>();
    const auto callee = r.get<std::uint64_t>();
    const auto reach = r.get<std::uint8_t>();
    if (reach > static_cast<std::uint8_t>(Reach::Unknown)) return false;  // no such answer
    p.reach_answers.emplace(std::make_pair(target, callee), static_cast<Reach>(reach));
  }
  return !r.failed() && r.at_end();
}

}  // namespace

std::string default_profile_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/btaudit";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/btaudit";
  return {};
}

std::string profile_path(const std::string& dir, const std::string& build_id, std::uint64_t vmlinux_size) {
  return dir + "/" + build_id + "." + std::to_string(vmlinux_size);
}

namespace {

// Magic, version, payload size, checksum, build id: a size that depends on the build id only.
std::string header_of(const KernelProfile& p, std::uint64_t payload_size, std::uint64_t checksum) {
  Writer w;
  w.raw(kMagic);
  w.put(KernelProfile::kFormatVersion);
  w.put(payload_size);
  w.put(checksum);
  w.str(p.build_id);
  return std::move(w.bytes());
}

}  // namespace

std::string serialize_profile(const KernelProfile& p) {
  Writer payload;
  put_payload(payload, p);
  if (payload.size_mismatch()) throw std::logic_error("profile: a table's announced size is not its size");
  return header_of(p, payload.bytes().size(), profile_checksum(payload.bytes())) + payload.bytes();
}

// The same XXH3-64 value on every vector width; the dispatched entry reads a warm profile's
// 8 MB with AVX2 where the CPU has it, where the plain entry (built for any x86-64) used SSE2:
// that checksum was a quarter of a one-report `batch --vmlinux` run.
std::uint64_t profile_checksum(std::string_view payload) {
#if defined(__x86_64__)
  return XXH3_64bits_dispatch(payload.data(), payload.size());
#else
  return XXH3_64bits(payload.data(), payload.size());
#endif
}

std::unique_ptr<KernelProfile> parse_profile(std::string_view bytes, std::shared_ptr<const void> owner,
                                             std::string_view build_id, std::string& problem) {
  if (!bytes.starts_with(kMagic)) {
    problem = "not a btaudit profile (no BTAUDPRF magic)";
    return nullptr;
  }
  Reader head(bytes.substr(kMagic.size()));
  // The version first: the rest of the header is laid out as that version says
  // (format 3's checksum was 4 bytes), so an older file is named by its version.
  const auto version = head.get<std::uint32_t>();
  if (!head.failed() && version != KernelProfile::kFormatVersion) {
    problem = "format version " + std::to_string(version) + ", this btaudit writes " +
              std::to_string(KernelProfile::kFormatVersion);
    return nullptr;
  }
  const auto size = head.get<std::uint64_t>();
  const auto checksum = head.get<std::uint64_t>();
  const std::string id = head.str();
  if (head.failed()) {
    problem = "truncated header";
    return nullptr;
  }
  if (id != build_id) {
    problem = "made for build id " + id.substr(0, 64) + ", not " + std::string(build_id);
    return nullptr;
  }
  const std::size_t header = kMagic.size() + 4 + 8 + 8 + 4 + id.size();
  if (bytes.size() - header != size) {
    problem = "payload of " + std::to_string(bytes.size() - header) + " bytes where the header says " +
              std::to_string(size) + " (truncated or extended)";
    return nullptr;
  }
  const std::string_view payload = bytes.substr(header);
  if (profile_checksum(payload) != checksum) {
    problem = "checksum mismatch (the file was damaged)";
    return nullptr;
  }
  auto p = std::make_unique<KernelProfile>();
  p->build_id = id;
  p->file_bytes = std::move(owner);
  Reader r(payload);
  if (!get_payload(r, *p)) {
    problem = "payload does not decode";
    return nullptr;
  }
  return p;
}

std::size_t KernelProfile::symbol_count() const {
  if (!symbols_by_name.empty()) return symbols_by_name.size();
  std::uint64_t n = 0;
  if (stored_symbols.size() >= 8) std::memcpy(&n, stored_symbols.data(), 8);
  return n;
}

std::vector<Symbol> KernelProfile::symbols_named(std::string_view name) const {
  std::vector<Symbol> out;
  if (!symbols_by_name.empty()) {
    for (const SymbolView& s : symbols_by_name)
      if (s.name == name) out.push_back(Symbol{std::string(s.name), s.address, s.size, {}});
    return out;
  }
  // Records checked at load (check_stored_symbols): every name is in bounds.
  const std::size_t count = symbol_count();
  const std::string_view names = stored_symbols.substr(8 + count * kSymbolRecord);
  const auto record = [&](std::size_t i) { return stored_symbols.data() + 8 + i * kSymbolRecord; };
  const auto name_of = [&](std::size_t i) {
    std::uint32_t off = 0;
    std::uint32_t len = 0;
    std::memcpy(&off, record(i), 4);
    std::memcpy(&len, record(i) + 4, 4);
    return names.substr(off, len);
  };
  std::size_t lo = 0;
  std::size_t hi = count;
  while (lo < hi) {  // the first record whose name is not below `name`
    const std::size_t mid = lo + (hi - lo) / 2;
    if (name_of(mid) < name) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  for (std::size_t i = lo; i < count && name_of(i) == name; ++i) {
    Symbol s;
    s.name = std::string(name);
    std::memcpy(&s.address, record(i) + 8, 8);
    std::memcpy(&s.size, record(i) + 16, 8);
    out.push_back(std::move(s));
  }
  return out;
}

const KallsymsTable* KernelProfile::kallsyms_table() {
  if (!kallsyms && !stored_kallsyms.empty()) kallsyms = kallsyms_arrays.table();
  return kallsyms ? &*kallsyms : nullptr;
}

std::optional<Symbol> KernelProfile::kallsyms_at(std::uint64_t address) const {
  return kallsyms ? kallsyms->lookup(address) : kallsyms_arrays.lookup(address);
}

std::unique_ptr<KernelProfile> load_profile_file(const std::string& path, std::string_view build_id,
                                                 std::uint64_t vmlinux_size, std::string& problem) {
  problem.clear();
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return nullptr;  // no profile yet: not a problem
  if (size > kMaxProfileBytes) {
    problem = "larger than " + std::to_string(kMaxProfileBytes >> 20) + " MiB";
    return nullptr;
  }
  if (size == 0) {
    problem = "empty: not a btaudit profile (no BTAUDPRF magic)";
    return nullptr;
  }
  // Mapped, not copied: a warm run touches each page once, for the checksum.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  void* map = fd < 0 || size == 0 ? MAP_FAILED : ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (fd >= 0) ::close(fd);
  if (map == MAP_FAILED) {
    problem = "cannot be read";
    return nullptr;
  }
  std::shared_ptr<const void> owner(map, [size](const void* m) { ::munmap(const_cast<void*>(m), size); });
  auto p = parse_profile(std::string_view(static_cast<const char*>(map), size), std::move(owner), build_id, problem);
  if (p && p->vmlinux_size != vmlinux_size) {
    problem = "made from a vmlinux of " + std::to_string(p->vmlinux_size) + " bytes, this one has " +
              std::to_string(vmlinux_size);
    return nullptr;
  }
  return p;
}

namespace {

// Streams the profile to a new file: a header placeholder, the payload, then the header
// with the payload's size and checksum. "" when written whole.
std::string write_profile(const std::string& tmp, const KernelProfile& p, std::uint64_t max_bytes) {
  struct Fd {
    int fd;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  } out{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  const auto failure = [&] { return tmp + ": " + std::strerror(errno); };
  if (out.fd < 0) return failure();
  const std::string placeholder = header_of(p, 0, 0);
  if (::pwrite(out.fd, placeholder.data(), placeholder.size(), 0) != static_cast<ssize_t>(placeholder.size()) ||
      ::lseek(out.fd, static_cast<off_t>(placeholder.size()), SEEK_SET) < 0)
    return failure();
  Writer payload(out.fd);
  put_payload(payload, p);
  if (!payload.flush()) return failure();
  if (payload.size_mismatch()) return tmp + ": a table's announced size is not its size (not saved)";
  const std::uint64_t size = placeholder.size() + payload.position();
  if (size > max_bytes) return "profile of " + std::to_string(size) + " bytes exceeds the cache cap";
  const std::string header = header_of(p, payload.position(), payload.streamed_checksum());
  if (::pwrite(out.fd, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size())) return failure();
  const int fd = std::exchange(out.fd, -1);
  if (::close(fd) != 0) return failure();
  return {};
}

}  // namespace

std::string save_profile_file(const KernelProfile& p, const std::string& dir, std::uint64_t max_bytes) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return dir + ": " + ec.message();
  const std::string path = profile_path(dir, p.build_id, p.vmlinux_size);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  if (std::string problem = write_profile(tmp, p, max_bytes); !problem.empty()) {
    fs::remove(tmp, ec);
    return problem;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return path + ": " + ec.message();
  }
  // The cap: the oldest other profiles go first.
  struct Entry {
    fs::file_time_type time;
    std::uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::size_t budget = 100000;  // a directory of junk cannot make this loop long
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && budget > 0; it.increment(ec), --budget) {
    const std::string name = it->path().filename().string();
    // <hex build id>.<decimal size>, as profile_path names them.
    const std::size_t dot = name.find('.');
    const bool profile_name = dot != std::string::npos && dot > 0 && name.size() <= 160 &&
                              name.find_first_not_of("0123456789abcdef") == dot && dot + 1 < name.size() &&
                              name.find_first_not_of("0123456789", dot + 1) == std::string::npos;
    if (!profile_name || !it->is_regular_file(ec)) continue;  // only profiles count, and only they are removed
    const std::uint64_t bytes = it->file_size(ec);
    if (ec) continue;
    total += bytes;
    if (it->path() != fs::path(path)) entries.push_back({it->last_write_time(ec), bytes, it->path()});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
  return {};
}

}  // namespace btaudit
