// RAII over the SQLite C API: a connection and prepared statements, with every
// failure turned into a StoreError naming the database file.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace btaudit {

// Always one line: SQLite's messages quote the database's own text (a malformed
// schema's SQL, a table's column names), which a hostile file fills with line ends.
// Control characters become spaces and a message past kMaxBytes is cut.
class StoreError : public std::runtime_error {
 public:
  explicit StoreError(const std::string& what) : std::runtime_error(one_line(what)) {}

 private:
  static constexpr std::size_t kMaxBytes = 1024;
  static std::string one_line(std::string_view s) {
    std::string out(s.substr(0, kMaxBytes));
    for (char& c : out)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    if (s.size() > kMaxBytes) out += " [...]";
    return out;
  }
};

class Statement;

class Database {
 public:
  enum class Mode { ReadOnly, ReadWriteCreate };
  Database(const std::string& path, Mode mode);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  void exec(const char* sql);
  Statement prepare(std::string_view sql);
  [[noreturn]] void fail(const std::string& what) const;
  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // Binds parameters 1..n in order; nullopt binds NULL.
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, const std::optional<std::string>& text);
  // One step: true while rows come, false when done. Resets nothing.
  bool step();
  // Runs to completion, then resets and clears bindings for the next use.
  void run();
  void reset();

  std::int64_t integer(int column) const;
  std::string text(int column) const;
  std::optional<std::string> optional_text(int column) const;

 private:
  Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace btaudit
