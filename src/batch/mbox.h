// Mailbox files (mbox, as mailing-list archives and `git format-patch`-style
// exports store them): one kernel report per mail. Each mail's body comes out
// decoded (quoted-printable and base64 single-part bodies), with the line of the
// file where it starts, so that report line numbers still point into the file.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace btaudit {

struct Mail {
  std::uint32_t body_line = 0;  // 1-based line of the mbox file holding the body's first line
  std::string body;
  std::string message_id;
  std::string subject;
  bool reencoded = false;  // decoded from quoted-printable or base64: body lines no longer map 1:1 to file lines
};

// Whether `text` looks like an mbox: a "From " separator line, then mail headers.
bool is_mbox(std::string_view text);

// Splits an mbox into mails. Bounded by the input: every mail is a slice of it.
std::vector<Mail> split_mbox(std::string_view text);

}  // namespace btaudit
