// Reads a log file a piece at a time, for a parser that streams (text/log_parser.h,
// parse_log_pieces): each piece is whole lines, in a buffer of its own that the reports
// viewing it keep alive, and buffers no report holds any more are read into again. Plain
// read(2) into reused memory costs a fraction of mapping the file: on a 200 MB log, the
// page faults of a mapping cost more CPU time than all of `grep -c ''`.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/read_input.h"

namespace btaudit {

class PieceReader {
 public:
  struct Piece {
    std::string_view text;                       // whole lines: ends just after a '\n', or where the file ends
    std::shared_ptr<const std::string> storage;  // what `text` lives in
    bool last = false;                           // the file ends with this piece
  };

  // A reader of `path` when it is an uncompressed regular file within limits.max_bytes;
  // nullptr otherwise (standard input, compressed data, an empty file, a file too large,
  // one that cannot be opened): load_input reads those, or says what is wrong with them.
  static std::unique_ptr<PieceReader> open(const std::string& path, InputLimits limits = {});
  PieceReader(const PieceReader&) = delete;
  PieceReader& operator=(const PieceReader&) = delete;
  ~PieceReader();

  // The next piece, nullopt past the last one (or after a failed read: see failed()).
  std::optional<Piece> next();
  // A read failed, or the file was shorter than it was when opened: what came out of
  // it is incomplete.
  bool failed() const { return failed_; }

 private:
  PieceReader(int fd, std::size_t size) : fd_(fd), size_(size) {}
  std::shared_ptr<std::string> buffer();
  // Reads into `buf` from byte `from` until it holds a '\n' past `from`, is full, or the file
  // ends; returns the bytes in it.
  std::size_t fill(std::string& buf, std::size_t from);

  int fd_;
  std::size_t size_;  // the file's size when opened (at most InputLimits::max_bytes): no read goes past it
  std::size_t read_ = 0;
  bool eof_ = false;
  bool failed_ = false;
  bool done_ = false;
  std::string carry_;  // the start of a line the last piece did not hold whole
  std::vector<std::shared_ptr<std::string>> pool_;
};

}  // namespace btaudit
