#pragma once
// One exception type for everything a user can get wrong: its message is the single
// line the CLI prints ("SOURCE:LINE: problem" for files, "--machine 'x': problem" for specs).
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace taskmap {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace taskmap
