#pragma once
// Reading text inputs: whole files (transparently un-xz'd / un-gzipped by magic bytes)
// and a line cursor that knows its source name and line number for error messages.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace taskmap::io {

// Reads a file into memory, decompressing .xz and .gz content (every member of a concatenated
// gzip file), without a leading UTF-8 byte order mark. The text, unpacked, counts against the
// memory limit (--max-memory) as it is read. Throws Error naming the path.
std::string read_text_file(const std::string& path);

// A text read from a file or from a member of an archive, with the name messages give it.
struct TextFile {
  std::string name;
  std::string text;
};
// The texts a path names: the file itself; every regular file of a folder (not its
// subfolders), named FOLDER/FILE; or every regular member of a tar archive (plain, or packed
// with gzip or xz), named ARCHIVE:MEMBER. Folders and archives in name order. Each text is read
// as read_text_file reads it; throws Error naming the path.
std::vector<TextFile> read_text_files(const std::string& path);

class LineCursor {
 public:
  LineCursor(std::string source_name, std::string text);

  // Next line that does not start (after spaces) with one of `comment_chars` and, when
  // skip_blank, is not blank. Returns nullopt at end of input. A line holding a NUL byte is an
  // error (binary data, not text: and a NUL would cut every message quoting the line short).
  std::optional<std::string_view> next_content_line(std::string_view comment_chars = "#%", bool skip_blank = true);
  std::size_t line_number() const { return line_number_; }
  const std::string& source() const { return source_; }
  // Bytes not read yet.
  std::size_t bytes_left() const { return pos_ < text_.size() ? text_.size() - pos_ : 0; }
  // True when the line last returned is the text's last and no newline ends it: where a file
  // cut short stops in the middle of a line.
  bool in_unterminated_last_line() const { return pos_ > text_.size(); }

  // Throws Error "SOURCE:LINE: message".
  [[noreturn]] void fail_here(const std::string& message) const;
  [[noreturn]] void fail_at_end(const std::string& message) const;

 private:
  std::string source_;
  std::string text_;
  std::size_t pos_ = 0;
  std::size_t line_number_ = 0;
};

// Whitespace-separated tokens regardless of lines, as Scotch reads its files, each known with
// its line for messages.
class TokenCursor {
 public:
  TokenCursor(std::string source_name, std::string text);

  // The next token; nullopt at the end of the input.
  std::optional<std::string_view> next();
  // The next token as an integer in [min, max]; else fails "SOURCE:LINE: WHAT: ..." naming the
  // token, or "SOURCE: ends before WHAT" at the end of the input.
  std::int64_t next_int(std::string_view what, std::int64_t min, std::int64_t max);
  // True when no token is left.
  bool at_end();
  // At most this many tokens are left (a token and its separator take two bytes or more): a
  // count read from the file is checked against it before anything is allocated for it.
  std::size_t tokens_left_at_most() const;
  std::size_t line_number() const { return lines_.line_number(); }
  const std::string& source() const { return lines_.source(); }

  // Throws Error "SOURCE:LINE: message" at the line of the last token read.
  [[noreturn]] void fail_here(const std::string& message) const { lines_.fail_here(message); }

 private:
  LineCursor lines_;
  std::size_t text_size_ = 0;
  std::vector<std::string_view> fields_;
  std::size_t next_field_ = 0;
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
