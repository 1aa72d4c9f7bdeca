// makedumpfile's flattened format (`makedumpfile -F`, what a crashed machine
// sends over ssh to a pipe): a 4096-byte header that starts with the signature
// "makedumpfile", then records of (offset, size, data) that place the bytes of
// the real dump, ended by a record whose offset and size are both -1. Every
// number is a big-endian int64 (makedumpfile.h: makedumpfile_header,
// makedumpfile_data_header, END_FLAG_FLAT_HEADER).
//
// btaudit reassembles such a file itself, as `makedumpfile -R` would, into an
// unlinked temporary file that vanishes with its descriptor: no tool to
// install, nothing left behind, and every record is checked against the file
// and the limits below before a byte is written.
#pragma once
#include <cstdint>
#include <string>

namespace btaudit {

// An owned file descriptor: closed when it goes out of scope.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct FlattenedLimits {
  // The furthest byte a record may place: far beyond any dump (a 16 TiB machine), and
  // a corrupt offset cannot ask for an absurd file.
  std::uint64_t max_dump_end = std::uint64_t{1} << 44;
  // One record's data: makedumpfile writes at most a few MiB at a time.
  std::uint64_t max_record = std::uint64_t{1} << 30;
  // Records in all: one per buffer written, a few hundred thousand for a large dump.
  std::uint64_t max_records = std::uint64_t{1} << 26;
};

struct ReassembledDump {
  FileDescriptor fd;  // the reassembled dump, an unlinked file
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;  // the reassembled dump's size
  std::string where;        // the folder holding the unlinked file ($TMPDIR or /tmp)
};

// Whether the file at fd starts with the flattened header (signature, type 1, version 1).
bool is_flattened_dump(int fd);

// Rebuilds the dump a flattened file holds. `path` names the input in errors.
// Throws DumpError (truncated record, bad offset or size, no end marker, no room
// for the temporary file) with a one-line message naming the file.
ReassembledDump reassemble_flattened_dump(int fd, const std::string& path, const FlattenedLimits& limits = {});

}  // namespace btaudit
