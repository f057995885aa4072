// The 64-bit libfabric tag layout (progress/include/sidecore/progress/tag.hpp): round trips at the field edges,
// fields do not bleed into each other, and the any-tag ignore mask matches what it should and nothing else
// (libfabric matches when (tag & ~ignore) == (match & ~ignore)). The source is not in the tag: it is matched by
// address and reported from remote CQ data (tested by the multi-rank any-source tests).
#include <gtest/gtest.h>

#include <sidecore/progress/tag.hpp>
#include <sidecore/sidecore.hpp>

namespace {

namespace tag = sidecore::progress::tag;
using tag::kind;

bool matches(std::uint64_t incoming, std::uint64_t match, std::uint64_t ignore) {
  return (incoming & ~ignore) == (match & ~ignore);
}

TEST(TagLayout, PublicTagRangeFitsTheUserField) {
  EXPECT_EQ(static_cast<std::uint64_t>(sidecore::tag_max), tag::user_bits);
  EXPECT_EQ(tag::max_comms, 16384);
  const std::uint64_t user = tag::user_bits, comm = tag::comm_bits << tag::comm_shift;
  EXPECT_EQ(user & comm, 0u);
  EXPECT_LT(user | comm, 1ULL << tag::kind_shift);
}

TEST(TagLayout, RoundTripAtTheEdges) {
  for (int c : {0, 1, 77, tag::max_comms - 1})
    for (int u : {0, 1, 12345, sidecore::tag_max})
      for (kind k : {kind::p2p, kind::collective, kind::internal}) {
        const std::uint64_t t = tag::make(k, c, u);
        EXPECT_EQ(tag::comm_of(t), c);
        EXPECT_EQ(tag::user_of(t), u);
        EXPECT_EQ(t >> tag::kind_shift, static_cast<std::uint64_t>(k));
      }
}

TEST(TagLayout, ExactMatchNeedsEveryField) {
  const std::uint64_t m = tag::make(kind::p2p, 3, 7);
  EXPECT_TRUE(matches(tag::make(kind::p2p, 3, 7), m, 0));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 3, 8), m, 0));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 4, 7), m, 0));
  EXPECT_FALSE(matches(tag::make(kind::collective, 3, 7), m, 0));
}

TEST(TagLayout, AnyTagMaskIgnoresOnlyTheUserTag) {
  const std::uint64_t m = tag::make(kind::p2p, 3, 0), ig = tag::ignore_user();
  for (int u : {0, 1, 4242, sidecore::tag_max}) EXPECT_TRUE(matches(tag::make(kind::p2p, 3, u), m, ig));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 4, 0), m, ig)) << "other communicator";
  EXPECT_FALSE(matches(tag::make(kind::collective, 3, 0), m, ig)) << "other kind";
}

}  // namespace
