// What a collective run that ended early leaves behind (docs/collectives.md, "Signatures and mismatches"): the
// messages of its instance that other ranks sent before they knew, held as unexpected here or still on their way.
// On two local shm engines (coll_pair.hpp), each the other's rank of a two-rank communicator, mode off:
//  * calls that differ in count so much that the ranks' schedules differ in shape (rank 0: recursive doubling, one
//    message; rank 1: Rabenseifner, several rendezvous messages), started in either order and with or without eager
//    credits: both runs end with the mismatch, and afterwards every request slot of both engines has come back and
//    neither engine holds a message of the ended instance (a ready-to-send it held is answered with an empty
//    clear-to-send, so that its sender's send completes; eager data is dropped and its credit given back);
//  * the same many times over: nothing accumulates, and a collective after them gives the right result;
//  * a communicator freed after such a run, and a new one given its id: the new one's first collective (the same
//    instance number as the ended run) is not refused, even when its messages come before this rank started it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "coll_pair.hpp"

namespace {

using namespace sctest;

struct mismatch_case {
  bool small_first;  // rank 0 (the small call) starts before rank 1
  std::size_t eager_credits;
};
void PrintTo(const mismatch_case& c, std::ostream* os) {
  *os << (c.small_first ? "small call first" : "big call first") << ", eager credits " << c.eager_credits;
}

// One mismatched allreduce: rank 0 reduces 2 doubles, rank 1 `big`. Both requests end with req_result::invalid.
void run_mismatch(coll_pair& p, bool small_first, std::uint64_t big) {
  coll::spec s0 = allreduce_of(2), s1 = allreduce_of(big);
  std::vector<double> in0(2, 1.0), out0(2 + 64, -7.0), in1(big, 2.0), out1(big, 0.0);
  std::uint64_t h0 = 0, h1 = 0;
  const auto start0 = [&] {
    h0 = p.x[0]->start(p.c[0], p.c[0]->plan(s0, coll::algorithm::automatic), {in0.data(), out0.data(), {}}, 0);
  };
  const auto start1 = [&] {
    h1 = p.x[1]->start(p.c[1], p.c[1]->plan(s1, coll::algorithm::automatic), {in1.data(), out1.data(), {}}, 0);
  };
  if (small_first) {
    start0();
    for (int k = 0; k < 5; ++k) p.e[0]->progress();
    start1();
  } else {
    start1();
    for (int k = 0; k < 5; ++k) p.e[1]->progress();
    start0();
  }
  ASSERT_TRUE(p.finish(h0, h1)) << "neither rank may wait for ever";
  const coll_pair::outcome o = p.results(h0, h1);
  EXPECT_EQ(o.c[0].result, req_result::invalid) << o.why[0];
  EXPECT_EQ(o.c[1].result, req_result::invalid) << o.why[1];
  for (std::size_t i = 2; i < out0.size(); ++i) ASSERT_EQ(out0[i], -7.0) << "overrun at " << i;
}

// Both engines progressed until every slot came back and neither holds a message (10 s at most).
bool nothing_left(coll_pair& p) {
  return sctest::progress_until(*p.e[0], [&] {
    p.e[1]->progress();
    return p.e[0]->requests_in_use() == 0 && p.e[1]->requests_in_use() == 0 && unexpected_held(p.core(0)) == 0 &&
           unexpected_held(p.core(1)) == 0;
  });
}

class EndedRun : public ::testing::TestWithParam<mismatch_case> {};

TEST_P(EndedRun, LeavesNoSlotAndNoMessageBehind) {
  coll_pair p(GetParam().eager_credits);
  ASSERT_NO_FATAL_FAILURE(p.open());
  ASSERT_NO_FATAL_FAILURE(run_mismatch(p, GetParam().small_first, 100000));
  EXPECT_TRUE(nothing_left(p)) << "slots in use " << p.e[0]->requests_in_use() << " " << p.e[1]->requests_in_use()
                               << ", messages held " << unexpected_held(p.core(0)) << " "
                               << unexpected_held(p.core(1));
}

TEST_P(EndedRun, ManyInARowAccumulateNothingAndTheNextCollectiveIsRight) {
  coll_pair p(GetParam().eager_credits);
  ASSERT_NO_FATAL_FAILURE(p.open());
  for (int i = 0; i < 20; ++i) ASSERT_NO_FATAL_FAILURE(run_mismatch(p, GetParam().small_first, 40000)) << "call " << i;
  EXPECT_TRUE(nothing_left(p)) << "slots in use " << p.e[0]->requests_in_use() << " " << p.e[1]->requests_in_use()
                               << ", messages held " << unexpected_held(p.core(0)) << " "
                               << unexpected_held(p.core(1));
  coll::spec s = allreduce_of(40000);
  std::vector<double> in0(s.count, 1.0), out0(s.count, 0.0), in1(s.count, 2.0), out1(s.count, 0.0);
  const std::uint64_t h0 =
      p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::automatic), {in0.data(), out0.data(), {}}, 0);
  const std::uint64_t h1 =
      p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::automatic), {in1.data(), out1.data(), {}}, 0);
  ASSERT_NO_FATAL_FAILURE(p.expect_both_ok(h0, h1));
  EXPECT_EQ(out0, std::vector<double>(s.count, 3.0));
  EXPECT_EQ(out1, std::vector<double>(s.count, 3.0));
}

TEST(EndedRunOfAFreedCommunicator, DoesNotRefuseTheMessagesOfTheNextCommunicatorWithItsId) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  ASSERT_NO_FATAL_FAILURE(run_mismatch(p, false, 100000));  // instance 0 of communicator 1 ended early on both
  ASSERT_TRUE(nothing_left(p));
  for (int r = 0; r < 2; ++r) {
    p.x[r]->comm_freed(1);
    p.c[r] = std::make_shared<coll_comm>(1, r, std::vector<int>{0, 1}, 4);  // instance 0 again
  }
  coll::spec s = allreduce_of(16);
  std::vector<double> in0(16, 1.0), out0(16, 0.0), in1(16, 2.0), out1(16, 0.0);
  const std::uint64_t h1 =
      p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::automatic), {in1.data(), out1.data(), {}}, 0);
  // Rank 1's message reaches rank 0 before rank 0 starts: held there for it.
  for (int k = 0; k < 20; ++k) {
    p.e[1]->progress();
    p.e[0]->progress();
  }
  const std::uint64_t h0 =
      p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::automatic), {in0.data(), out0.data(), {}}, 0);
  ASSERT_NO_FATAL_FAILURE(p.expect_both_ok(h0, h1));
  EXPECT_EQ(out0, std::vector<double>(16, 3.0));
  EXPECT_EQ(out1, std::vector<double>(16, 3.0));
}

// The instrumentation's view of transfers (engine::set_xfer_hook): every collective's message is op k + 1; the
// answers and notices the engine sends for itself (an empty clear-to-send for a refused ready-to-send, the abort
// notice of tell_run_ended) are no transfer of the application's and must not be counted as point-to-point ones.
std::atomic<int> p2p_events{0}, coll_events{0};
void count_xfer(const sidecore::progress::xfer_event& ev, bool) {
  (ev.op == 0 ? p2p_events : coll_events).fetch_add(1, std::memory_order_relaxed);
}

TEST_P(EndedRun, TheEnginesOwnAnswersAreNoPointToPointTransfer) {
  coll_pair p(GetParam().eager_credits);
  ASSERT_NO_FATAL_FAILURE(p.open());
  p2p_events = 0;
  coll_events = 0;
  p.e[0]->set_xfer_hook(&count_xfer);
  p.e[1]->set_xfer_hook(&count_xfer);
  ASSERT_NO_FATAL_FAILURE(run_mismatch(p, GetParam().small_first, 100000));
  {  // a count of 0 on rank 1 (the ring: an empty run there): rank 0's message to it is refused and answered with
     // the run-ended notice
    coll::spec s0 = allreduce_of(4), s1 = allreduce_of(0);
    std::vector<double> in0(4, 1.0), out0(4, 0.0), none(1, 0.0);
    const std::uint64_t h1 =
        p.x[1]->start(p.c[1], p.c[1]->plan(s1, coll::algorithm::ring), {none.data(), none.data(), {}}, 0);
    for (int k = 0; k < 5; ++k) p.e[1]->progress();
    const std::uint64_t h0 =
        p.x[0]->start(p.c[0], p.c[0]->plan(s0, coll::algorithm::ring), {in0.data(), out0.data(), {}}, 0);
    ASSERT_TRUE(p.finish(h0, h1)) << "neither rank may wait for ever";
    const coll_pair::outcome o = p.results(h0, h1);
    EXPECT_EQ(o.c[0].result, req_result::invalid) << o.why[0];
  }
  EXPECT_TRUE(nothing_left(p));
  p.e[0]->set_xfer_hook(nullptr);
  p.e[1]->set_xfer_hook(nullptr);
  EXPECT_GT(coll_events.load(), 0);
  EXPECT_EQ(p2p_events.load(), 0) << "the engine's own messages were recorded as the application's transfers";
}

INSTANTIATE_TEST_SUITE_P(Orders, EndedRun,
                         ::testing::Values(mismatch_case{true, 16}, mismatch_case{false, 16}, mismatch_case{true, 0},
                                           mismatch_case{false, 0}),
                         [](const ::testing::TestParamInfo<mismatch_case>& i) {
                           return std::string(i.param.small_first ? "SmallFirst" : "BigFirst") +
                                  (i.param.eager_credits ? "Eager" : "NoEagerCredits");
                         });

}  // namespace
