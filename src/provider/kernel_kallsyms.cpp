#include "provider/kernel_kallsyms.h"

#include <array>
#include <vector>

namespace btaudit {

namespace {

constexpr std::uint32_t kMaxSymbols = 4u << 20;       // 4M: five times a distribution kernel's
constexpr std::size_t kMaxNamesBytes = 64u << 20;     // the compressed names of kMaxSymbols
constexpr std::size_t kNamesChunk = 256u << 10;       // read kallsyms_names in pieces
constexpr std::size_t kTokenTableBytes = 256u * 256;  // 256 tokens, each far shorter than 256 bytes

// kallsyms_names, read ahead in chunks as the decoder walks it.
class NamesReader {
 public:
  NamesReader(MemorySource& m, std::uint64_t at) : m_(m), at_(at) {}
  std::optional<std::uint8_t> next() {
    if (pos_ == buf_.size()) {
      if (read_ >= kMaxNamesBytes) return std::nullopt;
      buf_.assign(kNamesChunk, 0);
      const std::size_t got = m_.read(at_ + read_, buf_);
      if (got == 0) return std::nullopt;
      buf_.resize(got);
      read_ += got;
      pos_ = 0;
    }
    return buf_[pos_++];
  }

 private:
  MemorySource& m_;
  std::uint64_t at_;
  std::vector<std::uint8_t> buf_;
  std::size_t pos_ = 0, read_ = 0;
};

}  // namespace

std::optional<KallsymsTable> read_kernel_kallsyms(MemorySource& m, const KernelKallsymsLayout& l,
                                                  std::string& problem) {
  const auto count = m.read_u32(l.num_syms);
  if (!count || *count == 0 || *count > kMaxSymbols) {
    problem = "kallsyms_num_syms is not readable or not a plausible count";
    return std::nullopt;
  }
  const std::uint32_t n = *count;
  std::vector<std::uint64_t> address(n);
  std::vector<bool> absolute(n, false);
  if (l.offsets && l.relative_base) {
    const auto base = m.read_u64(*l.relative_base);
    std::vector<std::uint8_t> raw(std::size_t{n} * 4);
    if (!base || !m.read_exact(*l.offsets, raw)) {
      problem = "kallsyms_offsets or kallsyms_relative_base is not in memory";
      return std::nullopt;
    }
    std::vector<std::int32_t> off(n);
    std::memcpy(off.data(), raw.data(), raw.size());
    // Text symbols of an absolute-percpu table are all negative; a plain relative
    // table (a kernel image spans far less than 2 GiB) has none.
    bool absolute_percpu = false;
    for (std::int32_t o : off) absolute_percpu = absolute_percpu || o < 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!absolute_percpu) {
        address[i] = *base + static_cast<std::uint32_t>(off[i]);
      } else if (off[i] >= 0) {
        address[i] = static_cast<std::uint64_t>(off[i]);
        absolute[i] = true;
      } else {
        address[i] = *base - 1 - static_cast<std::uint64_t>(static_cast<std::int64_t>(off[i]));
      }
    }
  } else if (l.addresses) {
    std::vector<std::uint8_t> raw(std::size_t{n} * 8);
    if (!m.read_exact(*l.addresses, raw)) {
      problem = "kallsyms_addresses is not in memory";
      return std::nullopt;
    }
    std::memcpy(address.data(), raw.data(), raw.size());
  } else {
    problem = "neither kallsyms_offsets nor kallsyms_addresses";
    return std::nullopt;
  }
  std::array<std::uint8_t, 512> index_raw{};
  std::vector<std::uint8_t> tokens(kTokenTableBytes);
  if (!m.read_exact(l.token_index, index_raw) || m.read(l.token_table, tokens) == 0) {
    problem = "kallsyms_token_index or kallsyms_token_table is not in memory";
    return std::nullopt;
  }
  std::array<std::string, 256> token;
  for (std::size_t i = 0; i < 256; ++i) {
    const std::size_t at = index_raw[i * 2] | (std::size_t{index_raw[i * 2 + 1]} << 8);
    for (std::size_t k = at; k < tokens.size() && tokens[k]; ++k) token[i].push_back(static_cast<char>(tokens[k]));
  }
  std::vector<KallsymsEntry> entries;
  entries.reserve(n);
  NamesReader names(m, l.names);
  std::string expanded;  // one buffer for every name: an allocation a symbol is what this costs
  expanded.reserve(512);
  for (std::uint32_t i = 0; i < n; ++i) {
    auto len_byte = names.next();
    if (!len_byte) {
      problem = "kallsyms_names ends early";
      return std::nullopt;
    }
    std::size_t len = *len_byte;
    if (len & 0x80) {  // a "big" symbol: the length takes a second byte
      auto hi = names.next();
      if (!hi) {
        problem = "kallsyms_names ends early";
        return std::nullopt;
      }
      len = (len & 0x7f) | (std::size_t{*hi} << 7);
    }
    expanded.clear();
    for (std::size_t k = 0; k < len; ++k) {
      auto t = names.next();
      if (!t) {
        problem = "kallsyms_names ends early";
        return std::nullopt;
      }
      expanded += token[*t];
    }
    if (expanded.empty()) {
      problem = "an empty name in kallsyms_names";
      return std::nullopt;
    }
    KallsymsEntry e;
    e.address = address[i];
    e.type = absolute[i] ? 'A' : expanded[0];
    e.name.assign(expanded, 1);
    if (!entries.empty() && !absolute[i] && !absolute[i - 1] && e.address < entries.back().address) {
      problem = "kallsyms addresses are not sorted: not a kallsyms table";
      return std::nullopt;
    }
    entries.push_back(std::move(e));
  }
  KallsymsTable table = KallsymsTable::from_kernel(std::move(entries));
  if (!table.address_of("_stext") || !table.address_of("_etext")) {
    problem = "the decoded kallsyms table has no _stext/_etext";
    return std::nullopt;
  }
  return table;
}

}  // namespace btaudit
