// The bytes of a fuzz input as a file the real open/fstat/read/mmap code can
// open: a memfd, named /proc/self/fd/N, closed with the object.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

class MemFile {
 public:
  explicit MemFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
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
