// Whether a vmlinux is the build a dump or a report came from. A release string names a
// version, not a build: the same "6.18.2-lab" built twice with another configuration has
// other addresses, and read against the wrong one a dump's per-CPU areas, stacks and
// symbols are nonsense that looks like an answer. crash refuses such a pair ("vmlinux and
// vmcore do not match"); so does btaudit vmcore, and analyze warns.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "debuginfo/kernel_debuginfo.h"
#include "memory/memory_source.h"
#include "vmcore/dump_facts.h"

namespace btaudit {

// Two build ids as different files state them: VMCOREINFO's BUILD-ID is always 20 bytes
// ("%20phN", kernel/crash_core.c), zero-padded after a shorter note (--build-id=md5); the
// printed trace's and the ELF note's are the note's own length. They differ when their
// common prefix does, or when the longer one's tail is not zeros.
bool build_ids_differ(std::string_view a, std::string_view b);

// Why `info`'s vmlinux is not the dump's kernel, or nullopt when nothing says so: the
// build ids differ (VMCOREINFO BUILD-ID, 5.9+), else the kernel's linux_banner ("Linux
// version 6.1.0-57-cloud-amd64 (debian-kernel@...) ... #1 SMP PREEMPT_DYNAMIC Debian
// 6.1.158-1 (2025-...)", build number and date included), read in the dump at its address
// moved by the KASLR offset, differs from the file's. A banner the dump does not hold at
// that address says nothing (the offset may be a guess); it is never a mismatch by itself.
std::optional<std::string> vmlinux_mismatch(const DumpFacts& facts, KernelDebugInfo& info, MemorySource& memory);

}  // namespace btaudit
