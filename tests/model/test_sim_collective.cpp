// sidecore's collective schedules (common/include/sidecore/common/schedule.hpp) in the simulator.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/sim/collective.hpp"
#include "sidecore/model/sim/goal.hpp"
#include "sidecore/model/sim/loggops.hpp"

namespace sim = sidecore::model::sim;
namespace coll = sidecore::coll;

namespace {

coll::op message(coll::op_type t, int peer, std::uint64_t bytes, std::uint32_t tag) {
  coll::op o;
  o.type = t;
  o.peer = peer;
  o.bytes = bytes;
  o.tag = tag;
  return o;
}

// Binomial broadcast of 1024 B from rank 0 over 4 ranks, as tests/model/data/sim/bcast4.goal.
std::vector<coll::schedule> bcast4() {
  std::vector<coll::schedule> s(4);
  s[0].ops = {message(coll::op_type::send, 2, 1024, 0), message(coll::op_type::send, 1, 1024, 0)};
  s[1].ops = {message(coll::op_type::recv, 0, 1024, 0)};
  s[2].ops = {message(coll::op_type::recv, 0, 1024, 0), message(coll::op_type::send, 3, 1024, 0)};
  s[2].ops[1].dep_first = 0;
  s[2].ops[1].dep_count = 1;
  s[2].deps = {0};
  s[3].ops = {message(coll::op_type::recv, 2, 1024, 0)};
  return s;
}

}  // namespace

TEST(SimCollective, SameTimesAsTheGoalFile) {
  const sim::schedule a = sim::from_collective(bcast4(), {}, "bcast4");
  const sim::schedule b = sim::read_goal_file(std::string(SIDECORE_MODEL_TEST_DATA) + "/sim/bcast4.goal");
  EXPECT_EQ(sim::simulate(a, {}).finish_ns, sim::simulate(b, {}).finish_ns);
}

TEST(SimCollective, ReduceAndCopyAreCalcs) {
  // Rank 1 receives, reduces and copies: 1024 B at 0.5 and 0.25 ns/B add 512 + 256 ns after the reception.
  std::vector<coll::schedule> s(2);
  s[0].ops = {message(coll::op_type::send, 1, 1024, 3)};
  coll::op red;
  red.type = coll::op_type::reduce;
  red.bytes = 1024;
  red.dep_first = 0;
  red.dep_count = 1;
  coll::op cp;
  cp.type = coll::op_type::copy;
  cp.bytes = 1024;
  cp.dep_first = 1;
  cp.dep_count = 1;
  s[1].ops = {message(coll::op_type::recv, 0, 1024, 3), red, cp};
  s[1].deps = {0, 1};
  const sim::schedule sc = sim::from_collective(s, {0.5, 0.25}, "reduce");
  const sim::sim_result r = sim::simulate(sc, {});
  ASSERT_TRUE(r.complete);
  // LogGOPSim's defaults: the message takes rank 1's CPU to 1500 + 2500 + 1500 + 1023 * 6 = 11638.
  EXPECT_EQ(r.finish_ns[1], 11638 + 512 + 256);
}

TEST(SimCollective, BadSchedulesAreRefused) {
  auto s = bcast4();
  s[2].deps = {1};  // depends on itself: not an earlier operation
  EXPECT_THROW((void)sim::from_collective(s, {}, "x"), std::invalid_argument);
  s = bcast4();
  s[1].ops[0].peer = 4;
  try {
    (void)sim::from_collective(s, {}, "x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "x: rank 1, operation 0: peer 4 is not a rank of 4");
  }
  s = bcast4();
  s[2].ops[1].dep_count = 5;
  EXPECT_THROW((void)sim::from_collective(s, {}, "x"), std::invalid_argument);
}

// Every kind and every algorithm the builders offer (and auto), at a few rank counts, with one segment and with
// several: the schedule coll::build makes simulates to the end, and every rank gets a finish time.
TEST(SimCollective, EveryKindAndAlgorithmFinishes) {
  for (int k = 0; k < coll::kind_count; ++k) {
    const auto kind = static_cast<coll::kind>(k);
    std::vector<coll::algorithm> algs{coll::algorithm::automatic};
    for (coll::algorithm a : coll::algorithms_for(kind)) algs.push_back(a);
    for (coll::algorithm a : algs) {
      for (std::uint32_t p : {1u, 2u, 3u, 5u, 8u}) {
        for (std::uint64_t bytes : {std::uint64_t{64}, std::uint64_t{5000}}) {
          sim::collective_call c;
          c.kind = kind;
          c.algorithm = a;
          c.ranks = p;
          c.bytes = bytes;
          c.root = p - 1;
          c.segment_bytes = bytes > 64 ? 1024 : 0;  // 5000 B: five segments of each block
          SCOPED_TRACE(testing::Message() << coll::kind_name(kind) << ":" << coll::algorithm_name(a) << " on " << p
                                          << " ranks, " << bytes << " B");
          const sim::schedule s = sim::build_collective(c, {0.5, 0.25});
          ASSERT_EQ(s.num_ranks(), p);
          const sim::sim_result r = sim::simulate(s, {});
          ASSERT_TRUE(r.complete) << (r.problems.empty() ? "" : r.problems.front());
          ASSERT_EQ(r.finish_ns.size(), p);
          for (double t : r.finish_ns) EXPECT_TRUE(std::isfinite(t) && t >= 0);
          if (p > 1) {
            EXPECT_GT(r.messages, 0u);
            EXPECT_GT(r.makespan_ns(), 0);
          }
        }
      }
    }
  }
}

// The binomial broadcast comes from the generator (binomial_broadcast) when it needs one segment; the schedule
// coll::build makes for it, turned into a simulator schedule by from_collective, gives the same times.
TEST(SimCollective, BinomialBroadcastGeneratorMatchesTheBuilder) {
  sim::loggops_params other;
  other.L = 1000;
  other.o = 200;
  other.g = 300;
  other.G = 2;
  other.O = 1;
  other.S = 4096;
  for (std::uint32_t p = 1; p <= 40; ++p) {
    for (std::uint32_t root : {0u, p / 2, p - 1}) {
      for (std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{10000}}) {
        SCOPED_TRACE(testing::Message() << p << " ranks, root " << root << ", " << bytes << " B");
        sim::collective_call c;
        c.kind = coll::kind::bcast;
        c.algorithm = coll::algorithm::binomial;
        c.ranks = p;
        c.bytes = bytes;
        c.root = root;
        std::vector<coll::schedule> per_rank;
        for (std::uint32_t r = 0; r < p; ++r)
          per_rank.push_back(
              coll::build(sim::collective_spec(c), c.algorithm, static_cast<int>(r), static_cast<int>(p)));
        const sim::schedule built = sim::from_collective(per_rank, {}, "built");
        const sim::schedule generated = sim::build_collective(c, {});
        ASSERT_EQ(generated.num_ops(), built.num_ops());
        for (const sim::loggops_params& params : {sim::loggops_params{}, other})
          EXPECT_EQ(sim::simulate(generated, params).finish_ns, sim::simulate(built, params).finish_ns);
      }
    }
  }
}

// Ring allgather of n bytes per rank on P ranks, eager, checked against the timing rules of docs/simulate.md.
// Rank r's step s sends block r - s to r + 1 (step 0 from its input) and receives block r - s - 1 from r - 1; the
// send of step s + 1 requires the receive of step s (it forwards that block), the receives are all posted at 0,
// and the own block's copy costs 0 here. Every rank does the same at the same times, so with t_s the start of
// step s's send:
//   send:    the CPU is busy [t_s, t_s + o + (n-1)O), the NIC's send side [t_s, t_s + g + (n-1)G);
//   arrival: at r + 1 at t_s + o + L; if L >= (n-1)O that rank's CPU is free by then (its own send of step s
//            ended at t_s + o + (n-1)O), and so is its NIC's receive side (busy from the previous arrival to
//            t_s + o + L - T + g + (n-1)G, before t_s + o + L when g + (n-1)G <= T); the CPU is then busy until
//            t_s + o + L + o + (n-1)max(O, G), and the receive of step s is done;
//   so the send of step s + 1 is queued at its CPU's clock (later than the NIC's t_s + g + (n-1)G when
//   g + (n-1)G <= T): t_{s+1} = t_s + T with T = L + 2o + (n-1)max(O, G).
// The last receive (step P - 2) ends every rank's CPU work at t_{P-1}: finish = (P - 1) T on every rank.
TEST(SimCollective, RingAllgatherClosedForm) {
  struct setting {
    sim::loggops_params params;
    std::uint64_t n;
  };
  sim::loggops_params small;  // L = 1000 >= (n-1)O = 511, g + (n-1)G = 1322 <= T = 2422
  small.L = 1000;
  small.o = 200;
  small.g = 300;
  small.G = 2;
  small.O = 1;
  small.S = 4096;
  // LogGOPSim's defaults with n = 1024: O = 0, g + (n-1)G = 7138 <= T = 11638.
  for (const setting& st : {setting{sim::loggops_params{}, 1024}, setting{small, 512}}) {
    const sim::loggops_params& q = st.params;
    const double T = q.L + 2 * q.o + static_cast<double>(st.n - 1) * std::max(q.O, q.G);
    for (std::uint32_t p : {1u, 2u, 3u, 5u, 8u}) {
      SCOPED_TRACE(testing::Message() << p << " ranks, " << st.n << " B, L=" << q.L);
      sim::collective_call c;
      c.kind = coll::kind::allgather;
      c.algorithm = coll::algorithm::ring;
      c.ranks = p;
      c.bytes = st.n;
      const sim::sim_result r = sim::simulate(sim::build_collective(c, {}), q);
      ASSERT_TRUE(r.complete);
      EXPECT_EQ(r.messages, std::uint64_t{p} * (p - 1));
      for (double t : r.finish_ns) EXPECT_EQ(t, (p - 1) * T);
    }
  }
  EXPECT_EQ(11638, 2500 + 2 * 1500 + 1023 * 6);  // the defaults' T, as the CLI test model.cli.simulate_allgather_ring
}

TEST(SimCollective, PatternNames) {
  sim::collective_call c = sim::parse_collective_pattern("allreduce:ring");
  EXPECT_EQ(c.kind, coll::kind::allreduce);
  EXPECT_EQ(c.algorithm, coll::algorithm::ring);
  c = sim::parse_collective_pattern("reduce_scatter_block:recursive_halving");
  EXPECT_EQ(c.kind, coll::kind::reduce_scatter_block);
  EXPECT_EQ(c.algorithm, coll::algorithm::recursive_halving);
  c = sim::parse_collective_pattern("alltoall");
  EXPECT_EQ(c.kind, coll::kind::alltoall);
  EXPECT_EQ(c.algorithm, coll::algorithm::automatic);
  c = sim::parse_collective_pattern("gather:auto");
  EXPECT_EQ(c.algorithm, coll::algorithm::automatic);
  c = sim::parse_collective_pattern("binomial-bcast");
  EXPECT_EQ(c.kind, coll::kind::bcast);
  EXPECT_EQ(c.algorithm, coll::algorithm::binomial);
  auto message = [](std::string_view text) {
    try {
      (void)sim::parse_collective_pattern(text);
    } catch (const sidecore::input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("allreduse:ring"),
            "--pattern: \"allreduse:ring\": \"allreduse\" is not a collective kind; accepted: KIND[:ALGORITHM] with "
            "KIND one of barrier, bcast, reduce, allreduce, gather, scatter, allgather, alltoall, "
            "reduce_scatter_block, allgatherv, alltoallv (or binomial-bcast)");
  EXPECT_EQ(message("allreduce:bruck"), "--pattern: \"allreduce:bruck\": \"bruck\" is not an algorithm of allreduce; "
                                        "accepted: auto, recursive_doubling, rabenseifner, ring");
  EXPECT_EQ(message("bcast:"), "--pattern: \"bcast:\": \"\" is not an algorithm of bcast; accepted: auto, binomial, "
                               "scatter_allgather, linear");
  EXPECT_EQ(message(""), "--pattern: \"\": \"\" is not a collective kind; accepted: KIND[:ALGORITHM] with KIND one "
                         "of barrier, bcast, reduce, allreduce, gather, scatter, allgather, alltoall, "
                         "reduce_scatter_block, allgatherv, alltoallv (or binomial-bcast)");
}

TEST(SimCollective, BadCallsNameTheOption) {
  auto message = [](sim::collective_call c, std::uint64_t max_ops = sim::max_collective_ops) {
    try {
      (void)sim::build_collective(c, {}, max_ops);
    } catch (const sidecore::input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  sim::collective_call c;
  c.kind = coll::kind::allreduce;
  c.ranks = 0;
  EXPECT_EQ(message(c), "--ranks: '0' is not accepted; accepted: an integer in [1 - 2147483647]");
  c.ranks = -3;
  EXPECT_EQ(message(c), "--ranks: '-3' is not accepted; accepted: an integer in [1 - 2147483647]");
  c.ranks = std::int64_t{1} << 31;
  EXPECT_EQ(message(c), "--ranks: '2147483648' is not accepted; accepted: an integer in [1 - 2147483647]");
  c.ranks = 4;
  c.bytes = 1001;
  EXPECT_EQ(message(c), "--bytes: '1001' is not accepted; accepted: a multiple of 8 (allreduce sums float64 "
                        "elements)");
  c.kind = coll::kind::allgather;
  c.bytes = std::uint64_t{1} << 61;
  EXPECT_EQ(message(c), "--bytes: 2305843009213693952 B on 4 ranks reach 2^63 bytes; accepted: bytes x ranks below "
                        "2^63");
  c.kind = coll::kind::bcast;
  c.bytes = std::uint64_t{1} << 50;
  EXPECT_EQ(message(c), "--bytes: 1125899906842624 B in segments of 131072 B make 8589934592 segments per rank; "
                        "accepted: at most 33554432 (fewer bytes or a larger --segment)");
  c.bytes = 8;
  c.root = 4;
  EXPECT_EQ(message(c), "--root: '4' is not accepted; accepted: a rank of the 4 ranks, an integer in [0 - 3]");
  c.root = -1;
  EXPECT_EQ(message(c), "--root: '-1' is not accepted; accepted: a rank of the 4 ranks, an integer in [0 - 3]");
  c.root = 0;
  c.segment_bytes = 100;
  EXPECT_EQ(message(c), "--segment: '100' is not accepted; accepted: a size in bytes in [1024 - 67108864] (the "
                        "range of SIDECORE_COLL_SEGMENT)");
  c.segment_bytes = 0;
  // The binomial broadcast's generator makes 2 (P - 1) operations.
  EXPECT_EQ(message(c, 5), "--ranks: 4 ranks make at least 6 operations; accepted: at most 5");
  // Refused before anything is built, whatever the kind (2^31 - 1 ranks of alltoallv took 8.9 GB first).
  for (const coll::kind k : {coll::kind::alltoall, coll::kind::alltoallv}) {
    sim::collective_call huge = c;
    huge.kind = k;
    huge.algorithm = coll::algorithm::automatic;
    huge.ranks = 2147483647;
    EXPECT_EQ(message(huge), fmt::format("--ranks: 2147483647 ranks make at least 4294967292 operations; accepted: at "
                                         "most {}", sim::max_collective_ops));
  }
  c.kind = coll::kind::alltoall;
  c.algorithm = coll::algorithm::linear;
  c.ranks = 1000;
  EXPECT_EQ(message(c, 100000), "--ranks: alltoall (linear) of 8 B over 1000 ranks: more than 100000 operations "
                                "(1000 ranks x more than 100, the first and the last rank's); accepted: at most 100000 "
                                "operations (fewer ranks or bytes, or a larger --segment)");
  // Linear gather to rank 0 on 3 ranks: the root copies its block and receives two (3 operations), the others
  // send one each; the estimate (3 x 1) passes and the count stops at rank 2.
  c.kind = coll::kind::gather;
  c.ranks = 3;
  EXPECT_EQ(message(c, 4), "--ranks: gather (linear) of 8 B over 3 ranks: more than 4 operations by rank 2; "
                           "accepted: at most 4 operations (fewer ranks or bytes, or a larger --segment)");
}
