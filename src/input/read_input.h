// Reads a log file or standard input ("-") into memory, decompressing gzip,
// xz and zstd by their magic bytes (never by file name).
#pragma once
#include <cstddef>
#include <string>

namespace btaudit {

enum class Compression { None, Gzip, Xz, Zstd };

struct InputLimits {
  std::size_t max_bytes = std::size_t{4} << 30;  // decompressed size cap: a zip bomb stops here
};

Compression detect_compression(const std::string& head);

// Throws InputError naming `path` on any failure.
std::string read_input(const std::string& path, InputLimits limits = {});

}  // namespace btaudit
