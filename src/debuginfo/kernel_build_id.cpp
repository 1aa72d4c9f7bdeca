#include "debuginfo/kernel_build_id.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <lz4.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <vector>

namespace btaudit {

namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string to_hex(const std::uint8_t* p, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(kHex[p[i] >> 4]);
    s.push_back(kHex[p[i] & 15]);
  }
  return s;
}

template <typename T>
std::optional<T> load(std::string_view b, std::uint64_t at) {
  T v;
  if (at > b.size() || b.size() - at < sizeof v) return std::nullopt;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

std::uint64_t align4(std::uint64_t v) { return (v + 3) & ~std::uint64_t{3}; }

// The GNU build id among the notes in [at, at + size) of `b`.
std::optional<std::string> build_id_in_notes(std::string_view b, std::uint64_t at, std::uint64_t size) {
  const std::uint64_t end = at + size;
  if (end < at || end > b.size()) return std::nullopt;
  while (at + sizeof(Elf64_Nhdr) <= end) {
    const auto n = load<Elf64_Nhdr>(b, at);
    at += sizeof(Elf64_Nhdr);
    const std::uint64_t name_at = at, desc_at = at + align4(n->n_namesz);
    at = desc_at + align4(n->n_descsz);
    if (at > end || desc_at > end) return std::nullopt;
    if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && b.substr(name_at, 4) == std::string_view("GNU\0", 4) &&
        n->n_descsz > 0 && n->n_descsz <= 64)
      return to_hex(reinterpret_cast<const std::uint8_t*>(b.data() + desc_at), n->n_descsz);
  }
  return std::nullopt;
}

// How many bytes of an ELF64 image hold its program headers and PT_NOTE segments;
// 0 while even the ELF header is not there yet.
std::uint64_t notes_end(std::string_view image) {
  const auto eh = load<Elf64_Ehdr>(image, 0);
  if (!eh) return 0;
  const std::uint64_t headers = eh->e_phoff + std::uint64_t{eh->e_phnum} * sizeof(Elf64_Phdr);
  std::uint64_t end = headers;
  for (std::uint64_t i = 0; i < eh->e_phnum && image.size() >= headers; ++i) {
    const auto ph = load<Elf64_Phdr>(image, eh->e_phoff + i * sizeof(Elf64_Phdr));
    if (ph && ph->p_type == PT_NOTE) end = std::max(end, ph->p_offset + ph->p_filesz);
  }
  return end;
}

// Unpacks `in` chunk by chunk into `out` until enough(out) or the end; false on a format error.
using Enough = std::function<bool(const std::string&)>;

bool gunzip(std::string_view in, std::string& out, const Enough& enough, std::uint64_t cap) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return false;
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::vector<char> chunk(1 << 20);
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - z.avail_out);
    if (enough(out) || out.size() > cap || rc == Z_STREAM_END) return true;
    if (rc != Z_OK) return rc == Z_BUF_ERROR && !out.empty();
  }
}

bool unxz(std::string_view in, std::string& out, const Enough& enough, std::uint64_t cap) {
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK) return false;
  std::unique_ptr<lzma_stream, void (*)(lzma_stream*)> guard(&s, lzma_end);
  s.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  s.avail_in = in.size();
  std::vector<std::uint8_t> chunk(1 << 20);
  for (;;) {
    s.next_out = chunk.data();
    s.avail_out = chunk.size();
    const lzma_ret rc = lzma_code(&s, LZMA_FINISH);
    out.append(reinterpret_cast<const char*>(chunk.data()), chunk.size() - s.avail_out);
    if (enough(out) || out.size() > cap || rc == LZMA_STREAM_END) return true;
    if (rc != LZMA_OK) return !out.empty();  // the kernel appends its size after the stream
  }
}

bool unzstd(std::string_view in, std::string& out, const Enough& enough, std::uint64_t cap) {
  std::unique_ptr<ZSTD_DStream, std::size_t (*)(ZSTD_DStream*)> d(ZSTD_createDStream(), ZSTD_freeDStream);
  if (!d) return false;
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  std::vector<char> chunk(ZSTD_DStreamOutSize());
  while (src.pos < src.size) {
    ZSTD_outBuffer dst{chunk.data(), chunk.size(), 0};
    const std::size_t rc = ZSTD_decompressStream(d.get(), &dst, &src);
    out.append(chunk.data(), dst.pos);
    if (enough(out) || out.size() > cap || rc == 0) return true;
    if (ZSTD_isError(rc)) return !out.empty();
  }
  return true;
}

// The kernel's lz4 "legacy" frames (lib/decompress_unlz4.c): the magic, then blocks
// of a 32-bit little-endian compressed size and data, each unpacking to at most 8 MiB.
bool unlz4_legacy(std::string_view in, std::string& out, const Enough& enough, std::uint64_t cap) {
  constexpr int kBlock = 8 << 20;
  std::uint64_t at = 4;
  std::vector<char> chunk(kBlock);
  while (at + 4 <= in.size()) {
    const auto size = load<std::uint32_t>(in, at);
    at += 4;
    if (*size == 0x184c2102) continue;  // a frame magic again: concatenated frames
    if (*size > in.size() - at || *size > static_cast<std::uint32_t>(LZ4_compressBound(kBlock)))
      return !out.empty();  // the size trailer the kernel appends, or the end
    const int n = LZ4_decompress_safe(in.data() + at, chunk.data(), static_cast<int>(*size), kBlock);
    if (n < 0) return false;
    out.append(chunk.data(), static_cast<std::size_t>(n));
    at += *size;
    if (enough(out) || out.size() > cap) return true;
  }
  return true;
}

std::optional<std::string> read_file(const std::string& path, std::uint64_t cap) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string s;
  std::vector<char> buf(1 << 20);
  while (in && s.size() <= cap) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    s.append(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  return s;
}

}  // namespace

std::optional<std::string> elf_image_build_id(std::string_view image) {
  const auto eh = load<Elf64_Ehdr>(image, 0);
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return std::nullopt;
  for (std::uint64_t i = 0; i < eh->e_phnum; ++i) {
    const auto ph = load<Elf64_Phdr>(image, eh->e_phoff + i * sizeof(Elf64_Phdr));
    if (!ph) return std::nullopt;
    if (ph->p_type != PT_NOTE) continue;
    if (auto id = build_id_in_notes(image, ph->p_offset, ph->p_filesz)) return id;
  }
  return std::nullopt;
}

BuildIdResult kernel_image_build_id(const std::string& path, std::uint64_t max_unpacked) {
  BuildIdResult r;
  // A bzImage is some 10-50 MB; a plain vmlinux may be larger, and only its headers and notes are needed.
  const auto file = read_file(path, max_unpacked);
  if (!file) {
    r.problem = path + ": cannot read";
    return r;
  }
  const std::string_view f = *file;
  if (f.starts_with(ELFMAG)) {
    r.build_id = elf_image_build_id(f);
    if (!r.build_id) r.problem = path + ": an ELF file without a GNU build id note";
    return r;
  }
  // Documentation/arch/x86/boot.rst: "HdrS" at 0x202, protocol 2.08+ for payload_offset/length.
  const auto magic = load<std::uint32_t>(f, 0x202);
  const auto version = load<std::uint16_t>(f, 0x206);
  const auto setup_sects = load<std::uint8_t>(f, 0x1f1);
  const auto payload_offset = load<std::uint32_t>(f, 0x248);
  const auto payload_length = load<std::uint32_t>(f, 0x24c);
  if (!magic || *magic != 0x53726448 || !version || !setup_sects || !payload_offset || !payload_length) {
    r.problem = path + ": neither an ELF vmlinux nor an x86 bzImage";
    return r;
  }
  if (*version < 0x208) {
    r.problem = path + ": boot protocol older than 2.08 names no payload";
    return r;
  }
  const std::uint64_t start = (std::uint64_t{*setup_sects == 0 ? 4u : *setup_sects} + 1) * 512 + *payload_offset;
  if (start > f.size() || *payload_length > f.size() - start) {
    r.problem = path + ": the bzImage payload lies outside the file";
    return r;
  }
  const std::string_view payload = f.substr(start, *payload_length);
  std::string out;
  const Enough enough = [](const std::string& o) {
    const std::uint64_t need = notes_end(o);
    return need > 0 && o.size() >= need && o.size() >= sizeof(Elf64_Ehdr);
  };
  bool ok = false;
  const char* format = nullptr;
  if (payload.starts_with("\x1f\x8b")) {
    ok = gunzip(payload, out, enough, max_unpacked);
  } else if (payload.starts_with(std::string_view("\xfd"
                                                  "7zXZ\0",
                                                  6))) {
    ok = unxz(payload, out, enough, max_unpacked);
  } else if (payload.starts_with("\x28\xb5\x2f\xfd")) {
    ok = unzstd(payload, out, enough, max_unpacked);
  } else if (payload.starts_with("\x02\x21\x4c\x18")) {
    ok = unlz4_legacy(payload, out, enough, max_unpacked);
  } else if (payload.starts_with("BZh")) {
    format = "bzip2";
  } else if (payload.starts_with("\x89LZO")) {
    format = "lzo";
  } else if (payload.starts_with(std::string_view("\x5d\0\0", 3))) {
    format = "lzma";
  } else {
    format = "an unknown method";
  }
  if (format) {
    r.problem = path + ": its vmlinux is compressed with " + format + ", which btaudit does not unpack";
    return r;
  }
  if (!ok) {
    r.problem = path + ": the compressed vmlinux in it is corrupt";
    return r;
  }
  r.build_id = elf_image_build_id(out);
  if (!r.build_id) r.problem = path + ": the vmlinux in it has no GNU build id note";
  return r;
}

std::optional<ElfFileFacts> elf_file_facts(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::unique_ptr<int, void (*)(int*)> fd_guard(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  elf_version(EV_CURRENT);
  std::unique_ptr<Elf, int (*)(Elf*)> elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr), elf_end);
  std::size_t shstrndx = 0;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF || elf_getshdrstrndx(elf.get(), &shstrndx) != 0) return std::nullopt;
  ElfFileFacts facts;
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf.get(), shstrndx, sh.sh_name);
    if (name && (std::strcmp(name, ".debug_info") == 0 || std::strcmp(name, ".zdebug_info") == 0) &&
        sh.sh_type != SHT_NOBITS)
      facts.has_dwarf = true;
    if (sh.sh_type != SHT_NOTE || facts.build_id) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    facts.build_id =
        build_id_in_notes(std::string_view(static_cast<const char*>(data->d_buf), data->d_size), 0, data->d_size);
  }
  return facts;
}

}  // namespace btaudit
