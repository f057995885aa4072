// Messages to this process (progress/src/protocol.cpp, post_self): matched by the engine and copied once, never
// through the provider; the same matching, ordering and truncation rules as messages from a peer. On a local shm
// engine connected to itself (address 0 is its own), in mode off and in mode core.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;

constexpr std::size_t kib = 1024, mib = 1024 * 1024;
const std::uint64_t kSelfTag = tag::make(tag::kind::p2p, 0, 7);

std::vector<char> pattern(std::size_t n, int seed) {
  std::vector<char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>((i * 131 + static_cast<std::size_t>(seed)) & 0x7f);
  return v;
}

class EngineSelf : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    e = sctest::local_engine();
    ASSERT_TRUE(e);
    if (GetParam()) e->start_thread([] {});
  }
  void TearDown() override {
    if (e && GetParam()) e->stop_thread();
  }
  // A send that completed inside start_send has no slot to wait on (is_inline): it reports its bytes.
  completion wait(std::uint64_t h) {
    completion c{};
    if (is_inline(h)) {
      c.bytes = inline_bytes(h);
      c.result = req_result::ok;
      return c;
    }
    EXPECT_TRUE(e->wait(h, c));
    return c;
  }
  std::unique_ptr<engine> e;
};

// A rendezvous-sized message to self, receive posted first and sent first: the data arrives whole, and the provider
// ran no rendezvous (no ready-to-send, clear-to-send or data message).
TEST_P(EngineSelf, LargeMessagesAreCopiedWithoutTheProvider) {
  for (const std::size_t n : {e->eager_max() + 1, 1 * mib, 16 * mib}) {
    const std::vector<char> out = pattern(n, 1);
    std::vector<char> in(n, 0);
    const std::uint64_t r = e->start_recv(in.data(), n, kSelfTag, 0, 0, 0, 0);
    const std::uint64_t s = e->start_send(out.data(), n, 0, kSelfTag, 0, 0, 0);
    const completion cr = wait(r), cs = wait(s);
    EXPECT_EQ(cr.result, req_result::ok);
    EXPECT_EQ(cr.bytes, n);
    EXPECT_EQ(cs.result, req_result::ok);
    EXPECT_TRUE(in == out) << n << " B, receive posted first";

    std::fill(in.begin(), in.end(), 0);
    const std::uint64_t s2 = e->start_send(out.data(), n, 0, kSelfTag, 0, 0, 0);
    EXPECT_TRUE(e->pending(s2)) << "a large send to self completes only when a receive takes it";
    const std::uint64_t r2 = e->start_recv(in.data(), n, kSelfTag, 0, 0, 0, 0);
    EXPECT_EQ(wait(r2).bytes, n);
    EXPECT_EQ(wait(s2).result, req_result::ok);
    EXPECT_TRUE(in == out) << n << " B, sent first";
  }
  EXPECT_EQ(e->stats().rendezvous, 0U);
}

TEST_P(EngineSelf, EagerMessagesEveryWay) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{8}, 100 * std::size_t{1}, 4 * kib, e->eager_max()}) {
    const std::vector<char> out = pattern(n, 2);
    std::vector<char> in(n + 1, 0);
    // Sent first: held as an unexpected message; the send completes at once.
    const std::uint64_t s = e->start_send(out.data(), n, 0, kSelfTag, 0, 3, 0);
    EXPECT_EQ(wait(s).result, req_result::ok);
    const completion c = wait(e->start_recv(in.data(), n + 1, kSelfTag, 0, 0, 0, 0));
    EXPECT_EQ(c.result, req_result::ok);
    EXPECT_EQ(c.bytes, n);
    EXPECT_EQ(c.source, 3) << "the sender rank travels as with a peer";
    EXPECT_TRUE(std::equal(out.begin(), out.end(), in.begin())) << n << " B sent first";
    // Receive first, through the slot path (no inlining).
    const std::uint64_t r = e->start_recv(in.data(), n, kSelfTag, 0, 0, 0, 0);
    EXPECT_EQ(wait(e->start_send(out.data(), n, 0, kSelfTag, 0, 0, 0, false)).result, req_result::ok);
    EXPECT_EQ(wait(r).bytes, n);
  }
}

// Same (source, tag): received in the order sent, eager and rendezvous interleaved, all sent before any receive.
TEST_P(EngineSelf, MixedSizesKeepOrder) {
  const std::size_t sizes[] = {8, 300 * kib, 1, 0, 4 * kib, 65 * kib, 16, 1 * mib, 100};
  std::vector<std::vector<char>> out, in;
  std::vector<std::uint64_t> sends;
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    out.push_back(pattern(sizes[i], static_cast<int>(i)));
    sends.push_back(e->start_send(out.back().data(), sizes[i], 0, kSelfTag, 0, 0, 0));
  }
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    in.emplace_back(1 * mib, 0);
    const completion c = wait(e->start_recv(in.back().data(), in.back().size(), kSelfTag, 0, 0, 0, 0));
    ASSERT_EQ(c.bytes, sizes[i]) << "message " << i << " out of order";
    const auto sent = out[i].begin();
    EXPECT_TRUE(std::equal(sent, sent + static_cast<std::ptrdiff_t>(sizes[i]), in.back().begin())) << "message " << i;
  }
  for (const std::uint64_t s : sends) EXPECT_EQ(wait(s).result, req_result::ok);
}

TEST_P(EngineSelf, TruncationAndWildcards) {
  const std::vector<char> out = pattern(1 * mib, 4);
  std::vector<char> in(256 * kib, 0);
  const std::uint64_t s = e->start_send(out.data(), out.size(), 0, tag::make(tag::kind::p2p, 0, 9), 0, 0, 0);
  // Any source, any tag (the user tag's bits ignored).
  const std::uint64_t r = e->start_recv(in.data(), in.size(), kSelfTag, tag::user_bits, 0, -1, 0);
  const completion c = wait(r);
  EXPECT_EQ(c.result, req_result::truncated);
  EXPECT_EQ(c.bytes, in.size());
  EXPECT_EQ(c.tag, tag::make(tag::kind::p2p, 0, 9));
  EXPECT_EQ(std::memcmp(in.data(), out.data(), in.size()), 0);
  EXPECT_EQ(wait(s).result, req_result::ok);
}

INSTANTIATE_TEST_SUITE_P(Modes, EngineSelf, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "core" : "off"; });

}  // namespace
