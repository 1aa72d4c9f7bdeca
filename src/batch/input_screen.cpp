#include "batch/input_screen.h"

#include <algorithm>
#include <cstring>

namespace btaudit {

std::optional<std::string> screen_input(std::string_view data, ScreenLimits limits) {
  // Binary: serial consoles emit NULs and other garbage (a syzkaller log of
  // QEMU console output can hold hundreds of NULs in its first 8 KiB), so the
  // test is not "any NUL" but how much of the start is text at all: printable
  // ASCII, whitespace, ESC, and well-formed UTF-8 sequences. Executables,
  // images and archives fall far below the threshold; console logs stay far above.
  const std::string_view head = data.substr(0, limits.sniff_bytes);
  std::size_t text = 0;
  for (std::size_t i = 0; i < head.size();) {
    const auto c = static_cast<unsigned char>(head[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x1b) {
      ++text;
      ++i;
      continue;
    }
    const std::size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool utf8 = len > 0 && c < 0xf5 && i + len <= head.size();
    for (std::size_t k = 1; utf8 && k < len; ++k) utf8 = (static_cast<unsigned char>(head[i + k]) & 0xc0) == 0x80;
    if (utf8) {
      text += len;
      i += len;
    } else {
      ++i;
    }
  }
  if (!head.empty() && text * 4 < head.size() * 3)
    return "binary data (only " + std::to_string(text * 100 / head.size()) + "% of the first " +
           std::to_string(head.size()) + " bytes is text)";

  // Lines: an input no longer than the limit cannot hold a longer line, which
  // spares nearly every console log the scan.
  if (data.size() <= limits.max_line_bytes) return std::nullopt;
  const char* p = data.data();
  const char* const end = p + data.size();
  std::size_t line_no = 1;
  while (p < end) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* stop = nl ? nl : end;
    if (static_cast<std::size_t>(stop - p) > limits.max_line_bytes)
      return "line " + std::to_string(line_no) + " is longer than " + std::to_string(limits.max_line_bytes) + " bytes";
    if (!nl) break;
    p = nl + 1;
    ++line_no;
  }
  return std::nullopt;
}

}  // namespace btaudit
