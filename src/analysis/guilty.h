// The guilty frame: the first frame of the crashing context's trace that the
// unwinder vouched for and that is not part of the reporting machinery.
#pragma once
#include <optional>
#include <string_view>

#include "analysis/title_engine.h"
#include "model/report.h"

namespace btaudit {

std::optional<std::size_t> find_guilty_frame(const Report& report);
// The same, from title rules already applied to report.text: the frame that names the bug in the title.
std::optional<std::size_t> find_guilty_frame(const Report& report, const std::optional<RuleTitle>& rules);

namespace guilty_detail {
// base_function_name(function) == name for a name that is not empty, `name_has_dot` telling
// whether it holds a '.' after its first byte (asked once per name, not per frame), without
// searching the function for its '.': the base is the function up to its first '.' after its
// first byte, so it is a name holding no such '.' exactly when the function starts with the
// name and ends there or goes on with a '.'. Every frame of every report is asked.
inline bool base_is(std::string_view function, std::string_view name, bool name_has_dot) {
  return !name_has_dot && function.size() >= name.size() &&
         (function.size() == name.size() || function[name.size()] == '.') && function.starts_with(name);
}
}  // namespace guilty_detail

}  // namespace btaudit
