// Terminal control sequences in a console log: what a log viewer or a terminal capture adds
// around the kernel's text, and what a terminal shows of it (nothing).
//   util-linux dmesg --color (sys-utils/dmesg.c): the time in green, a "subsys: " head in
//     brown, the message in the colour of its level: "\e[32m[   54.5] \e[0m\e[33mBUG: \e[0m...";
//   journalctl (systemd src/shared/logs-show.c): a warning's or error's message in bold colour
//     behind the uncoloured "Jan 01 00:00:00 host kernel: " head;
//   `script`, tmux and serial consoles: whatever user space draws (prompts, window titles).
// The sequences are those of ECMA-48 (5th edition, sections 5.3-5.6) as xterm's ctlseqs lists
// them, read in their 7-bit form (an 8-bit CSI, 0x9b, is also a UTF-8 continuation byte):
//   CSI      ESC '[' parameter bytes 0x30-0x3f*, intermediate bytes 0x20-0x2f*, a final byte 0x40-0x7e
//   strings  ESC ']' (OSC), 'P' (DCS), 'X' (SOS), '^' (PM), '_' (APC), ended by BEL or ESC '\'
//   others   ESC, intermediate bytes 0x20-0x2f*, a final byte 0x30-0x7e ("\e(B", "\e7", "\ec")
// A sequence never runs past its line: one the line cuts short is dropped up to the line's end.
#pragma once
#include <string>
#include <string_view>

namespace btaudit {

// Whether `text` holds an ESC byte (one memchr: most logs hold none).
bool has_terminal_escape(std::string_view text);

// `text` as a terminal shows it: every sequence above removed, line ends and all other bytes kept,
// so that line k of the result is line k of `text`. One exception: a line that opens with '['
// then ESC (systemd's "[\e[0;32m  OK  \e[0m] Started ...", user space's status on a shared
// console) is kept whole, so that the line cleaner still reads it as user space's.
std::string strip_terminal_escapes(std::string_view text);

}  // namespace btaudit
