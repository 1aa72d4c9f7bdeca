#include "input/read_input.h"

#include <fcntl.h>
#include <lzma.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "fault/fault_guard.h"
#include "input/input_error.h"

namespace btaudit {

namespace {

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

[[noreturn]] void too_large(const std::string& path, std::size_t cap) {
  throw InputError(path,
                   "too large: more than the input size limit of " + mib(cap) + " once decompressed (--max-input-mb)");
}

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
      if (size > cap)
        throw InputError(path, "too large: " + std::to_string(size) + " bytes, more than the input size limit of " +
                                   mib(cap) + " (--max-input-mb)");
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
    if (static_cast<std::size_t>(n) > cap - data.size())
      throw InputError(path, "too large: more than the input size limit of " + mib(cap) + " (--max-input-mb)");
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

// Where a decoder writes. The first `keep` bytes go to anonymous memory reserved
// for them and filled in place (pages backed only once written, nothing copied as
// the output grows); past `keep` the output is only counted, into a small buffer
// used over and over, until it ends or passes the cap. So a bomb is refused at the
// decoder's speed without holding more than `keep`, and an input under the cap that
// spilled past `keep` is decoded a second time, with `keep` = the cap.
class DecodeBuffer {
 public:
  DecodeBuffer(const std::string& path, std::size_t cap, std::size_t keep) : path_(path), cap_(cap), keep_(keep) {
    if (keep_ == 0) return;
    void* p = ::mmap(nullptr, keep_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw InputError(path, "too large: cannot reserve " + mib(keep) +
                                 " for the decompressed data (lower --max-input-mb): " + std::strerror(errno));
    base_ = static_cast<char*>(p);
  }
  DecodeBuffer(const DecodeBuffer&) = delete;
  DecodeBuffer& operator=(const DecodeBuffer&) = delete;
  ~DecodeBuffer() {
    if (base_) ::munmap(base_, keep_);
  }

  char* tail() {
    if (size_ < keep_) return base_ + size_;
    if (scratch_.empty()) scratch_.resize(1 << 20);
    return scratch_.data();
  }
  std::size_t room() const { return size_ < keep_ ? keep_ - size_ : std::size_t{1} << 20; }
  void grew(std::size_t n) {
    size_ += n;
    if (size_ > cap_) too_large(path_, cap_);
  }
  bool spilled() const { return size_ > keep_; }
  // The decoded bytes as an input: the mapping moves there, its unused tail is given back.
  InputBuffer take() {
    if (size_ == 0) return InputBuffer(std::string());
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t used = (size_ + page - 1) / page * page;
    if (used < keep_) ::munmap(base_ + used, keep_ - used);
    return InputBuffer(std::exchange(base_, nullptr), size_, InputBuffer::Mapping::Anonymous, used);
  }

 private:
  const std::string& path_;
  std::size_t cap_;
  std::size_t keep_;
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<char> scratch_;
};

void gunzip(const std::string& path, std::string_view in, DecodeBuffer& out) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw InputError(path, "cannot start gzip decoder");
  std::unique_ptr<z_stream, decltype(&inflateEnd)> guard(&zs, &inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  for (;;) {
    const auto room = static_cast<uInt>(std::min<std::size_t>(out.room(), 1u << 30));
    zs.next_out = reinterpret_cast<Bytef*>(out.tail());
    zs.avail_out = room;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.grew(room - zs.avail_out);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // concatenated gzip members
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) throw InputError(path, "truncated gzip data");
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw InputError(path, std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "error"));
  }
}

void unxz(const std::string& path, std::string_view in, DecodeBuffer& out) {
  lzma_stream ls = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&ls, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    throw InputError(path, "cannot start xz decoder");
  std::unique_ptr<lzma_stream, decltype(&lzma_end)> guard(&ls, &lzma_end);
  ls.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  ls.avail_in = in.size();
  for (;;) {
    const std::size_t room = out.room();
    ls.next_out = reinterpret_cast<std::uint8_t*>(out.tail());
    ls.avail_out = room;
    const lzma_ret rc = lzma_code(&ls, LZMA_FINISH);
    out.grew(room - ls.avail_out);
    if (rc == LZMA_STREAM_END) break;
    if (rc == LZMA_BUF_ERROR) throw InputError(path, "truncated xz data");
    if (rc != LZMA_OK) throw InputError(path, "corrupt xz data (liblzma error " + std::to_string(int(rc)) + ")");
  }
}

void unzstd(const std::string& path, std::string_view in, DecodeBuffer& out, std::size_t cap) {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!dctx) throw InputError(path, "cannot start zstd decoder");
  // A frame that declares its size (zstd writes it for files) is refused before a byte is decoded.
  if (const unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
      declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared > cap)
    too_large(path, cap);
  ZSTD_inBuffer inb{in.data(), in.size(), 0};
  std::size_t last = 1;
  const auto step = [&] {
    ZSTD_outBuffer outb{out.tail(), out.room(), 0};
    last = ZSTD_decompressStream(dctx.get(), &outb, &inb);
    if (ZSTD_isError(last)) throw InputError(path, std::string("corrupt zstd data: ") + ZSTD_getErrorName(last));
    out.grew(outb.pos);
    return outb.pos;
  };
  while (inb.pos < inb.size)
    if (step() == 0 && inb.pos == inb.size) break;
  for (int guard = 0; last != 0 && guard < (1 << 20); ++guard)  // drain what the decoder still holds
    if (step() == 0) break;
  if (last != 0) throw InputError(path, "truncated zstd data");
}

// What the first decoding pass keeps: compressed console logs are rarely larger once
// decompressed, and a bomb costs no more memory than this.
constexpr std::size_t kKeepFirst = std::size_t{64} << 20;

InputBuffer decompress(const std::string& path, std::string_view raw, std::size_t cap, Compression c) {
  if (c == Compression::None) return InputBuffer(std::string(raw));
  const auto decode = [&](DecodeBuffer& out) {
    switch (c) {
      case Compression::Gzip: gunzip(path, raw, out); break;
      case Compression::Xz: unxz(path, raw, out); break;
      case Compression::Zstd: unzstd(path, raw, out, cap); break;
      case Compression::None: break;
    }
  };
  try {
    DecodeBuffer first(path, cap, std::min(cap, kKeepFirst));
    decode(first);
    if (!first.spilled()) return first.take();
    DecodeBuffer whole(path, cap, cap);  // under the cap, but longer than the first pass kept
    decode(whole);
    return whole.take();
  } catch (const std::bad_alloc&) {
    // Below the cap but beyond what the process may allocate (ulimit -v, a small machine).
    throw InputError(path, "too large: the decompressed data does not fit in memory (lower --max-input-mb)");
  }
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
  return std::string(decompress(path, raw, limits.max_bytes, c).view());
}

InputBuffer::InputBuffer(const void* map, std::size_t size, Mapping kind, std::size_t mapped_bytes)
    : map_(map),
      map_size_(kind == Mapping::File ? size : mapped_bytes),
      view_(static_cast<const char*>(map), size),
      watch_(kind == Mapping::File ? std::make_unique<MappedRegion>(map, size) : nullptr) {}

InputBuffer::InputBuffer(InputBuffer&& other) noexcept { *this = std::move(other); }

InputBuffer& InputBuffer::operator=(InputBuffer&& other) noexcept {
  if (this == &other) return *this;
  release();
  if (other.map_) {
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    released_ = std::exchange(other.released_, 0);
    view_ = std::exchange(other.view_, {});
    watch_ = std::move(other.watch_);
  } else {
    owned_ = std::move(other.owned_);
    view_ = owned_;
    other.view_ = {};
  }
  return *this;
}

InputBuffer::~InputBuffer() { release(); }

bool InputBuffer::read_failed() const { return watch_ && watch_->failed(); }

void InputBuffer::release_before(const char* upto) {
  if (!map_ || !watch_) return;  // only a file mapping: anonymous pages would come back as zeros
  const char* const begin = static_cast<const char*>(map_);
  if (upto < begin || upto > begin + view_.size()) return;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t done = static_cast<std::size_t>(upto - begin) / page * page;
  if (done <= released_) return;
  // MADV_DONTNEED on a private, never-written file mapping only unmaps: a later read
  // (a report still viewing its text there) faults the page back in from the file.
  if (::madvise(const_cast<char*>(begin) + released_, done - released_, MADV_DONTNEED) == 0) released_ = done;
}

void InputBuffer::release() {
  watch_.reset();  // before the pages go: nothing to watch once unmapped
  if (map_) ::munmap(const_cast<void*>(map_), map_size_);
  map_ = nullptr;
  map_size_ = 0;
  released_ = 0;
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
      // Not MAP_POPULATE: the whole file would be resident at once. The kernel maps a
      // file's cached pages 16 at a time on a fault (fault-around), and the reader lets
      // the pages behind it go (release_before), so memory stays a window's worth.
      void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map != MAP_FAILED) {
        InputBuffer mapped(map, size);
        const Compression c = compression_of(mapped.view());
        if (c == Compression::None) return mapped;
        return decompress(path, mapped.view(), limits.max_bytes, c);
      }
    }
    // Read through the descriptor already open (no second open of the same path).
    std::string raw = read_all(path, fd, limits.max_bytes);
    const Compression c = compression_of(raw);
    if (c == Compression::None) return InputBuffer(std::move(raw));
    return decompress(path, raw, limits.max_bytes, c);
  }
  return InputBuffer(read_input(path, limits));  // standard input
}

}  // namespace btaudit
