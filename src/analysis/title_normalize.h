// Makes a title stable across runs, as syzkaller's dedup keys are: numbers
// become NUM, addresses ADDR, IPv4 addresses IP, "file.c:123" "file.c:LINE",
// "func+0x1/0x2" "func", executor names lose their ids; then the text is
// sanitized (printable ASCII, single spaces, at most 120 characters).
#pragma once
#include <string>
#include <string_view>

namespace btaudit {

std::string normalize_title(std::string_view title);

namespace title_normalize_detail {
// Every pass run in turn: what normalize_title returns for every title (its fast path for a
// title no pass would change is tested against this).
std::string normalize_title_general(std::string_view title);
}  // namespace title_normalize_detail

}  // namespace btaudit
