// Every kind x algorithm (and auto) on 1..17, 32, 64 and 100 ranks, run by the reference executor in a random legal
// order and compared with the sequential result: counts 0, 1, odd, and large enough to be cut into several
// segments; in place and not; several roots; the common types and operators at every size, every (type, operator)
// pair the spec accepts at small sizes; the non-commutative user operator wherever the algorithm keeps rank order.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cases.hpp"

namespace {

namespace coll = sidecore::coll;
using coll::algorithm;
using coll::dtype;
using coll::kind;
using coll::reduce_op;
using sctest::collective_case;
using sctest::user_op;

struct implementation {
  kind k;
  algorithm a;
};

// every kind's algorithms and auto; the first kind taken is `first` (to leave barrier out)
std::vector<implementation> implementations(kind first = kind::barrier) {
  std::vector<implementation> out;
  for (int k = static_cast<int>(first); k < coll::kind_count; ++k) {
    out.push_back({static_cast<kind>(k), algorithm::automatic});
    for (algorithm a : coll::algorithms_for(static_cast<kind>(k))) out.push_back({static_cast<kind>(k), a});
  }
  return out;
}

// gtest (and the ctest names gtest_discover_tests makes) print the parameter with this
void PrintTo(const implementation& impl, std::ostream* out) {
  *out << coll::kind_name(impl.k) << " " << coll::algorithm_name(impl.a);
}

std::string name(const testing::TestParamInfo<implementation>& info) {
  return std::string(coll::kind_name(info.param.k)) + "_" + std::string(coll::algorithm_name(info.param.a));
}

bool reduces(kind k) { return k == kind::reduce || k == kind::allreduce || k == kind::reduce_scatter_block; }
bool rooted(kind k) { return k == kind::bcast || k == kind::reduce || k == kind::gather || k == kind::scatter; }

struct typed_op {
  dtype type;
  reduce_op op;
  user_op user = user_op::affine_composition;
};

bool fits(const typed_op& t) {
  coll::spec s;
  s.k = kind::allreduce;
  s.type = t.type;
  s.op = t.op;
  try {
    coll::validate(s, algorithm::automatic, 0, 1);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

// The type/operator pairs run at a size: a few everywhere, all of them at small sizes.
std::vector<typed_op> typed_ops(const implementation& impl, int p) {
  if (!reduces(impl.k)) {
    if (p > 17) return {{dtype::float64, reduce_op::none}};
    return {{dtype::byte, reduce_op::none}, {dtype::float64, reduce_op::none}};
  }
  const bool ordered = coll::keeps_rank_order(impl.k, impl.a);
  const typed_op user = ordered ? typed_op{dtype::uint64, reduce_op::user, user_op::affine_composition}
                                : typed_op{dtype::uint64, reduce_op::user, user_op::commutative_xor};
  if (p > 17) return {{dtype::int32, reduce_op::sum}, user};
  std::vector<typed_op> out{
      {dtype::int32, reduce_op::sum},
      {dtype::float64, reduce_op::sum},
      user,
      {dtype::float32, reduce_op::maxloc},
      {dtype::byte, reduce_op::bxor},
      {dtype::int32, reduce_op::user, ordered ? user_op::affine_composition : user_op::commutative_xor}};
  if (p == 3 || p == 6 || p == 8) {
    for (int t = 0; t < coll::dtype_count; ++t)
      for (int o = 1; o < coll::reduce_op_count - 1; ++o) {
        const typed_op c{static_cast<dtype>(t), static_cast<reduce_op>(o)};
        if (fits(c)) out.push_back(c);
      }
    out.push_back({dtype::byte, reduce_op::user, ordered ? user_op::affine_composition : user_op::commutative_xor});
    out.push_back({dtype::float32, reduce_op::user, ordered ? user_op::affine_composition : user_op::commutative_xor});
  }
  return out;
}

struct sizing {
  std::uint64_t count;
  std::uint64_t segment_elements;  // 0: the default segment size
};

class EverySize : public testing::TestWithParam<implementation> {};

TEST_P(EverySize, MatchSequentialResult) {
  const implementation impl = GetParam();
  int failures = 0;
  std::uint64_t runs = 0;
  for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 32, 64, 100}) {
    const bool big = p > 17;
    const std::vector<sizing> sizings = big ? std::vector<sizing>{{0, 0}, {1, 0}, {5, 2}}
                                            : std::vector<sizing>{{0, 0}, {1, 0}, {7, 0}, {23, 3}};
    std::set<int> roots{0};
    if (rooted(impl.k)) roots = big ? std::set<int>{p / 2} : std::set<int>{0, p - 1, p / 2};
    const bool in_place_allowed = impl.k != kind::barrier && impl.k != kind::bcast;
    const std::vector<typed_op> ops = impl.k == kind::barrier ? std::vector<typed_op>{{dtype::byte, reduce_op::none}}
                                                              : typed_ops(impl, p);
    for (const typed_op& t : ops)
      for (const sizing& z : sizings) {
        if (impl.k == kind::barrier && z.count != 0) continue;
        for (int root : roots)
          for (bool in_place : {false, true}) {
            if (in_place && !in_place_allowed) continue;
            if (p == 100 && in_place) continue;  // the largest size once
            collective_case c;
            c.k = impl.k;
            c.type = t.type;
            c.op = t.op;
            c.user = t.user;
            c.size = p;
            c.root = root;
            c.count = z.count;
            c.in_place = in_place;
            c.segment_bytes = z.segment_elements * coll::element_size(t.type, t.op);
            c.seed = ++runs;
            const std::string err = sctest::run_case(c, impl.a);
            if (!err.empty()) {
              ADD_FAILURE() << c.describe() << " algorithm=" << coll::algorithm_name(impl.a) << ": " << err;
              if (++failures == 10) return;
            }
          }
      }
  }
}

class DefaultSegments : public testing::TestWithParam<implementation> {};

// The default segment size: messages larger than it are cut (a few ranks, a few hundred KiB).
TEST_P(DefaultSegments, MatchSequentialResult) {
  const implementation impl = GetParam();
  for (int p : {2, 3, 5}) {
    collective_case c;
    c.k = impl.k;
    c.type = dtype::int32;
    c.op = reduces(impl.k) ? reduce_op::sum : reduce_op::none;
    c.size = p;
    c.root = p - 1;
    c.count = coll::default_segment_bytes * 3 / 2 / 4 + 1;  // 1.5 default segments per vector or block
    c.in_place = p == 3 && impl.k != kind::bcast;
    c.seed = static_cast<std::uint64_t>(p);
    const std::string err = sctest::run_case(c, impl.a);
    EXPECT_EQ(err, "") << c.describe() << " algorithm=" << coll::algorithm_name(impl.a);
  }
}

INSTANTIATE_TEST_SUITE_P(Coll, EverySize, testing::ValuesIn(implementations()), name);
INSTANTIATE_TEST_SUITE_P(Coll, DefaultSegments, testing::ValuesIn(implementations(kind::bcast)), name);

}  // namespace
