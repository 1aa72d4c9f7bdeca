// A bug's identity across builds: a hash that ignores addresses, offsets,
// PIDs, timestamps and '?' frames.
#pragma once
#include <cstdint>
#include <string>

#include "model/report.h"

namespace btaudit {

std::uint64_t compute_signature(const Report& report);

}  // namespace btaudit
