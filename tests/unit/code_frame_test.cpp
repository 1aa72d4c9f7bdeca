// A frame read from machine code (unwind/code_frame.h), on functions assembled here byte by byte
// (each line the instruction it encodes): the depth every path gives, the saved RBP's slot, and
// no answer wherever the reading could be wrong (paths that disagree, an RSP it cannot follow,
// an address inside an instruction, bytes that are no instruction).
#include "unwind/code_frame.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <vector>

namespace {

using namespace btaudit;

constexpr std::uint64_t kStart = 0xffffffff81164640;
constexpr std::uint64_t kPanic = 0xffffffff819cd000;

// call rel32 to `target`, the instruction starting at offset `at`.
std::vector<std::uint8_t> call_to(std::uint64_t at, std::uint64_t target) {
  const auto rel = static_cast<std::uint32_t>(target - (kStart + at + 5));
  return {0xe8, static_cast<std::uint8_t>(rel), static_cast<std::uint8_t>(rel >> 8),
          static_cast<std::uint8_t>(rel >> 16), static_cast<std::uint8_t>(rel >> 24)};
}

std::vector<std::uint8_t> bytes(std::initializer_list<std::vector<std::uint8_t>> lines) {
  std::vector<std::uint8_t> out;
  for (const auto& l : lines) out.insert(out.end(), l.begin(), l.end());
  return out;
}

std::optional<CodeFrame> read(const std::vector<std::uint8_t>& code, std::uint64_t offset, bool exact,
                              std::function<bool(std::uint64_t)> noreturn = {}) {
  const X86Decoder decoder;
  return frame_from_code({code, kStart, kStart + offset, exact, std::move(noreturn)}, decoder);
}

// __crash_kexec's shape in Debian 12's 6.1 (objtool skips it: STACK_FRAME_NON_STANDARD): a
// prologue, a call, and crash_setup_regs()'s block reached by a branch, which saves the flags
// with pushf / pop m64, takes its own address with lea, and jumps back.
const std::vector<std::uint8_t> kCrashKexec = bytes({
    {0x53},                                            // 0x00 push rbx
    {0x48, 0x81, 0xec, 0xb0, 0x00, 0x00, 0x00},        // 0x01 sub rsp, 0xb0
    {0x85, 0xc0},                                      // 0x08 test eax, eax
    {0x74, 0x0e},                                      // 0x0a je 0x1a
    call_to(0x0c, 0xffffffff8106c470),                 // 0x0c call machine_kexec
    {0x48, 0x81, 0xc4, 0xb0, 0x00, 0x00, 0x00},        // 0x11 add rsp, 0xb0
    {0x5b},                                            // 0x18 pop rbx
    {0xc3},                                            // 0x19 ret
    {0x9c},                                            // 0x1a pushfq
    {0x8f, 0x84, 0x24, 0x90, 0x00, 0x00, 0x00},        // 0x1b pop qword [rsp + 0x90]
    {0x48, 0x8d, 0x05, 0x00, 0x00, 0x00, 0x00},        // 0x22 lea rax, [rip]
    {0x48, 0x89, 0x84, 0x24, 0x80, 0x00, 0x00, 0x00},  // 0x29 mov [rsp + 0x80], rax
    {0xeb, 0xd9},                                      // 0x31 jmp 0x0c
});

}  // namespace

BOOST_AUTO_TEST_SUITE(code_frame)

BOOST_AUTO_TEST_CASE(TheRegistersCrashSetupRegsTakesAreAFrameOfThePrologueDepth) {
  const auto f = read(kCrashKexec, 0x29, true);
  BOOST_REQUIRE(f);
  BOOST_TEST(f->depth == 0xb8);  // push rbx + sub 0xb0; pushf and its pop cancel out
  BOOST_TEST(!f->saved_bp);
}

BOOST_AUTO_TEST_CASE(AReturnAddressTakesTheDepthOfTheCallBeforeIt) {
  const auto f = read(kCrashKexec, 0x11, false);
  BOOST_REQUIRE(f);
  BOOST_TEST(f->depth == 0xb8);
}

BOOST_AUTO_TEST_CASE(TheEpilogueUndoesThePrologue) {
  BOOST_TEST(read(kCrashKexec, 0x18, true)->depth == 8);
  BOOST_TEST(read(kCrashKexec, 0x19, true)->depth == 0);
  BOOST_TEST(read(kCrashKexec, 0x00, true)->depth == 0);
}

BOOST_AUTO_TEST_CASE(AnAddressInsideAnInstructionHasNoFrame) {
  BOOST_TEST(!read(kCrashKexec, 0x02, true));
  BOOST_TEST(!read(kCrashKexec, 0x12, false));  // no call ends there
}

BOOST_AUTO_TEST_CASE(AnAddressOutsideTheFunctionHasNoFrame) {
  BOOST_TEST(!read(kCrashKexec, kCrashKexec.size() + 1, true));
}

BOOST_AUTO_TEST_CASE(AFramePointerFunctionSavesRbpBelowTheReturnAddress) {
  const auto code = bytes({
      {0x55},                         // 0x00 push rbp
      {0x48, 0x89, 0xe5},             // 0x01 mov rbp, rsp
      {0x53},                         // 0x04 push rbx
      {0x48, 0x83, 0xec, 0x20},       // 0x05 sub rsp, 0x20
      call_to(0x09, kPanic + 0x100),  // 0x09 call
      {0x48, 0x83, 0xc4, 0x20},       // 0x0e add rsp, 0x20
      {0x5b},                         // 0x12 pop rbx
      {0xc9},                         // 0x13 leave
      {0xc3},                         // 0x14 ret
  });
  const auto inside = read(code, 0x0e, false);
  BOOST_REQUIRE(inside);
  BOOST_TEST(inside->depth == 0x30);
  BOOST_REQUIRE(inside->saved_bp);
  BOOST_TEST(*inside->saved_bp == -16);  // just below the return address
  const auto after_leave = read(code, 0x14, true);
  BOOST_REQUIRE(after_leave);
  BOOST_TEST(after_leave->depth == 0);
  BOOST_TEST(!after_leave->saved_bp);
  const auto before_push = read(code, 0x00, true);
  BOOST_TEST(!before_push->saved_bp);
}

BOOST_AUTO_TEST_CASE(AStackRealignedWithAndHasNoFrame) {
  const auto code = bytes({
      {0x55},                    // 0x00 push rbp
      {0x48, 0x89, 0xe5},        // 0x01 mov rbp, rsp
      {0x48, 0x83, 0xe4, 0xf0},  // 0x04 and rsp, -16
      {0x90},                    // 0x08 nop
      {0xc9},                    // 0x09 leave
      {0xc3},                    // 0x0a ret
  });
  BOOST_TEST(!read(code, 0x08, true));
  BOOST_TEST(!read(code, 0x01, true));  // a path through an unknown RSP may reach any address
}

BOOST_AUTO_TEST_CASE(PathsThatDisagreeGiveNoFrame) {
  const auto code = bytes({
      {0x85, 0xc0},  // 0x00 test eax, eax
      {0x74, 0x01},  // 0x02 je 0x05
      {0x50},        // 0x04 push rax
      {0x90},        // 0x05 nop: reached with 0 and with 8 bytes pushed
      {0xc3},        // 0x06 ret
  });
  BOOST_TEST(!read(code, 0x05, true));
  BOOST_TEST(!read(code, 0x00, true));
}

BOOST_AUTO_TEST_CASE(ACallThatNeverReturnsEndsItsPath) {
  const auto code = bytes({
      {0x53},                 // 0x00 push rbx
      {0x85, 0xc0},           // 0x01 test eax, eax
      {0x74, 0x06},           // 0x03 je 0x0b
      call_to(0x05, kPanic),  // 0x05 call panic
      {0x50},                 // 0x0a push rax: never reached, panic does not return
      {0x5b},                 // 0x0b pop rbx
      {0xc3},                 // 0x0c ret
  });
  const auto panic_only = [](std::uint64_t target) { return target == kPanic; };
  const auto f = read(code, 0x0b, true, panic_only);
  BOOST_REQUIRE(f);
  BOOST_TEST(f->depth == 8);
  // Without knowing panic, its fall-through reaches 0x0b with 16 bytes pushed: no answer.
  BOOST_TEST(!read(code, 0x0b, true));
  // A return address right after the last call, at the function's end, is still its own.
  BOOST_TEST(read(code, 0x0a, false, panic_only)->depth == 8);
}

BOOST_AUTO_TEST_CASE(ALoopKeepsOneDepth) {
  const auto code = bytes({
      {0x53},        // 0x00 push rbx
      {0xff, 0xc8},  // 0x01 dec eax
      {0x75, 0xfc},  // 0x03 jne 0x01
      {0x5b},        // 0x05 pop rbx
      {0xc3},        // 0x06 ret
  });
  BOOST_TEST(read(code, 0x03, true)->depth == 8);
  BOOST_TEST(read(code, 0x01, true)->depth == 8);
}

BOOST_AUTO_TEST_CASE(ATailCallLeavesTheFunction) {
  const auto code = bytes({
      {0x53},                          // 0x00 push rbx
      {0x5b},                          // 0x01 pop rbx
      {0xe9, 0x00, 0x10, 0x00, 0x00},  // 0x02 jmp elsewhere
      {0x48, 0x83, 0xe4, 0xf0},        // 0x07 and rsp, -16: never reached
  });
  BOOST_TEST(read(code, 0x02, true)->depth == 0);
}

BOOST_AUTO_TEST_CASE(BytesThatAreNoInstructionGiveNoFrame) {
  const auto code = bytes({
      {0x53},  // 0x00 push rbx
      {0x06},  // 0x01 (push es: invalid in 64-bit mode)
      {0xc3},
  });
  BOOST_TEST(!read(code, 0x00, true));
}

BOOST_AUTO_TEST_CASE(AFrameDeeperThanAKernelStackIsAMisreading) {
  const auto code = bytes({
      {0x48, 0x81, 0xec, 0x00, 0x00, 0x01, 0x00},  // 0x00 sub rsp, 0x10000
      {0x90},                                      // 0x07 nop
      {0xc3},
  });
  BOOST_TEST(!read(code, 0x07, true));
}

BOOST_AUTO_TEST_CASE(ObjtoolsNoreturnListNamesWhatNeverReturns) {
  for (const char* name : {"panic", "__stack_chk_fail", "do_exit", "make_task_dead", "kthread_exit"})
    BOOST_TEST(objtool_noreturn(name), name);
  for (const char* name : {"printk", "_printk", "panic_notifier", "", "do_exit2", "schedule"})
    BOOST_TEST(!objtool_noreturn(name), name);
}

// __crash_kexec's shape in Debian 11's 5.10: RBP is pushed, then set from RSP after the locals
// on one path (before the call) and in crash_setup_regs()'s block on the other, while a third
// path reaches the epilogue before either. The paths meet with the same depth and disagree only
// on RBP: the frame is the depth they share, RBP's saved slot too, and RBP = RSP is forgotten.
const std::vector<std::uint8_t> kCrashKexec510 = bytes({
    {0x55},                                      // 0x00 push rbp
    {0x48, 0x81, 0xec, 0xb0, 0x00, 0x00, 0x00},  // 0x01 sub rsp, 0xb0
    {0x85, 0xc0},                                // 0x08 test eax, eax
    {0x75, 0x0c},                                // 0x0a jne 0x18 (the lock was taken)
    {0x85, 0xff},                                // 0x0c test edi, edi
    {0x74, 0x11},                                // 0x0e je 0x21 (no regs given: crash_setup_regs)
    {0x48, 0x89, 0xe5},                          // 0x10 mov rbp, rsp
    call_to(0x13, 0xffffffff8105c710),           // 0x13 call machine_kexec
    {0x48, 0x81, 0xc4, 0xb0, 0x00, 0x00, 0x00},  // 0x18 add rsp, 0xb0
    {0x5d},                                      // 0x1f pop rbp
    {0xc3},                                      // 0x20 ret
    {0x9c},                                      // 0x21 pushfq
    {0x8f, 0x84, 0x24, 0x90, 0x00, 0x00, 0x00},  // 0x22 pop qword [rsp + 0x90]
    {0x48, 0x89, 0xe5},                          // 0x29 mov rbp, rsp
    {0xeb, 0xe5},                                // 0x2c jmp 0x13
});

BOOST_AUTO_TEST_CASE(PathsThatDisagreeOnlyOnRbpMeetOnWhatTheyShare) {
  const auto regs = read(kCrashKexec510, 0x21, true);  // where crash_setup_regs() takes RIP
  BOOST_REQUIRE(regs);
  BOOST_TEST(regs->depth == 0xb8);
  BOOST_TEST((regs->saved_bp == -16));
  const auto ret = read(kCrashKexec510, 0x18, false);  // machine_kexec's return address
  BOOST_REQUIRE(ret);
  BOOST_TEST(ret->depth == 0xb8);
  BOOST_TEST(read(kCrashKexec510, 0x1f, true)->depth == 8);
}

BOOST_AUTO_TEST_CASE(PathsThatMeetWithAnotherDepthStillGiveNoFrame) {
  // The block pushes twice instead of pushfq / pop, and jumps to the epilogue: it reaches 0x18
  // 16 bytes deeper than the path from the jne does.
  auto code = kCrashKexec510;
  code[0x21] = 0x50;                                          // push rax
  code[0x22] = 0x50;                                          // push rax
  std::fill(code.begin() + 0x23, code.begin() + 0x29, 0x90);  // nop x6
  code[0x2d] = 0xea;                                          // jmp 0x18
  BOOST_TEST(!read(code, 0x18, true));
  BOOST_TEST(!read(code, 0x21, true));  // one disagreement anywhere: no answer anywhere
}

BOOST_AUTO_TEST_SUITE_END()
