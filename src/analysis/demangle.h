// Demangling of symbol names as syzkaller's titles show them (its frames go through a
// demangler with parameters left out): Rust v0 ("_RNv..."), Rust legacy ("_ZN...17h<hash>E")
// and Itanium C++ ("_Z8fakeNameiii" -> "fakeName"). Written from the two manglings'
// specifications (the Rust v0 RFC 2603 grammar, the Itanium C++ ABI <nested-name>/<source-name>).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace btaudit {

// The demangled name without parameters, or nullopt when `symbol` is not mangled or uses a
// construct this demangler does not read (the caller keeps the symbol as printed).
std::optional<std::string> demangle_symbol(std::string_view symbol);

}  // namespace btaudit
