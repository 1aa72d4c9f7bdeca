#include "batch/input_screen.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace btaudit {

namespace {

// One character of the sniffed head from `i` on: a text byte, a well-formed UTF-8 sequence
// (counted as text) or one byte of anything else. Returns where the next one starts.
std::size_t screen_one(std::string_view head, std::size_t i, std::size_t& text) {
  const auto c = static_cast<unsigned char>(head[i]);
  if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x1b) {
    ++text;
    return i + 1;
  }
  const std::size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  bool utf8 = len > 0 && c < 0xf5 && i + len <= head.size();
  for (std::size_t k = 1; utf8 && k < len; ++k) utf8 = (static_cast<unsigned char>(head[i + k]) & 0xc0) == 0x80;
  if (!utf8) return i + 1;
  text += len;
  return i + len;
}

}  // namespace

std::optional<std::string> screen_input(std::string_view data, ScreenLimits limits) {
  // Binary: serial consoles emit NULs and other garbage (a syzkaller log of
  // QEMU console output can hold hundreds of NULs in its first 8 KiB), so the
  // test is not "any NUL" but how much of the start is text at all: printable
  // ASCII, whitespace, ESC, and well-formed UTF-8 sequences. Executables,
  // images and archives fall far below the threshold; console logs stay far above.
  const std::string_view head = data.substr(0, limits.sniff_bytes);
  std::size_t text = 0;
  for (std::size_t i = 0; i < head.size();) {
    // Eight bytes at a time while all are printable ASCII, 0x20-0x7e, as nearly all of a
    // console log's are (a byte at a time, this loop was a twelfth of a warm `batch --vmlinux`):
    // a borrow test for a byte below 0x20 and a carry test for one above 0x7e, each exact for
    // the word as a whole (the bit hacks' "hasless" and "hasmore"). Anything else, a newline
    // included, is read as one character.
    if (i + 8 <= head.size()) {
      constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
      constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
      std::uint64_t w = 0;
      std::memcpy(&w, head.data() + i, 8);
      const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
      const std::uint64_t above_tilde = ((w + kOnes) | w) & kHigh;
      const std::uint64_t other = below_space | above_tilde;
      if (other == 0) {
        text += 8;
        i += 8;
        continue;
      }
      // Borrows and carries run upward only, so the lowest flag is exact: the bytes before it
      // are plain text. (Byte order: on a big-endian host the word's first byte is its top.)
      if constexpr (std::endian::native == std::endian::little) {
        const auto plain = static_cast<std::size_t>(std::countr_zero(other) / 8);
        text += plain;
        i += plain;
      }
    }
    i = screen_one(head, i, text);
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
