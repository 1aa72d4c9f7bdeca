#include "input/read_input.h"

#include <fcntl.h>
#include <lzma.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "input/input_error.h"

namespace btaudit {

namespace {

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(int fd, bool owned) : fd_(fd), owned_(owned) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
  bool owned_;
};

std::string read_all(const std::string& path, int fd, std::size_t cap) {
  std::string data;
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory");
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
      // A regular file is read straight into the string, not through a bounce buffer.
      const auto size = static_cast<std::size_t>(st.st_size);
      if (size > cap) throw InputError(path, "larger than the input size limit");
      data.resize(size);
      std::size_t got = 0;
      while (got < size) {
        const ssize_t n = ::read(fd, data.data() + got, size - got);
        if (n == 0) break;
        if (n < 0) {
          if (errno == EINTR) continue;
          throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
        }
        got += static_cast<std::size_t>(n);
      }
      data.resize(got);
    }
  }
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    }
    if (data.size() + static_cast<std::size_t>(n) > cap) throw InputError(path, "larger than the input size limit");
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

std::string gunzip(const std::string& path, std::string_view in, std::size_t cap) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw InputError(path, "cannot start gzip decoder");
  std::unique_ptr<z_stream, decltype(&inflateEnd)> guard(&zs, &inflateEnd);
  std::string out;
  char buf[1 << 16];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > cap) throw InputError(path, "decompressed data exceeds the input size limit");
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // concatenated gzip members
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) throw InputError(path, "truncated gzip data");
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw InputError(path, std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "error"));
  }
  return out;
}

std::string unxz(const std::string& path, std::string_view in, std::size_t cap) {
  lzma_stream ls = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&ls, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    throw InputError(path, "cannot start xz decoder");
  std::unique_ptr<lzma_stream, decltype(&lzma_end)> guard(&ls, &lzma_end);
  std::string out;
  std::uint8_t buf[1 << 16];
  ls.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  ls.avail_in = in.size();
  for (;;) {
    ls.next_out = buf;
    ls.avail_out = sizeof buf;
    const lzma_ret rc = lzma_code(&ls, LZMA_FINISH);
    out.append(reinterpret_cast<char*>(buf), sizeof buf - ls.avail_out);
    if (out.size() > cap) throw InputError(path, "decompressed data exceeds the input size limit");
    if (rc == LZMA_STREAM_END) break;
    if (rc == LZMA_BUF_ERROR) throw InputError(path, "truncated xz data");
    if (rc != LZMA_OK) throw InputError(path, "corrupt xz data (liblzma error " + std::to_string(int(rc)) + ")");
  }
  return out;
}

std::string unzstd(const std::string& path, std::string_view in, std::size_t cap) {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!dctx) throw InputError(path, "cannot start zstd decoder");
  std::string out;
  std::string buf(ZSTD_DStreamOutSize(), '\0');
  ZSTD_inBuffer inb{in.data(), in.size(), 0};
  std::size_t last = 1;
  while (inb.pos < inb.size) {
    ZSTD_outBuffer outb{buf.data(), buf.size(), 0};
    last = ZSTD_decompressStream(dctx.get(), &outb, &inb);
    if (ZSTD_isError(last)) throw InputError(path, std::string("corrupt zstd data: ") + ZSTD_getErrorName(last));
    out.append(buf.data(), outb.pos);
    if (out.size() > cap) throw InputError(path, "decompressed data exceeds the input size limit");
    if (outb.pos == 0 && inb.pos == inb.size) break;
  }
  for (int guard = 0; last != 0 && guard < (1 << 20); ++guard) {  // drain what the decoder still holds
    ZSTD_outBuffer outb{buf.data(), buf.size(), 0};
    last = ZSTD_decompressStream(dctx.get(), &outb, &inb);
    if (ZSTD_isError(last)) throw InputError(path, std::string("corrupt zstd data: ") + ZSTD_getErrorName(last));
    out.append(buf.data(), outb.pos);
    if (out.size() > cap) throw InputError(path, "decompressed data exceeds the input size limit");
    if (outb.pos == 0) break;
  }
  if (last != 0) throw InputError(path, "truncated zstd data");
  return out;
}

std::string decompress(const std::string& path, std::string_view raw, std::size_t cap, Compression c) {
  switch (c) {
    case Compression::Gzip: return gunzip(path, raw, cap);
    case Compression::Xz: return unxz(path, raw, cap);
    case Compression::Zstd: return unzstd(path, raw, cap);
    case Compression::None: break;
  }
  return std::string(raw);
}

Compression compression_of(std::string_view head) {
  const auto* b = reinterpret_cast<const unsigned char*>(head.data());
  if (head.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b) return Compression::Gzip;
  if (head.size() >= 6 && std::memcmp(b,
                                      "\xfd"
                                      "7zXZ\0",
                                      6) == 0)
    return Compression::Xz;
  if (head.size() >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) return Compression::Zstd;
  return Compression::None;
}

}  // namespace

Compression detect_compression(const std::string& head) { return compression_of(head); }

std::string read_input(const std::string& path, InputLimits limits) {
  const bool is_stdin = path == "-";
  const int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  Fd owner(fd, !is_stdin);
  std::string raw = read_all(is_stdin ? std::string("<stdin>") : path, fd, limits.max_bytes);
  const Compression c = compression_of(raw);
  if (c == Compression::None) return raw;
  return decompress(path, raw, limits.max_bytes, c);
}

InputBuffer::InputBuffer(const void* map, std::size_t size)
    : map_(map), map_size_(size), view_(static_cast<const char*>(map), size) {}

InputBuffer::InputBuffer(InputBuffer&& other) noexcept { *this = std::move(other); }

InputBuffer& InputBuffer::operator=(InputBuffer&& other) noexcept {
  if (this == &other) return *this;
  release();
  if (other.map_) {
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    view_ = std::exchange(other.view_, {});
  } else {
    owned_ = std::move(other.owned_);
    view_ = owned_;
    other.view_ = {};
  }
  return *this;
}

InputBuffer::~InputBuffer() { release(); }

void InputBuffer::release() {
  if (map_) ::munmap(const_cast<void*>(map_), map_size_);
  map_ = nullptr;
  map_size_ = 0;
  owned_.clear();
  view_ = {};
}

InputBuffer load_input(const std::string& path, InputLimits limits) {
  if (path != "-") {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
    Fd owner(fd, true);
    struct stat st {};
    // Small files are read, not mapped: a munmap in a multi-threaded process (batch
    // workers) sends a TLB-shootdown interrupt to every CPU running it, which costs
    // more than copying a console log of a few hundred KiB.
    constexpr std::size_t kMapFrom = std::size_t{4} << 20;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) >= kMapFrom &&
        static_cast<std::size_t>(st.st_size) <= limits.max_bytes) {
      const auto size = static_cast<std::size_t>(st.st_size);
      // MAP_POPULATE maps the (usually cached) pages up front instead of one fault per page.
      void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (map != MAP_FAILED) {
        InputBuffer mapped(map, size);
        const Compression c = compression_of(mapped.view());
        if (c == Compression::None) return mapped;
        return InputBuffer(decompress(path, mapped.view(), limits.max_bytes, c));
      }
    }
    // Read through the descriptor already open (no second open of the same path).
    std::string raw = read_all(path, fd, limits.max_bytes);
    const Compression c = compression_of(raw);
    if (c == Compression::None) return InputBuffer(std::move(raw));
    return InputBuffer(decompress(path, raw, limits.max_bytes, c));
  }
  return InputBuffer(read_input(path, limits));  // standard input
}

}  // namespace btaudit
