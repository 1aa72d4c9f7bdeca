#include "provider/kernel_kallsyms.h"

#include <array>
#include <vector>

namespace btaudit {

namespace {

constexpr std::uint32_t kMaxSymbols = 4u << 20;       // 4M: five times a distribution kernel's
constexpr std::size_t kMaxNamesBytes = 64u << 20;     // the compressed names of kMaxSymbols
constexpr std::size_t kNamesChunk = 256u << 10;       // read kallsyms_names in pieces
constexpr std::size_t kTokenTableBytes = 256u * 256;  // 256 tokens, each far shorter than 256 bytes

// The length of the entry whose length byte is at `at`: one byte, 6.1+ two when the
// first has 0x80 set (73bbb94466fd). {length, bytes it took}; {0, 0} past the end.
std::pair<std::size_t, std::size_t> entry_length(const std::vector<std::uint8_t>& names, std::size_t at) {
  if (at >= names.size()) return {0, 0};
  const std::size_t first = names[at];
  if (!(first & 0x80)) return {first, 1};
  if (at + 1 >= names.size()) return {0, 0};
  return {(first & 0x7f) | (std::size_t{names[at + 1]} << 7), 2};
}

}  // namespace

std::optional<KernelKallsyms> KernelKallsyms::read(MemorySource& m, const KernelKallsymsLayout& l,
                                                   std::string& problem) {
  const auto count = m.read_u32(l.num_syms);
  if (!count || *count == 0 || *count > kMaxSymbols) {
    problem = "kallsyms_num_syms is not readable or not a plausible count";
    return std::nullopt;
  }
  const std::uint32_t n = *count;
  KernelKallsyms k;
  std::vector<std::uint64_t>& address = k.addresses_;
  address.resize(n);
  k.absolute_.assign(n, false);
  if (l.offsets && l.relative_base) {
    const auto base = m.read_u64(*l.relative_base);
    std::vector<std::int32_t> off(n);
    if (!base || !m.read_exact(*l.offsets, {reinterpret_cast<std::uint8_t*>(off.data()), std::size_t{n} * 4})) {
      problem = "kallsyms_offsets or kallsyms_relative_base is not in memory";
      return std::nullopt;
    }
    // Text symbols of an absolute-percpu table are all negative; a plain relative
    // table (a kernel image spans far less than 2 GiB) has none.
    bool absolute_percpu = false;
    for (std::int32_t o : off) absolute_percpu = absolute_percpu || o < 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!absolute_percpu) {
        address[i] = *base + static_cast<std::uint32_t>(off[i]);
      } else if (off[i] >= 0) {
        address[i] = static_cast<std::uint64_t>(off[i]);
        k.absolute_[i] = true;
      } else {
        address[i] = *base - 1 - static_cast<std::uint64_t>(static_cast<std::int64_t>(off[i]));
      }
    }
  } else if (l.addresses) {
    if (!m.read_exact(*l.addresses, {reinterpret_cast<std::uint8_t*>(address.data()), std::size_t{n} * 8})) {
      problem = "kallsyms_addresses is not in memory";
      return std::nullopt;
    }
  } else {
    problem = "neither kallsyms_offsets nor kallsyms_addresses";
    return std::nullopt;
  }
  for (std::uint32_t i = 1; i < n; ++i) {
    if (!k.absolute_[i] && !k.absolute_[i - 1] && address[i] < address[i - 1]) {
      problem = "kallsyms addresses are not sorted: not a kallsyms table";
      return std::nullopt;
    }
  }
  std::array<std::uint8_t, 512> index_raw{};
  std::vector<std::uint8_t> tokens(kTokenTableBytes);
  if (!m.read_exact(l.token_index, index_raw) || m.read(l.token_table, tokens) == 0) {
    problem = "kallsyms_token_index or kallsyms_token_table is not in memory";
    return std::nullopt;
  }
  for (std::size_t i = 0; i < 256; ++i) {
    const std::size_t at = index_raw[i * 2] | (std::size_t{index_raw[i * 2 + 1]} << 8);
    for (std::size_t t = at; t < tokens.size() && tokens[t]; ++t) k.tokens_[i].push_back(static_cast<char>(tokens[t]));
  }
  // kallsyms_names, read in pieces as far as the n entries reach; each entry's start kept.
  const auto have = [&](std::size_t bytes) {
    while (k.names_.size() < bytes) {
      if (k.names_.size() >= kMaxNamesBytes) return false;
      const std::size_t old = k.names_.size();
      k.names_.resize(old + kNamesChunk);
      const std::size_t got = m.read(l.names + old, {k.names_.data() + old, kNamesChunk});
      k.names_.resize(old + got);
      if (got == 0) return false;
    }
    return true;
  };
  k.starts_.resize(n);
  std::size_t at = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!have(at + 1) || ((k.names_[at] & 0x80) && !have(at + 2))) {
      problem = "kallsyms_names ends early";
      return std::nullopt;
    }
    const auto [len, header] = entry_length(k.names_, at);
    if (header == 0 || !have(at + header + len)) {
      problem = "kallsyms_names ends early";
      return std::nullopt;
    }
    bool empty = true;
    for (std::size_t t = 0; t < len && empty; ++t) empty = k.tokens_[k.names_[at + header + t]].empty();
    if (empty) {
      problem = "an empty name in kallsyms_names";
      return std::nullopt;
    }
    k.starts_[i] = static_cast<std::uint32_t>(at);
    at += header + len;
  }
  // The ranges as KallsymsTable::from_kernel finds them: the last entry of each name.
  KallsymsRanges& r = k.ranges_;
  bool stext = false, etext = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    switch (k.range_name(i)) {
      case RangeName::Stext:
        r.stext = address[i];
        stext = true;
        break;
      case RangeName::Etext:
        r.etext = address[i];
        etext = true;
        break;
      case RangeName::Sinittext: r.sinittext = address[i]; break;
      case RangeName::Einittext: r.einittext = address[i]; break;
      case RangeName::End: r.end = address[i]; break;
      case RangeName::None: break;
    }
  }
  r.all = r.end != 0;  // from_kernel: _end is there exactly when all symbols are
  if (!stext || !etext) {
    problem = "the decoded kallsyms table has no _stext/_etext";
    return std::nullopt;
  }
  return k;
}

std::string KernelKallsyms::expand(std::size_t i) const {
  const auto [len, header] = entry_length(names_, starts_[i]);
  std::string out;
  for (std::size_t t = 0; t < len; ++t) out += tokens_[names_[starts_[i] + header + t]];
  return out;
}

KernelKallsyms::RangeName KernelKallsyms::range_name(std::size_t i) const {
  // The names below, each with its nm type letter first: the entry is expanded into a buffer
  // that holds the longest, and given up once it is longer or its name does not start with '_'.
  // (Every one of a table's 100,000-odd entries is asked: a token-by-token comparison with
  // each name in turn was 40% of a warm `vmcore bt`.)
  struct Row {
    std::string_view name;
    RangeName range;
  };
  static constexpr Row kRows[] = {{"_stext", RangeName::Stext},
                                  {"_etext", RangeName::Etext},
                                  {"_sinittext", RangeName::Sinittext},
                                  {"_einittext", RangeName::Einittext},
                                  {"_end", RangeName::End}};
  constexpr std::size_t kLongest = 1 + 10;  // the type letter and "_sinittext"
  std::array<char, kLongest> buf{};
  std::size_t used = 0;
  const auto [len, header] = entry_length(names_, starts_[i]);
  for (std::size_t t = 0; t < len; ++t) {
    const std::string& piece = tokens_[names_[starts_[i] + header + t]];
    if (piece.size() > kLongest - used) return RangeName::None;
    piece.copy(buf.data() + used, piece.size());
    used += piece.size();
    if (used >= 2 && buf[1] != '_') return RangeName::None;
  }
  const std::string_view name = used > 0 ? std::string_view(buf.data() + 1, used - 1) : std::string_view();
  for (const Row& row : kRows)
    if (row.name == name) return row.range;
  return RangeName::None;
}

KallsymsEntry KernelKallsyms::entry(std::size_t i) const {
  std::string expanded = expand(i);  // non-empty: read() checked it
  KallsymsEntry e;
  e.address = addresses_[i];
  e.type = absolute_[i] ? 'A' : expanded[0];
  e.name.assign(expanded, 1);
  return e;
}

std::optional<Symbol> KernelKallsyms::lookup(std::uint64_t address) const {
  return kallsyms_lookup(
      size(), [&](std::size_t i) { return addresses_[i]; }, [&](std::size_t i) { return expand(i).substr(1); }, ranges_,
      address);
}

KallsymsTable KernelKallsyms::table() const {
  std::vector<KallsymsEntry> entries;
  entries.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) entries.push_back(entry(i));
  return KallsymsTable::from_kernel(std::move(entries));
}

std::optional<KallsymsTable> read_kernel_kallsyms(MemorySource& m, const KernelKallsymsLayout& l,
                                                  std::string& problem) {
  auto k = KernelKallsyms::read(m, l, problem);
  if (!k) return std::nullopt;
  return k->table();
}

}  // namespace btaudit
