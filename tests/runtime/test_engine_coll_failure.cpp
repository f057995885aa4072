// A collective run that fails in the transport on one rank tells the other ranks (progress/coll/instance.hpp,
// "Failures"), on two local shm engines in this process, each the other's rank of a two-rank communicator (mode
// off). Without the notice the other rank would wait for ever for messages the failed rank never sends.
//  * rank 0's receive fails before its message came (a provider's error completion, injected by the test under the
//    progress lock: libfabric gives no way to fail one receive on purpose); rank 0 never sends what a ring allreduce
//    sends after that receive, and rank 1's run ends with errc::transport and rank 0's sentence;
//  * rank 0's rendezvous send fails after its ready-to-send went (fi_tsend, injected the same way) and after rank 1
//    answered it: rank 1's receive waits for data that will never come; it is abandoned (its provider receive
//    cancelled) and rank 1's run ends the same way;
//  * both ranks' rendezvous sends fail after the other rank answered (or will answer) their ready-to-send: a run
//    that ended by its own failure before the other's notice came must still abandon the receive waiting for the
//    other's data;
//  * only the receive of the failed send is abandoned: rank 0's other send, given up while it waited for its
//    clear-to-send, answers it with an empty message, which rank 1's receive must take (abandoned, it would leave
//    that message in the provider, where the next rendezvous from the same slot of rank 0 would take it for its
//    data);
//  * a notice of an earlier run of a persistent collective is not taken for its next run's, and one of a persistent
//    collective that the ranks start in different orders (other collectives between) reaches its run.
// Each time both runs complete, and every request slot of both engines comes back. A notice is read as it arrives and
// takes no eager credit: with SIDECORE_EAGER_CREDITS=0 it still goes as an eager message (as a ready-to-send nobody
// would answer it, and the failed rank's run would never complete).
#include <gtest/gtest.h>

#include <rdma/fi_errno.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/progress/collective.hpp>
#include <sidecore/progress/tag.hpp>

#include "coll_pair.hpp"

namespace {

using namespace sctest;

void receive_fails(std::size_t eager_credits) {
  coll_pair p(eager_credits);
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s = allreduce_of(16);
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
  // Without eager credits rank 1's sends went as ready-to-sends, which came after rank 0's run ended: rank 0 answers
  // them with an empty clear-to-send, so that they complete and their slots come back.
  EXPECT_TRUE(p.slots_back()) << p.e[0]->requests_in_use() << " " << p.e[1]->requests_in_use();
  EXPECT_EQ(unexpected_held(p.core(0)), 0u);
  EXPECT_EQ(unexpected_held(p.core(1)), 0u);
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
  const std::uint64_t h1 =
      p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::binomial), {b1.data(), b1.data(), {}}, 0);
  const std::uint64_t h0 =
      p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::binomial), {b0.data(), b0.data(), {}}, 0);
  req* send = find_child(p.core(0), waiting_send);
  ASSERT_NE(send, nullptr) << "rank 0's ready-to-send went; its send waits for the clear-to-send";
  // Rank 1 takes the ready-to-send: its data receive is posted and its clear-to-send goes.
  ASSERT_TRUE(sctest::progress_until(*p.e[1], [&] { return find_child(p.core(1), answered_recv) != nullptr; }));
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
  coll::spec s = allreduce_of(16 << 10);  // two 64 KiB halves: rendezvous messages
  std::vector<double> in0(s.count, 1.0), out0(s.count, 0.0), in1(s.count, 2.0), out1(s.count, 0.0);
  const std::uint64_t h0 = p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::ring),
                                         {in0.data(), out0.data(), {}}, 0);
  const std::uint64_t h1 = p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::ring),
                                         {in1.data(), out1.data(), {}}, 0);
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

// A ring allreduce of two 64 KiB halves, each sent as two 32 KiB segments (rendezvous, none waiting for another):
// rank 1 answered both of rank 0's ready-to-sends, and rank 0 has read neither answer yet. The two sends that wait.
struct answered_pair {
  coll::spec s = allreduce_of(16 << 10);
  std::vector<double> in0, out0, in1, out1;
  std::uint64_t h0 = 0, h1 = 0;
  std::vector<req*> sends;
  void start(coll_pair& p) {
    s.segment_bytes = 32 << 10;
    in0.assign(s.count, 1.0);
    out0.assign(s.count, 0.0);
    in1.assign(s.count, 2.0);
    out1.assign(s.count, 0.0);
    h1 = p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::ring), {in1.data(), out1.data(), {}}, 0);
    h0 = p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::ring), {in0.data(), out0.data(), {}}, 0);
    ASSERT_TRUE(sctest::progress_until(*p.e[1], [&] { return find_children(p.core(1), answered_recv).size() == 2; }));
    sends = find_children(p.core(0), waiting_send);
    ASSERT_EQ(sends.size(), 2u);
  }
};

TEST(CollFailureNotice, OnlyTheFailedSendsReceiveIsAbandonedTheOthersTakeTheirEmptyAnswer) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  answered_pair a;
  ASSERT_NO_FATAL_FAILURE(a.start(p));
  const std::uint32_t given_up_slot = a.sends[0]->index;
  // Its second send fails; its run gives up (before reading the clear-to-sends): the first send is detached.
  p.core(0).fail_request(a.sends[1], failure::fi_tsend, FI_EIO);
  ASSERT_TRUE(p.core(0).run_ready());
  // Rank 1 reads the notice and abandons the failed send's receive before the empty answer can come.
  ASSERT_TRUE(sctest::progress_until(*p.e[1], [&] {
    return find_children(p.core(1), [](const req& q) { return answered_recv(q) && q.result == req_result::ok; })
               .size() < 2;
  }));
  ASSERT_TRUE(p.finish(a.h0, a.h1));
  const coll_pair::outcome o = p.results(a.h0, a.h1);
  EXPECT_EQ(o.c[0].result, req_result::transport);
  EXPECT_EQ(o.c[1].result, req_result::transport);
  EXPECT_NE(o.why[1].find("rank 0 of the communicator could not go on with the allreduce"), std::string::npos)
      << o.why[1];
  ASSERT_TRUE(p.slots_back()) << p.e[0]->requests_in_use() << " " << p.e[1]->requests_in_use();
  // The next rendezvous from that slot of rank 0 to rank 1 (its ready-to-send and its data, injected raw from rank
  // 0's endpoint as its provider would send them): its data must arrive whole, not a message left on that tag.
  const std::uint64_t t = tag::make(tag::kind::p2p, 0, 13);
  std::vector<char> out(1024, 'n'), in(1024, 0);
  const std::uint64_t rcv = p.e[1]->start_recv(in.data(), in.size(), t, 0, 0, 0, 0);
  const wire_hdr rts = rts_hdr(t, out.size(), std::uint64_t{given_up_slot} + 1, 0, 0);
  ASSERT_EQ(sctest::raw_inject(*p.e[0], 1, &rts, sizeof rts, ctrl_tag), 0);
  ASSERT_EQ(sctest::raw_inject(*p.e[0], 1, out.data(), out.size(), rdv_tag_of(0, given_up_slot)), 0);
  ASSERT_TRUE(sctest::progress_until(*p.e[1], [&] { return !p.e[1]->pending(rcv); }));
  completion c{};
  ASSERT_TRUE(p.e[1]->wait(rcv, c));
  EXPECT_EQ(c.result, req_result::ok);
  EXPECT_EQ(c.bytes, out.size()) << "a message left on that slot's rendezvous tag was taken for the data";
  EXPECT_EQ(in, out);
}

// Two sends to the same rank fail after that rank answered both: each receive waits for data that will never come,
// so the notices must name both sends, whether the second fails in the same pass as the first (one notice queued)
// or after the first notice went.
void two_sends_fail(bool second_after_notice) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  answered_pair a;
  ASSERT_NO_FATAL_FAILURE(a.start(p));
  p.core(0).fail_request(a.sends[0], failure::fi_tsend, FI_EIO);
  if (second_after_notice) {
    ASSERT_TRUE(p.core(0).run_ready());  // the run gives up and its notice goes, naming the first send
    // The second send is detached by then (it waits for the clear-to-send): it fails as the provider fails it.
    req* second = find_child(p.core(0), waiting_send);
    if (second == nullptr) {  // detached: no parent any more
      for (std::uint32_t i = 0, n = p.core(0).pool.slots(); i < n; ++i) {
        req* q = p.core(0).pool.at(i);
        if (taken_in_flight(*q) && q->op == req_kind::send && q->rdv && !q->posted) second = q;
      }
    }
    ASSERT_NE(second, nullptr);
    p.core(0).fail_request(second, failure::fi_tsend, FI_EIO);
  } else {
    p.core(0).fail_request(a.sends[1], failure::fi_tsend, FI_EIO);
  }
  ASSERT_TRUE(p.finish(a.h0, a.h1)) << "rank 1 must not wait for ever for the data of either failed send";
  const coll_pair::outcome o = p.results(a.h0, a.h1);
  EXPECT_EQ(o.c[0].result, req_result::transport);
  EXPECT_EQ(o.c[1].result, req_result::transport);
  EXPECT_NE(o.why[1].find("rank 0 of the communicator could not go on with the allreduce"), std::string::npos)
      << o.why[1];
  EXPECT_TRUE(p.slots_back()) << p.e[0]->requests_in_use() << " " << p.e[1]->requests_in_use();
}

TEST(CollFailureNotice, TwoFailedSendsToOneRankInOnePassAreBothNamed) { two_sends_fail(false); }
TEST(CollFailureNotice, ASendThatFailsAfterTheNoticeWentIsNamedToo) { two_sends_fail(true); }

// A persistent collective's instance is the same for every start: a failure notice of its first run that comes
// after that run completed here (injected raw, as rank 0's provider would deliver it late) is dropped, not taken for
// the second run's, which completes on both ranks.
TEST(CollFailureNotice, ANoticeOfAnEarlierRunOfAPersistentCollectiveIsDropped) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s = allreduce_of(16);
  std::vector<double> in[2] = {std::vector<double>(16, 1.0), std::vector<double>(16, 2.0)};
  std::vector<double> out[2] = {std::vector<double>(16, 0.0), std::vector<double>(16, 0.0)};
  coll_persistent* pc[2] = {};
  for (std::size_t r = 0; r < 2; ++r)
    pc[r] = p.x[r]->create(p.c[r], p.c[r]->plan(s, coll::algorithm::automatic), {in[r].data(), out[r].data(), {}});
  for (int run = 0; run < 2; ++run) {
    if (run == 1) {
      const std::string text = "the allreduce's send to rank 1 failed in the transport (run 0)";
      wire_hdr h = eager_hdr(tag::make_coll(1, tag::coll_persistent, tag::coll_fail_msg), text.size(), 0, 0);
      set_sig(h, 0);  // its first start
      std::vector<char> msg(sizeof h + text.size());
      std::memcpy(msg.data(), &h, sizeof h);
      std::memcpy(msg.data() + sizeof h, text.data(), text.size());
      ASSERT_EQ(sctest::raw_inject(*p.e[0], 1, msg.data(), msg.size(), ctrl_tag), 0);
      for (int k = 0; k < 20; ++k) p.e[1]->progress();
    }
    const std::uint64_t h1 = p.x[1]->start(*pc[1], 0);
    const std::uint64_t h0 = p.x[0]->start(*pc[0], 0);
    ASSERT_TRUE(p.finish(h0, h1)) << "run " << run;
    const coll_pair::outcome o = p.results(h0, h1);
    EXPECT_EQ(o.c[0].result, req_result::ok) << "run " << run << ": " << o.why[0];
    EXPECT_EQ(o.c[1].result, req_result::ok) << "run " << run << ": " << o.why[1];
    EXPECT_EQ(out[1], std::vector<double>(16, 3.0));
  }
  for (std::size_t r = 0; r < 2; ++r) p.x[r]->destroy(pc[r]);
}

// Two persistent allreduces, started in different orders on the two ranks (MPI lets persistent collectives start
// in any order): rank 0's first run of the first one fails; rank 1 started the second one before it, and must still
// take the notice for its run of the first.
TEST(CollFailureNotice, ANoticeReachesThePersistentRunItIsForWhateverTheOrderOfStarts) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s = allreduce_of(16);
  std::vector<double> in(16, 1.0), out[2][2];
  coll_persistent* pc[2][2] = {};  // [rank][collective]
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t k = 0; k < 2; ++k) {
      out[r][k].assign(16, 0.0);
      pc[r][k] = p.x[r]->create(p.c[r], p.c[r]->plan(s, coll::algorithm::ring), {in.data(), out[r][k].data(), {}});
    }
  const std::uint64_t first0 = p.x[0]->start(*pc[0][0], 0);
  req* r = find_child(p.core(0), [](const req& q) {
    return q.op == req_kind::recv && q.stage.load(std::memory_order_relaxed) == req_stage::posted;
  });
  ASSERT_NE(r, nullptr);
  p.core(0).unlink_posted(r);
  p.core(0).fail_request(r, failure::error_completion, FI_EIO);
  const std::uint64_t second1 = p.x[1]->start(*pc[1][1], 0);
  const std::uint64_t first1 = p.x[1]->start(*pc[1][0], 0);
  const std::uint64_t second0 = p.x[0]->start(*pc[0][1], 0);
  ASSERT_TRUE(p.finish(second0, second1));
  ASSERT_TRUE(p.finish(first0, first1)) << "rank 1's run of the first allreduce must take rank 0's notice";
  const coll_pair::outcome second = p.results(second0, second1);
  EXPECT_EQ(second.c[0].result, req_result::ok) << second.why[0];
  EXPECT_EQ(second.c[1].result, req_result::ok) << second.why[1];
  const coll_pair::outcome first = p.results(first0, first1);
  EXPECT_EQ(first.c[0].result, req_result::transport);
  EXPECT_EQ(first.c[1].result, req_result::transport);
  EXPECT_NE(first.why[1].find("rank 0 of the communicator could not go on with the allreduce"), std::string::npos)
      << first.why[1];
  for (std::size_t q = 0; q < 2; ++q)
    for (std::size_t k = 0; k < 2; ++k) p.x[q]->destroy(pc[q][k]);
}

}  // namespace
