// The one interface to kernel memory. The walker, the log reader and every
// other dump analysis read through it, so they run unchanged on a vmcore
// (libkdumpfile), inside crash (readmem) and on synthetic test memory.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

namespace btaudit {

class MemorySource {
 public:
  virtual ~MemorySource() = default;
  // Reads kernel virtual memory; returns how many bytes were read from the
  // start of `out` (short on an unmapped, filtered or truncated page).
  virtual std::size_t read(std::uint64_t kvaddr, std::span<std::uint8_t> out) = 0;
  // A human name for messages ("vmcore.elf", "crash readmem", ...).
  virtual std::string describe() const = 0;

  bool read_exact(std::uint64_t kvaddr, std::span<std::uint8_t> out) { return read(kvaddr, out) == out.size(); }

  template <typename T>
  std::optional<T> read_value(std::uint64_t kvaddr) {
    T v{};
    std::uint8_t buf[sizeof(T)];
    if (!read_exact(kvaddr, buf)) return std::nullopt;
    std::memcpy(&v, buf, sizeof(T));  // the dumps read here are little-endian x86-64, as is the host
    return v;
  }
  std::optional<std::uint64_t> read_u64(std::uint64_t kvaddr) { return read_value<std::uint64_t>(kvaddr); }
  std::optional<std::uint32_t> read_u32(std::uint64_t kvaddr) { return read_value<std::uint32_t>(kvaddr); }
  std::optional<std::uint16_t> read_u16(std::uint64_t kvaddr) { return read_value<std::uint16_t>(kvaddr); }
};

}  // namespace btaudit
