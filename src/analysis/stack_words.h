// Every word of the stacks a walk went through, from where it started
// scanning each one to its top (crash's bt -t/-T, with a judgement): what each
// word is to the walk (a frame, a pt_regs' RIP, a backlink, a pointer into a
// stack, data) and, for frames, which one.
#pragma once
#include "memory/memory_source.h"
#include "model/walked_stack.h"

namespace btaudit {

// Fills walk.words (words the dump does not hold are left out).
void read_stack_words(StackWalk& walk, MemorySource& memory);

}  // namespace btaudit
