// What debuginfo adds to a frame: the code address it stands for, its source
// location with inlined callers, and the instruction before a return address.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace btaudit {

struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

// One inlined caller, innermost first (as `addr2line -i` lists them): the
// function the code was inlined into and the call's location there.
struct InlinedCall {
  std::string function;
  SourceLocation call;
};

enum class CallKind { Direct, Indirect, None };

struct CallSite {
  CallKind kind = CallKind::None;
  std::optional<std::uint64_t> address;  // where the call instruction starts
  std::optional<std::string> target;     // symbol a direct call goes to
  std::string insn;                      // the decoded instruction, AT&T-free Intel syntax
  // The boot-time patch that wrote the call over the file's bytes ("the ALTERNATIVE at 0x...
  // (CPU feature 9:4 absent)"), when the call is only in the patched code.
  std::optional<std::string> patched_by;
  // Decoded from a dump's text (the code as the CPU ran it, boot-time patching applied), not
  // from a vmlinux or module file.
  bool read_in_dump = false;
};

// What the machine code says about one return address (analysis/call_site_check.h
// decides it; kept here so that a run can share the answers between sessions).
struct CallSiteFinding {
  CallSite site;                                // kind None: the instruction before is not a call
  std::optional<std::uint64_t> target_address;  // a direct call's decoded target (relocated code only)
  bool decided = false;                         // false when the bytes could not be read or decoded
  // The return address follows an instruction padded with NOPs to a call's length or more: an
  // ALTERNATIVE's original, whose replacement, patched in at boot, may be a call.
  bool after_padded_original = false;
  std::string note;  // how it was decided, or why it could not be
};

// Whether a direct call's target can lead, through tail calls, to a given function.
enum class Reach { Yes, No, Unknown };

struct FrameDebugInfo {
  std::uint64_t address = 0;                      // the frame's code address in the debuginfo's layout (no KASLR)
  std::uint64_t lookup_address = 0;               // address used for lines: address - 1 for return addresses
  std::optional<std::string> innermost_function;  // where lookup_address really is, after inlining
  std::optional<SourceLocation> source;           // of the innermost function
  std::vector<InlinedCall> inlined;               // callers that inlined it, innermost first
  std::optional<CallSite> call_site;              // for return addresses
  std::optional<std::string> kallsyms;            // vmlinux frames: what kallsyms names the address ("f+0xoff/0xsize")
  bool corruption_evidence = false;               // a reliable frame whose call site check failed
  std::string note;                               // why a check could not run, when it could not
};

}  // namespace btaudit
