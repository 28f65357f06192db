// The progress line: nested bars draw as parts of one line, the outermost erases it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "taskmap/core/progress.h"

namespace taskmap::io {
namespace {

TEST(Progress, NestedBarsShareOneLine) {
  ::setenv("TASKMAP_PROGRESS", "always", 1);  // draw at once, to the captured stderr
  testing::internal::CaptureStderr();
  {
    Progress outer("outer", 2);
    outer.status("first");
    {
      Progress inner("inner", 4);
      inner.set(2);
    }
    outer.advance();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  ::unsetenv("TASKMAP_PROGRESS");
  // The outer bar 30 wide, an inner one 10: 2 of 4 fills 5 of its 10.
  EXPECT_NE(err.find("\router [" + std::string(30, '.') + "]   0% 0/2 first > inner [#####.....]  50% 2/4 "),
            std::string::npos)
      << err;
  // Once the inner bar is gone, the line is the outer one's again: 1 of 2 fills 15 of 30.
  EXPECT_NE(err.find("\router [" + std::string(15, '#') + std::string(15, '.') + "]  50% 1/2 first "), std::string::npos)
      << err;
  EXPECT_EQ(err.find("inner", err.find("50% 1/2")), std::string::npos) << err;
  EXPECT_TRUE(err.ends_with("\r\033[K")) << err;
}

TEST(Progress, NothingWhenNotWanted) {
  ::setenv("TASKMAP_PROGRESS", "always", 1);
  testing::internal::CaptureStderr();
  {
    Progress quiet("quiet", 3, false);
    quiet.advance();
    quiet.status("x");
  }
  const std::string err = testing::internal::GetCapturedStderr();
  ::unsetenv("TASKMAP_PROGRESS");
  EXPECT_EQ(err, "");
}

// Last in this file: it turns the bars off for the rest of the process.
TEST(Progress, OffForGoodOnceDisabled) {
  ::setenv("TASKMAP_PROGRESS", "always", 1);
  disable_progress();
  testing::internal::CaptureStderr();
  {
    Progress bar("library", 2);
    bar.advance();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  ::unsetenv("TASKMAP_PROGRESS");
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace taskmap::io
