// How a cold run's L2 is flushed is chosen by GEMMLAB_L2_FLUSH (harness/l2_flush.hpp): a read by
// default, a write on request, and anything else is an error that names the variable.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "harness/l2_flush.hpp"

using namespace gemmlab;

TEST(L2FlushMode, ReadByDefaultWriteOnRequestElseAnError) {
  ::unsetenv("GEMMLAB_L2_FLUSH");
  EXPECT_EQ(L2Flush::mode_from_environment(), L2Flush::Mode::read);
  ::setenv("GEMMLAB_L2_FLUSH", "", 1);
  EXPECT_EQ(L2Flush::mode_from_environment(), L2Flush::Mode::read);
  ::setenv("GEMMLAB_L2_FLUSH", "read", 1);
  EXPECT_EQ(L2Flush::mode_from_environment(), L2Flush::Mode::read);
  ::setenv("GEMMLAB_L2_FLUSH", "write", 1);
  EXPECT_EQ(L2Flush::mode_from_environment(), L2Flush::Mode::write);
  for (const char* bad : {"memset", "Read", "1"}) {
    ::setenv("GEMMLAB_L2_FLUSH", bad, 1);
    try {
      (void)L2Flush::mode_from_environment();
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("GEMMLAB_L2_FLUSH"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  ::unsetenv("GEMMLAB_L2_FLUSH");
}

// The name each mode is recorded under is the value that selects it.
TEST(L2FlushMode, NamesAreTheEnvironmentsValues) {
  for (const auto mode : {L2Flush::Mode::read, L2Flush::Mode::write}) {
    ::setenv("GEMMLAB_L2_FLUSH", L2Flush::name(mode), 1);
    EXPECT_EQ(L2Flush::mode_from_environment(), mode) << L2Flush::name(mode);
  }
  EXPECT_STRNE(L2Flush::name(L2Flush::Mode::read), L2Flush::name(L2Flush::Mode::write));
  ::unsetenv("GEMMLAB_L2_FLUSH");
}
