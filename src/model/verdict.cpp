#include "model/verdict.h"

namespace btaudit {

namespace {
struct ReasonText {
  std::string_view code;
  std::string_view description;
};

constexpr ReasonText text_of(Reason r) {
  switch (r) {
    case Reason::Unwinder:
      return {"unwinder", "printed without '?': the kernel's unwinder reached this return address"};
    case Reason::ExactUnwinder:
      return {"exact_unwinder", "this architecture's unwinder follows frame records and never guesses"};
    case Reason::FunctionStart:
      return {"function_start", "the word points at a function's first byte: a function pointer, not a return address"};
    case Reason::DuplicateOfAbove:
      return {"duplicate_of_above", "the same return address as the frame just above: a leftover copy"};
    case Reason::SkippedByUnwinder:
      return {"skipped_by_unwinder",
              "a reliable frame follows on the same stack, so the unwinder stepped over this slot"};
    case Reason::AfterChainEnd:
      return {"after_chain_end", "printed after the bottom frame of this stack: the live chain had already ended"};
    case Reason::NoCallBefore:
      return {"no_call_before",
              "the instruction before this return address is not a call: it cannot be a return address"};
    case Reason::CallTargetMismatch:
      return {"call_target_mismatch", "preceded by a direct call whose target cannot lead to the frame above"};
    case Reason::CallSitePlausible:
      return {"call_site_plausible",
              "preceded by a call that can lead to the frame above: possibly a caller the unwinder missed"};
    case Reason::ReportingPath:
      return {"reporting_path", "a live frame of the oops/WARN machinery below the faulting frame"};
    case Reason::AfterUnwinderStopped:
      return {"after_unwinder_stopped",
              "after the last reliable frame while the chain was unfinished: may be a real caller the unwinder lost"};
    case Reason::EntryCode:
      return {"entry_code", "interrupt or exception entry code, which the unwinder crosses through saved registers"};
    case Reason::NoReliableFrames:
      return {"no_reliable_frames",
              "no frame of this trace was vouched for (guess unwinder, no frame pointers, or an unwinder "
              "that never found its first frame)"};
    case Reason::NoAddress: return {"no_address", "the line names no code address"};
    case Reason::UncheckedBudget:
      return {"unchecked_budget",
              "the machine-code check did not run: the time budget ran out; the verdict is the text rules'"};
    case Reason::CpuRegisters: return {"cpu_registers", "the RIP of the CPU's registers saved at dump time"};
    case Reason::SchedulerFrame:
      return {"scheduler_frame", "the return address the scheduler saved in a switched-out task's inactive_task_frame"};
    case Reason::Orc: return {"orc", "the ORC unwinder reached this return-address slot"};
    case Reason::FramePointer: return {"frame_pointer", "the frame-pointer chain reached this return-address slot"};
    case Reason::PtRegs: return {"pt_regs", "the interrupted RIP saved in a pt_regs on this stack"};
    case Reason::Backlink:
      return {"backlink", "reached after the unwinder crossed to this stack through a saved stack pointer"};
    case Reason::MachineCodeFrame:
      return {"machine_code_frame",
              "the function's machine code gives this frame where ORC has no rule (a function objtool skipped)"};
    case Reason::NmiStopHandler:
      return {"nmi_stop_handler",
              "the NMI handler that stopped this CPU for kdump (crash_nmi_callback) returns here; its ORC chain "
              "reaches the pt_regs that hold the registers the dump gives"};
    case Reason::StaleByOrc:
      return {"stale_by_orc", "the ORC unwinder was alive past this slot and its chain went through another one"};
    case Reason::StaleByFramePointer:
      return {"stale_by_frame_pointer",
              "the frame-pointer chain was alive past this slot and went through another one"};
    case Reason::AfterStackEnd:
      return {"after_stack_end", "after the unwinder reached the end of the chain: left over from earlier calls"};
    case Reason::AfterUnwindError:
      return {"after_unwind_error", "after the unwinder failed: may be a real caller it lost"};
    case Reason::GuessUnwinder:
      return {"guess_unwinder",
              "the kernel has neither ORC nor frame pointers (CONFIG_UNWINDER_GUESS): its unwinder vouches for no "
              "word, and prints every text address of the stack with '?'"};
    case Reason::ScannedTextAddress:
      return {"scanned_text_address", "a text address on a stack no unwinder reached: nothing vouches for it"};
  }
  return {"unknown", "unknown"};
}
}  // namespace

ReasonScope reason_scope(Reason r) {
  switch (r) {
    case Reason::FunctionStart:
    case Reason::NoCallBefore:
    case Reason::CallTargetMismatch:
    case Reason::CallSitePlausible:
    case Reason::UncheckedBudget: return ReasonScope::Code;
    case Reason::CpuRegisters:
    case Reason::SchedulerFrame:
    case Reason::Orc:
    case Reason::FramePointer:
    case Reason::PtRegs:
    case Reason::Backlink:
    case Reason::MachineCodeFrame:
    case Reason::NmiStopHandler:
    case Reason::StaleByOrc:
    case Reason::StaleByFramePointer:
    case Reason::AfterStackEnd:
    case Reason::AfterUnwindError:
    case Reason::GuessUnwinder:
    case Reason::ScannedTextAddress: return ReasonScope::Dump;
    default: return ReasonScope::Text;
  }
}

std::string_view reason_code(Reason r) { return text_of(r).code; }
std::string_view reason_description(Reason r) { return text_of(r).description; }

}  // namespace btaudit
