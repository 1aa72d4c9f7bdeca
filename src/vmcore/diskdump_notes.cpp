#include "vmcore/diskdump_notes.h"

#include <cstring>
#include <fstream>

#include "vmcore/prstatus.h"

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxNotes = 16 * 1024 * 1024;  // no real note area is larger

template <typename T>
bool get(const std::vector<char>& b, std::size_t off, T& v) {
  if (off > b.size() || b.size() - off < sizeof(T)) return false;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return true;
}

}  // namespace

std::vector<PrstatusNote> read_diskdump_prstatus(const std::string& path) {
  std::vector<PrstatusNote> out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::vector<char> header(4096);
  in.read(header.data(), static_cast<std::streamsize>(header.size()));
  if (in.gcount() < 464 || std::memcmp(header.data(), "KDUMP   ", 8) != 0) return out;
  std::int32_t version = 0, block_size = 0;
  get(header, 8, version);
  get(header, 428, block_size);
  if (version < 4 || block_size <= 0 || block_size > (1 << 20)) return out;
  std::vector<char> sub(64);
  in.clear();
  in.seekg(block_size);
  in.read(sub.data(), static_cast<std::streamsize>(sub.size()));
  if (in.gcount() < 64) return out;
  std::uint64_t note_off = 0, note_size = 0;
  get(sub, 48, note_off);
  get(sub, 56, note_size);
  if (note_size == 0 || note_size > kMaxNotes) return out;
  std::vector<char> notes(note_size);
  in.seekg(static_cast<std::streamoff>(note_off));
  in.read(notes.data(), static_cast<std::streamsize>(note_size));
  if (static_cast<std::uint64_t>(in.gcount()) != note_size) return out;
  std::size_t pos = 0;
  for (int guard = 0; guard < 65536 && pos + 12 <= notes.size(); ++guard) {
    std::uint32_t namesz = 0, descsz = 0, type = 0;
    get(notes, pos, namesz);
    get(notes, pos + 4, descsz);
    get(notes, pos + 8, type);
    const std::size_t name_at = pos + 12;
    const std::size_t desc_at = name_at + ((namesz + 3) & ~3u);
    const std::size_t next = desc_at + ((descsz + 3) & ~3u);
    if (namesz > 4096 || descsz > kMaxNotes || next > notes.size() || next <= pos) break;
    if (type == 1 && namesz >= 4 && std::memcmp(notes.data() + name_at, "CORE", 4) == 0) {
      const std::span<const std::uint8_t> desc(reinterpret_cast<const std::uint8_t*>(notes.data()) + desc_at, descsz);
      if (auto regs = parse_prstatus_desc(desc)) out.push_back(PrstatusNote{regs->pid, std::move(regs->regs)});
    }
    pos = next;
  }
  return out;
}

}  // namespace btaudit
