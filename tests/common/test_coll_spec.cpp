// The schedule library's entry points other than the builders' output: names, element sizes, which algorithm
// implements which kind, choose()'s thresholds, buffer sizes, and every bad input refused with a message that names
// the argument, the bad value and what is accepted.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cases.hpp"
#include "sidecore/common/schedule.hpp"

namespace {

namespace coll = sidecore::coll;
using coll::algorithm;
using coll::dtype;
using coll::kind;
using coll::reduce_op;
using sctest::make_spec;

TEST(CollNames, RoundTripAndRejectUnknown) {
  for (int i = 0; i < coll::kind_count; ++i)
    EXPECT_EQ(coll::parse_kind(coll::kind_name(static_cast<kind>(i))), static_cast<kind>(i));
  for (int i = 0; i < coll::dtype_count; ++i)
    EXPECT_EQ(coll::parse_dtype(coll::dtype_name(static_cast<dtype>(i))), static_cast<dtype>(i));
  for (int i = 0; i < coll::reduce_op_count; ++i)
    EXPECT_EQ(coll::parse_reduce_op(coll::reduce_op_name(static_cast<reduce_op>(i))), static_cast<reduce_op>(i));
  for (int i = 0; i < coll::algorithm_count; ++i)
    EXPECT_EQ(coll::parse_algorithm(coll::algorithm_name(static_cast<algorithm>(i))), static_cast<algorithm>(i));
  EXPECT_EQ(coll::kind_name(kind::reduce_scatter_block), "reduce_scatter_block");
  EXPECT_EQ(coll::algorithm_name(algorithm::automatic), "auto");
  EXPECT_EQ(coll::parse_algorithm("recursive_doubling"), algorithm::recursive_doubling);
  EXPECT_FALSE(coll::parse_kind("Allreduce").has_value());
  EXPECT_FALSE(coll::parse_algorithm("").has_value());
  EXPECT_FALSE(coll::parse_dtype("double").has_value());
  EXPECT_FALSE(coll::parse_reduce_op("avg").has_value());
  EXPECT_EQ(coll::kind_name(static_cast<kind>(200)), "");
}

TEST(CollNames, ElementSizesMatchTheCLayouts) {
  EXPECT_EQ(coll::element_size(dtype::byte, reduce_op::none), 1u);
  EXPECT_EQ(coll::element_size(dtype::int32, reduce_op::sum), 4u);
  EXPECT_EQ(coll::element_size(dtype::float64, reduce_op::max), 8u);
  struct float_int { float v; std::int32_t i; };
  struct double_int { double v; std::int32_t i; };
  struct int_int { std::int32_t v; std::int32_t i; };
  struct long_int { std::int64_t v; std::int32_t i; };
  EXPECT_EQ(coll::element_size(dtype::float32, reduce_op::minloc), sizeof(float_int));
  EXPECT_EQ(coll::element_size(dtype::float64, reduce_op::maxloc), sizeof(double_int));
  EXPECT_EQ(coll::element_size(dtype::int32, reduce_op::minloc), sizeof(int_int));
  EXPECT_EQ(coll::element_size(dtype::int64, reduce_op::maxloc), sizeof(long_int));
  EXPECT_EQ(coll::element_size(dtype::uint64, reduce_op::minloc), sizeof(long_int));
}

// Moved value_index pairs travel as bytes: the caller's count is the bytes over one pair's size.
TEST(CollNames, TheCallersUnitIsOnePairOfMovedPairsAndOneElementOtherwise) {
  coll::spec s;
  s.k = kind::bcast;
  s.type = dtype::byte;
  s.count = 48;
  EXPECT_EQ(coll::caller_unit(s), 1u);
  s.moved_pairs = dtype::float64;
  EXPECT_EQ(coll::caller_unit(s), 16u);
  EXPECT_EQ(s.count / coll::caller_unit(s), 3u);
  s.moved_pairs = dtype::float32;
  EXPECT_EQ(coll::caller_unit(s), 8u);
}

TEST(CollNames, EveryKindHasAtLeastTwoAlgorithms) {
  for (int i = 0; i < coll::kind_count; ++i) {
    const auto k = static_cast<kind>(i);
    const auto algs = coll::algorithms_for(k);
    EXPECT_GE(algs.size(), 2u) << coll::kind_name(k);
    for (algorithm a : algs) EXPECT_TRUE(coll::supports(k, a));
    EXPECT_TRUE(coll::supports(k, algorithm::automatic));
  }
  EXPECT_FALSE(coll::supports(kind::bcast, algorithm::ring));
  EXPECT_FALSE(coll::supports(kind::barrier, algorithm::binomial));
  EXPECT_FALSE(coll::keeps_rank_order(kind::allreduce, algorithm::ring));
  EXPECT_FALSE(coll::keeps_rank_order(kind::reduce_scatter_block, algorithm::pairwise));
  EXPECT_TRUE(coll::keeps_rank_order(kind::allreduce, algorithm::rabenseifner));
  EXPECT_TRUE(coll::keeps_rank_order(kind::reduce, algorithm::binomial));
}


TEST(CollChoose, FollowsTheDocumentedThresholds) {
  using A = algorithm;
  EXPECT_EQ(coll::choose(make_spec(kind::barrier, 0), 5), A::dissemination);
  // bcast: binomial below 12 KiB or 8 ranks
  EXPECT_EQ(coll::choose(make_spec(kind::bcast, 12287), 8), A::binomial);
  EXPECT_EQ(coll::choose(make_spec(kind::bcast, 12288), 8), A::scatter_allgather);
  EXPECT_EQ(coll::choose(make_spec(kind::bcast, 1 << 24), 7), A::binomial);
  // reduce: binomial up to 2 KiB or count < pof2
  EXPECT_EQ(coll::choose(make_spec(kind::reduce, 512, dtype::int32, reduce_op::sum), 4), A::binomial);
  EXPECT_EQ(coll::choose(make_spec(kind::reduce, 513, dtype::int32, reduce_op::sum), 4), A::rabenseifner);
  EXPECT_EQ(coll::choose(make_spec(kind::reduce, 3000, dtype::byte, reduce_op::band), 4096), A::binomial);
  // allreduce: recursive doubling up to 2 KiB, ring for big vectors on non-powers of two, else Rabenseifner
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 256, dtype::float64, reduce_op::sum), 16), A::recursive_doubling);
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 257, dtype::float64, reduce_op::sum), 16), A::rabenseifner);
  // ... and on 2 ranks up to 128 KiB, where Rabenseifner's second step costs more than the half reduction it saves
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 16384, dtype::float64, reduce_op::sum), 2), A::recursive_doubling);
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 16385, dtype::float64, reduce_op::sum), 2), A::rabenseifner);
  // 2 ranks, commutative, from 512 KiB: the ring (measured faster there; docs/collectives.md)
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 65535, dtype::float64, reduce_op::sum), 2), A::rabenseifner);
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 65536, dtype::float64, reduce_op::sum), 2), A::ring);
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 1 << 20, dtype::float64, reduce_op::sum), 16), A::rabenseifner);
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, 1 << 16, dtype::float64, reduce_op::sum), 12), A::ring);
  EXPECT_EQ(coll::choose(make_spec(kind::allreduce, (1 << 16) - 1, dtype::float64, reduce_op::sum), 12),
            A::rabenseifner);
  coll::spec noncommutative = make_spec(kind::allreduce, 1 << 20, dtype::float64, reduce_op::user);
  noncommutative.commutative = false;
  EXPECT_EQ(coll::choose(noncommutative, 12), A::rabenseifner);
  // gather, scatter: binomial below 32 KiB blocks
  EXPECT_EQ(coll::choose(make_spec(kind::gather, 32767), 64), A::binomial);
  EXPECT_EQ(coll::choose(make_spec(kind::scatter, 32768), 64), A::linear);
  // allgather: recursive doubling (powers of two, total < 512 KiB), Bruck (total < 80 KiB), ring
  EXPECT_EQ(coll::choose(make_spec(kind::allgather, 1024), 256), A::recursive_doubling);
  EXPECT_EQ(coll::choose(make_spec(kind::allgather, 1024), 60), A::bruck);
  EXPECT_EQ(coll::choose(make_spec(kind::allgather, 2048), 60), A::ring);
  EXPECT_EQ(coll::choose(make_spec(kind::allgather, 2048), 512), A::ring);
  // alltoall: Bruck (<= 256 B, >= 8 ranks), linear (<= 32 KiB), pairwise
  EXPECT_EQ(coll::choose(make_spec(kind::alltoall, 256), 8), A::bruck);
  EXPECT_EQ(coll::choose(make_spec(kind::alltoall, 256), 7), A::linear);
  EXPECT_EQ(coll::choose(make_spec(kind::alltoall, 32768), 64), A::linear);
  EXPECT_EQ(coll::choose(make_spec(kind::alltoall, 32769), 64), A::pairwise);
  // reduce_scatter_block: recursive halving below 512 KiB in all, or for a non-commutative op
  EXPECT_EQ(coll::choose(make_spec(kind::reduce_scatter_block, 1000, dtype::int32, reduce_op::sum), 64),
            A::recursive_halving);
  EXPECT_EQ(coll::choose(make_spec(kind::reduce_scatter_block, 3000, dtype::int32, reduce_op::sum), 64), A::pairwise);
  coll::spec rsb = make_spec(kind::reduce_scatter_block, 3000, dtype::int32, reduce_op::user);
  rsb.commutative = false;
  EXPECT_EQ(coll::choose(rsb, 64), A::recursive_halving);
  // v-variants: by the total, and by the communicator size
  coll::spec agv = make_spec(kind::allgatherv, 0);
  agv.recv_counts.assign(4, 20479);
  EXPECT_EQ(coll::choose(agv, 4), A::linear);
  agv.recv_counts[0] = 20484;  // 80 KiB in all
  EXPECT_EQ(coll::choose(agv, 4), A::ring);
  EXPECT_EQ(coll::choose(make_spec(kind::alltoallv, 0), 32), A::linear);
  EXPECT_EQ(coll::choose(make_spec(kind::alltoallv, 0), 33), A::pairwise);
}

// build() and buffer_bytes() refuse `s` with std::invalid_argument whose message contains every fragment.
void expect_refused(const coll::spec& s, algorithm a, int rank, int size,
                    std::initializer_list<const char*> fragments) {
  try {
    (void)coll::build(s, a, rank, size);
    ADD_FAILURE() << "build() accepted it";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const char* f : fragments) EXPECT_NE(what.find(f), std::string::npos) << "'" << f << "' not in: " << what;
  }
  if (a == algorithm::automatic) {
    EXPECT_THROW((void)coll::buffer_bytes(s, rank, size), std::invalid_argument) << "buffer_bytes() accepted it";
  }
}

TEST(CollValidate, RefusesBadInputNamingIt) {
  const algorithm A = algorithm::automatic;
  expect_refused(make_spec(kind::barrier, 0), A, 0, 0, {"size", "0", "at least 1"});
  expect_refused(make_spec(kind::barrier, 0), A, 4, 4, {"rank", "4", "[0, 4)"});
  expect_refused(make_spec(kind::barrier, 0), A, -1, 4, {"rank", "-1"});
  coll::spec rooted = make_spec(kind::bcast, 4);
  rooted.root = 7;
  expect_refused(rooted, A, 0, 4, {"root", "7", "[0, 4)", "bcast"});
  rooted.root = -2;
  expect_refused(rooted, A, 0, 4, {"root", "-2"});
  expect_refused(make_spec(static_cast<kind>(40), 1), A, 0, 2, {"kind", "40"});
  expect_refused(make_spec(kind::bcast, 1, static_cast<dtype>(9)), A, 0, 2, {"type", "9"});
  expect_refused(make_spec(kind::allreduce, 1, dtype::int32, static_cast<reduce_op>(77)), A, 0, 2, {"op", "77"});
  expect_refused(make_spec(kind::allreduce, 1, dtype::int32, reduce_op::none), A, 0, 2,
                 {"op", "none", "allreduce", "sum", "user"});
  expect_refused(make_spec(kind::allreduce, 1, dtype::float64, reduce_op::band), A, 0, 2,
                 {"op", "band", "float64", "sum, prod, min, max, minloc, maxloc or user"});
  expect_refused(make_spec(kind::reduce, 1, dtype::float32, reduce_op::land), A, 0, 2, {"land", "float32"});
  expect_refused(make_spec(kind::reduce_scatter_block, 1, dtype::byte, reduce_op::sum), A, 0, 2,
                 {"sum", "byte", "band, bor, bxor or user"});
  expect_refused(make_spec(kind::bcast, 1, dtype::int32, reduce_op::sum), A, 0, 2,
                 {"op", "sum", "bcast", "does not reduce", "none"});
  coll::spec in_place = make_spec(kind::bcast, 4);
  in_place.in_place = true;
  expect_refused(in_place, A, 0, 2, {"in_place", "bcast"});
  expect_refused(make_spec(kind::bcast, 4), static_cast<algorithm>(30), 0, 2, {"algorithm", "30"});
  expect_refused(make_spec(kind::bcast, 4), algorithm::ring, 0, 2,
                 {"algorithm", "ring", "bcast", "auto, binomial, scatter_allgather or linear"});
  coll::spec noncommutative = make_spec(kind::allreduce, 4, dtype::int64, reduce_op::user);
  noncommutative.commutative = false;
  expect_refused(noncommutative, algorithm::ring, 0, 3,
                 {"algorithm", "ring", "rank order", "auto, recursive_doubling or rabenseifner"});
  noncommutative.k = kind::reduce_scatter_block;
  expect_refused(noncommutative, algorithm::pairwise, 0, 3, {"pairwise", "auto or recursive_halving"});
  noncommutative.commutative = true;
  EXPECT_NO_THROW((void)coll::build(noncommutative, algorithm::pairwise, 0, 3));
  expect_refused(make_spec(kind::alltoall, std::uint64_t{1} << 60, dtype::float64), A, 0, 2, {"count", "2^63"});

  coll::spec v = make_spec(kind::allgatherv, 0, dtype::int32);
  v.recv_counts = {1, 2};
  v.recv_displs = {0, 1, 3};
  expect_refused(v, A, 0, 3, {"recv_counts", "2 entries", "3"});
  v.recv_counts = {1, 2, 1};
  v.recv_displs = {0, 2, 3};
  expect_refused(v, A, 0, 3, {"recv_displs", "overlap", "blocks 1 (2 + 2) and 2 (3 + 1)"});
  v.recv_displs = {0, 1, 3};
  EXPECT_NO_THROW((void)coll::build(v, A, 0, 3));
  coll::spec w = make_spec(kind::alltoallv, 0, dtype::int32);
  w.recv_counts = {1, 1};
  w.recv_displs = {0, 1};
  w.send_counts = {1, 1};
  w.send_displs = {0};
  expect_refused(w, A, 0, 2, {"send_displs", "1 entries"});
  w.send_displs = {0, 0};
  w.send_counts = {2, 1};
  expect_refused(w, A, 0, 2, {"send_counts[0] = 2", "recv_counts[0] = 1"});
  w.send_counts = {1, 1};
  EXPECT_NO_THROW((void)coll::build(w, A, 0, 2)) << "send blocks may overlap (they are only read)";
  w.recv_displs = {std::uint64_t{1} << 62, 0};
  expect_refused(w, A, 0, 2, {"recv_counts[0] = 1", "recv_displs[0]", "2^63"});
}

TEST(CollBufferBytes, FollowTheConventions) {
  auto sizes = [](coll::spec s, int rank, int size, bool in_place = false) {
    s.in_place = in_place;
    const coll::buffer_sizes b = coll::buffer_bytes(s, rank, size);
    return std::pair{b.send, b.recv};
  };
  using P = std::pair<std::uint64_t, std::uint64_t>;
  const coll::spec red = make_spec(kind::reduce, 10, dtype::float64, reduce_op::sum);
  coll::spec rooted = red;
  rooted.root = 2;
  EXPECT_EQ(sizes(rooted, 2, 4), (P{80, 80}));
  EXPECT_EQ(sizes(rooted, 1, 4), (P{80, 0}));
  EXPECT_EQ(sizes(rooted, 2, 4, true), (P{0, 80}));
  EXPECT_EQ(sizes(make_spec(kind::barrier, 0), 0, 4), (P{0, 0}));
  EXPECT_EQ(sizes(make_spec(kind::bcast, 10, dtype::int32), 3, 4), (P{0, 40}));
  EXPECT_EQ(sizes(make_spec(kind::allreduce, 3, dtype::int32, reduce_op::minloc), 0, 4), (P{24, 24}));
  EXPECT_EQ(sizes(make_spec(kind::gather, 5), 0, 4), (P{5, 20}));
  EXPECT_EQ(sizes(make_spec(kind::gather, 5), 1, 4), (P{5, 0}));
  EXPECT_EQ(sizes(make_spec(kind::scatter, 5), 0, 4, true), (P{20, 0}));
  EXPECT_EQ(sizes(make_spec(kind::scatter, 5), 1, 4), (P{0, 5}));
  EXPECT_EQ(sizes(make_spec(kind::allgather, 5), 1, 4, true), (P{0, 20}));
  EXPECT_EQ(sizes(make_spec(kind::alltoall, 5), 1, 4), (P{20, 20}));
  EXPECT_EQ(sizes(make_spec(kind::reduce_scatter_block, 5, dtype::byte, reduce_op::bor), 1, 4), (P{20, 5}));
  EXPECT_EQ(sizes(make_spec(kind::reduce_scatter_block, 5, dtype::byte, reduce_op::bor), 1, 4, true), (P{0, 20}));
  coll::spec v = make_spec(kind::allgatherv, 0, dtype::int32);
  v.recv_counts = {2, 0, 3};
  v.recv_displs = {4, 100, 0};
  EXPECT_EQ(sizes(v, 0, 3), (P{8, 24})) << "an empty block's displacement does not count";
  EXPECT_EQ(sizes(v, 1, 3), (P{0, 24}));
  coll::spec w = make_spec(kind::alltoallv, 0, dtype::int32);
  w.recv_counts = {1, 2};
  w.recv_displs = {2, 0};
  w.send_counts = {1, 3};
  w.send_displs = {5, 0};
  EXPECT_EQ(sizes(w, 0, 2), (P{24, 12}));
  EXPECT_EQ(sizes(w, 0, 2, true), (P{0, 12}));
}

}  // namespace
