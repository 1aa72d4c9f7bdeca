// Reads a log file or standard input ("-") into memory, decompressing gzip,
// xz and zstd by their magic bytes (never by file name).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace btaudit {

enum class Compression { None, Gzip, Xz, Zstd };

struct InputLimits {
  std::size_t max_bytes = std::size_t{4} << 30;  // decompressed size cap: a zip bomb stops here
};

Compression detect_compression(const std::string& head);

// Throws InputError naming `path` on any failure.
std::string read_input(const std::string& path, InputLimits limits = {});

// The bytes of one input, as read_input returns them, without a copy when it can:
// an uncompressed regular file is mapped read-only (a log of hundreds of MB costs
// as much to copy into a string as to parse). Move-only; the view lives as long as it.
class InputBuffer {
 public:
  InputBuffer() = default;
  explicit InputBuffer(std::string owned) : owned_(std::move(owned)), view_(owned_) {}
  InputBuffer(const void* map, std::size_t size);  // takes over a mapping of `size` bytes
  InputBuffer(InputBuffer&& other) noexcept;
  InputBuffer& operator=(InputBuffer&& other) noexcept;
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;
  ~InputBuffer();

  std::string_view view() const { return view_; }

 private:
  void release();
  std::string owned_;
  const void* map_ = nullptr;  // set when view_ is a mapping
  std::size_t map_size_ = 0;
  std::string_view view_;
};

// Throws InputError naming `path` on any failure. A file truncated by another
// process while it is mapped would fault; logs being analyzed are not written to.
InputBuffer load_input(const std::string& path, InputLimits limits = {});

}  // namespace btaudit
