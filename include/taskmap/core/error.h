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

// Command-line misuse, wrong whatever the input files hold: options that exclude each other,
// a value outside the fixed choices or the range of one of the CLI's own options (--format,
// --imbalance, list WHAT, ...). The CLI exits with status 2 for it, 1 for every other Error;
// spec strings (--machine, --pattern, --mapper, --routing, --out-format) are read like the files
// they often name, and their errors are other Errors.
class UsageError : public Error {
 public:
  using Error::Error;
};

// A computation stopped from outside before it ended (MappingProblem::cancel): not the input's
// fault, so not an Error, which a portfolio would count as one candidate failing and go on.
class Cancelled : public std::exception {
 public:
  const char* what() const noexcept override { return "cancelled"; }
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
[[noreturn]] void usage_fail(fmt::format_string<Args...> format, Args&&... args) {
  throw UsageError(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace taskmap
