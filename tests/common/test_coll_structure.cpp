// What the schedules promise beyond their result: the message counts and bytes of each algorithm's cost formula
// (docs/collectives.md), pipelining (a segment does not wait for later segments of the step before), empty
// schedules for 0 counts, and tags that stay small.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cases.hpp"
#include "sidecore/common/schedule.hpp"

namespace {

namespace coll = sidecore::coll;
using coll::algorithm;
using coll::dtype;
using coll::kind;
using coll::op_type;
using coll::reduce_op;
using sctest::make_spec;


struct traffic {
  std::uint64_t sends = 0, send_bytes = 0, recvs = 0, recv_bytes = 0;
};

traffic count_traffic(const coll::schedule& s) {
  traffic t;
  for (const coll::op& o : s.ops) {
    if (o.type == op_type::send) {
      ++t.sends;
      t.send_bytes += o.bytes;
    } else if (o.type == op_type::recv) {
      ++t.recvs;
      t.recv_bytes += o.bytes;
    }
  }
  return t;
}

int ceil_log2(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

TEST(CollStructure, MessageCountsMatchTheCostFormulas) {
  for (int p : {2, 3, 5, 8, 13, 16}) {
    for (int r = 0; r < p; ++r) {
      const auto diss = count_traffic(coll::build(make_spec(kind::barrier, 0), algorithm::dissemination, r, p));
      EXPECT_EQ(diss.sends, static_cast<std::uint64_t>(ceil_log2(p))) << "dissemination p=" << p;
      EXPECT_EQ(diss.recvs, static_cast<std::uint64_t>(ceil_log2(p)));
    }
    // bandwidth-optimal algorithms: every rank sends (p-1)/p of the vector twice (allreduce), or receives exactly
    // the p-1 blocks it lacks (allgather, bcast by scatter-allgather: no byte twice, fold or not)
    const std::uint64_t count = 1000 * static_cast<std::uint64_t>(p);
    std::uint64_t bcast_bytes = 0, ring_bytes = 0, bruck_bytes = 0, rd_bytes = 0;
    for (int r = 0; r < p; ++r) {
      const auto ring = count_traffic(coll::build(make_spec(kind::allreduce, count, dtype::int32, reduce_op::sum),
                                                  algorithm::ring, r, p));
      EXPECT_EQ(ring.sends, 2u * static_cast<std::uint64_t>(p - 1)) << "ring p=" << p;
      EXPECT_EQ(ring.send_bytes, 2 * (count / static_cast<std::uint64_t>(p)) * 4 * static_cast<std::uint64_t>(p - 1));
      coll::spec b = make_spec(kind::bcast, count);
      b.root = p / 2;
      bcast_bytes += count_traffic(coll::build(b, algorithm::scatter_allgather, r, p)).recv_bytes;
      ring_bytes += count_traffic(coll::build(make_spec(kind::allgather, 100), algorithm::ring, r, p)).recv_bytes;
      bruck_bytes += count_traffic(coll::build(make_spec(kind::allgather, 100), algorithm::bruck, r, p)).recv_bytes;
      rd_bytes +=
          count_traffic(coll::build(make_spec(kind::allgather, 100), algorithm::recursive_doubling, r, p)).recv_bytes;
      if ((p & (p - 1)) == 0) {
        const auto rab = count_traffic(coll::build(make_spec(kind::allreduce, count, dtype::int32, reduce_op::sum),
                                                   algorithm::rabenseifner, r, p));
        EXPECT_EQ(rab.sends, 2u * static_cast<std::uint64_t>(ceil_log2(p))) << "rabenseifner p=" << p;
        EXPECT_EQ(rab.send_bytes, 2 * count * 4 / static_cast<std::uint64_t>(p) * static_cast<std::uint64_t>(p - 1));
      }
    }
    const auto P = static_cast<std::uint64_t>(p);
    EXPECT_EQ(bcast_bytes, count * (P - 1)) << "scatter_allgather p=" << p;
    EXPECT_EQ(ring_bytes, 100 * P * (P - 1));
    EXPECT_EQ(bruck_bytes, 100 * P * (P - 1));
    EXPECT_EQ(rd_bytes, 100 * P * (P - 1)) << "recursive doubling p=" << p;
  }
}

// Ancestors of op i (the ops it waits for, directly or not).
std::vector<bool> ancestors(const coll::schedule& s, std::uint32_t i) {
  std::vector<bool> seen(s.ops.size(), false);
  std::vector<std::uint32_t> todo{i};
  while (!todo.empty()) {
    const coll::op& o = s.ops[todo.back()];
    todo.pop_back();
    for (std::uint32_t k = 0; k < o.dep_count; ++k) {
      const std::uint32_t d = s.deps[o.dep_first + k];
      if (!seen[d]) {
        seen[d] = true;
        todo.push_back(d);
      }
    }
  }
  return seen;
}

// The ops of `type` with `peer`, in order.
std::vector<std::uint32_t> find(const coll::schedule& s, op_type type, int peer) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].type == type && s.ops[i].peer == peer) out.push_back(i);
  return out;
}

TEST(CollStructure, SegmentsPipeline) {
  // bcast binomial, 8 ranks, 16 segments: rank 2 forwards segment 0 to rank 3 before segment 15 has arrived
  coll::spec b = make_spec(kind::bcast, 16 * 1024);
  b.segment_bytes = 1024;
  const coll::schedule bcast = coll::build(b, algorithm::binomial, 2, 8);
  const auto from_parent = find(bcast, op_type::recv, 0);
  const auto to_child = find(bcast, op_type::send, 3);
  ASSERT_EQ(from_parent.size(), 16u);
  ASSERT_EQ(to_child.size(), 16u);
  EXPECT_TRUE(ancestors(bcast, to_child[0])[from_parent[0]]);
  EXPECT_FALSE(ancestors(bcast, to_child[0])[from_parent[15]]);

  // allreduce ring, 4 ranks, 1 MiB, 64 KiB segments: step 1's first segment leaves rank 0 before step 0's last
  // segment has arrived
  coll::spec a = make_spec(kind::allreduce, 1 << 18, dtype::float32, reduce_op::sum);
  a.segment_bytes = 64 * 1024;
  const coll::schedule ring = coll::build(a, algorithm::ring, 0, 4);
  const auto in = find(ring, op_type::recv, 3);
  const auto out = find(ring, op_type::send, 1);
  ASSERT_EQ(in.size(), 6u * 4);   // 6 steps of a 256 KiB part
  ASSERT_EQ(out.size(), 6u * 4);
  EXPECT_TRUE(ancestors(ring, out[4])[in[0]]);
  EXPECT_FALSE(ancestors(ring, out[4])[in[3]]);

  // allreduce Rabenseifner on 2 ranks, 16 MiB with the default segment: the allgather half starts sending before
  // the reduce-scatter half has reduced its last segment
  const coll::schedule rab = coll::build(make_spec(kind::allreduce, 1 << 22, dtype::float32, reduce_op::sum),
                                         algorithm::rabenseifner, 0, 2);
  std::vector<std::uint32_t> reduces;
  for (std::uint32_t i = 0; i < rab.ops.size(); ++i)
    if (rab.ops[i].type == op_type::reduce) reduces.push_back(i);
  const auto sends = find(rab, op_type::send, 1);
  ASSERT_EQ(reduces.size(), 64u);
  ASSERT_EQ(sends.size(), 128u);
  const std::uint32_t first_allgather_send = sends[64];
  EXPECT_TRUE(ancestors(rab, first_allgather_send)[reduces[0]]);
  EXPECT_FALSE(ancestors(rab, first_allgather_send)[reduces[63]]);
}

// Local copies of Rabenseifner's allreduce and reduce: a rank that folds nothing in copies only the half of its input
// that the first halving step keeps (the half it gives is sent from the input, and its bytes in the work vector are
// received before they are read); a rank that absorbs a partner's input (fold) copies all of it.
TEST(CollStructure, RabenseifnerCopiesOnlyWhatTheFirstStepKeeps) {
  auto copied = [](const coll::schedule& s) {
    std::uint64_t b = 0;
    for (const coll::op& o : s.ops)
      if (o.type == op_type::copy) b += o.bytes;
    return b;
  };
  const std::uint64_t count = 1 << 16;  // int32: 256 KiB
  for (int p : {2, 4, 6, 8}) {
    for (int r = 0; r < p; ++r) {
      const auto ar = coll::build(make_spec(kind::allreduce, count, dtype::int32, reduce_op::sum),
                                  algorithm::rabenseifner, r, p);
      coll::spec red = make_spec(kind::reduce, count, dtype::int32, reduce_op::sum);
      red.root = p - 1;
      const auto rd = coll::build(red, algorithm::rabenseifner, r, p);
      int pof2 = 1;
      while (pof2 * 2 <= p) pof2 *= 2;
      const int rem = p - pof2;
      const bool absorbs = r < 2 * rem && r % 2 == 1;
      const bool sits_out = r < 2 * rem && r % 2 == 0;
      const std::uint64_t want = sits_out ? 0 : absorbs ? count * 4 : count * 4 / 2;
      EXPECT_EQ(copied(ar), want) << "allreduce p=" << p << " r=" << r;
      EXPECT_EQ(copied(rd), want) << "reduce p=" << p << " r=" << r;
    }
  }
}

TEST(CollStructure, ZeroCountsGiveEmptySchedules) {
  for (int k = 1; k < coll::kind_count; ++k) {  // every kind but barrier
    coll::spec s = make_spec(static_cast<kind>(k), 0);
    if (k == static_cast<int>(kind::reduce) || k == static_cast<int>(kind::allreduce) ||
        k == static_cast<int>(kind::reduce_scatter_block)) {
      s.type = dtype::int32;
      s.op = reduce_op::sum;
    }
    if (s.k == kind::allgatherv) {
      s.recv_counts.assign(5, 0);
      s.recv_displs.assign(5, 0);
    }
    if (s.k == kind::alltoallv) {
      s.recv_counts = s.recv_displs = s.send_counts = s.send_displs = std::vector<std::uint64_t>(5, 0);
    }
    for (algorithm a : coll::algorithms_for(s.k))
      for (int r = 0; r < 5; ++r) {
        const coll::schedule sched = coll::build(s, a, r, 5);
        EXPECT_TRUE(sched.ops.empty()) << coll::kind_name(s.k) << " " << coll::algorithm_name(a);
        EXPECT_EQ(sched.tmp_bytes, 0u);
        EXPECT_EQ(sched.alg, a);
      }
  }
  EXPECT_FALSE(coll::build(make_spec(kind::barrier, 0), algorithm::automatic, 0, 2).ops.empty());
  EXPECT_TRUE(coll::build(make_spec(kind::barrier, 0), algorithm::automatic, 0, 1).ops.empty());
}

TEST(CollStructure, TagsStaySmall) {
  // 16 MiB allreduce on 64 ranks by the ring: 126 steps of 2 segments
  const coll::schedule ring = coll::build(make_spec(kind::allreduce, 1 << 22, dtype::float32, reduce_op::sum),
                                          algorithm::ring, 5, 64);
  EXPECT_EQ(ring.tags, 126u * 2);
  const coll::schedule auto_chosen = coll::build(make_spec(kind::allreduce, 1 << 22, dtype::float32, reduce_op::sum),
                                                 algorithm::automatic, 5, 64);
  EXPECT_EQ(auto_chosen.alg, algorithm::rabenseifner);
  EXPECT_LE(auto_chosen.tags, 13u * 128);
  const coll::schedule barrier = coll::build(make_spec(kind::barrier, 0), algorithm::automatic, 5, 1000);
  EXPECT_EQ(barrier.tags, 10u);
}

TEST(CollStructure, BuildIsAPureFunction) {
  coll::spec s = make_spec(kind::allreduce, 12345, dtype::float64, reduce_op::sum);
  s.segment_bytes = 4096;
  const coll::schedule a = coll::build(s, algorithm::rabenseifner, 3, 6);
  const coll::schedule b = coll::build(s, algorithm::rabenseifner, 3, 6);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  EXPECT_EQ(a.deps, b.deps);
  EXPECT_EQ(a.tmp_bytes, b.tmp_bytes);
  EXPECT_EQ(a.tags, b.tags);
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].peer, b.ops[i].peer);
    EXPECT_EQ(a.ops[i].tag, b.ops[i].tag);
    EXPECT_EQ(a.ops[i].src_off, b.ops[i].src_off);
  }
}

}  // namespace

namespace {

// build() with an operation budget stops as soon as the schedule passes it (the simulator's --pattern asks for
// collectives far larger than it will run, and must not build them whole first), and builds the same schedule as
// without one when it fits.
TEST(CollStructure, ABudgetStopsTheBuildOnceItIsPassed) {
  const coll::spec s = make_spec(kind::allreduce, 1 << 20, dtype::int32, reduce_op::sum);
  const coll::schedule whole = coll::build(s, algorithm::ring, 0, 4);
  ASSERT_GT(whole.ops.size(), 100U);
  EXPECT_THROW((void)coll::build(s, algorithm::ring, 0, 4, 100), coll::too_many_ops);
  const coll::schedule fits = coll::build(s, algorithm::ring, 0, 4, whole.ops.size());
  EXPECT_EQ(fits.ops.size(), whole.ops.size());
  EXPECT_THROW((void)coll::build(s, algorithm::ring, 0, 4, whole.ops.size() - 1), coll::too_many_ops);
}

}  // namespace
