// libFuzzer target for vmlinux's profile file (debuginfo/kernel_profile.h). The
// input is taken as a payload and given a valid header (its checksum computed
// here), so that mutations reach the payload decoder instead of stopping at the
// checksum; the input is also parsed as a whole file as it is. A parse must
// either fail with a problem or give a profile whose tables can all be read:
// every name searched, kallsyms decoded and looked up, the CU index searched around
// every run, the profile written back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "debuginfo/kernel_profile.h"

namespace {

constexpr char kBuildId[] = "00112233445566778899aabbccddeeff00112233";

std::string with_header(std::string_view payload) {
  std::string out = "BTAUDPRF";
  const auto put = [&out](const auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(btaudit::KernelProfile::kFormatVersion);
  put(static_cast<std::uint64_t>(payload.size()));
  put(btaudit::profile_checksum(payload));
  put(static_cast<std::uint32_t>(sizeof kBuildId - 1));
  out += kBuildId;
  out += payload;
  return out;
}

void exercise(const std::string& bytes) {
  auto owner = std::make_shared<std::string>(bytes);
  std::string problem;
  auto p = btaudit::parse_profile(*owner, owner, kBuildId, problem);
  if (!p) {
    if (problem.empty()) std::abort();  // a rejection always says why
    return;
  }
  for (const char* name : {"", "a", "init_stack", "kallsyms_names", "\xff\xff"}) (void)p->symbols_named(name);
  if (const btaudit::KallsymsTable* t = p->kallsyms_table())
    for (const btaudit::KallsymsEntry& e : t->entries()) (void)t->lookup(e.address);
  if (p->cu_index) {
    (void)p->cu_index->cu_at(p->cu_index->last_end());
    for (const btaudit::CuIndex::Run& run : p->cu_index->runs())
      for (const std::uint64_t a : {run.start - 1, run.start, run.start + 1}) (void)p->cu_index->cu_at(a);
  }
  const std::string again = btaudit::serialize_profile(*p);
  std::string problem2;
  auto owner2 = std::make_shared<std::string>(again);
  if (!btaudit::parse_profile(*owner2, owner2, kBuildId, problem2)) std::abort();  // what it writes it reads
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  exercise(with_header(input));
  exercise(std::string(input));
  return 0;
}
