// Memory made of explicit regions, for tests: a synthetic kernel's stacks,
// per-CPU areas and log buffers, laid out word by word by the test itself.
#pragma once
#include <map>
#include <vector>

#include "memory/memory_source.h"

namespace btaudit {

class SyntheticMemory final : public MemorySource {
 public:
  void map(std::uint64_t address, std::vector<std::uint8_t> bytes) { regions_[address] = std::move(bytes); }
  void put_u64(std::uint64_t address, std::uint64_t value);
  // Writes bytes into the region that holds them all, or maps them as a region of their own.
  void write(std::uint64_t address, std::span<const std::uint8_t> bytes);
  std::size_t read(std::uint64_t kvaddr, std::span<std::uint8_t> out) override;
  std::string describe() const override { return "synthetic memory"; }

 private:
  std::map<std::uint64_t, std::vector<std::uint8_t>> regions_;
};

}  // namespace btaudit
