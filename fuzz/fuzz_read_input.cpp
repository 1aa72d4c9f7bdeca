// libFuzzer target for the read path: bytes -> file -> read_input, which
// sniffs gzip/xz/zstd magic and decompresses. The input goes through a memfd
// so that the real open/fstat/read code runs, not a test double.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "input/input_error.h"
#include "input/read_input.h"
#include "memfd_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  MemFile file("fuzz_read_input");
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
