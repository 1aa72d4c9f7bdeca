#include "debuginfo/kernel_types.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <utility>

namespace btaudit {

struct KernelTypes::Found {
  Dwarf_Die die;
};

KernelTypes::KernelTypes(KernelDebugInfo& info) : info_(info) {}
KernelTypes::~KernelTypes() = default;

namespace {

constexpr std::size_t kMaxCus = 100000;  // vmlinux has ~3000; a corrupt file cannot loop forever
constexpr int kMaxChildren = 1000000;

bool is_definition(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  return dwarf_attr(die, DW_AT_declaration, &attr) == nullptr;
}

// Follows typedefs and qualifiers to the type that has a size.
std::optional<Dwarf_Die> type_of(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  Dwarf_Die t;
  if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t)) return std::nullopt;
  return t;
}

std::optional<std::uint64_t> size_of_type(Dwarf_Die t) {
  Dwarf_Word size = 0;
  if (dwarf_aggregate_size(&t, &size) == 0) return size;
  return std::nullopt;
}

// Follows typedefs, qualifiers and arrays (to their first element) to the struct
// or union a member path goes on in.
std::optional<Dwarf_Die> peel_typedefs(Dwarf_Die t) {
  for (int k = 0; k < 8; ++k) {
    const int tag = dwarf_tag(&t);
    if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type && tag != DW_TAG_array_type)
      return t;
    auto u = type_of(&t);
    if (!u) return std::nullopt;
    t = *u;
  }
  return std::nullopt;
}

// The member `name` of a struct or union and its offset in it. Anonymous
// struct/union members are searched too, nested as deep as struct pcpu_hot
// nests its fields (6.2-6.14: a union holding a struct).
std::optional<std::pair<Dwarf_Die, std::uint64_t>> find_member(Dwarf_Die type, const std::string& name, int depth) {
  Dwarf_Die child;
  if (depth > 4 || dwarf_child(&type, &child) != 0) return std::nullopt;
  int count = 0;
  do {
    if (dwarf_tag(&child) != DW_TAG_member) continue;
    Dwarf_Word off = 0;
    Dwarf_Attribute a;
    dwarf_formudata(dwarf_attr(&child, DW_AT_data_member_location, &a), &off);  // absent in a union: 0
    const char* n = dwarf_diename(&child);
    if (n) {
      if (name == n) return std::make_pair(child, std::uint64_t{off});
      continue;
    }
    auto t = type_of(&child);
    auto inner = t ? peel_typedefs(*t) : std::nullopt;
    if (!inner) continue;
    if (auto found = find_member(*inner, name, depth + 1)) {
      found->second += off;
      return found;
    }
  } while (++count < 100000 && dwarf_siblingof(&child, &child) == 0);
  return std::nullopt;
}

}  // namespace

const KernelTypes::Found* KernelTypes::find(int tag_kind, const std::string& name) {
  const std::string key = std::to_string(tag_kind) + ":" + name;
  if (auto it = cache_.find(key); it != cache_.end()) return it->second.get();
  cache_[key] = nullptr;
  Dwarf* dwarf = info_.kernel_dwarf();
  if (!dwarf) return nullptr;
  Dwarf_Off off = 0;
  Dwarf_Off next = 0;
  std::size_t header = 0;
  for (std::size_t n = 0; n < kMaxCus && dwarf_nextcu(dwarf, off, &next, &header, nullptr, nullptr, nullptr) == 0;
       ++n, off = next) {
    Dwarf_Die cu;
    Dwarf_Die child;
    if (!dwarf_offdie(dwarf, off + header, &cu) || dwarf_child(&cu, &child) != 0) continue;
    int count = 0;
    do {
      const int tag = dwarf_tag(&child);
      const bool wanted =
          tag_kind == 0 ? (tag == DW_TAG_structure_type || tag == DW_TAG_union_type) : tag == DW_TAG_variable;
      if (!wanted) continue;
      const char* n2 = dwarf_diename(&child);
      if (!n2 || name != n2) continue;
      if (tag_kind == 0 && !is_definition(&child)) continue;
      if (tag_kind == 1 && !type_of(&child)) continue;
      auto found = std::make_unique<Found>();
      found->die = child;
      const Found* result = found.get();
      cache_[key] = std::move(found);
      return result;
    } while (++count < kMaxChildren && dwarf_siblingof(&child, &child) == 0);
  }
  return nullptr;
}

// With a profile, each answer is looked up there first and kept there after (kernel_profile.h).
template <typename Map, typename Compute>
auto KernelTypes::remembered(Map KernelProfile::*answers, const std::string& key, Compute compute) ->
    typename Map::mapped_type {
  KernelProfile* profile = info_.profile();
  if (!profile) return compute();
  Map& m = profile->*answers;
  if (auto it = m.find(key); it != m.end()) return it->second;
  auto value = compute();
  m.emplace(key, value);
  info_.profile_changed();
  return value;
}

std::optional<std::uint64_t> KernelTypes::type_size(const std::string& name) {
  return remembered(&KernelProfile::type_sizes, name, [&] { return dwarf_type_size(name); });
}

std::optional<MemberInfo> KernelTypes::member(const std::string& type, const std::string& member_path) {
  return remembered(&KernelProfile::members, type + '\0' + member_path,
                    [&] { return dwarf_member(type, member_path); });
}

std::optional<std::uint64_t> KernelTypes::variable_size(const std::string& name) {
  return remembered(&KernelProfile::variable_sizes, name, [&] { return dwarf_variable_size(name); });
}

std::optional<std::uint64_t> KernelTypes::dwarf_type_size(const std::string& name) {
  const Found* f = find(0, name);
  if (!f) return std::nullopt;
  Dwarf_Die die = f->die;
  return size_of_type(die);
}

std::optional<MemberInfo> KernelTypes::dwarf_member(const std::string& type, const std::string& member_path) {
  const Found* f = find(0, type);
  if (!f) return std::nullopt;
  Dwarf_Die current = f->die;
  MemberInfo result;
  std::size_t start = 0;
  for (int depth = 0; depth < 8; ++depth) {
    const std::size_t dot = member_path.find('.', start);
    const std::string part = member_path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    auto found = find_member(current, part, 0);
    if (!found) return std::nullopt;
    Dwarf_Die child = found->first;
    result.offset += found->second;
    auto t = type_of(&child);
    if (!t) return std::nullopt;
    if (dot == std::string::npos) {
      result.size = size_of_type(*t).value_or(0);
      return result;
    }
    auto inner = peel_typedefs(*t);
    if (!inner) return std::nullopt;
    current = *inner;
    start = dot + 1;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> KernelTypes::dwarf_variable_size(const std::string& name) {
  const Found* f = find(1, name);
  if (!f) return std::nullopt;
  Dwarf_Die die = f->die;
  auto t = type_of(&die);
  if (!t) return std::nullopt;
  return size_of_type(*t);
}

}  // namespace btaudit
