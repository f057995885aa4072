// A collective run that fails in the transport on one rank tells the other ranks (progress/coll/instance.hpp, "Failures"), on
// two local shm engines in this process, each the other's rank of a two-rank communicator (mode off). Without the
// notice the other rank would wait for ever for messages the failed rank never sends.
//  * rank 0's receive fails before its message came (a provider's error completion, injected by the test under the
//    progress lock: libfabric gives no way to fail one receive on purpose); rank 0 never sends what a ring allreduce
//    sends after that receive, and rank 1's run ends with errc::transport and rank 0's sentence;
//  * rank 0's rendezvous send fails after its ready-to-send went (fi_tsend, injected the same way) and after rank 1
//    answered it: rank 1's receive waits for data that will never come; it is abandoned (its provider receive
//    cancelled) and rank 1's run ends the same way;
//  * both ranks' rendezvous sends fail after the other rank answered (or will answer) their ready-to-send: a run
//    that ended by its own failure before the other's notice came must still abandon the receive waiting for the
//    other's data.
// Each time both runs complete, and every request slot of both engines comes back. A notice is read as it arrives and
// takes no eager credit: with SIDECORE_EAGER_CREDITS=0 it still goes as an eager message (as a ready-to-send nobody
// would answer it, and the failed rank's run would never complete).
#include <gtest/gtest.h>

#include <rdma/fi_errno.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/progress/collective.hpp>
#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;
namespace coll = sidecore::coll;

const std::uint64_t kConnectTag = tag::make(tag::kind::p2p, 0, 12);

// Two engines, connected both ways, each with its executor and its rank of communicator 1.
struct coll_pair {
  explicit coll_pair(std::size_t eager_credits = engine_config{}.eager_credits)
      : e(sctest::engine_pair(idle_policy::hybrid, eager_credits)) {}
  std::vector<std::unique_ptr<engine>> e;
  std::unique_ptr<coll_executor> x[2];
  std::shared_ptr<coll_comm> c[2];

  void open() {
    ASSERT_EQ(e.size(), 2u);
    ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e[0], 0, *e[1], 1, kConnectTag));
    ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e[1], 1, *e[0], 0, kConnectTag));
    for (int r = 0; r < 2; ++r) {
      x[r] = std::make_unique<coll_executor>(*e[static_cast<std::size_t>(r)]);
      c[r] = std::make_shared<coll_comm>(1, r, std::vector<int>{0, 1}, 4);
    }
  }
  engine_core& core(int r) { return core_of(*e[static_cast<std::size_t>(r)]); }
  // Progresses both engines until both requests completed (10 s at most).
  bool finish(std::uint64_t h0, std::uint64_t h1) {
    return sctest::progress_until(*e[1], [&] {
      e[0]->progress();
      return !e[0]->pending(h0) && !e[1]->pending(h1);
    });
  }
  // Both runs' results and sentences (each request read once).
  struct outcome {
    completion c[2]{};
    std::string why[2];
  };
  outcome results(std::uint64_t h0, std::uint64_t h1) {
    outcome o;
    const std::uint64_t h[2] = {h0, h1};
    for (std::size_t r = 0; r < 2; ++r)
      o.why[r] = e[r]->wait(h[r], o.c[r]) ? x[r]->describe(h[r], o.c[r]) : "(no result)";
    return o;
  }
  bool slots_back() {
    return sctest::progress_until(*e[0], [&] {
      e[1]->progress();
      return e[0]->requests_in_use() == 0 && e[1]->requests_in_use() == 0;
    });
  }
};

// The first child request of a collective that `pred` accepts, or nullptr.
req* find_child(engine_core& core, const std::function<bool(const req&)>& pred) {
  for (std::uint32_t i = 0, n = core.pool.slots(); i < n; ++i) {
    req* r = core.pool.at(i);
    if (taken_in_flight(*r) && r->parent && pred(*r)) return r;
  }
  return nullptr;
}


void receive_fails(std::size_t eager_credits) {
  coll_pair p(eager_credits);
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s;
  s.k = coll::kind::allreduce;
  s.type = coll::dtype::float64;
  s.op = coll::reduce_op::sum;
  s.count = 16;
  std::vector<double> in0(16, 1.0), out0(16, 0.0), in1(16, 2.0), out1(16, 0.0);
  // A ring: each rank sends its half, reduces the half it receives, and sends that on; rank 0's second send
  // depends on its receive.
  const std::uint64_t h0 = p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::ring),
                                         {in0.data(), out0.data(), {}}, 0);
  req* r = find_child(p.core(0), [](const req& q) {
    return q.op == req_kind::recv && q.stage.load(std::memory_order_relaxed) == req_stage::posted;
  });
  ASSERT_NE(r, nullptr) << "rank 0's first pass posted its receive from rank 1";
  p.core(0).unlink_posted(r);
  p.core(0).fail_request(r, failure::error_completion, FI_EIO);
  const std::uint64_t h1 = p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::ring),
                                         {in1.data(), out1.data(), {}}, 0);
  ASSERT_TRUE(p.finish(h0, h1)) << "rank 1 must not wait for ever for rank 0's second message";
  const coll_pair::outcome o = p.results(h0, h1);
  const std::string& why0 = o.why[0];
  const std::string& why1 = o.why[1];
  EXPECT_EQ(o.c[0].result, req_result::transport);
  EXPECT_NE(why0.find("the allreduce's receive from rank 1 failed in the transport"), std::string::npos) << why0;
  EXPECT_NE(why0.find("Input/output error"), std::string::npos) << why0;
  EXPECT_EQ(o.c[1].result, req_result::transport);
  EXPECT_NE(why1.find("rank 0 of the communicator could not go on with the allreduce"), std::string::npos) << why1;
  EXPECT_NE(why1.find("the allreduce's receive from rank 1 failed in the transport"), std::string::npos) << why1;
  if (eager_credits != 0) {
    EXPECT_TRUE(p.slots_back()) << p.e[0]->requests_in_use() << " " << p.e[1]->requests_in_use();
  } else {
    // Without eager credits rank 1's sends went as ready-to-sends; the one rank 0's ended run never answers stays
    // detached, its slot held (docs/collectives.md: what an ended run leaves behind).
    EXPECT_TRUE(sctest::progress_until(*p.e[0], [&] { return p.e[0]->requests_in_use() == 0; }));
    EXPECT_LE(p.e[1]->requests_in_use(), 1u);
  }
}

TEST(CollFailureNotice, AReceiveThatFailsEndsThePeersRunWithTheFailedRanksSentence) { receive_fails(16); }
TEST(CollFailureNotice, ANoticeGoesEagerWithoutEagerCredits) { receive_fails(0); }

TEST(CollFailureNotice, AMatchedRendezvousReceiveWhoseDataWillNeverComeIsAbandoned) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s;
  s.k = coll::kind::bcast;
  s.type = coll::dtype::byte;
  s.count = 64 << 10;  // above eager_max: a ready-to-send, then the data after the clear-to-send
  s.root = 0;
  std::vector<char> b0(s.count, 'b'), b1(s.count, 0);
  const std::uint64_t h1 = p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::binomial), {b1.data(), b1.data(), {}}, 0);
  const std::uint64_t h0 = p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::binomial), {b0.data(), b0.data(), {}}, 0);
  req* send = find_child(p.core(0), [](const req& q) {
    return q.op == req_kind::send && q.rdv && q.act == req_act::none && !q.posted;
  });
  ASSERT_NE(send, nullptr) << "rank 0's ready-to-send went; its send waits for the clear-to-send";
  // Rank 1 takes the ready-to-send: its data receive is posted and its clear-to-send goes.
  ASSERT_TRUE(sctest::progress_until(*p.e[1], [&] {
    return find_child(p.core(1), [](const req& q) {
             return q.op == req_kind::recv && q.stage.load(std::memory_order_relaxed) == req_stage::matched &&
                    q.act == req_act::none;
           }) != nullptr;
  }));
  p.core(0).fail_request(send, failure::fi_tsend, FI_EIO);  // before rank 0 reads the clear-to-send
  ASSERT_TRUE(p.finish(h0, h1)) << "rank 1 must not wait for ever for data rank 0 never sends";
  const coll_pair::outcome o = p.results(h0, h1);
  const std::string& why0 = o.why[0];
  const std::string& why1 = o.why[1];
  EXPECT_EQ(o.c[0].result, req_result::transport);
  EXPECT_NE(why0.find("fi_tsend to address 1 failed"), std::string::npos) << why0;
  EXPECT_EQ(o.c[1].result, req_result::transport);
  EXPECT_NE(why1.find("rank 0 of the communicator could not go on with the bcast"), std::string::npos) << why1;
  EXPECT_NE(why1.find("fi_tsend to address 1 failed"), std::string::npos) << why1;
  EXPECT_EQ(b1[0], 0) << "no data arrived";
  EXPECT_TRUE(p.slots_back());
}

TEST(CollFailureNotice, ANoticeAfterTheRunEndedByItsOwnFailureStillAbandonsWhatWaitsForThatRank) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s;
  s.k = coll::kind::allreduce;
  s.type = coll::dtype::float64;
  s.op = coll::reduce_op::sum;
  s.count = 16 << 10;  // two 64 KiB halves: rendezvous messages
  std::vector<double> in0(s.count, 1.0), out0(s.count, 0.0), in1(s.count, 2.0), out1(s.count, 0.0);
  const std::uint64_t h0 = p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::ring),
                                         {in0.data(), out0.data(), {}}, 0);
  const std::uint64_t h1 = p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::ring),
                                         {in1.data(), out1.data(), {}}, 0);
  const auto waiting_send = [](const req& q) {
    return q.op == req_kind::send && q.rdv && q.act == req_act::none && !q.posted;
  };
  const auto answered_recv = [](const req& q) {
    return q.op == req_kind::recv && q.stage.load(std::memory_order_relaxed) == req_stage::matched &&
           q.act == req_act::none;
  };
  // Rank 1 took rank 0's ready-to-send and cleared it to send (rank 0 has not read that yet); both sends wait for
  // their clear-to-send, and fail now. Rank 0 then takes rank 1's ready-to-send (its messages are read before its
  // run gives up, in the same pass), so each rank's run has given up before the other's notice comes.
  ASSERT_TRUE(sctest::progress_until(*p.e[1], [&] { return find_child(p.core(1), answered_recv) != nullptr; }));
  for (int r : {0, 1}) {
    req* send = find_child(p.core(r), waiting_send);
    ASSERT_NE(send, nullptr) << "rank " << r;
    p.core(r).fail_request(send, failure::fi_tsend, FI_EIO);
  }
  ASSERT_TRUE(p.finish(h0, h1)) << "neither rank may wait for ever for the other's data";
  const coll_pair::outcome o = p.results(h0, h1);
  const std::string& why0 = o.why[0];
  const std::string& why1 = o.why[1];
  EXPECT_EQ(o.c[0].result, req_result::transport);
  EXPECT_EQ(o.c[1].result, req_result::transport);
  EXPECT_NE(why0.find("the allreduce's send to rank 1 failed in the transport"), std::string::npos) << why0;
  EXPECT_NE(why1.find("the allreduce's send to rank 0 failed in the transport"), std::string::npos) << why1;
  EXPECT_TRUE(p.slots_back()) << p.e[0]->requests_in_use() << " " << p.e[1]->requests_in_use();
}

}  // namespace
