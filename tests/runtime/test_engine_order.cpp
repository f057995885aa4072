// One thread's sends keep their order (MPI's non-overtaking rule) when another thread's submission is half pushed:
// its cell of the submission queue taken, its value not yet published (a producer preempted between the two), so
// that draining stops there and the calling thread's own queued send waits behind it. A later small send of the
// same thread must not go out by the fast path meanwhile, nor a later request be accepted ahead of its queued one.
// Mode core (a rendezvous send is the progress thread's: it is queued), on a local shm engine connected to itself.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;

const std::uint64_t kOrderTag = tag::make(tag::kind::p2p, 0, 11);

completion wait_for(engine& e, std::uint64_t h) {
  completion c{};
  if (is_inline(h)) {
    c.bytes = inline_bytes(h);
    c.result = req_result::ok;
    return c;
  }
  EXPECT_TRUE(e.wait(h, c));
  return c;
}

TEST(EngineOrder, ASendDoesNotOvertakeItsQueuedPredecessorBehindAHalfPushedEntry) {
  const std::unique_ptr<engine> e = sctest::local_engine();
  ASSERT_TRUE(e);
  e->start_thread([] {});
  engine_core& core = core_of(*e);
  // Another thread's submission, half pushed: a receive on another tag, whose entry is published at the end.
  std::vector<char> other(8);
  const std::uint64_t other_h = e->start_recv(other.data(), other.size(), tag::make(tag::kind::p2p, 0, 12), 0, 0, 0, 0);
  const std::optional<std::size_t> cell = core.queue.claim();
  ASSERT_TRUE(cell);
  // This thread: a rendezvous send (queued, behind the half-pushed cell), then a small one.
  const std::size_t big = e->eager_max() * 4, small = 16;
  std::vector<char> big_out(big, 'B'), small_out(small, 's');
  const std::uint64_t s1 = e->start_send(big_out.data(), big, 0, kOrderTag, 0, 0, 0);
  const std::uint64_t s2 = e->start_send(small_out.data(), small, 0, kOrderTag, 0, 0, 0);
  // The other thread's push completes: a cancel of its receive.
  core.queue.publish(*cell, static_cast<std::uint32_t>(other_h - 1) | engine_core::cancel_bit);
  // Receives in order: the first takes the first message sent.
  std::vector<char> in1(big, 0), in2(big, 0);
  const std::uint64_t r1 = e->start_recv(in1.data(), big, kOrderTag, 0, 0, 0, 0);
  const std::uint64_t r2 = e->start_recv(in2.data(), big, kOrderTag, 0, 0, 0, 0);
  const completion c1 = wait_for(*e, r1), c2 = wait_for(*e, r2);
  EXPECT_EQ(c1.bytes, big) << "the first receive got the second message: the small send overtook the large one";
  EXPECT_EQ(c2.bytes, small);
  EXPECT_EQ(wait_for(*e, s1).result, req_result::ok);
  EXPECT_EQ(wait_for(*e, s2).result, req_result::ok);
  EXPECT_EQ(wait_for(*e, other_h).result, req_result::canceled);
  e->stop_thread();
}

}  // namespace
