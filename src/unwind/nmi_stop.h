// The frames of a CPU that kdump stopped with an NMI.
//
// When a kernel panics with a capture kernel loaded, the panicking CPU stops the others with an
// NMI (nmi_shootdown_cpus(), arch/x86/kernel/reboot.c). Each runs crash_nmi_callback() on its NMI
// stack: kdump_nmi_callback() saves the registers the NMI interrupted into crash_notes (the
// pt_regs the NMI entry pushed, copied field for field), then the CPU halts in
// crash_nmi_callback() and never leaves. The dump's registers for that CPU are thus the
// interrupted context's; nothing points at the NMI handler's own frames, which crash's `bt`
// lists and drgn does not.
//
// They are found the way crash finds them, made checkable: the pt_regs on the NMI stack equal to
// the dump's registers (all 21 words), then the highest slot below it holding a return address
// inside the stopping handler, accepted only when the kernel's unwinder (ORC, or the frame-pointer
// chain from the frame pointer the handler's callee saved below it), started there, reaches that
// very pt_regs. The handler's frame is stamped Trust::NmiStopHandler; the rest of the walk is the
// unwinder's as on any stack. The handler's offset is that of the last call it made (the
// paravirt halt, or on a kernel where halt() is inline, the call before it).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "memory/memory_source.h"
#include "unwind/stack_walk.h"

namespace btaudit {

// The address of the highest pt_regs in `stack` whose 21 words (r15 .. ss, struct pt_regs'
// order, which is also NT_PRSTATUS's) equal `regs` wherever `regs` names them; `regs` must name
// rip and rsp. Nullopt when none matches or the stack cannot be read.
std::optional<std::uint64_t> find_saved_pt_regs(std::span<const std::uint8_t> stack, std::uint64_t stack_begin,
                                                const std::map<std::string, std::uint64_t>& regs);

struct NmiStopQuery {
  WalkInput base;                 // the CPU's walk input (stacks, ORC, text), its regs the dump's
  StackRange nmi;                 // the CPU's NMI stack
  std::uint64_t handler = 0;      // the stopping handler's first byte (runtime address)
  std::uint64_t handler_end = 0;  // one past its last byte
};

// The CPU's walk from the stopping handler's frame through the NMI's pt_regs into the stack the
// NMI interrupted, or nullopt when no candidate's chain reaches the pt_regs.
std::optional<WalkResult> walk_from_nmi_stop(MemorySource& m, const NmiStopQuery& q);

}  // namespace btaudit
