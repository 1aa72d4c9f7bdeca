#include "memory/synthetic_memory.h"

#include <algorithm>

namespace btaudit {

void SyntheticMemory::put_u64(std::uint64_t address, std::uint64_t value) {
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return;
  --it;
  const std::uint64_t off = address - it->first;
  if (off + 8 > it->second.size()) return;
  std::memcpy(it->second.data() + off, &value, 8);
}

void SyntheticMemory::write(std::uint64_t address, std::span<const std::uint8_t> bytes) {
  auto it = regions_.upper_bound(address);
  if (it != regions_.begin()) {
    --it;
    const std::uint64_t off = address - it->first;
    if (off + bytes.size() <= it->second.size()) {
      std::copy(bytes.begin(), bytes.end(), it->second.begin() + static_cast<std::ptrdiff_t>(off));
      return;
    }
  }
  regions_[address] = std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

std::size_t SyntheticMemory::read(std::uint64_t kvaddr, std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const std::uint64_t a = kvaddr + done;
    auto it = regions_.upper_bound(a);
    if (it == regions_.begin()) break;
    --it;
    const std::uint64_t off = a - it->first;
    if (off >= it->second.size()) break;
    const std::size_t n = std::min<std::size_t>(out.size() - done, it->second.size() - off);
    std::memcpy(out.data() + done, it->second.data() + off, n);
    done += n;
  }
  return done;
}

}  // namespace btaudit
