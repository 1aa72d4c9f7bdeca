#include "input/piece_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace btaudit {

namespace {

// Bytes read at a time into one piece. Small enough that the pieces the open reports keep
// alive (at most two each, log_parser.cpp) stay a few MB; large enough that a read(2) call
// and the partial line carried to the next piece cost nothing per byte.
constexpr std::size_t kPieceBytes = std::size_t{512} << 10;

}  // namespace

std::unique_ptr<PieceReader> PieceReader::open(const std::string& path, InputLimits limits) {
  if (path == "-") return nullptr;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  char head[8];
  const bool fits = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
                    static_cast<std::size_t>(st.st_size) <= limits.max_bytes;
  const ssize_t got = fits ? ::pread(fd, head, sizeof head, 0) : -1;
  if (got <= 0 || detect_compression(std::string(head, static_cast<std::size_t>(got))) != Compression::None) {
    ::close(fd);
    return nullptr;
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<PieceReader>(new PieceReader(fd, static_cast<std::size_t>(st.st_size)));
}

PieceReader::~PieceReader() { ::close(fd_); }

// A buffer that no piece handed out still uses, or a new one.
std::shared_ptr<std::string> PieceReader::buffer() {
  for (const auto& b : pool_)
    if (b.use_count() == 1) return b;
  auto b = std::make_shared<std::string>(kPieceBytes, '\0');
  pool_.push_back(b);
  return b;
}

std::size_t PieceReader::fill(std::string& buf, std::size_t from) {
  std::size_t n = from;
  // The file as it was when opened, as a mapping of it would have been: a log that grows
  // meanwhile is read up to that size.
  while (n < buf.size() && read_ < size_) {
    const ssize_t r = ::read(fd_, buf.data() + n, std::min(buf.size() - n, size_ - read_));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {  // an I/O error, or the file was truncated after it was opened
      failed_ = true;
      break;
    }
    n += static_cast<std::size_t>(r);
    read_ += static_cast<std::size_t>(r);
  }
  eof_ = failed_ || read_ >= size_;
  return n;
}

std::optional<PieceReader::Piece> PieceReader::next() {
  if (done_) return std::nullopt;
  std::shared_ptr<std::string> buf = buffer();
  std::size_t n = carry_.size();
  if (n > buf->size()) buf->resize(n);
  if (n != 0) std::memcpy(buf->data(), carry_.data(), n);
  carry_.clear();
  std::size_t searched = 0;  // bytes of buf known to hold no '\n'
  for (;;) {
    if (!eof_) n = fill(*buf, n);
    const void* nl = n > searched ? ::memrchr(buf->data() + searched, '\n', n - searched) : nullptr;
    if (nl != nullptr) {
      const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nl) - buf->data()) + 1;
      carry_.assign(buf->data() + end, n - end);
      n = end;
      break;
    }
    if (eof_) break;
    // A line longer than the buffer: it grows until it holds the line.
    searched = n;
    buf->resize(buf->size() * 2);
  }
  Piece p;
  p.text = std::string_view(buf->data(), n);
  p.last = eof_ && carry_.empty();
  p.storage = std::move(buf);
  done_ = p.last;
  if (n == 0 && p.last) return std::nullopt;  // nothing was left after the last line end
  return p;
}

}  // namespace btaudit
