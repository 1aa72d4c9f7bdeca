// Test support for the dump side, independent of the production structs
// (as rust-minidump's minidump-synth and Breakpad's test_assembler are): memory
// laid out byte by byte at fixed addresses, stacks built word by word with a
// comment saying what each word stands for, and fake symbol and type
// providers that answer from tables the test writes.
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "memory/synthetic_memory.h"
#include "model/walked_stack.h"
#include "model_printers.h"
#include "provider/kallsyms.h"
#include "provider/symbol_provider.h"
#include "provider/type_provider.h"

namespace btaudit {

namespace test {

// A run of bytes at a fixed address, written little-endian, then mapped into memory.
class Image {
 public:
  explicit Image(std::uint64_t base, std::size_t size = 0) : base_(base), bytes_(size, 0) {}
  std::uint64_t base() const { return base_; }
  std::uint64_t end() const { return base_ + bytes_.size(); }
  std::uint64_t at(std::size_t offset) const { return base_ + offset; }
  Image& put(std::uint64_t address, const void* data, std::size_t n) {
    const std::size_t off = static_cast<std::size_t>(address - base_);
    if (off + n > bytes_.size()) bytes_.resize(off + n, 0);
    std::memcpy(bytes_.data() + off, data, n);
    return *this;
  }
  template <typename T>
  Image& put_value(std::uint64_t address, T v) {
    return put(address, &v, sizeof v);
  }
  Image& u8(std::uint64_t a, std::uint8_t v) { return put_value(a, v); }
  Image& u16(std::uint64_t a, std::uint16_t v) { return put_value(a, v); }
  Image& u32(std::uint64_t a, std::uint32_t v) { return put_value(a, v); }
  Image& s32(std::uint64_t a, std::int32_t v) { return put_value(a, v); }
  Image& u64(std::uint64_t a, std::uint64_t v) { return put_value(a, v); }
  Image& str(std::uint64_t a, const std::string& s) { return put(a, s.c_str(), s.size() + 1); }
  // Into the region that already holds these bytes (a patch), or as a region of its own.
  void map_into(SyntheticMemory& m) const { m.write(base_, bytes_); }

 private:
  std::uint64_t base_;
  std::vector<std::uint8_t> bytes_;
};

// A stack built from its top down, the way the CPU pushes: each push names
// what the word is, so a failing test reads like the stack it planted.
class PlantedStack {
 public:
  PlantedStack(std::uint64_t begin, std::uint64_t size) : range_{StackKind::Task, "", begin, begin + size} {
    sp_ = range_.end;
  }
  PlantedStack(StackKind kind, std::string name, std::uint64_t begin, std::uint64_t size)
      : range_{kind, std::move(name), begin, begin + size} {
    sp_ = range_.end;
  }
  // Pushes one word; `why` is for the reader (and shown when a word is looked up by it).
  std::uint64_t push(std::uint64_t value, const std::string& why) {
    sp_ -= 8;
    words_[sp_] = {value, why};
    return sp_;
  }
  // Leaves n words of zeros (locals nobody cares about).
  std::uint64_t skip(std::size_t n) {
    sp_ -= 8 * n;
    return sp_;
  }
  std::uint64_t sp() const { return sp_; }
  const StackRange& range() const { return range_; }
  std::uint64_t top() const { return range_.end; }
  void map_into(SyntheticMemory& m) const {
    std::vector<std::uint8_t> bytes(range_.end - range_.begin, 0);
    for (const auto& [slot, w] : words_) std::memcpy(bytes.data() + (slot - range_.begin), &w.first, 8);
    m.map(range_.begin, std::move(bytes));
  }
  // Plants a word at a fixed slot (a backlink at the top, a pt_regs member).
  void set(std::uint64_t slot, std::uint64_t value, const std::string& why) { words_[slot] = {value, why}; }

 private:
  StackRange range_;
  std::uint64_t sp_;
  std::map<std::uint64_t, std::pair<std::uint64_t, std::string>> words_;
};

// Symbols from a table the test writes: find() by name, kallsyms_at() by the
// kallsyms rules over the same table (as an ELF with these symbols would give).
class FakeSymbols final : public SymbolProvider {
 public:
  FakeSymbols& add(const std::string& name, std::uint64_t address, std::uint64_t size = 0, char type = 'T') {
    symbols_[name] = Symbol{name, address, size, ""};
    ElfSymbolFacts f;
    f.name = name;
    f.address = address;
    f.exec = type == 't' || type == 'T';
    f.write = type == 'd' || type == 'D' || type == 'b' || type == 'B';
    f.nobits = type == 'b' || type == 'B';
    f.binding = (type >= 'A' && type <= 'Z') ? ElfSymbolFacts::Binding::Global : ElfSymbolFacts::Binding::Local;
    f.kind = f.exec ? ElfSymbolFacts::Kind::Function : ElfSymbolFacts::Kind::Object;
    facts_.push_back(f);
    table_.reset();
    return *this;
  }
  std::optional<Symbol> find(std::string_view name, std::string_view module) override {
    if (!module.empty()) return std::nullopt;
    auto it = symbols_.find(std::string(name));
    if (it == symbols_.end()) return std::nullopt;
    ++finds_;
    return it->second;
  }
  std::optional<Symbol> kallsyms_at(std::uint64_t address) override {
    if (!table_) table_ = KallsymsTable::from_elf(facts_);
    return table_->lookup(address);
  }
  int finds() const { return finds_; }

 private:
  std::map<std::string, Symbol> symbols_;
  std::vector<ElfSymbolFacts> facts_;
  std::optional<KallsymsTable> table_;
  int finds_ = 0;
};

// Struct layouts from a table the test writes ("task_struct.pid" -> offset, size).
class FakeTypes final : public TypeProvider {
 public:
  FakeTypes& member(const std::string& path, std::uint64_t offset, std::uint64_t size = 8) {
    members_[path] = {offset, size};
    return *this;
  }
  FakeTypes& size(const std::string& type, std::uint64_t bytes) {
    sizes_[type] = bytes;
    return *this;
  }
  std::optional<std::uint64_t> type_size(const std::string& name) override {
    auto it = sizes_.find(name);
    if (it == sizes_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<MemberInfo> member(const std::string& type, const std::string& name) override {
    auto it = members_.find(type + "." + name);
    if (it == members_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, MemberInfo> members_;
  std::map<std::string, std::uint64_t> sizes_;
};

}  // namespace test
}  // namespace btaudit
