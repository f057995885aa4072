// Communicators: dup (a separate matching context), split (by parity, ordered by key), free, use after free, and
// a copy of a freed communicator whose id serves a newer one.
#include <sidecore/sidecore.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

using sctest::Collective;
using sctest::left;
using sctest::right;
using sidecore::errc;
using sidecore::request;
using sidecore::status;
using ::testing::HasSubstr;

using Comm = Collective;

TEST_F(Comm, WorldIsEveryRank) {
  const sidecore::comm w = sidecore::world();
  EXPECT_FALSE(w.null());
  EXPECT_EQ(w.rank(), rank);
  EXPECT_EQ(w.size(), size);
  int mpi_size = 0;
  MPI_Comm_size(w.mpi(), &mpi_size);
  EXPECT_EQ(mpi_size, size);
  sidecore::comm copy = w;
  const std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, copy.free());
  EXPECT_THAT(m, HasSubstr("world"));
}

// A message sent on the parent must not match a receive posted on the dup, with the same source and tag, and
// the other way round.
TEST_F(Comm, MessagesOnADupDoNotMatchTheParent) {
  sidecore::comm d = sidecore::world().dup();
  ASSERT_FALSE(d.null());
  EXPECT_EQ(d.size(), size);
  EXPECT_EQ(d.rank(), rank);
  EXPECT_NE(d.id(), sidecore::world().id());
  std::uint64_t on_dup = 0, on_world = 0;
  const std::uint64_t a = 0xA0u + static_cast<std::uint64_t>(rank), b = 0xB0u + static_cast<std::uint64_t>(rank);
  // Post the dup's receive first with wildcards: the world message arrives first and must pass it by.
  request rd = sidecore::irecv(&on_dup, 8, sidecore::any_source, sidecore::any_tag, d);
  MPI_Barrier(MPI_COMM_WORLD);
  request sw = sidecore::isend(&a, 8, right(rank, size), 5);     // world
  request sd = sidecore::isend(&b, 8, right(rank, size), 5, d);  // dup
  const status st_dup = sidecore::wait(rd);
  const status st_world = sidecore::recv(&on_world, 8, left(rank, size), 5);
  EXPECT_EQ(on_dup, 0xB0u + static_cast<std::uint64_t>(left(rank, size)))
      << "the dup's receive matched a world message";
  EXPECT_EQ(on_world, 0xA0u + static_cast<std::uint64_t>(left(rank, size)));
  EXPECT_EQ(st_dup.source, left(rank, size));
  EXPECT_EQ(st_dup.tag, 5);
  EXPECT_TRUE(st_world.ok());
  (void)sidecore::wait(sw);
  (void)sidecore::wait(sd);
  d.free();
  EXPECT_TRUE(d.null());
}

TEST_F(Comm, SplitByParityReversedKey) {
  const int color = rank % 2;
  sidecore::comm half = sidecore::world().split(color, -rank);  // key -rank: reversed order
  ASSERT_FALSE(half.null());
  // Members of my colour, in world order.
  std::vector<int> members;
  for (int r = 0; r < size; ++r)
    if (r % 2 == color) members.push_back(r);
  const int n = static_cast<int>(members.size());
  ASSERT_EQ(half.size(), n);
  int my_index = 0;
  for (int i = 0; i < n; ++i)
    if (members[static_cast<std::size_t>(i)] == rank) my_index = i;
  EXPECT_EQ(half.rank(), n - 1 - my_index) << "ranks of a split are ordered by key";
  // Ring inside the half: statuses speak the half's ranks; contents carry the world rank.
  const int hr = half.rank();
  const std::uint64_t mine = static_cast<std::uint64_t>(rank);
  std::uint64_t got = ~0ULL;
  request r = sidecore::irecv(&got, 8, sidecore::any_source, 9, half);
  MPI_Barrier(MPI_COMM_WORLD);  // posted before the message arrives
  request s = sidecore::isend(&mine, 8, right(hr, n), 9, half);
  const status st = sidecore::wait(r);
  EXPECT_EQ(st.source, left(hr, n));
  // World rank of half rank left(hr): members ordered by reversed key.
  EXPECT_EQ(got, static_cast<std::uint64_t>(members[static_cast<std::size_t>(n - 1 - left(hr, n))]));
  (void)sidecore::wait(s);
  // Ranks outside the half are invalid there.
  char buf[8] = {};
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, n, 9, half));
  half.free();
}

TEST_F(Comm, SplitWithColorMinusOneGivesANullComm) {
  sidecore::comm c = sidecore::world().split(rank == 0 ? -1 : 0, 0);
  if (rank == 0) {
    EXPECT_TRUE(c.null());
    char buf[8] = {};
    SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, 0, 1, c));
  } else {
    ASSERT_FALSE(c.null());
    EXPECT_EQ(c.size(), size - 1);
    c.free();
  }
  const std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::world().split(-2, 0));
  EXPECT_THAT(m, HasSubstr("-2"));
}

TEST_F(Comm, UsingAFreedCommunicator) {
  sidecore::comm d = sidecore::world().dup();
  sidecore::comm copy = d;  // a copy still names the freed id
  d.free();
  EXPECT_TRUE(d.null());
  char buf[8] = {};
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, 0, 1, copy));
  EXPECT_THAT(m, HasSubstr("freed"));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(buf, 8, 0, 1, copy));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)copy.rank());
  SCTEST_EXPECT_ERROR(errc::invalid_argument, copy.free());
  SCTEST_EXPECT_ERROR(errc::invalid_argument, d.free());
}

// More dup/free cycles than there are communicator ids (tag::max_comms - 1 = 16383): freed ids are reused, so
// only the communicators alive at once are limited. Every 1000th one carries a message, and a communicator kept
// alive across the reuse keeps its id (its messages still match).
TEST_F(Comm, FreedIdsAreReused) {
  // 16,500 MPI_Comm_dup + MPI_Comm_free: ~12 s at 2 ranks on 2 cores, far more with more ranks than cores. The id
  // logic does not depend on mode, provider or rank count: run once in the matrix.
  if (size != 2 || sidecore::info().mode != "off" || sidecore::info().provider != "shm")
    GTEST_SKIP() << "runs at 2 ranks, mode off, shm only";
  sidecore::comm kept = sidecore::world().dup();
  for (int i = 0; i < 16500; ++i) {
    sidecore::comm d = sidecore::world().dup();
    ASSERT_FALSE(d.null()) << "cycle " << i;
    ASSERT_NE(d.id(), kept.id()) << "cycle " << i;
    if (i % 1000 == 999) {
      const std::uint64_t mine = static_cast<std::uint64_t>(rank) * 100000 + static_cast<std::uint64_t>(i);
      std::uint64_t got = 0;
      request s = sidecore::isend(&mine, 8, right(rank, size), 3, d);
      EXPECT_TRUE(sidecore::recv(&got, 8, left(rank, size), 3, d).ok());
      EXPECT_EQ(got, static_cast<std::uint64_t>(left(rank, size)) * 100000 + static_cast<std::uint64_t>(i));
      (void)sidecore::wait(s);
    }
    d.free();
  }
  const std::uint64_t mine = static_cast<std::uint64_t>(rank);
  std::uint64_t got = 0;
  request s = sidecore::isend(&mine, 8, right(rank, size), 1, kept);
  EXPECT_TRUE(sidecore::recv(&got, 8, left(rank, size), 1, kept).ok());
  EXPECT_EQ(got, static_cast<std::uint64_t>(left(rank, size)));
  (void)sidecore::wait(s);
  kept.free();
}

// A copy of a freed communicator must be refused even once its id serves a newer communicator: a call on it would
// otherwise address the newer one (its messages matching the newer one's, its collectives joining the newer one's).
// dup() reuses an id only once every id has been handed out: right after FreedIdsAreReused in the same run, at
// once; run alone, after some 16,400 dup/free cycles. The C API's integer ids keep MPI's semantics: the id
// addresses whichever communicator holds it.
TEST_F(Comm, ACopyOfAFreedCommunicatorIsRefusedOnceItsIdServesANewOne) {
  if (size != 2 || sidecore::info().mode != "off" || sidecore::info().provider != "shm")
    GTEST_SKIP() << "runs at 2 ranks, mode off, shm only (as FreedIdsAreReused)";
  sidecore::comm a = sidecore::world().dup();
  sidecore::comm copy = a;
  const int id = a.id();
  a.free();
  // Before the ids run out, dup() hands out higher ones (freed at once); after, the lowest id free at every member:
  // those below A's are held until A's comes.
  std::vector<sidecore::comm> held;
  sidecore::comm b;
  for (int i = 0; i < 20000 && b.null(); ++i) {
    sidecore::comm d = sidecore::world().dup();
    ASSERT_FALSE(d.null()) << "cycle " << i;
    if (d.id() == id)
      b = d;
    else if (d.id() < id)
      held.push_back(d);
    else
      d.free();
  }
  ASSERT_FALSE(b.null()) << "no dup reused id " << id;
  ASSERT_EQ(copy.id(), b.id());

  // Each refused call is made by both ranks alike, so that where one is not refused the ranks stay in step.
  const std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)copy.rank());
  EXPECT_THAT(m, HasSubstr("communicator id " + std::to_string(id)));
  EXPECT_THAT(m, HasSubstr("freed"));
  EXPECT_THAT(m, HasSubstr("another"));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)copy.size());
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)copy.mpi());
  static std::uint64_t out = 0, in = 0;  // static: a send that is not refused may complete after this test
  out = static_cast<std::uint64_t>(rank);
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(&out, 8, right(rank, size), 4, copy));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::recv(&in, 8, left(rank, size), 4, copy));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::send_init(&out, 8, right(rank, size), 4, copy));
  std::int64_t one = 1, sum = 0;
  SCTEST_EXPECT_ERROR(errc::invalid_argument,
                      sidecore::allreduce(&one, &sum, 1, sidecore::dtype::int64, sidecore::op::sum, copy));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, sidecore::barrier(copy));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)copy.dup());
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)copy.split(0, 0));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, copy.free());

  // The C API's integer names B now.
  int c_rank = -1;
  EXPECT_EQ(sidecore_comm_rank(id, &c_rank), SIDECORE_SUCCESS) << sidecore_last_error();
  EXPECT_EQ(c_rank, rank);

  // B itself works: a ring message and a collective.
  EXPECT_EQ(b.rank(), rank);
  std::uint64_t mine = 0xC0u + static_cast<std::uint64_t>(rank), got = 0;
  request s = sidecore::isend(&mine, 8, right(rank, size), 4, b);
  EXPECT_TRUE(sidecore::recv(&got, 8, left(rank, size), 4, b).ok());
  EXPECT_EQ(got, 0xC0u + static_cast<std::uint64_t>(left(rank, size)));
  (void)sidecore::wait(s);
  sum = 0;
  sidecore::allreduce(&one, &sum, 1, sidecore::dtype::int64, sidecore::op::sum, b);
  EXPECT_EQ(sum, size);
  b.free();
  for (sidecore::comm& h : held) h.free();
}

// Dup/free cycles and a split of a dup.
TEST_F(Comm, DupFreeCycles) {
  for (int i = 0; i < 50; ++i) {
    sidecore::comm d = sidecore::world().dup();
    ASSERT_FALSE(d.null()) << "cycle " << i;
    d.free();
  }
  sidecore::comm nested = sidecore::world().dup();
  sidecore::comm inner = nested.split(0, 0);
  EXPECT_EQ(inner.size(), size);
  const std::uint64_t mine = static_cast<std::uint64_t>(rank);
  std::uint64_t got = 0;
  request s = sidecore::isend(&mine, 8, right(rank, size), 1, inner);
  EXPECT_TRUE(sidecore::recv(&got, 8, left(rank, size), 1, inner).ok());
  EXPECT_EQ(got, static_cast<std::uint64_t>(left(rank, size)));
  (void)sidecore::wait(s);
  inner.free();
  nested.free();
}

}  // namespace
