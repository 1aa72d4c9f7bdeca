// The source file a report blames: the file whose maintainers should hear of it, read as
// syzkaller reads it for its mail (pkg/report/linux.go, extractGuiltyFile): the first file
// named as "path/file.c:123" in the report's lines that is not common machinery (sanitizers,
// allocators, locking, printk, ...), then moved to a file deeper in the same directory when the
// trace names one further down. Needs a symbolized report (file:line after frames) or a
// "WARNING: ... at file:line" / "BUG at file:line" line; else there is none.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace btaudit {

// `lines`: the report's console lines (Report::text); `title`: its title.
std::optional<std::string> find_guilty_file(std::string_view title, const std::vector<std::string_view>& lines);

namespace guilty_file_detail {

// The first "path/file.c:123" or "file.h:9" of a line: the path, or empty.
std::string_view first_source_file(std::string_view line);
// filepath.Clean for relative paths: "a/./b/../c.c" -> "a/c.c".
std::string clean_path(std::string_view path);
// Common machinery no report is routed to (the table in guilty_file.cpp).
bool ignored_file(std::string_view path);
// That table's rows: globs from a path's first byte, '*' any run, '?' any byte (for tests).
std::span<const std::string_view> ignored_file_rows();

}  // namespace guilty_file_detail

}  // namespace btaudit
