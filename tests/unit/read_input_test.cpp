// read_input: plain files, gzip/xz/zstd by magic bytes, and the errors a user
// meets (missing file, directory, truncated or corrupt archive, size cap).
// Compressed inputs are made here with the real zlib/liblzma/libzstd and the
// real gzip/xz/zstd commands, so the decoder is tested against what users feed it.
#include "input/read_input.h"

#include <fcntl.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include "input/input_error.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using btaudit::Compression;
using btaudit::InputError;
using btaudit::InputLimits;
using namespace std::string_literals;

namespace {

// The function under test; a plain name because the suite's namespace is called read_input.
std::string read_file(const std::string& path, InputLimits limits = {}) { return btaudit::read_input(path, limits); }

// Every TempDir of this file is named after it.
class TempDir : public btaudit::testing::TempDir {
 public:
  TempDir() : btaudit::testing::TempDir("btaudit-read-input") {}
};

// A console log big enough to need several decoder output buffers (64 KiB each).
std::string sample_log() {
  std::string s;
  for (int i = 0; s.size() < std::size_t{300} * 1024; ++i) {
    s += "[  " + std::to_string(1000 + i) + ".123456]  ? do_syscall_64+0x" + std::to_string(i % 97) + "/0x90\n";
  }
  return s;
}

std::string gzip_bytes(std::string_view in) {
  z_stream zs{};
  BOOST_REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);  // +16: gzip wrapper
  std::string out(deflateBound(&zs, static_cast<uLong>(in.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  BOOST_REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string xz_bytes(std::string_view in) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  std::size_t pos = 0;
  BOOST_REQUIRE(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const std::uint8_t*>(in.data()),
                                        in.size(), reinterpret_cast<std::uint8_t*>(out.data()), &pos,
                                        out.size()) == LZMA_OK);
  out.resize(pos);
  return out;
}

// With a content checksum, as the zstd command writes by default, so corruption is detectable.
std::string zstd_bytes(std::string_view in) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  BOOST_REQUIRE(cctx != nullptr);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
  ZSTD_freeCCtx(cctx);
  BOOST_REQUIRE(!ZSTD_isError(n));
  out.resize(n);
  return out;
}

// A zstd frame written by the streaming API without a pledged size: no content size in the header.
std::string zstd_stream_bytes(std::string_view in) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  BOOST_REQUIRE(cctx != nullptr);
  std::string out(ZSTD_compressBound(in.size()) + 1024, '\0');
  ZSTD_inBuffer inb{in.data(), in.size(), 0};
  ZSTD_outBuffer outb{out.data(), out.size(), 0};
  std::size_t left = 1;
  while (left != 0) {
    left = ZSTD_compressStream2(cctx, &outb, &inb, ZSTD_e_end);
    BOOST_REQUIRE(!ZSTD_isError(left));
  }
  ZSTD_freeCCtx(cctx);
  out.resize(outb.pos);
  return out;
}

// Runs `fn`, which must throw InputError naming `path` and mentioning `words`.
void expect_input_error(const std::string& path, const std::function<void()>& fn, std::string_view words) {
  try {
    fn();
    BOOST_ERROR("no InputError for " << path);
  } catch (const InputError& e) {
    const std::string what = e.what();
    BOOST_TEST(e.path() == path);
    BOOST_TEST(what.starts_with(path + ": "), "message does not start with the path: " << what);
    BOOST_TEST(what.find(words) != std::string::npos, "'" << words << "' not in: " << what);
  }
}

// Runs a shell command (the real gzip/xz/zstd tools) and requires success.
void run(const std::string& command) { BOOST_REQUIRE_MESSAGE(std::system(command.c_str()) == 0, command); }

// Restores standard input after a test replaced it.
class StdinFrom {
 public:
  explicit StdinFrom(const std::string& path) : saved_(::dup(STDIN_FILENO)) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    BOOST_REQUIRE(fd >= 0 && saved_ >= 0);
    ::dup2(fd, STDIN_FILENO);
    ::close(fd);
  }
  StdinFrom(const StdinFrom&) = delete;
  StdinFrom& operator=(const StdinFrom&) = delete;
  ~StdinFrom() {
    ::dup2(saved_, STDIN_FILENO);
    ::close(saved_);
  }

 private:
  int saved_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(read_input)

// xz magic is FD '7' 'z' 'X' 'Z' 00; the '7' is written \x37 because a literal 7 would extend the \xfd escape.
BOOST_AUTO_TEST_CASE(detect_compression_by_magic_bytes_only) {
  BOOST_TEST((btaudit::detect_compression("\x1f\x8b\x08") == Compression::Gzip));
  BOOST_TEST((btaudit::detect_compression("\xfd\x37zXZ\0\0"s) == Compression::Xz));
  BOOST_TEST((btaudit::detect_compression("\x28\xb5\x2f\xfd\x00"s) == Compression::Zstd));
  BOOST_TEST((btaudit::detect_compression("") == Compression::None));
  BOOST_TEST((btaudit::detect_compression("\x1f") == Compression::None));        // too short for gzip
  BOOST_TEST((btaudit::detect_compression("\xfd\x37zX") == Compression::None));  // too short for xz
  BOOST_TEST((btaudit::detect_compression("[    0.000000] Linux version") == Compression::None));
}

BOOST_AUTO_TEST_CASE(plain_file_is_returned_byte_for_byte) {
  TempDir dir;
  const std::string bytes = "line one\r\n\0binary\xff\xfe no newline at end"s;
  BOOST_TEST(read_file(dir.file("plain.log", bytes)) == bytes);
  BOOST_TEST(read_file(dir.file("empty.log", "")).empty());
}

BOOST_AUTO_TEST_CASE(compression_is_found_by_content_not_name) {
  TempDir dir;
  const std::string log = sample_log();
  BOOST_TEST(read_file(dir.file("looks-plain.txt", gzip_bytes(log))) == log);
  BOOST_TEST(read_file(dir.file("looks-gzip.gz", "just text\n")) == "just text\n");
}

BOOST_AUTO_TEST_CASE(gzip_round_trip_with_zlib) {
  TempDir dir;
  const std::string log = sample_log();
  BOOST_TEST(read_file(dir.file("a.log.gz", gzip_bytes(log))) == log);
  BOOST_TEST(read_file(dir.file("empty.gz", gzip_bytes(""))).empty());
}

BOOST_AUTO_TEST_CASE(gzip_concatenated_members_are_all_read) {
  TempDir dir;
  BOOST_TEST(read_file(dir.file("two.gz", gzip_bytes("first\n") + gzip_bytes("second\n"))) == "first\nsecond\n");
}

BOOST_AUTO_TEST_CASE(xz_round_trip_with_liblzma) {
  TempDir dir;
  const std::string log = sample_log();
  BOOST_TEST(read_file(dir.file("a.log.xz", xz_bytes(log))) == log);
  BOOST_TEST(read_file(dir.file("two.xz", xz_bytes("first\n") + xz_bytes("second\n"))) == "first\nsecond\n");
}

BOOST_AUTO_TEST_CASE(zstd_round_trip_with_libzstd) {
  TempDir dir;
  const std::string log = sample_log();
  BOOST_TEST(read_file(dir.file("a.log.zst", zstd_bytes(log))) == log);
  BOOST_TEST(read_file(dir.file("stream.zst", zstd_stream_bytes(log))) == log);
  BOOST_TEST(read_file(dir.file("two.zst", zstd_bytes("first\n") + zstd_bytes("second\n"))) == "first\nsecond\n");
  BOOST_TEST(read_file(dir.file("empty.zst", zstd_bytes(""))).empty());
}

BOOST_AUTO_TEST_CASE(files_written_by_the_gzip_xz_zstd_commands) {
  TempDir dir;
  const std::string log = sample_log();
  const std::string plain = dir.file("console.log", log);
  const std::string p = "'" + plain + "'";
  run("gzip -9 -c " + p + " > " + p + ".gz");  // gzip records the file name: FNAME header field
  run("xz -c " + p + " > " + p + ".xz");
  run("zstd -q -c " + p + " > " + p + ".zst");
  run("zstd -q -c --no-check " + p + " > " + p + ".nocheck.zst");
  run("gzip -c " + p + " > " + p + ".cat.gz && gzip -c " + p + " >> " + p + ".cat.gz");
  BOOST_TEST(read_file(plain + ".gz") == log);
  BOOST_TEST(read_file(plain + ".xz") == log);
  BOOST_TEST(read_file(plain + ".zst") == log);
  BOOST_TEST(read_file(plain + ".nocheck.zst") == log);
  BOOST_TEST(read_file(plain + ".cat.gz") == log + log);
}

BOOST_AUTO_TEST_CASE(truncated_compressed_data_is_an_error_naming_the_file) {
  TempDir dir;
  const std::string log = sample_log();
  const struct {
    const char* name;
    std::string bytes;
  } formats[] = {{"gz", gzip_bytes(log)}, {"xz", xz_bytes(log)}, {"zst", zstd_bytes(log)}};
  for (const auto& f : formats) {
    // Cut in the middle, just before the end (trailer/checksum), and right after the magic.
    for (const std::size_t keep : {f.bytes.size() / 2, f.bytes.size() - 1, std::size_t{6}}) {
      BOOST_TEST_CONTEXT(f.name << " cut to " << keep << " bytes") {
        const std::string path = dir.file("cut-" + std::to_string(keep) + "." + f.name, f.bytes.substr(0, keep));
        expect_input_error(
            path, [&] { read_file(path); }, "");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(truncation_is_named_as_such) {
  TempDir dir;
  const std::string log = sample_log();
  const std::string gz = dir.file("t.gz", gzip_bytes(log).substr(0, 1000));
  expect_input_error(
      gz, [&] { read_file(gz); }, "truncated gzip");
  const std::string xz = dir.file("t.xz", xz_bytes(log).substr(0, 1000));
  expect_input_error(
      xz, [&] { read_file(xz); }, "truncated xz");
  const std::string zst = dir.file("t.zst", zstd_bytes(log).substr(0, 1000));
  expect_input_error(
      zst, [&] { read_file(zst); }, "truncated zstd");
}

BOOST_AUTO_TEST_CASE(corrupt_compressed_data_is_an_error_naming_the_file) {
  TempDir dir;
  const std::string log = sample_log();
  const struct {
    const char* name;
    std::string bytes;
    std::size_t header;  // bytes to leave alone so the magic still matches
  } formats[] = {{"gz", gzip_bytes(log), 10}, {"xz", xz_bytes(log), 12}, {"zst", zstd_bytes(log), 6}};
  std::mt19937 rng(20261129);  // fixed seed: a failure is reproducible
  for (const auto& f : formats) {
    for (int round = 0; round < 8; ++round) {
      std::string bad = f.bytes;
      std::uniform_int_distribution<std::size_t> at(f.header, bad.size() - 1);
      for (int k = 0; k < 4; ++k) bad[at(rng)] ^= static_cast<char>(0x5a);
      BOOST_TEST_CONTEXT(f.name << " round " << round) {
        const std::string path = dir.file("bad-" + std::to_string(round) + "." + f.name, bad);
        expect_input_error(
            path, [&] { read_file(path); }, "");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(garbage_after_the_magic_is_corrupt) {
  TempDir dir;
  const std::string gz = dir.file("g.gz", "\x1f\x8b\x08\x00"s + std::string(64, '\xee'));
  expect_input_error(
      gz, [&] { read_file(gz); }, "gzip");
  const std::string xz = dir.file("g.xz", "\xfd\x37zXZ\0"s + std::string(64, '\xee'));
  expect_input_error(
      xz, [&] { read_file(xz); }, "xz");
  const std::string zst = dir.file("g.zst", "\x28\xb5\x2f\xfd"s + std::string(64, '\xee'));
  expect_input_error(
      zst, [&] { read_file(zst); }, "zstd");
}

BOOST_AUTO_TEST_CASE(missing_file_is_an_error_naming_it) {
  TempDir dir;
  const std::string path = (dir.path() / "no-such.log").string();
  expect_input_error(
      path, [&] { read_file(path); }, "cannot open");
  expect_input_error(
      path, [&] { read_file(path); }, "No such file");
}

BOOST_AUTO_TEST_CASE(directory_is_an_error_naming_it) {
  TempDir dir;
  const std::string path = dir.path().string();
  expect_input_error(
      path, [&] { read_file(path); }, "is a directory");
}

BOOST_AUTO_TEST_CASE(size_cap_applies_to_plain_files) {
  TempDir dir;
  InputLimits limits;
  limits.max_bytes = 1000;
  const std::string exact = dir.file("exact.log", std::string(1000, 'x'));
  BOOST_TEST(read_file(exact, limits).size() == 1000u);
  const std::string over = dir.file("over.log", std::string(1001, 'x'));
  expect_input_error(
      over, [&] { read_file(over, limits); }, "limit");
}

BOOST_AUTO_TEST_CASE(size_cap_stops_decompression_bombs) {
  TempDir dir;
  const std::string zeros(8 << 20, '\0');  // 8 MiB that compress to a few KiB
  InputLimits limits;
  limits.max_bytes = 1 << 20;
  const struct {
    const char* name;
    std::string bytes;
  } formats[] = {{"gz", gzip_bytes(zeros)}, {"xz", xz_bytes(zeros)}, {"zst", zstd_bytes(zeros)}};
  for (const auto& f : formats) {
    BOOST_TEST_CONTEXT(f.name) {
      BOOST_TEST(f.bytes.size() < limits.max_bytes);  // the cap is on the output, not the file
      const std::string path = dir.file(std::string("bomb.") + f.name, f.bytes);
      expect_input_error(
          path, [&] { read_file(path, limits); }, "limit");
      BOOST_TEST(read_file(path).size() == zeros.size());  // the default cap lets it through
    }
  }
}

BOOST_AUTO_TEST_CASE(dash_reads_standard_input_plain_and_compressed) {
  TempDir dir;
  const std::string log = sample_log();
  {
    StdinFrom in(dir.file("plain.log", log));
    BOOST_TEST(read_file("-") == log);
  }
  {
    StdinFrom in(dir.file("c.log.zst", zstd_bytes(log)));
    BOOST_TEST(read_file("-") == log);
  }
}

// Bombs of concatenated members (every format decodes them one after another):
// past the first pass's 64 MiB the output is only counted, and an input under the
// cap that got there is decoded a second time, whole.
BOOST_AUTO_TEST_CASE(an_input_between_the_first_pass_and_the_cap_comes_back_whole) {
  TempDir dir;
  const std::string mib(1 << 20, 'z');
  InputLimits limits;
  limits.max_bytes = std::size_t{96} << 20;
  const struct {
    const char* name;
    std::string member;
  } formats[] = {{"gz", gzip_bytes(mib)}, {"xz", xz_bytes(mib)}, {"zst", zstd_bytes(mib)}};
  for (const auto& f : formats) {
    BOOST_TEST_CONTEXT(f.name) {
      std::string bomb;
      for (int i = 0; i < 80; ++i) bomb += f.member;  // 80 MiB: past 64, under 96
      const std::string path = dir.file(std::string("80m.") + f.name, bomb);
      const btaudit::InputBuffer in = btaudit::load_input(path, limits);
      BOOST_TEST(in.view().size() == std::size_t{80} << 20);
      BOOST_TEST(in.view().find_first_not_of('z') == std::string_view::npos);
      for (int i = 0; i < 40; ++i) bomb += f.member;  // 120 MiB: past the cap
      const std::string over = dir.file(std::string("120m.") + f.name, bomb);
      expect_input_error(
          over, [&] { btaudit::load_input(over, limits); }, "too large");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_zstd_frame_that_declares_more_than_the_cap_is_refused_unread) {
  TempDir dir;
  InputLimits limits;
  limits.max_bytes = 1 << 20;
  const std::string path = dir.file("declared.zst", zstd_bytes(std::string(2 << 20, 'a')));  // size in the frame
  expect_input_error(
      path, [&] { read_file(path, limits); }, "too large");
}

// A mapped log cut by another process while it is read: the pages past the new
// end read as zeros instead of killing the process with SIGBUS, and the buffer says so.
BOOST_AUTO_TEST_CASE(a_mapped_log_cut_while_it_is_read_says_so) {
  TempDir dir;
  const std::string log(8 << 20, 'x');  // mapped: 4 MiB and more
  const std::string path = dir.file("cut.log", log);
  const btaudit::InputBuffer in = btaudit::load_input(path);
  BOOST_TEST(!in.read_failed());
  BOOST_REQUIRE(::truncate(path.c_str(), 1 << 20) == 0);
  std::size_t xs = 0;
  for (std::size_t i = 0; i < in.view().size(); i += 4096) xs += in.view()[i] == 'x';
  BOOST_TEST(xs == std::size_t{1} << 8);  // the first MiB
  BOOST_TEST(in.read_failed());
}

// Pages let go behind the reader come back when a report still viewing them is read
// again: release_before bounds memory, never the bytes a view sees.
BOOST_AUTO_TEST_CASE(a_mapped_log_reads_the_same_after_its_pages_are_let_go) {
  TempDir dir;
  std::string log;
  for (int i = 0; log.size() < (std::size_t{9} << 20); ++i) log += "line " + std::to_string(i) + "\n";
  const std::string path = dir.file("big.log", log);
  btaudit::InputBuffer in = btaudit::load_input(path);
  const std::string_view v = in.view();
  BOOST_REQUIRE_EQUAL(v.size(), log.size());
  for (const std::size_t at : {std::size_t{0}, std::size_t{4095}, std::size_t{5} << 20, v.size()})
    in.release_before(v.data() + at);
  in.release_before(v.data() + 12);  // backwards: nothing to do
  BOOST_TEST(v == std::string_view(log));
  BOOST_TEST(!in.read_failed());
}

// Buffers that are not file mappings keep their bytes: anonymous pages let go
// would read back as zeros.
BOOST_AUTO_TEST_CASE(an_owned_buffer_ignores_release) {
  btaudit::InputBuffer in(std::string(64 << 10, 'y'));
  in.release_before(in.view().data() + in.view().size());
  BOOST_TEST(in.view() == std::string(64 << 10, 'y'));
}

BOOST_AUTO_TEST_SUITE_END()
