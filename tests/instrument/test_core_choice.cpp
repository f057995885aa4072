// SIDECORE_PROGRESS_CORE's rule (common/core_choice.hpp), shared by the runtime and libsidecore-pmpi.so: what is
// accepted, and which core each value reserves among a process's cores.
#include <gtest/gtest.h>

#include "sidecore/common/core_choice.hpp"

namespace {
using sidecore::core_choice;

TEST(CoreChoice, ParsesWordsAndIndices) {
  EXPECT_EQ(sidecore::parse_core_choice("last")->which, core_choice::kind::last);
  EXPECT_EQ(sidecore::parse_core_choice(" first\t")->which, core_choice::kind::first);
  const auto three = sidecore::parse_core_choice("3");
  ASSERT_TRUE(three);
  EXPECT_EQ(three->which, core_choice::kind::index);
  EXPECT_EQ(three->index, 3);
  EXPECT_EQ(sidecore::parse_core_choice("9999999")->index, 9999999);
}

TEST(CoreChoice, RejectsEverythingElse) {
  for (const char* bad : {"", " ", "Last", "-1", "1.5", "0x2", "12345678", "2 cores", "first,last"})
    EXPECT_FALSE(sidecore::parse_core_choice(bad)) << "'" << bad << "'";
}

TEST(CoreChoice, TextRoundTrips) {
  for (const char* v : {"last", "first", "0", "17"})
    EXPECT_EQ(sidecore::core_choice_text(*sidecore::parse_core_choice(v)), v);
}

TEST(CoreChoice, ReservedIndexAmongTheProcessCores) {
  EXPECT_EQ(sidecore::reserved_core_index({core_choice::kind::last, -1}, 4), 3);
  EXPECT_EQ(sidecore::reserved_core_index({core_choice::kind::first, -1}, 4), 0);
  EXPECT_EQ(sidecore::reserved_core_index({core_choice::kind::index, 2}, 4), 2);
  EXPECT_EQ(sidecore::reserved_core_index({core_choice::kind::index, 4}, 4), -1);  // out of range
}
}  // namespace
