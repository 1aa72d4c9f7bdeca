// Names and judges a walked stack in place (model/walked_stack.h): each frame
// is named as kallsyms names it (the %pB rule of provider/return_address.h),
// gets the verdict its dump reason implies, then the machine code before each
// return address is checked (call_site_verdict.h) -- vmlinux frames against
// vmlinux's file, module frames against the module text in the dump -- and
// vmlinux frames get their source lines and inlined callers.
#pragma once
#include "analysis/debug_analysis.h"
#include "analysis/dump_symbols.h"
#include "debuginfo/kernel_debuginfo.h"
#include "model/walked_stack.h"

namespace btaudit {

// kallsyms' name, offset and size (and module) for every frame.
void symbolize_walk(StackWalk& walk, SymbolProvider& symbols);

// Verdicts from the dump reasons, the function_start rule of call padding, then
// source lines and call-site checks. `walk` must be symbolized. Frames reached
// after the budget's deadline keep the dump rules' verdict with reason
// unchecked_budget, and the walk says how many (StackWalk::truncated).
void judge_walk(StackWalk& walk, KernelDebugInfo& info, DumpSymbols& symbols, DumpCodeSource& code,
                const CheckBudget& budget = {});

}  // namespace btaudit
