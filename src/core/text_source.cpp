#include "taskmap/core/text_source.h"

#include <archive.h>
#include <archive_entry.h>
#include <lzma.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"

namespace taskmap::io {
namespace {

// A file's text is held whole: what it unpacks to counts against the memory limit as it grows
// (a few MB of gzip can unpack to GBs).
void check_unpacked(const std::string& path, std::size_t bytes) {
  if (bytes > memory_limit() / 2) {
    check_memory(path, saturating_mul(bytes, 2), "its text unpacked (so far)");
  }
}

std::string decompress_xz(const std::string& path, const std::string& data) {
  lzma_stream strm = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&strm, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
    fail("{}: cannot initialise the xz decoder", path);
  }
  std::string out;
  std::string buffer(1 << 16, '\0');
  strm.next_in = reinterpret_cast<const uint8_t*>(data.data());
  strm.avail_in = data.size();
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    strm.next_out = reinterpret_cast<uint8_t*>(buffer.data());
    strm.avail_out = buffer.size();
    ret = lzma_code(&strm, LZMA_FINISH);
    out.append(buffer.data(), buffer.size() - strm.avail_out);
    check_unpacked(path, out.size());
  }
  lzma_end(&strm);
  if (ret != LZMA_STREAM_END) fail("{}: corrupt or truncated xz data", path);
  return out;
}

std::string decompress_gz(const std::string& path, const std::string& data) {
  z_stream strm{};
  if (inflateInit2(&strm, 15 + 32) != Z_OK) fail("{}: cannot initialise the gzip decoder", path);
  std::string out;
  std::string buffer(1 << 16, '\0');
  strm.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  strm.avail_in = static_cast<uInt>(data.size());
  int ret = Z_OK;
  while (ret == Z_OK) {
    strm.next_out = reinterpret_cast<Bytef*>(buffer.data());
    strm.avail_out = static_cast<uInt>(buffer.size());
    ret = inflate(&strm, Z_NO_FLUSH);
    out.append(buffer.data(), buffer.size() - strm.avail_out);
    check_unpacked(path, out.size());
    if (ret == Z_BUF_ERROR && strm.avail_in == 0) break;
    // Members of a concatenated file (pigz, `gzip >>`) follow one another: gunzip reads them all.
    if (ret == Z_STREAM_END && strm.avail_in >= 2 && strm.next_in[0] == 0x1f && strm.next_in[1] == 0x8b) {
      if (inflateReset(&strm) != Z_OK) break;
      ret = Z_OK;
    }
  }
  inflateEnd(&strm);
  if (ret != Z_STREAM_END) fail("{}: corrupt or truncated gzip data", path);
  return out;
}

// Unpacks xz or gzip data (told by its magic bytes) and drops a UTF-8 byte order mark.
std::string decoded(const std::string& name, std::string data) {
  if (data.size() >= 6 && std::memcmp(data.data(), "\xFD" "7zXZ\0", 6) == 0) {
    data = decompress_xz(name, data);
  } else if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
             static_cast<unsigned char>(data[1]) == 0x8b) {
    data = decompress_gz(name, data);
  }
  // A UTF-8 byte order mark (editors on Windows write one) is no part of the first line.
  if (data.starts_with("\xEF\xBB\xBF")) data.erase(0, 3);
  return data;
}

// A tar archive (POSIX ustar, GNU or pax): "ustar" at byte 257 of its first header.
bool is_tar(const std::string& data) { return data.size() >= 512 && data.compare(257, 5, "ustar") == 0; }

// The regular members of a tar archive held in memory, each decoded, in name order.
std::vector<TextFile> tar_members(const std::string& path, const std::string& data) {
  struct archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  if (archive_read_open_memory(a, data.data(), data.size()) != ARCHIVE_OK) {
    const std::string why = archive_error_string(a) ? archive_error_string(a) : "unreadable";
    archive_read_free(a);
    fail("{}: not a readable tar archive: {}", path, why);
  }
  std::vector<TextFile> members;
  struct archive_entry* entry = nullptr;
  int status = ARCHIVE_OK;
  while ((status = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    const std::string name = path + ":" + archive_entry_pathname(entry);
    const auto size = archive_entry_size(entry);
    check_memory(name, saturating_mul(static_cast<std::uint64_t>(std::max<la_int64_t>(size, 0)), 2), "its text");
    std::string text(static_cast<std::size_t>(std::max<la_int64_t>(size, 0)), '\0');
    if (archive_read_data(a, text.data(), text.size()) != static_cast<la_ssize_t>(text.size())) {
      archive_read_free(a);
      fail("{}: the archive is cut inside this member", name);
    }
    members.push_back({name, decoded(name, std::move(text))});
  }
  const std::string why = archive_error_string(a) ? archive_error_string(a) : "";
  archive_read_free(a);
  if (status != ARCHIVE_EOF) fail("{}: a damaged tar archive after {} members: {}", path, members.size(), why);
  std::sort(members.begin(), members.end(), [](const TextFile& x, const TextFile& y) { return x.name < y.name; });
  return members;
}

}  // namespace

std::vector<TextFile> read_text_files(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
      if (entry.is_regular_file()) names.push_back(entry.path().string());
    }
    if (error) fail("cannot read the folder '{}': {}", path, error.message());
    std::sort(names.begin(), names.end());
    std::vector<TextFile> files;
    for (const std::string& name : names) {
      std::string text = read_text_file(name);
      if (is_tar(text)) fail("{}: a tar archive inside a folder of tables: give the archive itself", name);
      files.push_back({name, std::move(text)});
    }
    return files;
  }
  std::string text = read_text_file(path);
  if (is_tar(text)) return tar_members(path, text);
  std::vector<TextFile> files;
  files.push_back({path, std::move(text)});
  return files;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open '{}': {}", path, std::strerror(errno));
  if (std::filesystem::is_directory(path)) fail("cannot open '{}': {}", path, std::strerror(EISDIR));
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (!size_error) check_memory(path, saturating_mul(size, 2), "its text");
  std::string data;
  if (!size_error && size > 0) {  // a regular file: read whole, in one piece
    data.resize(size);
    in.read(data.data(), static_cast<std::streamsize>(size));
    data.resize(static_cast<std::size_t>(in.gcount()));
  } else {  // a pipe, a device: as it comes
    std::ostringstream ss;
    ss << in.rdbuf();
    data = ss.str();
  }
  return decoded(path, std::move(data));
}

LineCursor::LineCursor(std::string source_name, std::string text)
    : source_(std::move(source_name)), text_(std::move(text)) {}

std::optional<std::string_view> LineCursor::next_content_line(std::string_view comment_chars, bool skip_blank) {
  while (pos_ < text_.size()) {
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    std::string_view line(text_.data() + pos_, end - pos_);
    pos_ = end + 1;
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const std::size_t nul = line.find('\0'); nul != std::string_view::npos) {
      fail_here(fmt::format("a NUL byte at column {}: not a text file", nul + 1));
    }
    std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
      if (skip_blank) continue;
      return line;
    }
    if (comment_chars.find(line[first]) != std::string_view::npos) continue;
    return line;
  }
  return std::nullopt;
}

void LineCursor::fail_here(const std::string& message) const {
  fail("{}:{}: {}", source_, line_number_, message);
}

void LineCursor::fail_at_end(const std::string& message) const {
  fail("{}: unexpected end of file after line {}: {}", source_, line_number_, message);
}

TokenCursor::TokenCursor(std::string source_name, std::string text) : lines_(std::move(source_name), std::move(text)) {}

std::optional<std::string_view> TokenCursor::next() {
  while (next_field_ == fields_.size()) {
    auto line = lines_.next_content_line("");
    if (!line) return std::nullopt;
    fields_ = split_fields(*line);
    next_field_ = 0;
  }
  return fields_[next_field_++];
}

bool TokenCursor::at_end() {
  if (!next()) return true;
  --next_field_;  // put it back: the line is still the current one
  return false;
}

std::int64_t TokenCursor::next_int(std::string_view what, std::int64_t min, std::int64_t max) {
  const auto token = next();
  if (!token) fail("{}: ends before {} (after line {})", source(), what, line_number());
  const auto value = parse_int(*token);
  if (!value) fail_here(fmt::format("{}: '{}' is not an integer", what, printable(*token)));
  if (*value < min || *value > max) fail_here(fmt::format("{} must be in [{}, {}], not {}", what, min, max, *value));
  return *value;
}

std::size_t TokenCursor::tokens_left_at_most() const {
  return fields_.size() - next_field_ + (lines_.bytes_left() + 1) / 2;
}

std::vector<std::string_view> split_fields(std::string_view line, bool commas_too) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  auto is_sep = [&](char c) { return c == ' ' || c == '\t' || (commas_too && c == ','); };
  while (i < line.size()) {
    while (i < line.size() && is_sep(line[i])) ++i;
    std::size_t start = i;
    while (i < line.size() && !is_sep(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::int64_t> parse_int(std::string_view field) {
  std::int64_t value = 0;
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || ptr != field.data() + field.size() || field.empty()) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view field) {
  double value = 0;
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || ptr != field.data() + field.size() || field.empty()) return std::nullopt;
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace taskmap::io
