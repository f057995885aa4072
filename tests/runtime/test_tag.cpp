// The 64-bit libfabric tag layout (progress/include/sidecore/progress/tag.hpp): round trips at the field edges,
// fields do not bleed into each other, and the ignore masks for any-source / any-tag match what they should and
// nothing else (libfabric matches when (tag & ~ignore) == (match & ~ignore)).
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
  EXPECT_EQ(tag::max_ranks, 1 << 20);
  // Fields are disjoint and cover bits 0..61 below the kind.
  const std::uint64_t user = tag::user_bits, src = tag::source_bits << tag::source_shift,
                      comm = tag::comm_bits << tag::comm_shift;
  EXPECT_EQ(user & src, 0u);
  EXPECT_EQ(src & comm, 0u);
  EXPECT_EQ(user & comm, 0u);
  EXPECT_EQ(user | src | comm, (1ULL << tag::kind_shift) - 1);
}

TEST(TagLayout, RoundTripAtTheEdges) {
  for (int c : {0, 1, 77, tag::max_comms - 1})
    for (int s : {0, 1, 4095, tag::max_ranks - 1})
      for (int u : {0, 1, 12345, sidecore::tag_max})
        for (kind k : {kind::p2p, kind::collective, kind::internal}) {
          const std::uint64_t t = tag::make(k, c, s, u);
          EXPECT_EQ(tag::comm_of(t), c);
          EXPECT_EQ(tag::source_of(t), s);
          EXPECT_EQ(tag::user_of(t), u);
          EXPECT_EQ(t >> tag::kind_shift, static_cast<std::uint64_t>(k));
        }
}

TEST(TagLayout, ExactMatchNeedsEveryField) {
  const std::uint64_t m = tag::make(kind::p2p, 3, 5, 7);
  EXPECT_TRUE(matches(tag::make(kind::p2p, 3, 5, 7), m, 0));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 3, 5, 8), m, 0));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 3, 6, 7), m, 0));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 4, 5, 7), m, 0));
  EXPECT_FALSE(matches(tag::make(kind::collective, 3, 5, 7), m, 0));
}

TEST(TagLayout, AnySourceMaskIgnoresOnlyTheSource) {
  const std::uint64_t m = tag::make(kind::p2p, 3, 0, 7), ig = tag::ignore_source();
  for (int s : {0, 1, 999, tag::max_ranks - 1}) EXPECT_TRUE(matches(tag::make(kind::p2p, 3, s, 7), m, ig));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 3, 1, 8), m, ig)) << "other tag";
  EXPECT_FALSE(matches(tag::make(kind::p2p, 2, 1, 7), m, ig)) << "other communicator";
  EXPECT_FALSE(matches(tag::make(kind::internal, 3, 1, 7), m, ig)) << "other kind";
}

TEST(TagLayout, AnyTagMaskIgnoresOnlyTheUserTag) {
  const std::uint64_t m = tag::make(kind::p2p, 3, 5, 0), ig = tag::ignore_user();
  for (int u : {0, 1, 4242, sidecore::tag_max}) EXPECT_TRUE(matches(tag::make(kind::p2p, 3, 5, u), m, ig));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 3, 6, 0), m, ig)) << "other source";
  EXPECT_FALSE(matches(tag::make(kind::p2p, 4, 5, 0), m, ig)) << "other communicator";
  EXPECT_FALSE(matches(tag::make(kind::collective, 3, 5, 0), m, ig)) << "other kind";
}

TEST(TagLayout, AnySourceAnyTagStaysInItsCommunicatorAndKind) {
  const std::uint64_t m = tag::make(kind::p2p, 9, 0, 0), ig = tag::ignore_source() | tag::ignore_user();
  EXPECT_TRUE(matches(tag::make(kind::p2p, 9, 123, 456), m, ig));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 10, 123, 456), m, ig));
  EXPECT_FALSE(matches(tag::make(kind::p2p, 8, 0, 0), m, ig));
  EXPECT_FALSE(matches(tag::make(kind::collective, 9, 0, 0), m, ig));
}

}  // namespace
