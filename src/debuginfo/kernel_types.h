// Struct layouts and variable types from the kernel's DWARF, so that dump
// analysis uses the kernel's own sizes and offsets (IRQ_STACK_SIZE from
// struct irq_stack, THREAD_SIZE from union thread_union, task_struct.pid,
// ...) rather than constants of one era.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "debuginfo/kernel_debuginfo.h"
#include "provider/type_provider.h"

namespace btaudit {

class KernelTypes final : public TypeProvider {
 public:
  explicit KernelTypes(KernelDebugInfo& info);
  ~KernelTypes() override;
  KernelTypes(const KernelTypes&) = delete;
  KernelTypes& operator=(const KernelTypes&) = delete;

  // Size of "struct NAME" / "union NAME" (the first complete definition found).
  std::optional<std::uint64_t> type_size(const std::string& name) override;
  // Offset and size of a member, "task_struct", "pid"; nested names "thread.sp" are followed,
  // through an array's first element ("mem.base" is mem[0].base).
  std::optional<MemberInfo> member(const std::string& type, const std::string& member) override;
  // Size of a global variable's type (e.g. a per-CPU variable).
  std::optional<std::uint64_t> variable_size(const std::string& name);

 private:
  struct Found;
  const Found* find(int tag_kind, const std::string& name);
  std::optional<std::uint64_t> dwarf_type_size(const std::string& name);
  std::optional<MemberInfo> dwarf_member(const std::string& type, const std::string& member_path);
  std::optional<std::uint64_t> dwarf_variable_size(const std::string& name);
  template <typename Map, typename Compute>
  typename Map::mapped_type remembered(Map KernelProfile::*answers, const std::string& key, Compute compute);
  KernelDebugInfo& info_;
  std::map<std::string, std::unique_ptr<Found>> cache_;
};

}  // namespace btaudit
