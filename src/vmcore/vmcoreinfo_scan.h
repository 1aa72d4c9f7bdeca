// The kernel's VMCOREINFO text found in a dump's memory, for dumps written without the note.
//
// A kernel built with kdump support (CONFIG_CRASH_CORE, later VMCORE_INFO) writes its
// VMCOREINFO at boot into memory of its own (kernel/vmcore_info.c, crash_core.c before 6.9,
// kexec_core.c before 4.13): vmcoreinfo_data, a zeroed page since 4.13 (a .bss array before),
// and the ELF note made from it (vmcoreinfo_note, "VMCOREINFO\0" then the same text). The text
// opens with "OSRELEASE=<release>\n" (crash_save_vmcoreinfo_init's first line), is made of
// "KEY=value" lines and ends at the first NUL, within VMCOREINFO_BYTES (a page).
// kdump's capture kernel and makedumpfile copy it into the dump; QEMU's dump-guest-memory
// does only when the guest has a vmcoreinfo device (virsh dump without <vmcoreinfo/>, older
// QEMU: none). Without it no tool can tell the KASLR offset or the page tables' root, yet the
// text is still in the dump's memory: these functions find it there.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace btaudit {

struct VmcoreinfoCandidate {
  std::uint64_t phys = 0;  // physical address of its first byte
  std::string text;        // up to its terminating NUL
};

// Whether `text` reads as a VMCOREINFO the kernel wrote: "OSRELEASE=" and a release first,
// then only "KEY=value" lines of printable bytes, among them PAGESIZE= and a SYMBOL(...)=
// line, all within a page.
bool plausible_vmcoreinfo(std::string_view text);

// Appends to `out` every plausible VMCOREINFO text that starts in `bytes` (whose first byte
// is at physical address `phys`) and ends in it; a text already in `out` is not added again.
// A text may start anywhere: at a page's start (4.13+), after the note's name, or where the
// linker put the .bss array of older kernels, after whatever variable precedes it. (What is
// used is decided by the caller, who checks the release against init_uts_ns.) Stops once
// `out` holds `cap` texts.
void find_vmcoreinfo_texts(std::span<const std::uint8_t> bytes, std::uint64_t phys,
                           std::vector<VmcoreinfoCandidate>& out, std::size_t cap);

// The value of `key` in a VMCOREINFO text ("KEY=value" lines), empty when there is none.
std::string_view vmcoreinfo_value(std::string_view text, std::string_view key);

}  // namespace btaudit
