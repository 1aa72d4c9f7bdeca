#include "vmcore/crash_notes.h"

#include "vmcore/prstatus.h"

namespace btaudit {

namespace {

constexpr std::size_t kNoteBytes = 512;  // Elf64_Nhdr + "CORE" + struct elf_prstatus (336) fit
constexpr std::size_t kMaxCpus = 8192;   // as read_irq_state

}  // namespace

std::vector<CpuRegisters> read_crash_notes(MemorySource& m, const KernelLayout& l, std::size_t ncpus) {
  std::vector<CpuRegisters> out;
  if (!l.crash_notes) return out;
  auto percpu = m.read_u64(l.crash_notes);  // note_buf_t __percpu *: an offset from each CPU's base
  if (!percpu || !*percpu) return out;
  std::vector<std::uint8_t> buf(kNoteBytes);
  for (std::size_t cpu = 0; cpu < ncpus && cpu < kMaxCpus; ++cpu) {
    auto base = m.read_u64(l.per_cpu_offset_array + cpu * 8);
    if (!base) continue;
    const std::size_t n = m.read(*base + *percpu, buf);
    if (auto note = parse_prstatus_note(std::span(buf.data(), n)))
      out.push_back(CpuRegisters{static_cast<int>(cpu), std::move(note->regs)});
  }
  return out;
}

}  // namespace btaudit
