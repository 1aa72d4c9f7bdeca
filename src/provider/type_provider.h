// Struct layouts of the kernel being analyzed (DWARF through libdw in
// debuginfo/kernel_types.h, or a fake in a unit test), so that dump readers
// use the kernel's own sizes and offsets rather than constants of one era.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace btaudit {

struct MemberInfo {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

class TypeProvider {
 public:
  virtual ~TypeProvider() = default;
  // Size of "struct NAME" / "union NAME".
  virtual std::optional<std::uint64_t> type_size(const std::string& name) = 0;
  // Offset and size of a member ("task_struct", "pid"); nested names ("thread.sp")
  // are followed, through an array's first element ("mem.base" is mem[0].base).
  virtual std::optional<MemberInfo> member(const std::string& type, const std::string& member) = 0;
};

}  // namespace btaudit
