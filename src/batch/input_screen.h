// Decides, before parsing, whether an input is a text log at all. A batch run
// over a real corpus meets core files, images and archives next to the logs;
// each is skipped with a reason that is counted and reported, never parsed.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace btaudit {

struct ScreenLimits {
  std::size_t sniff_bytes = 8192;                     // how much of the start decides "binary"
  std::size_t max_line_bytes = std::size_t{1} << 20;  // a longer line is not a console log
};

// nullopt for a text log, else why it is not one ("binary data", "a line of N bytes", ...).
std::optional<std::string> screen_input(std::string_view data, ScreenLimits limits = {});

}  // namespace btaudit
