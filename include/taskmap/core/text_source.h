#pragma once
// Reading text inputs: whole files (transparently un-xz'd / un-gzipped by magic bytes)
// and a line cursor that knows its source name and line number for error messages.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace taskmap::io {

// Reads a file into memory, decompressing .xz and .gz content. Throws Error naming the path.
std::string read_text_file(const std::string& path);

class LineCursor {
 public:
  LineCursor(std::string source_name, std::string text);

  // Next line that does not start (after spaces) with one of `comment_chars` and, when
  // skip_blank, is not blank. Returns nullopt at end of input.
  std::optional<std::string_view> next_content_line(std::string_view comment_chars = "#%", bool skip_blank = true);
  std::size_t line_number() const { return line_number_; }
  const std::string& source() const { return source_; }

  // Throws Error "SOURCE:LINE: message".
  [[noreturn]] void fail_here(const std::string& message) const;
  [[noreturn]] void fail_at_end(const std::string& message) const;

 private:
  std::string source_;
  std::string text_;
  std::size_t pos_ = 0;
  std::size_t line_number_ = 0;
};

// Splits on spaces, tabs and (optionally) commas; drops empty fields.
std::vector<std::string_view> split_fields(std::string_view line, bool commas_too = false);

// `text` with its control characters (a line break, a NUL) written as \xNN, for quoting input
// in a message that must stay one line.
std::string printable(std::string_view text);

// Strict number parsing: the whole field must be consumed.
std::optional<std::int64_t> parse_int(std::string_view field);
std::optional<double> parse_double(std::string_view field);

}  // namespace taskmap::io
