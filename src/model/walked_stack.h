// A walked stack, from the walker to every renderer: each word the walk
// reports is one StackFrame, stamped with the trust of the method that found
// it (CPU registers, ORC, frame pointers, a pt_regs, a backlink, or the scan
// for '?' entries), later symbolized and judged in place. The stacks a
// context owns are StackRanges; the ones the walk visited, in order, are
// StackSegments; each hop between them is a Transition. Pure data.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/debug_info.h"
#include "model/stack_kind.h"
#include "model/truncation.h"
#include "model/verdict.h"

namespace btaudit {

// How a frame was found, most trusted first (Breakpad's FrameTrust, for kernel stacks).
enum class Trust {
  Registers,     // a CPU's saved registers, or the scheduler's saved frame of a switched-out task
  Orc,           // the ORC unwinder's return-address slot
  FramePointer,  // the frame-pointer chain's return-address slot
  PtRegs,        // the interrupted RIP of a pt_regs the unwinder found
  Backlink,      // the first slot after the unwinder crossed stacks through a saved stack pointer
  MachineCode,   // the slot a frame read from the function's machine code gives (unwind/code_frame.h)
  // The highest slot below an NMI's pt_regs holding a return address into the handler that stopped
  // the CPU, whose ORC chain reaches that pt_regs (unwind/nmi_stop.h).
  NmiStopHandler,
  Scan,  // a text address found by scanning the stack: what the kernel prints with '?'
};

constexpr std::string_view to_string(Trust t) {
  switch (t) {
    case Trust::Registers: return "registers";
    case Trust::Orc: return "orc";
    case Trust::FramePointer: return "frame_pointer";
    case Trust::PtRegs: return "pt_regs";
    case Trust::Backlink: return "backlink";
    case Trust::MachineCode: return "machine_code";
    case Trust::NmiStopHandler: return "nmi_stop_handler";
    case Trust::Scan: return "scan";
  }
  return "scan";
}

// One stack a CPU or task owns: its kind, its bounds, and for exception (IST)
// stacks their name ("#DF", "NMI", "#DB", "#MC", "#VC", ...).
struct StackRange {
  StackKind kind = StackKind::Unknown;  // Task, Irq or Exception
  std::string name;                     // exception stacks only
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  bool contains(std::uint64_t a) const { return a >= begin && a < end; }
  // "task", "irq", or the exception stack's name: how banners and transitions name it.
  std::string label() const { return kind == StackKind::Exception ? name : std::string(to_string(kind)); }
};

// The unwinder a kernel was built with (arch/x86/kernel/unwind_{orc,frame,guess}.c): which words
// its printed traces vouch for, and how a walk of its stacks is made.
enum class KernelUnwinder { Orc, FramePointer, Guess };

constexpr std::string_view to_string(KernelUnwinder u) {
  switch (u) {
    case KernelUnwinder::Orc: return "orc";
    case KernelUnwinder::FramePointer: return "frame_pointer";
    case KernelUnwinder::Guess: return "guess";
  }
  return "orc";
}

// How the walk came onto a stack.
enum class SegmentEntry { Start, Backlink, GuardPage };

constexpr std::string_view to_string(SegmentEntry e) {
  switch (e) {
    case SegmentEntry::Start: return "start";
    case SegmentEntry::Backlink: return "backlink";
    case SegmentEntry::GuardPage: return "guard_page";
  }
  return "start";
}

// A stack the walk visited, in visit order.
struct StackSegment {
  StackRange range;
  SegmentEntry entry = SegmentEntry::Start;
  std::uint64_t scan_from = 0;  // the first word scanned (SP, the scheduler's thread.sp, or the backlink)
};

// A hop from one stack to the next through its backlink.
struct Transition {
  std::string from, to;     // labels ("irq", "task", "NMI", "#DF", ...)
  std::uint64_t slot = 0;   // where the backlink was read
  std::uint64_t value = 0;  // the stack pointer it holds
};

struct StackFrame {
  std::uint64_t pc = 0;               // the word read (a return address), or the RIP of registers
  std::optional<std::uint64_t> slot;  // the stack address it was read from (none: the CPU's registers)
  std::optional<std::uint64_t> regs;  // a pt_regs' RIP: where that pt_regs starts
  std::uint32_t segment = 0;          // index into the walk's segments
  StackKind stack = StackKind::Unknown;
  std::optional<std::string> exception;  // "#DF", "NMI", ... on exception stacks
  Trust trust = Trust::Scan;
  bool from_regs = false;  // a RIP of registers: the exact PC, shown as a RIP: line rather than a trace entry
  // What kallsyms prints for it (%pB: a return address names the function
  // holding the byte before it; a RIP is looked up as it is).
  std::optional<std::string> function;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::optional<std::string> module;
  Verdict verdict = Verdict::Unknown;
  Reason reason = Reason::ScannedTextAddress;
  std::optional<FrameDebugInfo> debug;  // source line, inlined callers and call site, with debuginfo

  bool reliable() const { return trust != Trust::Scan; }
};

// What a CPU was doing at dump time, read from its per-CPU data: the current
// task, the IRQ stack's range and backlink word (irq_stack_end[-1]), the
// in-use flag or irq_count, and which stack its SP is on. A switched-out
// task's walk uses it too, with cpu -1.
struct CpuState {
  int cpu = 0;
  std::optional<std::uint64_t> task;
  std::optional<int> pid;
  std::optional<std::string> comm;
  std::optional<std::uint64_t> sp;
  std::string registers_from;  // "NT_PRSTATUS note" or why there are none
  std::optional<StackRange> irq_stack;
  std::optional<std::uint64_t> backlink;  // *(irq stack end - 8)
  std::optional<bool> in_use;             // hardirq_stack_inuse
  std::optional<std::int32_t> irq_count;  // irq_count (-1: free)
  std::vector<StackRange> stacks;         // every stack this CPU owns (task, irq, exception)
  std::string sp_stack = "unknown";       // the label of the one holding sp
  std::vector<std::string> problems;
};

// What a word of a stack in use is to the walk.
enum class WordRole {
  Frame,         // a text address the walk reports (a trace entry)
  RegsIp,        // the RIP slot of a pt_regs (shown as a RIP: line)
  Backlink,      // the slot a transition to the next stack was read from
  StackPointer,  // a value inside one of the context's stacks (a saved frame pointer, a pt_regs' sp)
  Data,          // anything else
};

constexpr std::string_view to_string(WordRole r) {
  switch (r) {
    case WordRole::Frame: return "frame";
    case WordRole::RegsIp: return "regs_ip";
    case WordRole::Backlink: return "backlink";
    case WordRole::StackPointer: return "stack_pointer";
    case WordRole::Data: return "data";
  }
  return "data";
}

// One word of a stack in use, from where the walk started scanning it to its top
// (crash's bt -t/-T with a judgement).
struct StackWord {
  std::uint64_t slot = 0;
  std::uint64_t value = 0;
  std::uint32_t segment = 0;
  WordRole role = WordRole::Data;
  std::optional<std::size_t> frame;  // index into the walk's frames
};

// One context's walk: a CPU's at dump time, or a switched-out task's.
struct StackWalk {
  CpuState state;
  // The kernel's unwinder: the frame-pointer one's conventions for a trace printed from a pt_regs
  // differ from ORC's (unwind_frame.c).
  KernelUnwinder unwinder = KernelUnwinder::Orc;
  std::vector<StackSegment> segments;
  std::vector<StackFrame> frames;  // in walk order, register RIPs included (from_regs)
  std::vector<Transition> transitions;
  std::vector<std::string> problems;
  std::vector<StackWord> words;       // filled for the words view only
  std::vector<Truncation> truncated;  // limits this walk's analysis reached (the call-site budget)
};

}  // namespace btaudit
