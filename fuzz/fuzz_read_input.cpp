// libFuzzer target for the read path: bytes -> file -> read_input, which
// sniffs gzip/xz/zstd magic and decompresses. The input goes through a memfd
// so that the real open/fstat/read code runs, not a test double.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "input/input_error.h"
#include "input/read_input.h"

namespace {

// Owns the memfd the input is written to.
class MemFile {
 public:
  MemFile() : fd_(::memfd_create("fuzz_read_input", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  ~MemFile() { ::close(fd_); }

  void write_all(const std::uint8_t* data, std::size_t size) const {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n <= 0) std::abort();
      data += n;
      size -= static_cast<std::size_t>(n);
    }
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  MemFile file;
  file.write_all(data, size);
  const std::string path = file.path();
  // A small cap keeps decompression bombs within the fuzzer's RSS limit and
  // exercises the size-limit paths of every decoder.
  btaudit::InputLimits limits;
  limits.max_bytes = std::size_t{1} << 22;
  try {
    const std::string text = btaudit::read_input(path, limits);
    const std::string head(reinterpret_cast<const char*>(data), size < 8 ? size : 8);
    if (btaudit::detect_compression(head) == btaudit::Compression::None &&
        text != std::string(reinterpret_cast<const char*>(data), size)) {
      std::fprintf(stderr, "fuzz_read_input: uncompressed input not returned as is\n");
      std::abort();
    }
  } catch (const btaudit::InputError& e) {
    // Errors are fine; an error that does not name the file is not.
    if (e.path() != path || std::string(e.what()).rfind(path, 0) != 0) {
      std::fprintf(stderr, "fuzz_read_input: InputError does not name the file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
