// Reads a log file or standard input ("-") into memory, decompressing gzip,
// xz and zstd by their magic bytes (never by file name).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "fault/fault_guard.h"

namespace btaudit {

enum class Compression { None, Gzip, Xz, Zstd };

inline constexpr std::size_t kDefaultMaxInputMiB = 1024;  // --max-input-mb of analyze and batch

struct InputLimits {
  // Size cap once decompressed: a bigger input is refused ("too large") before it is
  // all in memory, and a decompression bomb stops here.
  std::size_t max_bytes = kDefaultMaxInputMiB << 20;
};

Compression detect_compression(const std::string& head);

// Throws InputError naming `path` on any failure.
std::string read_input(const std::string& path, InputLimits limits = {});

// The bytes of one input, as read_input returns them, without a copy when it can:
// an uncompressed regular file is mapped read-only (a log of hundreds of MB costs
// as much to copy into a string as to parse). Move-only; the view lives as long as it.
// A mapped file whose pages cannot be read once parsing has begun (an I/O error, the
// file truncated meanwhile) reads as zeros instead of killing the process with
// SIGBUS, and read_failed() says so: the reader must then drop what it made of it.
// That protection covers the thread that loaded it.
class InputBuffer {
 public:
  InputBuffer() = default;
  explicit InputBuffer(std::string owned) : owned_(std::move(owned)), view_(owned_) {}
  // Takes over a mapping: of a file (`size` bytes, read-only, watched for failed reads)
  // or of anonymous memory (`mapped_bytes` of it, the first `size` in use).
  enum class Mapping { File, Anonymous };
  InputBuffer(const void* map, std::size_t size, Mapping kind = Mapping::File, std::size_t mapped_bytes = 0);
  InputBuffer(InputBuffer&& other) noexcept;
  InputBuffer& operator=(InputBuffer&& other) noexcept;
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;
  ~InputBuffer();

  std::string_view view() const { return view_; }
  bool read_failed() const;
  // The bytes before `upto` (inside view()) have been read: a file mapping drops their
  // pages from this process (they come back from the page cache if read again), so a
  // log of any size costs a window of memory, not its size. No-op for other buffers.
  void release_before(const char* upto);

 private:
  void release();
  std::string owned_;
  const void* map_ = nullptr;  // set when view_ is a mapping
  std::size_t map_size_ = 0;
  std::size_t released_ = 0;  // bytes at the start of a file mapping already let go
  std::string_view view_;
  std::unique_ptr<MappedRegion> watch_;  // set when view_ is a mapping
};

// Throws InputError naming `path` on any failure. A file truncated by another
// process while it is mapped would fault; logs being analyzed are not written to.
InputBuffer load_input(const std::string& path, InputLimits limits = {});

}  // namespace btaudit
