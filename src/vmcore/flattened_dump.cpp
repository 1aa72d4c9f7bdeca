#include "vmcore/flattened_dump.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "vmcore/dump_error.h"

namespace btaudit {

namespace {

// makedumpfile.h: the signature padded with NULs to 16 bytes, then type and version.
constexpr char kSignature[16] = "makedumpfile";
constexpr std::int64_t kTypeFlat = 1;        // TYPE_FLAT_HEADER
constexpr std::int64_t kVersionFlat = 1;     // VERSION_FLAT_HEADER
constexpr std::uint64_t kHeaderSize = 4096;  // MAX_SIZE_MDF_HEADER: the records start here
constexpr std::int64_t kEndFlag = -1;        // END_FLAG_FLAT_HEADER, in both fields of the last record
constexpr std::uint64_t kCopyChunk = std::uint64_t{1} << 20;

std::int64_t big_endian_i64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return static_cast<std::int64_t>(v);
}

// Sequential reads of the flattened file through one buffer; knows its position for errors.
class RecordReader {
 public:
  RecordReader(int fd, const std::string& path) : fd_(fd), path_(path), buffer_(std::size_t{1} << 20) {}

  // Fills out completely, or returns false at a clean end of file (nothing read);
  // throws when the file ends inside out.
  bool read(std::uint8_t* out, std::size_t n, const char* what) {
    std::size_t got = 0;
    while (got < n) {
      if (begin_ == end_ && !refill()) {
        if (got == 0) return false;
        throw DumpError(path_ + ": truncated flattened dump: the file ends inside " + what + " at byte " +
                        std::to_string(position_ + got));
      }
      const std::size_t take = std::min(n - got, end_ - begin_);
      std::memcpy(out + got, buffer_.data() + begin_, take);
      begin_ += take;
      got += take;
    }
    position_ += n;
    return true;
  }

  std::uint64_t position() const { return position_; }

 private:
  bool refill() {
    for (;;) {
      const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw DumpError(path_ + ": cannot read: " + std::strerror(errno));
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
      return n > 0;
    }
  }

  int fd_;
  const std::string& path_;
  std::vector<std::uint8_t> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  std::uint64_t position_ = 0;
};

std::string temp_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

// An unlinked read-write file in `dir`: O_TMPFILE where the file system has it,
// else a named one removed at once.
FileDescriptor unlinked_file(const std::string& dir, const std::string& path) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::string name = dir + "/btaudit-flat-XXXXXX";
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0)
    throw DumpError(path + ": cannot make a temporary file in " + dir + " to reassemble the flattened dump: " +
                    std::strerror(errno) + " (set TMPDIR to a writable folder)");
  return FileDescriptor(fd);
}

[[noreturn]] void write_failed(const std::string& path, const std::string& dir, int error) {
  throw DumpError(path + ": cannot write the reassembled dump into " + dir + ": " + std::strerror(error) +
                  " (set TMPDIR to a folder with room)");
}

void write_all(int fd, const std::uint8_t* data, std::size_t n, std::uint64_t offset, const std::string& path,
               const std::string& dir) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, data, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) write_failed(path, dir, w < 0 ? errno : ENOSPC);
    data += w;
    n -= static_cast<std::size_t>(w);
    offset += static_cast<std::uint64_t>(w);
  }
}

std::string record_name(std::uint64_t record, std::uint64_t at) {
  return "record " + std::to_string(record) + " at byte " + std::to_string(at);
}

// Throws unless record number `record`, whose header starts at byte `at`, can be written.
void check_record(const std::string& path, const FlattenedLimits& limits, std::uint64_t record, std::uint64_t at,
                  std::int64_t offset, std::int64_t size) {
  const std::string corrupt = path + ": corrupt flattened dump: ";
  if (record > limits.max_records)
    throw DumpError(corrupt + "more than " + std::to_string(limits.max_records) + " records");
  if (offset < 0 || size < 0)
    throw DumpError(corrupt + record_name(record, at) + " has offset " + std::to_string(offset) + " and size " +
                    std::to_string(size));
  const auto off = static_cast<std::uint64_t>(offset);
  const auto len = static_cast<std::uint64_t>(size);
  if (len > limits.max_record)
    throw DumpError(corrupt + record_name(record, at) + " holds " + std::to_string(len) + " bytes, more than the " +
                    std::to_string(limits.max_record) + " a record may hold");
  if (off > limits.max_dump_end || len > limits.max_dump_end - off)
    throw DumpError(corrupt + record_name(record, at) + " places bytes at " + std::to_string(off) + ", beyond the " +
                    std::to_string(limits.max_dump_end) + " a dump may span");
}

[[noreturn]] void no_data(const std::string& path, std::uint64_t record, std::uint64_t at) {
  throw DumpError(path + ": truncated flattened dump: " + record_name(record, at) + " has no data");
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

bool is_flattened_dump(int fd) {
  std::array<std::uint8_t, sizeof kSignature> head{};
  return ::pread(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()) &&
         std::memcmp(head.data(), kSignature, sizeof kSignature) == 0;
}

ReassembledDump reassemble_flattened_dump(int fd, const std::string& path, const FlattenedLimits& limits) {
  if (::lseek(fd, 0, SEEK_SET) != 0) throw DumpError(path + ": cannot seek: " + std::strerror(errno));
  RecordReader in(fd, path);
  std::vector<std::uint8_t> header(kHeaderSize);
  if (!in.read(header.data(), header.size(), "the header"))
    throw DumpError(path + ": truncated flattened dump: no header");
  if (std::memcmp(header.data(), kSignature, sizeof kSignature) != 0)
    throw DumpError(path + ": not a flattened dump (no makedumpfile signature)");
  const std::int64_t type = big_endian_i64(&header[16]);
  const std::int64_t version = big_endian_i64(&header[24]);
  if (type != kTypeFlat || version != kVersionFlat)
    throw DumpError(path + ": flattened dump of type " + std::to_string(type) + " version " + std::to_string(version) +
                    "; btaudit reads type 1 version 1 (makedumpfile -F)");

  ReassembledDump out;
  out.where = temp_folder();
  out.fd = unlinked_file(out.where, path);
  std::vector<std::uint8_t> data;
  for (;;) {
    std::array<std::uint8_t, 16> record{};
    const std::uint64_t at = in.position();
    if (!in.read(record.data(), record.size(), "a record header"))
      throw DumpError(path + ": truncated flattened dump: no end marker after " + std::to_string(out.records) +
                      " records (an interrupted transfer?)");
    const std::int64_t offset = big_endian_i64(record.data());
    const std::int64_t size = big_endian_i64(record.data() + 8);
    if (offset == kEndFlag && size == kEndFlag) break;
    check_record(path, limits, out.records + 1, at, offset, size);
    const auto off = static_cast<std::uint64_t>(offset);
    const auto len = static_cast<std::uint64_t>(size);
    ++out.records;
    // Copied through a bounded buffer: a record's size is a claim, the file's bytes are the proof.
    for (std::uint64_t done = 0; done < len;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(len - done, kCopyChunk));
      data.resize(n);
      if (!in.read(data.data(), n, "a record's data")) no_data(path, out.records, at);
      write_all(out.fd.get(), data.data(), n, off + done, path, out.where);
      done += n;
    }
    out.bytes = std::max(out.bytes, off + len);
  }
  // A file that sits in the page cache, ready for libkdumpfile's reads from the start.
  ::lseek(out.fd.get(), 0, SEEK_SET);
  return out;
}

}  // namespace btaudit
