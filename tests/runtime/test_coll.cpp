// Collectives against MPI (issue 14, section 4): every kind x algorithm x type x operator on the same data through
// sidecore and through MPI on the communicator's own MPI_Comm (comm::mpi()), compared element by element;
// collectives of many communicators in flight at once with point-to-point traffic; persistent requests restarted;
// bad input. Integer-valued data, so floating-point results are exact whatever order the algorithm combines in.
//
// SCTEST_COLL_FULL=1 (ctest label coll-full) widens the matrix: more counts (up to 16 MiB per rank for every kind),
// every algorithm on every type for the data-moving kinds, and tiny segments.
#include <mpi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sidecore/sidecore.hpp>

#include <sidecore/common/schedule.hpp>

#include "test_util.hpp"

namespace {

using namespace sidecore;

bool full() {
  const char* v = std::getenv("SCTEST_COLL_FULL");
  return v && std::strcmp(v, "1") == 0;
}

// ---- types -------------------------------------------------------------------------------------------------------

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<std::int32_t>() { return MPI_INT32_T; }
template <>
MPI_Datatype mpi_type<std::int64_t>() { return MPI_INT64_T; }
template <>
MPI_Datatype mpi_type<std::uint64_t>() { return MPI_UINT64_T; }
template <>
MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

// The MPI pair type of value_index<T> (MPI has none for an unsigned 64-bit value: MPI_DATATYPE_NULL).
template <class T>
MPI_Datatype mpi_pair();
template <>
MPI_Datatype mpi_pair<std::int32_t>() { return MPI_2INT; }
template <>
MPI_Datatype mpi_pair<std::int64_t>() { return MPI_LONG_INT; }
template <>
MPI_Datatype mpi_pair<std::uint64_t>() { return MPI_DATATYPE_NULL; }
template <>
MPI_Datatype mpi_pair<float>() { return MPI_FLOAT_INT; }
template <>
MPI_Datatype mpi_pair<double>() { return MPI_DOUBLE_INT; }

MPI_Op mpi_op(op o) {
  switch (o) {
    case op::sum: return MPI_SUM;
    case op::prod: return MPI_PROD;
    case op::min: return MPI_MIN;
    case op::max: return MPI_MAX;
    case op::land: return MPI_LAND;
    case op::lor: return MPI_LOR;
    case op::band: return MPI_BAND;
    case op::bor: return MPI_BOR;
    case op::bxor: return MPI_BXOR;
    case op::minloc: return MPI_MINLOC;
    case op::maxloc: return MPI_MAXLOC;
  }
  return MPI_OP_NULL;
}

const char* op_name(op o) {
  static const char* const n[] = {"sum",  "prod", "min",  "max",    "land",  "lor",
                                  "band", "bor",  "bxor", "minloc", "maxloc"};
  return n[static_cast<int>(o)];
}

// Element i of rank r's input for operator o: small integers, so that sums and products of up to 8 ranks are exact
// in every type (products: 1 or 2; logical: 0 or 1, with zeros; the rest: 1 .. 50, ties included).
template <class T>
T value(op o, int r, std::size_t i) {
  switch (o) {
    case op::prod: return static_cast<T>(1 + (static_cast<std::size_t>(r) + i) % 2);
    case op::land:
    case op::lor: return static_cast<T>((static_cast<std::size_t>(r) * 5 + i) % 3 == 0 ? 0 : 1);
    default: return static_cast<T>((static_cast<std::size_t>(r) * 7 + i * 3) % 50 + 1);
  }
}

std::string where(const comm& c, const std::string& what) {
  return what + " (rank " + std::to_string(c.rank()) + " of " + std::to_string(c.size()) + ")";
}

// ---- reductions --------------------------------------------------------------------------------------------------

// allreduce, reduce at every root, reduce_scatter_block of `count` elements with operator o, compared with MPI.
template <class T>
void check_reduction(const comm& c, coll::kind k, op o, std::int64_t count, bool inplace, const std::string& label) {
  const int p = c.size(), r = c.rank();
  const std::size_t n = static_cast<std::size_t>(count) * (k == coll::kind::reduce_scatter_block ? p : 1);
  std::vector<T> in(n), got(n, T{}), want(n, T{});
  for (std::size_t i = 0; i < n; ++i) in[i] = value<T>(o, r, i);
  const dtype t = dtype_of<T>;
  const std::string what = where(c, label + " " + op_name(o) + " count " + std::to_string(count));
  if (k == coll::kind::allreduce) {
    if (inplace) got = in;
    request q =
        inplace ? iallreduce(in_place, got.data(), count, t, o, c) : iallreduce(in.data(), got.data(), count, t, o, c);
    const status st = wait(q);
    ASSERT_EQ(st.error, errc::success) << what;
    MPI_Allreduce(in.data(), want.data(), static_cast<int>(count), mpi_type<T>(), mpi_op(o), c.mpi());
    EXPECT_EQ(got, want) << what;
  } else if (k == coll::kind::reduce) {
    for (int root = 0; root < p; ++root) {
      std::fill(got.begin(), got.end(), T{});
      if (inplace && r == root) got = in;
      const void* send = inplace && r == root ? static_cast<const void*>(in_place) : in.data();
      request q = ireduce(send, got.data(), count, t, o, root, c);
      ASSERT_EQ(wait(q).error, errc::success) << what << " root " << root;
      MPI_Reduce(in.data(), want.data(), static_cast<int>(count), mpi_type<T>(), mpi_op(o), root, c.mpi());
      if (r == root) {
        EXPECT_EQ(got, want) << what << " root " << root;
      }
    }
  } else {
    if (inplace) got = in;
    request q = inplace ? ireduce_scatter_block(in_place, got.data(), count, t, o, c)
                        : ireduce_scatter_block(in.data(), got.data(), count, t, o, c);
    ASSERT_EQ(wait(q).error, errc::success) << what;
    MPI_Reduce_scatter_block(in.data(), want.data(), static_cast<int>(count), mpi_type<T>(), mpi_op(o), c.mpi());
    EXPECT_TRUE(std::equal(want.begin(), want.begin() + count, got.begin())) << what;
  }
}

template <class T>
void check_pair_reduction(const comm& c, coll::kind k, op o, std::int64_t count, const std::string& label) {
  const int p = c.size(), r = c.rank();
  const std::size_t n = static_cast<std::size_t>(count) * (k == coll::kind::reduce_scatter_block ? p : 1);
  std::vector<value_index<T>> in(n), got(n), want(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = {static_cast<T>((static_cast<std::size_t>(r) * 5 + i * 3) % 4), r};
  // The reference: MPI where it has the pair type, else every rank's input folded here.
  if (mpi_pair<T>() != MPI_DATATYPE_NULL) {
    if (k == coll::kind::reduce_scatter_block)
      MPI_Reduce_scatter_block(in.data(), want.data(), static_cast<int>(count), mpi_pair<T>(), mpi_op(o), c.mpi());
    else
      MPI_Allreduce(in.data(), want.data(), static_cast<int>(count), mpi_pair<T>(), mpi_op(o), c.mpi());
  } else {
    std::vector<value_index<T>> all(n * static_cast<std::size_t>(p));
    MPI_Allgather(in.data(), static_cast<int>(n * sizeof in[0]), MPI_BYTE, all.data(),
                  static_cast<int>(n * sizeof in[0]), MPI_BYTE, c.mpi());
    const std::size_t off = k == coll::kind::reduce_scatter_block ? static_cast<std::size_t>(r * count) : 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
      value_index<T> best = all[off + i];
      for (int q = 1; q < p; ++q) {
        const value_index<T> x = all[static_cast<std::size_t>(q) * n + off + i];
        const bool better = o == op::minloc ? x.value < best.value : x.value > best.value;
        if (better || (x.value == best.value && x.index < best.index)) best = x;
      }
      want[i] = best;
    }
  }
  request q = k == coll::kind::reduce_scatter_block
                  ? ireduce_scatter_block(in.data(), got.data(), count, dtype_of<T>, o, c)
                  : iallreduce(in.data(), got.data(), count, dtype_of<T>, o, c);
  const std::string what = where(c, label + " " + op_name(o) + " count " + std::to_string(count));
  ASSERT_EQ(wait(q).error, errc::success) << what;
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    ASSERT_EQ(got[i].value, want[i].value) << what << " element " << i;
    ASSERT_EQ(got[i].index, want[i].index) << what << " element " << i;
  }
}

// Every operator on T (minloc/maxloc on value_index<T>), in place too; `ops` false: sum, and bxor or prod only.
template <class T>
void reductions_of_type(const comm& c, coll::kind k, const std::string& alg, const std::vector<std::int64_t>& counts,
                        bool every_op) {
  const bool integer = std::is_integral_v<T>;
  const std::string label =
      std::string(coll::kind_name(k)) + "/" + alg + "/" + std::string(coll::dtype_name(coll::dtype(dtype_of<T>)));
  for (std::int64_t count : counts) {
    for (op o : {op::sum, op::prod, op::min, op::max, op::land, op::lor, op::band, op::bor, op::bxor}) {
      if (!integer && (o == op::land || o == op::lor || o == op::band || o == op::bor || o == op::bxor)) continue;
      if (!every_op && o != op::sum && o != (integer ? op::bxor : op::prod)) continue;
      check_reduction<T>(c, k, o, count, false, label);
    }
    if (every_op) check_reduction<T>(c, k, op::sum, count, true, label + " in_place");
    if (k != coll::kind::reduce && (every_op || std::is_same_v<T, double>))
      for (op o : {op::minloc, op::maxloc}) check_pair_reduction<T>(c, k, o, count, label);
  }
}

std::vector<std::string> algorithms(coll::kind k) {
  std::vector<std::string> a{"auto"};
  for (const std::string& x : coll_algorithms(coll::kind_name(k))) a.push_back(x);
  return a;
}

struct algorithm_guard {  // puts "auto" back whatever the test did
  std::string kind;
  ~algorithm_guard() { set_coll_algorithm(kind, "auto"); }
};

// The default run: every type x operator with the automatic choice, and every algorithm forced on a few of them; the
// full run (SCTEST_COLL_FULL): every algorithm x type x operator, at more counts.
TEST(Coll, ReductionsOfEveryAlgorithmTypeAndOperatorMatchMpi) {
  const comm& c = world();
  std::vector<std::int64_t> counts{0, 7, 1000};
  if (full()) counts = {0, 1, 7, 1000, 70000};
  for (coll::kind k : {coll::kind::allreduce, coll::kind::reduce, coll::kind::reduce_scatter_block}) {
    algorithm_guard g{std::string(coll::kind_name(k))};
    for (const std::string& alg : algorithms(k)) {
      set_coll_algorithm(coll::kind_name(k), alg);
      const bool every = full() || alg == "auto";
      const std::vector<std::int64_t> some = every ? counts : std::vector<std::int64_t>{7, 1000};
      reductions_of_type<std::int32_t>(c, k, alg, some, every);
      reductions_of_type<double>(c, k, alg, some, every);
      if (!every) continue;
      reductions_of_type<std::int64_t>(c, k, alg, some, every);
      reductions_of_type<std::uint64_t>(c, k, alg, some, every);
      reductions_of_type<float>(c, k, alg, some, every);
    }
  }
}

// A user operator that is associative but not commutative: composition of affine maps t -> a t + b (mod 65521),
// each int64 element packing a (high half) and b (low half); x op y applies x, then y. Every rank's result must be
// x_0 op x_1 op ... op x_{p-1} in rank order; the algorithms that reorder operands give way to ones that do not.
constexpr std::int64_t prime = 65521;
std::int64_t affine(std::int64_t a, std::int64_t b) { return (a << 32) | b; }
std::int64_t compose(std::int64_t x, std::int64_t y) {
  const std::int64_t a1 = x >> 32, b1 = x & 0xffffffff, a2 = y >> 32, b2 = y & 0xffffffff;
  return affine(a1 * a2 % prime, (b1 * a2 + b2) % prime);
}
void compose_fn(const void* in, void* inout, std::size_t count, void* ctx) {
  ++*static_cast<int*>(ctx);
  const auto* x = static_cast<const std::int64_t*>(in);
  auto* y = static_cast<std::int64_t*>(inout);
  for (std::size_t i = 0; i < count; ++i) y[i] = compose(x[i], y[i]);
}

TEST(Coll, NonCommutativeUserOperatorKeepsRankOrderInEveryAlgorithm) {
  const comm& c = world();
  const int p = c.size(), r = c.rank();
  for (coll::kind k : {coll::kind::allreduce, coll::kind::reduce, coll::kind::reduce_scatter_block}) {
    algorithm_guard g{std::string(coll::kind_name(k))};
    for (const std::string& alg : algorithms(k)) {
      set_coll_algorithm(coll::kind_name(k), alg);
      for (std::int64_t count : {1, 33, 5000}) {
        const std::size_t n = static_cast<std::size_t>(count) * (k == coll::kind::reduce_scatter_block ? p : 1);
        std::vector<std::int64_t> in(n), got(n, 0);
        for (std::size_t i = 0; i < n; ++i)
          in[i] = affine(2 + (r + static_cast<int>(i)) % 7, 3 * r + static_cast<int>(i % 11));
        int calls = 0;
        const reduction red(compose_fn, &calls, false);
        request q = k == coll::kind::allreduce ? iallreduce(in.data(), got.data(), count, dtype::int64, red, c)
                    : k == coll::kind::reduce
                        ? ireduce(in.data(), got.data(), count, dtype::int64, red, 0, c)
                        : ireduce_scatter_block(in.data(), got.data(), count, dtype::int64, red, c);
        ASSERT_EQ(wait(q).error, errc::success);
        std::vector<std::int64_t> all(n * static_cast<std::size_t>(p));
        MPI_Allgather(in.data(), static_cast<int>(n), MPI_INT64_T, all.data(), static_cast<int>(n), MPI_INT64_T,
                      c.mpi());
        if (k == coll::kind::reduce && r != 0) continue;
        const std::size_t off = k == coll::kind::reduce_scatter_block ? static_cast<std::size_t>(r * count) : 0;
        for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
          std::int64_t want = all[off + i];
          for (int q2 = 1; q2 < p; ++q2) want = compose(want, all[static_cast<std::size_t>(q2) * n + off + i]);
          ASSERT_EQ(got[i], want) << where(c, std::string(coll::kind_name(k)) + "/" + alg) << " count " << count
                                  << " element " << i;
        }
      }
    }
  }
}

// ---- data movement ---------------------------------------------------------------------------------------------

std::int32_t mark(int r, std::size_t i) { return static_cast<std::int32_t>(r * 1000003 + static_cast<int>(i)); }

void check_moves(const comm& c, coll::kind k, const std::string& alg, std::int64_t count) {
  const int p = c.size(), r = c.rank();
  const auto n = static_cast<std::size_t>(count), pn = n * static_cast<std::size_t>(p);
  const int ci = static_cast<int>(count);
  const std::string what = where(c, std::string(coll::kind_name(k)) + "/" + alg + " count " + std::to_string(count));
  std::vector<std::int32_t> send(pn + static_cast<std::size_t>(p)), got(pn, -1), want(pn, -1);  // allgatherv: + rank
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = mark(r, i);
  switch (k) {
    case coll::kind::barrier: {
      request q = ibarrier(c);
      ASSERT_EQ(wait(q).error, errc::success) << what;
      return;
    }
    case coll::kind::bcast:
      for (int root = 0; root < p; ++root) {
        got.assign(n, -1);
        want.assign(n, -1);
        if (r == root) got.assign(send.begin(), send.begin() + static_cast<std::ptrdiff_t>(n));
        request q = ibcast(got.data(), count, dtype::int32, root, c);
        ASSERT_EQ(wait(q).error, errc::success) << what;
        if (r == root) want = got;
        MPI_Bcast(want.data(), ci, MPI_INT32_T, root, c.mpi());
        ASSERT_EQ(got, want) << what << " root " << root;
      }
      return;
    case coll::kind::gather:
      for (int root = 0; root < p; ++root) {
        got.assign(pn, -1);
        want.assign(pn, -1);
        request q = igather(send.data(), got.data(), count, dtype::int32, root, c);
        ASSERT_EQ(wait(q).error, errc::success) << what;
        MPI_Gather(send.data(), ci, MPI_INT32_T, want.data(), ci, MPI_INT32_T, root, c.mpi());
        if (r == root) {
          ASSERT_EQ(got, want) << what << " root " << root;
        }
      }
      return;
    case coll::kind::scatter:
      for (int root = 0; root < p; ++root) {
        got.assign(n, -1);
        want.assign(n, -1);
        request q = iscatter(send.data(), got.data(), count, dtype::int32, root, c);
        ASSERT_EQ(wait(q).error, errc::success) << what;
        MPI_Scatter(send.data(), ci, MPI_INT32_T, want.data(), ci, MPI_INT32_T, root, c.mpi());
        ASSERT_EQ(got, want) << what << " root " << root;
      }
      return;
    case coll::kind::allgather: {
      request q = iallgather(send.data(), got.data(), count, dtype::int32, c);
      ASSERT_EQ(wait(q).error, errc::success) << what;
      MPI_Allgather(send.data(), ci, MPI_INT32_T, want.data(), ci, MPI_INT32_T, c.mpi());
      ASSERT_EQ(got, want) << what;
      // in place: the own block already in recv
      std::vector<std::int32_t> buf(pn, -1);
      std::copy(send.begin(), send.begin() + static_cast<std::ptrdiff_t>(n),
                buf.begin() + static_cast<std::ptrdiff_t>(n) * r);
      request q2 = iallgather(in_place, buf.data(), count, dtype::int32, c);
      ASSERT_EQ(wait(q2).error, errc::success) << what << " in_place";
      ASSERT_EQ(buf, want) << what << " in_place";
      return;
    }
    case coll::kind::alltoall: {
      request q = ialltoall(send.data(), got.data(), count, dtype::int32, c);
      ASSERT_EQ(wait(q).error, errc::success) << what;
      MPI_Alltoall(send.data(), ci, MPI_INT32_T, want.data(), ci, MPI_INT32_T, c.mpi());
      ASSERT_EQ(got, want) << what;
      std::vector<std::int32_t> buf(send.begin(), send.begin() + static_cast<std::ptrdiff_t>(pn));
      request q2 = ialltoall(in_place, buf.data(), count, dtype::int32, c);
      ASSERT_EQ(wait(q2).error, errc::success) << what << " in_place";
      ASSERT_EQ(buf, want) << what << " in_place";
      return;
    }
    case coll::kind::allgatherv: {
      // rank i contributes count + i elements, blocks in reverse rank order with a gap of 3
      std::vector<std::int64_t> counts(static_cast<std::size_t>(p)), displs(counts.size());
      std::vector<int> ic(counts.size()), id(counts.size());
      std::int64_t at = 0;
      for (int i = p - 1; i >= 0; --i) {
        counts[static_cast<std::size_t>(i)] = count + i;
        displs[static_cast<std::size_t>(i)] = at;
        at += count + i + 3;
      }
      for (std::size_t i = 0; i < counts.size(); ++i) {
        ic[i] = static_cast<int>(counts[i]);
        id[i] = static_cast<int>(displs[i]);
      }
      std::vector<std::int32_t> g(static_cast<std::size_t>(at), -1), w(g.size(), -1);
      request q = iallgatherv(send.data(), count + r, g.data(), counts, displs, dtype::int32, c);
      ASSERT_EQ(wait(q).error, errc::success) << what;
      MPI_Allgatherv(send.data(), static_cast<int>(count + r), MPI_INT32_T, w.data(), ic.data(), id.data(),
                     MPI_INT32_T, c.mpi());
      ASSERT_EQ(g, w) << what;
      return;
    }
    case coll::kind::alltoallv: {
      // rank r sends (r + j) % 3 + count elements to j
      std::vector<std::int64_t> sc(static_cast<std::size_t>(p)), sd(sc.size()), rc(sc.size()), rd(sc.size());
      std::vector<int> isc(sc.size()), isd(sc.size()), irc(sc.size()), ird(sc.size());
      std::int64_t s_at = 0, r_at = 0;
      for (std::size_t j = 0; j < sc.size(); ++j) {
        sc[j] = (r + static_cast<std::int64_t>(j)) % 3 + count;
        rc[j] = (static_cast<std::int64_t>(j) + r) % 3 + count;
        sd[j] = s_at;
        rd[j] = r_at + 1;
        s_at += sc[j];
        r_at += rc[j] + 1;
        isc[j] = static_cast<int>(sc[j]);
        isd[j] = static_cast<int>(sd[j]);
        irc[j] = static_cast<int>(rc[j]);
        ird[j] = static_cast<int>(rd[j]);
      }
      std::vector<std::int32_t> s(static_cast<std::size_t>(s_at)), g(static_cast<std::size_t>(r_at + 1), -1),
          w(g.size(), -1);
      for (std::size_t i = 0; i < s.size(); ++i) s[i] = mark(r, i);
      request q = ialltoallv(s.data(), sc, sd, g.data(), rc, rd, dtype::int32, c);
      ASSERT_EQ(wait(q).error, errc::success) << what;
      MPI_Alltoallv(s.data(), isc.data(), isd.data(), MPI_INT32_T, w.data(), irc.data(), ird.data(), MPI_INT32_T,
                    c.mpi());
      ASSERT_EQ(g, w) << what;
      return;
    }
    default: return;
  }
}

TEST(Coll, DataMovementOfEveryAlgorithmMatchesMpi) {
  const comm& c = world();
  std::vector<std::int64_t> counts{0, 1, 5, 3000};
  if (full()) counts.push_back(100000);
  for (coll::kind k : {coll::kind::barrier, coll::kind::bcast, coll::kind::gather, coll::kind::scatter,
                       coll::kind::allgather, coll::kind::alltoall, coll::kind::allgatherv, coll::kind::alltoallv}) {
    algorithm_guard g{std::string(coll::kind_name(k))};
    for (const std::string& alg : algorithms(k)) {
      set_coll_algorithm(coll::kind_name(k), alg);
      for (std::int64_t count : counts) check_moves(c, k, alg, count);
    }
  }
}

// 16 MiB per rank: pipelined segments through rendezvous messages (allreduce; bcast and allgather in the full run).
TEST(Coll, SixteenMiBCollectivesMatchMpi) {
  const comm& c = world();
  const int p = c.size(), r = c.rank();
  const std::int64_t count = (16 << 20) / 8;
  std::vector<double> in(static_cast<std::size_t>(count)), got(in.size()), want(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>((i * 3 + static_cast<std::size_t>(r)) % 1000);
  allreduce(in.data(), got.data(), count, dtype::float64, op::sum, c);
  MPI_Allreduce(in.data(), want.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, c.mpi());
  ASSERT_TRUE(got == want) << where(c, "allreduce 16 MiB");
  if (!full()) return;
  got = in;
  bcast(got.data(), count, dtype::float64, p - 1, c);
  want = in;
  MPI_Bcast(want.data(), static_cast<int>(count), MPI_DOUBLE, p - 1, c.mpi());
  ASSERT_TRUE(got == want) << where(c, "bcast 16 MiB");
  const std::int64_t block = count / p;
  std::vector<double> all(static_cast<std::size_t>(block * p)), allw(all.size());
  allgather(in.data(), all.data(), block, dtype::float64, c);
  MPI_Allgather(in.data(), static_cast<int>(block), MPI_DOUBLE, allw.data(), static_cast<int>(block), MPI_DOUBLE,
                c.mpi());
  ASSERT_TRUE(all == allw) << where(c, "allgather 16 MiB");
}

// Tiny segments: a large schedule of many messages per transfer.
TEST(Coll, SmallSegmentsPipelineCorrectly) {
  const comm& c = world();
  set_coll_segment(1024);
  std::vector<std::int64_t> in(20000), got(in.size()), want(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int64_t>(i) * (c.rank() + 1);
  for (const std::string& alg : algorithms(coll::kind::allreduce)) {
    set_coll_algorithm("allreduce", alg);
    allreduce(in.data(), got.data(), static_cast<std::int64_t>(in.size()), dtype::int64, op::sum, c);
    MPI_Allreduce(in.data(), want.data(), static_cast<int>(in.size()), MPI_INT64_T, MPI_SUM, c.mpi());
    EXPECT_EQ(got, want) << where(c, "allreduce/" + alg + " with 1 KiB segments");
  }
  set_coll_algorithm("allreduce", "auto");
  set_coll_segment(128 * 1024);
}

// A segment size set on one rank only changes that rank's message sizes: the ranks that receive them report a
// mismatch that names the segment size as well as the count (it said "the counts (or types) differ").
TEST(Coll, SegmentSizesThatDifferAreNamedInTheMismatch) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  if (d.rank() == 0) set_coll_segment(1024);
  std::vector<std::int32_t> in(1 << 18, 1), out(in.size());
  std::string why;
  try {
    allreduce(in.data(), out.data(), static_cast<std::int64_t>(in.size()), dtype::int32, op::sum, d);
  } catch (const error& e) {
    why = e.what();
  }
  set_coll_segment(128 * 1024);
  // Through sidecore, not MPI: in mode off a rank's notice of the mismatch goes out inside its sidecore calls only.
  std::int32_t named = why.find("segment size") != std::string::npos ? 1 : 0, any = 0;
  allreduce(&named, &any, 1, dtype::int32, op::max, d);
  EXPECT_EQ(any, 1) << "rank " << d.rank() << ": " << why;
  d.free();
}

// ---- typed forms -------------------------------------------------------------------------------------------------

TEST(Coll, TypedSpanFormsMatchTheUntypedOnes) {
  const comm& c = world();
  const int p = c.size(), r = c.rank();
  std::vector<double> x(10, r + 1.0), y(10);
  allreduce<double>(x, y, op::max, c);
  EXPECT_EQ(y, std::vector<double>(10, p));
  std::vector<std::int32_t> block(3, r), all(static_cast<std::size_t>(3 * p));
  request q = iallgather<std::int32_t>(block, all, c);
  ASSERT_EQ(wait(q).error, errc::success);
  for (int i = 0; i < p; ++i) EXPECT_EQ(all[static_cast<std::size_t>(3 * i)], i);
  std::vector<std::uint64_t> b(4, r == 0 ? 42u : 0u);
  bcast<std::uint64_t>(b, 0, c);
  EXPECT_EQ(b, std::vector<std::uint64_t>(4, 42u));
  std::vector<value_index<float>> pv{{static_cast<float>(r % 2), r}}, pr(1);
  allreduce<value_index<float>>(pv, pr, op::maxloc, c);
  EXPECT_EQ(pr[0].value, p > 1 ? 1.0f : 0.0f);
  EXPECT_EQ(pr[0].index, p > 1 ? 1 : 0);
  // a span of the wrong size
  std::vector<double> small(3);
  const std::string msg = sctest::expect_error(errc::invalid_argument, [&] { allreduce<double>(x, small, op::sum, c); },
                                               "allreduce span");
  EXPECT_NE(msg.find("send has 10 elements; this rank needs 3"), std::string::npos) << msg;
  // An empty span makes the count 0; the other span, holding data, would be silently neither sent nor received.
  std::vector<double> none;
  std::vector<std::int32_t> none32;
  const std::string empty_recv = sctest::expect_error(
      errc::invalid_argument, [&] { allreduce<double>(x, none, op::sum, c); }, "allreduce empty recv");
  EXPECT_NE(empty_recv.find("send has 10 elements; this rank needs 0"), std::string::npos) << empty_recv;
  sctest::expect_error(errc::invalid_argument, [&] { reduce_scatter_block<double>(x, none, op::sum, c); },
                       "reduce_scatter_block empty recv");
  sctest::expect_error(errc::invalid_argument, [&] { allgather<std::int32_t>(none32, all, c); },
                       "allgather empty send");
  if (r == 0)
    sctest::expect_error(errc::invalid_argument, [&] { gather<std::int32_t>(none32, all, 0, c); },
                         "gather empty send at the root");
  // Where this rank's role does not use a span, its size stays free (the same code on every rank): a reduce's recv
  // off the root, of any size, with a count of 0.
  if (r != 0) reduce<double>(none, x, op::sum, 0, c);
  else reduce<double>(none, none, op::sum, 0, c);
  // The forms whose count is a span's size divided by the ranks (they did not link: per_rank had no definition).
  const auto n = static_cast<std::size_t>(p);
  std::vector<std::int64_t> out(2 * n), in(2 * n, -1);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = 100 * r + static_cast<std::int64_t>(i);
  alltoall<std::int64_t>(out, in, c);
  for (int j = 0; j < p; ++j)
    for (int k = 0; k < 2; ++k)
      EXPECT_EQ(in[static_cast<std::size_t>(2 * j + k)], 100 * j + 2 * r + k) << j << " " << k;
  std::vector<std::int64_t> inplace = out;
  request qa = ialltoall<std::int64_t>(in_place, inplace, c);
  ASSERT_EQ(wait(qa).error, errc::success);
  EXPECT_EQ(inplace, in);
  std::vector<std::int32_t> blocks(3 * n, -1);
  for (int k = 0; k < 3; ++k) blocks[static_cast<std::size_t>(3 * r + k)] = 10 * r + k;
  allgather<std::int32_t>(in_place, blocks, c);
  for (int j = 0; j < p; ++j) EXPECT_EQ(blocks[static_cast<std::size_t>(3 * j + 2)], 10 * j + 2);
  std::vector<std::int32_t> sums(2 * n, r + 1);
  reduce_scatter_block<std::int32_t>(in_place, sums, op::sum, c);
  EXPECT_EQ(sums[0], p * (p + 1) / 2);
  EXPECT_EQ(sums[1], p * (p + 1) / 2);
  // A span that is not one block per rank: refused, not cut.
  if (p > 1) {
    std::vector<std::int64_t> odd(2 * n + 1);
    const std::string cut = sctest::expect_error(
        errc::invalid_argument, [&] { alltoall<std::int64_t>(odd, odd, c); }, "alltoall span");
    EXPECT_NE(cut.find("accepted: a multiple of " + std::to_string(p)), std::string::npos) << cut;
  }
}

// ---- concurrency -------------------------------------------------------------------------------------------------

// Many collectives in flight on world, a dup and a split, started in the same order on every rank and completed
// in another, with point-to-point messages in between, waited together.
TEST(Coll, ManyInFlightOnSeveralCommunicatorsWithPointToPoint) {
  const comm& w = world();
  comm d = w.dup();
  comm s = w.split(w.rank() % 2, w.rank());
  const int rounds = 20;
  const std::int64_t n = 300;
  struct slot {
    std::vector<std::int64_t> in, out;
  };
  std::vector<slot> slots(static_cast<std::size_t>(3 * rounds));
  std::vector<request> reqs;
  std::vector<std::int64_t> p2p_out(static_cast<std::size_t>(rounds)), p2p_in(static_cast<std::size_t>(rounds), -1);
  const int right = sctest::right(w.rank(), w.size()), left = sctest::left(w.rank(), w.size());
  for (int i = 0; i < rounds; ++i) {
    const comm* cs[3] = {&w, &d, &s};
    for (int j = 0; j < 3; ++j) {
      slot& sl = slots[static_cast<std::size_t>(3 * i + j)];
      sl.in.assign(static_cast<std::size_t>(n), cs[j]->rank() + i + j);
      sl.out.assign(static_cast<std::size_t>(n), -1);
      reqs.push_back(iallreduce(sl.in.data(), sl.out.data(), n, dtype::int64, op::sum, *cs[j]));
    }
    p2p_out[static_cast<std::size_t>(i)] = w.rank() * 100 + i;
    reqs.push_back(irecv(&p2p_in[static_cast<std::size_t>(i)], 8, left, i, w));
    reqs.push_back(isend(&p2p_out[static_cast<std::size_t>(i)], 8, right, i, w));
  }
  std::reverse(reqs.begin(), reqs.end());
  std::vector<status> st(reqs.size());
  waitall(reqs, st);
  for (const status& x : st) ASSERT_EQ(x.error, errc::success);
  for (int i = 0; i < rounds; ++i) {
    const comm* cs[3] = {&w, &d, &s};
    for (int j = 0; j < 3; ++j) {
      const int q = cs[j]->size();
      // sum over ranks k of (k + i + j) = q (q - 1) / 2 + q (i + j)
      const std::int64_t want = static_cast<std::int64_t>(q) * (q - 1) / 2 + static_cast<std::int64_t>(q) * (i + j);
      EXPECT_EQ(slots[static_cast<std::size_t>(3 * i + j)].out,
                std::vector<std::int64_t>(static_cast<std::size_t>(n), want))
          << where(*cs[j], "round " + std::to_string(i) + " comm " + std::to_string(j));
    }
    EXPECT_EQ(p2p_in[static_cast<std::size_t>(i)], left * 100 + i);
  }
  s.free();
  d.free();
}

// waitany / testany / testall over collectives mixed with point-to-point.
TEST(Coll, WaitanyAndTestallMixCollectivesAndPointToPoint) {
  const comm& w = world();
  std::int32_t a = w.rank(), sum = -1, token = w.rank(), got = -1;
  std::vector<request> reqs;
  reqs.push_back(iallreduce(&a, &sum, 1, dtype::int32, op::sum, w));
  reqs.push_back(irecv(&got, 4, sctest::left(w.rank(), w.size()), 5, w));
  reqs.push_back(isend(&token, 4, sctest::right(w.rank(), w.size()), 5, w));
  reqs.push_back(ibarrier(w));
  int done = 0;
  while (done < static_cast<int>(reqs.size())) {
    status st;
    const int i = waitany(reqs, &st);
    ASSERT_GE(i, 0);
    ASSERT_EQ(st.error, errc::success);
    ++done;
  }
  EXPECT_EQ(waitany(reqs), -1);
  EXPECT_EQ(sum, w.size() * (w.size() - 1) / 2);
  EXPECT_EQ(got, sctest::left(w.rank(), w.size()));
  reqs.clear();
  reqs.push_back(ibarrier(w));
  while (!testall(reqs)) {
  }
}

// ---- persistent --------------------------------------------------------------------------------------------------

TEST(Coll, PersistentCollectivesRestartWithNewData) {
  const comm& w = world();
  const int p = w.size(), r = w.rank();
  std::vector<std::int64_t> in(100), out(100);
  request ar = allreduce_init(in.data(), out.data(), 100, dtype::int64, op::sum, w);
  // Static: the end of this test frees bc while it runs (below), and, as in MPI, such a run's buffer stays in use
  // until it completes, which nothing reports to this rank (a barrier does not order it: at 7 ranks a rank's bcast
  // message came after the barrier and wrote into this vector's freed memory). So the buffer outlives the test.
  static std::vector<std::int32_t> b(50);
  request bc = bcast_init(b.data(), 50, dtype::int32, p - 1, w);
  request ba = barrier_init(w);
  EXPECT_TRUE(ar.persistent());
  EXPECT_FALSE(ar.active());
  for (int it = 0; it < 6; ++it) {
    std::fill(in.begin(), in.end(), r + it);
    std::fill(b.begin(), b.end(), r == p - 1 ? it * 7 : -1);
    std::vector<request*> all{&ar, &bc, &ba};
    start(ar);
    start(bc);
    start(ba);
    EXPECT_TRUE(ar.active());
    EXPECT_EQ(wait(ar).error, errc::success);
    EXPECT_EQ(wait(bc).error, errc::success);
    EXPECT_EQ(wait(ba).error, errc::success);
    EXPECT_FALSE(ar.active());
    EXPECT_EQ(out, std::vector<std::int64_t>(100, static_cast<std::int64_t>(p) * (p - 1) / 2 + p * it)) << it;
    EXPECT_EQ(b, std::vector<std::int32_t>(50, it * 7)) << it;
  }
  // an inactive persistent request: wait returns at once
  EXPECT_EQ(wait(ar).error, errc::success);
  // started twice without completion
  start(ar);
  sctest::expect_error(errc::invalid_request, [&] { start(ar); }, "start while active");
  EXPECT_EQ(wait(ar).error, errc::success);
  // startall and waitall
  std::vector<request> v;
  v.push_back(std::move(ar));
  v.push_back(std::move(ba));
  startall(v);
  waitall(v);
  request_free(v[0]);
  EXPECT_FALSE(v[0].persistent());
  sctest::expect_error(errc::invalid_request, [&] { start(v[0]); }, "start after free");
  // freed while active: the run completes in the background
  start(bc);
  request_free(bc);
  barrier(w);
}

// A persistent collective's id (its wire tag) is one that no live persistent collective of the communicator holds.
// A wrapping counter gave the 2^19-th create after P, still held, P's id: the two then shared a tag, and their runs
// failed (invalid_argument) or exchanged each other's data.
TEST(Coll, PersistentIdsAreNotReusedWhileHeld) {
  comm d = world().dup();
  const std::int64_t p = d.size(), r = d.rank();
  std::int64_t pin = 0, pout = 0;
  request held = allreduce_init(&pin, &pout, 1, dtype::int64, op::sum, d);
  std::int64_t x = 0, y = 0;
  for (int k = 0; k < (1 << 19) - 1; ++k) {
    request q = allreduce_init(&x, &y, 1, dtype::int64, op::sum, d);
    request_free(q);
  }
  std::vector<std::int64_t> rin(4), rout(4);
  request next = allreduce_init(rin.data(), rout.data(), 4, dtype::int64, op::sum, d);
  for (std::int64_t it = 0; it < 3; ++it) {
    pin = r + it;
    std::fill(rin.begin(), rin.end(), 10 * r + it);
    start(held);
    start(next);
    EXPECT_EQ(wait(held).error, errc::success) << it;
    EXPECT_EQ(wait(next).error, errc::success) << it;
    EXPECT_EQ(pout, p * (p - 1) / 2 + p * it) << it;
    EXPECT_EQ(rout, std::vector<std::int64_t>(4, 10 * p * (p - 1) / 2 + p * it)) << it;
  }
  request_free(held);
  request_free(next);
  barrier(d);
  d.free();
}

TEST(Coll, PersistentPointToPointRing) {
  const comm& w = world();
  std::int64_t out = 0, in = -1;
  request s = send_init(&out, 8, sctest::right(w.rank(), w.size()), 9, w);
  request rq = recv_init(&in, 8, sctest::left(w.rank(), w.size()), 9, w);
  for (int it = 0; it < 5; ++it) {
    out = w.rank() * 10 + it;
    start(rq);
    start(s);
    const status st = wait(rq);
    EXPECT_EQ(st.error, errc::success);
    EXPECT_EQ(st.source, sctest::left(w.rank(), w.size()));
    EXPECT_EQ(wait(s).error, errc::success);
    EXPECT_EQ(in, sctest::left(w.rank(), w.size()) * 10 + it);
  }
  sctest::expect_error(errc::invalid_argument, [&] { (void)send_init(&out, 8, w.size(), 9, w); }, "send_init dest");
}

// A persistent send or receive whose communicator was freed is refused at start, naming why: its id may serve a
// later communicator (once the id space is used up), where it would match that communicator's messages.
TEST(Coll, PersistentPointToPointRefusedOnceItsCommunicatorIsFreed) {
  const comm& w = world();
  comm d = w.dup();
  std::int64_t out = 0, in = -1;
  request s = send_init(&out, 8, sctest::right(d.rank(), d.size()), 9, d);
  request rq = recv_init(&in, 8, sctest::left(d.rank(), d.size()), 9, d);
  d.free();
  for (request* r : {&s, &rq}) {
    const std::string m = sctest::expect_error(errc::invalid_argument, [&] { start(*r); }, "start after free");
    EXPECT_NE(m.find("was made on is freed (comm::free)"), std::string::npos) << m;
  }
  request_free(s);
  request_free(rq);
}

// ---- bad input -----------------------------------------------------------------------------------------------------

TEST(Coll, BadInputNamesTheArgument) {
  const comm& w = world();
  std::vector<float> f(4);
  std::vector<std::int32_t> i(4 * static_cast<std::size_t>(w.size()));
  auto expect = [](const std::function<void()>& fn, const char* what, const char* needle) {
    const std::string m = sctest::expect_error(errc::invalid_argument, fn, what);
    EXPECT_NE(m.find(needle), std::string::npos) << what << ": " << m;
  };
  expect([&] { (void)iallreduce(nullptr, f.data(), 4, dtype::float32, op::sum, w); }, "null send", "send is null");
  expect([&] { (void)iallreduce(f.data(), f.data() + 1, -1, dtype::float32, op::sum, w); }, "negative count",
         "count is -1");
  expect([&] { (void)iallreduce(f.data(), f.data(), 4, dtype::float32, op::band, w); }, "band on float", "band");
  expect([&] { (void)iallreduce(f.data(), f.data(), 4, dtype::float32, static_cast<op>(99), w); }, "unknown op",
         "op: unknown");
  expect([&] { (void)iallreduce(f.data(), f.data(), 4, static_cast<dtype>(42), op::sum, w); }, "unknown type",
         "dtype 42");
  expect([&] { (void)ibcast(f.data(), 4, dtype::float32, w.size(), w); }, "root", "root is");
  expect([&] { (void)ibcast(f.data(), 4, dtype::float32, -1, w); }, "negative root", "root is -1");
  expect([&] { (void)iallreduce(f.data(), f.data(), 4, dtype::float32, reduction(nullptr), w); }, "null user fn",
         "null");
  const std::vector<std::int64_t> short_counts(static_cast<std::size_t>(w.size()) + 1, 1);
  expect([&] { (void)iallgatherv(i.data(), 1, i.data(), short_counts, short_counts, dtype::int32, w); },
         "v array length", "recv_counts has");
  std::vector<std::int64_t> neg(static_cast<std::size_t>(w.size()), 1);
  neg[0] = -3;
  expect([&] { (void)ialltoallv(i.data(), neg, neg, i.data() + 1, neg, neg, dtype::int32, w); }, "negative v entry",
         "send_counts[0] is -3");
  expect([&] { (void)ibcast(const_cast<void*>(static_cast<const void*>(in_place)), 4, dtype::int32, 0, w); },
         "in_place bcast", "in_place");
  // A send buffer overlapping recv outside in_place: the algorithms read send after writing recv (wrong results).
  std::vector<std::int32_t> a(4 * static_cast<std::size_t>(w.size()), 1);
  expect([&] { (void)iallreduce(a.data(), a.data(), 4, dtype::int32, op::sum, w); }, "aliased allreduce",
         "send and recv overlap");
  expect([&] { (void)ialltoall(a.data(), a.data(), 4, dtype::int32, w); }, "aliased alltoall", "in_place");
  expect([&] { (void)iallgather(a.data() + 4 * w.rank(), a.data(), 4, dtype::int32, w); }, "overlapping allgather",
         "send and recv overlap");
  expect([&] { set_coll_algorithm("allreduce", "bruck"); }, "algorithm", "accepted: auto");
  expect([&] { set_coll_algorithm("allsum", "auto"); }, "kind", "accepted: barrier");
  expect([&] { set_coll_segment(10); }, "segment", "1024");
  // A count whose bytes pass 2^63 is refused by name, not wrapped (a value_index pair moves as 16 bytes: 2^60 + 1
  // of them wrapped to one).
  {
    const std::size_t p = static_cast<std::size_t>(w.size());
    std::vector<value_index<double>> vs(p), vr(p);
    std::vector<std::int64_t> ones(p, 1), displs(p), huge(p, 1);
    for (std::size_t k = 0; k < p; ++k) displs[k] = static_cast<std::int64_t>(k);
    huge[0] = (std::int64_t{1} << 60) + 1;
    expect([&] {
      (void)ialltoallv<value_index<double>>(std::span<const value_index<double>>(vs), ones, displs,
                                            std::span<value_index<double>>(vr), huge, displs, w);
    }, "huge v entry", "recv_counts[0] is 1152921504606846977");
  }
  comm d = w.dup();
  comm copy = d;
  d.free();
  expect([&] { (void)ibarrier(copy); }, "freed comm", "not a live communicator");
  expect([&] { (void)ibarrier(comm()); }, "null comm", "null");
}

// Counts that differ between ranks: every rank completes (no hang, no overrun) and a rank that received from a rank
// with another count reports errc::invalid_argument saying so.
TEST(Coll, CountsThatDifferBetweenRanksFailTheCollective) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  const std::int64_t n = 10 + d.rank();
  std::vector<std::int32_t> in(static_cast<std::size_t>(n), 1), out(static_cast<std::size_t>(n) + 64, -7);
  request q = iallreduce(in.data(), out.data(), n, dtype::int32, op::sum, d);
  const status st = wait(q);
  // Nothing past this rank's count is written.
  for (std::size_t i = static_cast<std::size_t>(n); i < out.size(); ++i) ASSERT_EQ(out[i], -7) << "overrun at " << i;
  EXPECT_EQ(st.error, errc::invalid_argument);
  // The blocking form throws with the sentence.
  const std::string m = sctest::expect_error(errc::invalid_argument, [&] {
    allreduce(in.data(), out.data(), n, dtype::int32, op::sum, d);
  }, "blocking mismatch");
  EXPECT_NE(m.find("rank"), std::string::npos) << m;
  MPI_Barrier(d.mpi());
  d.free();
}

// value_index pairs that a collective only moves travel as bytes; a count that differs between ranks is still told
// in the caller's pairs and their value's type, as a reduction of pairs tells it (it said "count 160", in bytes).
TEST(Coll, MovedValueIndexCountsThatDifferAreToldInPairs) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  const std::size_t n = d.rank() == 0 ? 10 : 7, p = static_cast<std::size_t>(d.size());
  const std::string mine =
      "this rank has count " + std::to_string(n) + ", in {value; int32 index} pairs of dtype float64";
  const auto in_pairs = [&](const std::string& why, const char* what) {
    EXPECT_NE(why.find(", in {value; int32 index} pairs of dtype float64)"), std::string::npos) << what << ": " << why;
    EXPECT_EQ(why.find("count 160"), std::string::npos) << what << ": " << why;
    EXPECT_EQ(why.find("count 112"), std::string::npos) << what << ": " << why;
  };
  std::vector<value_index<double>> block(n, {1.0, d.rank()}), all(n * p);
  const std::string gathered = sctest::expect_error(
      errc::invalid_argument, [&] { allgather<value_index<double>>(block, all, d); }, "allgather of pairs");
  in_pairs(gathered, "allgather");
  // Only a rank that receives sees the mismatch (the root may complete first).
  std::string told;
  try {
    bcast<value_index<double>>(block, 0, d);
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    told = e.what();
  }
  if (d.rank() != 0) {
    in_pairs(told, "bcast");
    // A rank that saw it itself names its own count; one told by another names that rank's.
    if (told.find("found that") == std::string::npos) {
      EXPECT_NE(told.find(mine), std::string::npos) << told;
    }
  }
  barrier(d);  // through sidecore: in mode off the notices go out inside its calls only
  d.free();
}

// The sentence of an allgather that must fail: rank 0 passes blocks of n0 elements `a`, every other rank of n1 `b`.
template <class A, class B>
std::string allgather_that_differs(const comm& d, std::size_t n0, A a, std::size_t n1, B b) {
  const std::size_t p = static_cast<std::size_t>(d.size());
  const auto run = [&]<class T>(std::size_t n, T v) {
    std::vector<T> block(n, v), all(n * p);
    return sctest::expect_error(errc::invalid_argument, [&] { allgather<T>(block, all, d); }, "allgather");
  };
  return d.rank() == 0 ? run(n0, a) : run(n1, b);
}

// Moved pairs travel as bytes, so the signature alone can tell their value type apart: 4 value_index<double> on rank
// 0 and 8 value_index<float> elsewhere are the same 64 bytes, the same schedule and messages of the same size (the
// allgather completed, its data misread). Every rank now fails, told both types as pairs, and a rank that saw it
// itself gives its own count in pairs.
TEST(Coll, MovedValueIndexPairsOfAnotherTypeAndTheSameBytesAreAMismatch) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  const std::string why = allgather_that_differs(d, 4, value_index<double>{1.0, 0}, 8, value_index<float>{1.0f, 0});
  for (const char* part : {"{value; int32 index} pairs of float64", "{value; int32 index} pairs of float32"})
    EXPECT_NE(why.find(part), std::string::npos) << part << ": " << why;
  EXPECT_EQ(why.find("byte"), std::string::npos) << why;
  if (why.find("found that") == std::string::npos) {
    const std::string mine = d.rank() == 0 ? "float64" : "float32";
    EXPECT_NE(why.find("where this rank has {value; int32 index} pairs of " + mine), std::string::npos) << why;
    EXPECT_NE(why.find(d.rank() == 0 ? "this rank has count 4)" : "this rank has count 8)"), std::string::npos)
        << why;
  }
  barrier(d);  // through sidecore: in mode off the notices go out inside its calls only
  d.free();
}

// Pairs against plain values of the same size (value_index<float> and double: 8 bytes each) were told as "type byte
// where this rank has float64": the pairs' own type was not in the signature. The counts agree in the callers'
// elements (4 each), so no count is said to differ either.
TEST(Coll, MovedValueIndexPairsAgainstPlainValuesAreToldAsPairs) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  const std::string why = allgather_that_differs(d, 4, value_index<float>{1.0f, 0}, 4, 1.0);
  if (why.find("found that") == std::string::npos) {
    EXPECT_NE(why.find(d.rank() == 0 ? "type float64 where this rank has {value; int32 index} pairs of float32"
                                     : "type {value; int32 index} pairs of float32 where this rank has float64"),
              std::string::npos)
        << why;
  } else {
    // Told by another rank: its sentence, whichever side it was on.
    EXPECT_NE(why.find("{value; int32 index} pairs of float32"), std::string::npos) << why;
    EXPECT_NE(why.find("float64"), std::string::npos) << why;
  }
  EXPECT_EQ(why.find("byte"), std::string::npos) << why;
  EXPECT_EQ(why.find("another count"), std::string::npos) << why;
  barrier(d);
  d.free();
}

// A count of 0 runs nothing on its rank: the others' messages of that call reach a run that had ended, whose rank
// answers with an abort notice that its receiver passes on (before: the others waited for ever). The ring, where
// every rank sends first; recursive doubling on 3 ranks sends nothing to rank 0 (collectives.hpp says so).
TEST(Coll, ACountOfZeroOnOneRankFailsTheOthersInsteadOfHanging) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  set_coll_algorithm("allreduce", "ring");
  const std::int64_t n = d.rank() == 0 ? 0 : 4;
  std::vector<std::int64_t> in(4, 1), out(4, -7);
  request q = iallreduce(in.data(), out.data(), n, dtype::int64, op::sum, d);
  const status st = wait(q);
  set_coll_algorithm("allreduce", "auto");
  // Rank 0 ends with success when its run ended before the others' messages came, else it saw the mismatch itself.
  if (d.rank() != 0) {
    EXPECT_EQ(st.error, errc::invalid_argument);
  }
  barrier(d);  // the ranks go on together: the communicator still works
  std::int64_t one = 1, all = 0;
  allreduce(&one, &all, 1, dtype::int64, op::sum, d);
  EXPECT_EQ(all, d.size());
  d.free();
}

// alltoallv's signature carries no counts: rank 0, late, sends and expects nothing where the others send to it and
// expect its part. Its run ended as planned with their messages held unread, so their senders (rendezvous: waiting
// for a clear-to-send) and the ranks waiting for its part waited for ever. Now rank 0 refuses what its ended run
// left held and tells the senders, which report the mismatch.
TEST(Coll, AlltoallvCountsThatDifferOnALateRankFailInsteadOfHanging) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  const int p = d.size(), r = d.rank();
  for (const std::int64_t n : {std::int64_t{4}, std::int64_t{100000}}) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(p), r == 0 ? 0 : n), displs(counts.size());
    for (std::size_t j = 1; j < counts.size(); ++j) displs[j] = displs[j - 1] + counts[j - 1];
    std::vector<std::int32_t> in(static_cast<std::size_t>(n) * counts.size(), 1), out(in.size() + 64, -7);
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    request q = ialltoallv(in.data(), counts, displs, out.data(), counts, displs, dtype::int32, d);
    const status st = wait(q);
    if (r != 0) {
      EXPECT_EQ(st.error, errc::invalid_argument) << "count " << n;
    }
    if (r == 0) {
      EXPECT_EQ(out.front(), -7) << "rank 0 expected nothing";
    }
    // The communicator stays usable.
    std::int32_t one = 1, sum = 0;
    allreduce(&one, &sum, 1, dtype::int32, op::sum, d);
    EXPECT_EQ(sum, p);
  }
  d.free();
}

// Counts so different that the ranks' schedules differ in shape (another algorithm, another number of segments and
// messages): still no hang and no overrun; every rank reports the mismatch.
TEST(Coll, CountsThatChangeTheScheduleFailTheCollective) {
  const comm& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm d = w.dup();
  for (const std::int64_t big : {std::int64_t{300}, std::int64_t{100000}}) {
    const std::int64_t n = d.rank() == 0 ? 2 : big;  // rank 0: recursive doubling, one message; others: more
    std::vector<std::int32_t> in(static_cast<std::size_t>(n), 1), out(static_cast<std::size_t>(n) + 64, -7);
    request q = iallreduce(in.data(), out.data(), n, dtype::int32, op::sum, d);
    const status st = wait(q);
    for (std::size_t i = static_cast<std::size_t>(n); i < out.size(); ++i) ASSERT_EQ(out[i], -7) << "overrun at " << i;
    EXPECT_EQ(st.error, errc::invalid_argument) << "count " << n;
    // The communicator stays usable.
    std::int32_t one = 1, sum = 0;
    allreduce(&one, &sum, 1, dtype::int32, op::sum, d);
    EXPECT_EQ(sum, d.size());
  }
  // Another collective altogether: the last rank broadcasts where the others reduce.
  std::vector<std::int32_t> in(50000, 1), out(50000, 0);
  const std::string m = sctest::expect_error(errc::invalid_argument, [&] {
    if (d.rank() == d.size() - 1) bcast(out.data(), 50000, dtype::int32, 0, d);
    else allreduce(in.data(), out.data(), 50000, dtype::int32, op::sum, d);
  }, "bcast against allreduce");
  EXPECT_NE(m.find("rank"), std::string::npos) << m;
  std::int32_t one = 1, sum = 0;
  allreduce(&one, &sum, 1, dtype::int32, op::sum, d);
  EXPECT_EQ(sum, d.size());
  d.free();
}

}  // namespace
