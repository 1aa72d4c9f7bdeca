#include "render/packed_text.h"

#include <zlib.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace btaudit {

namespace {

std::string gzip(std::string_view text) {
  z_stream z{};
  // 15 + 16: a gzip wrapper, which DecompressionStream("gzip") reads. The best compression: the
  // page loads the packed text on every open, the report is written once (traces repeat a lot).
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("cannot start zlib");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, deflateEnd);
  std::string out;
  std::vector<char> chunk(1 << 16);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  std::size_t left = text.size();
  int rc = Z_OK;
  do {
    // avail_in is 32 bits: feed at most 1 GiB at a time.
    if (z.avail_in == 0 && left > 0) {
      const auto n = static_cast<uInt>(std::min<std::size_t>(left, std::size_t{1} << 30));
      z.avail_in = n;
      left -= n;
    }
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    rc = deflate(&z, left == 0 && z.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - z.avail_out);
  } while (rc != Z_STREAM_END);
  return out;
}

}  // namespace

std::string gzip_base64(std::string_view text) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string bytes = gzip(text);
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace btaudit
