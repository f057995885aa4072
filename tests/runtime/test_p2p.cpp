// Multi-rank point-to-point tests (issue 2, "Tests"): ordering per (source, tag), any-source / any-tag, sizes
// 0 B to 16 MiB, many outstanding requests, waitany/testany/testall loops, many OpenMP threads at once,
// truncation and cancel. Run by ctest at 2, 3 and 4 ranks, in modes off and core, on shm and tcp;ofi_rxm.
// Every rank talks to its ring neighbours (with 2 ranks, left and right are the same rank).
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "omp_parallel.hpp"
#include "test_util.hpp"

namespace {

using sctest::Collective;
using sctest::left;
using sctest::right;
using sidecore::errc;
using sidecore::request;
using sidecore::status;

using P2P = Collective;

constexpr std::size_t kib = 1024, mib = 1024 * 1024;

// ---- environment as registered ------------------------------------------------------------------------------

// The ctest entry says which mode and provider it means (SCTEST_EXPECT_*): check that the environment arrived
// intact (the ';' of "tcp;ofi_rxm" in particular) and that sidecore runs what was asked.
TEST_F(P2P, EnvironmentArrivedAndRuntimeMatchesIt) {
  const sidecore::runtime_info info = sidecore::info();
  if (const char* want = std::getenv("SCTEST_EXPECT_PROVIDER")) {
    const char* got = std::getenv("SIDECORE_PROVIDER");
    ASSERT_NE(got, nullptr);
    EXPECT_STREQ(got, want);
    EXPECT_EQ(info.provider, want);
  }
  if (const char* want = std::getenv("SCTEST_EXPECT_MODE")) {
    EXPECT_EQ(info.mode, want);
    if (info.mode == "core") {
      EXPECT_GE(info.reserved_core, 0);
      EXPECT_GE(info.n_core, 2);
    } else {
      EXPECT_EQ(info.reserved_core, -1);
    }
  }
  EXPECT_EQ(sidecore::world().size(), size);
  EXPECT_EQ(sidecore::world().rank(), rank);
}

// ---- start-up ---------------------------------------------------------------------------------------------

// The first messages after init of each size class (eager above the inject size, 64 KiB, 256 KiB) find the
// provider ready: init sent one of each (engine::connect_peers). tcp;ofi_rxm otherwise mapped and touched a
// 16.5 MiB buffer pool at the first eager message above its inject size (~100 ms) and another at the first
// 64 KiB one. Page faults, not time, are counted: a pool set up now takes thousands (4 KiB each), the messages
// themselves (buffers touched beforehand) a few. Must run before any other traffic of the suite.
TEST_F(P2P, FirstMessagesOfEachSizeFindTheProviderReady) {
  std::vector<char> out(256 * kib, 1), in(256 * kib, 0);
  const auto faults = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt + u.ru_majflt;
  };
  for (const std::size_t len : {std::size_t{100}, std::size_t{1000}, 64 * kib, 256 * kib}) {
    MPI_Barrier(MPI_COMM_WORLD);
    const long before = faults();
    request r = sidecore::irecv(in.data(), static_cast<std::int64_t>(len), left(rank, size), 2);
    sidecore::send(out.data(), static_cast<std::int64_t>(len), right(rank, size), 2);
    const status st = sidecore::wait(r);
    const long taken = faults() - before;
    ASSERT_TRUE(st.ok()) << len << " B";
    EXPECT_LT(taken, 1000) << "the first " << len << " B message took " << taken
                           << " page faults: the provider set something up for it";
  }
}

// ---- ordering -----------------------------------------------------------------------------------------------

// Size of message `seq` in the mixed-size runs: eager and rendezvous interleaved, zero bytes included.
std::size_t mixed_size(int seq) {
  static const std::size_t sizes[] = {8, 300 * kib, 1, 0, 4 * kib, 65 * kib, 16, 1 * mib, 100, 33 * kib};
  return sizes[static_cast<std::size_t>(seq) % (sizeof sizes / sizeof sizes[0])];
}

// Many messages with one tag, all sent before any receive is posted (unexpected-message path).
TEST_F(P2P, OrderingSameTagSmallMessagesSentBeforeReceives) {
  constexpr int n = 300, tag = 11;
  std::vector<std::uint64_t> out(n), in(n, ~0ULL);
  std::vector<request> sends(n);
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint64_t>(i);
    sends[static_cast<std::size_t>(i)] = sidecore::isend(&out[static_cast<std::size_t>(i)], 8, right(rank, size), tag);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the messages are (mostly) there before the receives
  const auto from = static_cast<std::uint64_t>(left(rank, size));
  for (int i = 0; i < n; ++i) {
    const status st = sidecore::recv(&in[static_cast<std::size_t>(i)], 8, left(rank, size), tag);
    ASSERT_TRUE(st.ok()) << "message " << i << ": " << sidecore::errc_name(st.error);
    ASSERT_EQ(in[static_cast<std::size_t>(i)], from << 32 | static_cast<std::uint64_t>(i))
        << "message " << i << " out of order";
  }
  sidecore::waitall(sends);
}

// Mixed sizes (eager and rendezvous) with one tag, receives posted first, completed with waitall.
TEST_F(P2P, OrderingSameTagMixedSizesPrePosted) {
  constexpr int n = 30, tag = 12;
  const std::size_t cap = 1 * mib;
  std::vector<std::vector<std::uint8_t>> in(n, std::vector<std::uint8_t>(cap));
  std::vector<std::vector<std::uint8_t>> out(n);
  std::vector<request> reqs(2 * n);
  for (int i = 0; i < n; ++i)
    reqs[static_cast<std::size_t>(i)] =
        sidecore::irecv(in[static_cast<std::size_t>(i)].data(), static_cast<std::int64_t>(cap), left(rank, size), tag);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    auto& b = out[static_cast<std::size_t>(i)];
    b.resize(std::max<std::size_t>(mixed_size(i), 1));
    sctest::fill(b, static_cast<std::uint64_t>(rank * 1000 + i), mixed_size(i));
    reqs[static_cast<std::size_t>(n + i)] =
        sidecore::isend(b.data(), static_cast<std::int64_t>(mixed_size(i)), right(rank, size), tag);
  }
  std::vector<status> st(2 * n);
  sidecore::waitall(reqs, st);
  const int from = left(rank, size);
  for (int i = 0; i < n; ++i) {
    const status& s = st[static_cast<std::size_t>(i)];
    EXPECT_TRUE(s.ok()) << "receive " << i;
    EXPECT_EQ(s.source, from);
    EXPECT_EQ(s.tag, tag);
    EXPECT_EQ(s.bytes, mixed_size(i)) << "receive " << i << " matched another message: overtaking";
    EXPECT_EQ(sctest::first_mismatch(in[static_cast<std::size_t>(i)].data(),
                                     static_cast<std::uint64_t>(from * 1000 + i), mixed_size(i)),
              -1)
        << "receive " << i;
  }
  for (int i = n; i < 2 * n; ++i) {
    EXPECT_TRUE(st[static_cast<std::size_t>(i)].ok()) << "send " << i - n;
    EXPECT_EQ(st[static_cast<std::size_t>(i)].source, -1) << "a send's status has source -1";
  }
}

// Mixed sizes with one tag, sent before the receives are posted (rendezvous messages wait for their receive).
TEST_F(P2P, OrderingSameTagMixedSizesSentFirst) {
  constexpr int n = 20, tag = 13;
  std::vector<std::vector<std::uint8_t>> out(n);
  std::vector<request> sends(n);
  for (int i = 0; i < n; ++i) {
    auto& b = out[static_cast<std::size_t>(i)];
    b.resize(std::max<std::size_t>(mixed_size(i), 1));
    sctest::fill(b, static_cast<std::uint64_t>(rank * 1000 + i), mixed_size(i));
    sends[static_cast<std::size_t>(i)] =
        sidecore::isend(b.data(), static_cast<std::int64_t>(mixed_size(i)), right(rank, size), tag);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const int from = left(rank, size);
  std::vector<std::uint8_t> in(1 * mib);
  for (int i = 0; i < n; ++i) {
    const status s = sidecore::recv(in.data(), static_cast<std::int64_t>(in.size()), from, tag);
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.bytes, mixed_size(i)) << "receive " << i << " matched another message: overtaking";
    EXPECT_EQ(sctest::first_mismatch(in.data(), static_cast<std::uint64_t>(from * 1000 + i), mixed_size(i)), -1)
        << "receive " << i;
  }
  sidecore::waitall(sends);
}

// Two tags interleaved: each tag's stream is in order, whatever the receive order across tags.
TEST_F(P2P, OrderingPerTagWithReceivesInOtherTagOrder) {
  constexpr int n = 40;
  std::vector<std::uint64_t> out(2 * n);
  std::vector<request> sends(2 * n);
  for (int i = 0; i < n; ++i)
    for (int t = 0; t < 2; ++t) {
      const auto k = static_cast<std::size_t>(2 * i + t);
      out[k] = static_cast<std::uint64_t>(i);
      sends[k] = sidecore::isend(&out[k], 8, right(rank, size), 20 + t);
    }
  // Receive all of tag 21 first, then all of tag 20.
  for (int t : {21, 20})
    for (int i = 0; i < n; ++i) {
      std::uint64_t v = ~0ULL;
      const status s = sidecore::recv(&v, 8, left(rank, size), t);
      EXPECT_EQ(s.tag, t);
      ASSERT_EQ(v, static_cast<std::uint64_t>(i)) << "tag " << t;
    }
  sidecore::waitall(sends);
}

// ---- any source, any tag ------------------------------------------------------------------------------------

TEST_F(P2P, AnySourceAnyTagStatusesNameTheSender) {
  constexpr int k = 5;
  // Every rank other than 0 sends k messages to 0; the content says who sent what.
  // Receives are posted before anything is sent (a barrier apart); see *ReceivesOfUnexpectedMessages for the
  // other order.
  if (rank != 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    std::vector<std::uint64_t> out(k);
    std::vector<request> sends(k);
    for (int i = 0; i < k; ++i) {
      out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint64_t>(i);
      sends[static_cast<std::size_t>(i)] =
          sidecore::isend(&out[static_cast<std::size_t>(i)], 8, 0, 1000 + rank * 10 + i);
    }
    sidecore::waitall(sends);
  } else {
    const int total = (size - 1) * k;
    std::vector<std::uint64_t> in(static_cast<std::size_t>(total));
    std::vector<request> recvs(static_cast<std::size_t>(total));
    for (int i = 0; i < total; ++i)
      recvs[static_cast<std::size_t>(i)] =
          sidecore::irecv(&in[static_cast<std::size_t>(i)], 8, sidecore::any_source, sidecore::any_tag);
    MPI_Barrier(MPI_COMM_WORLD);
    std::vector<status> st(static_cast<std::size_t>(total));
    sidecore::waitall(recvs, st);
    std::set<std::pair<int, int>> seen;
    std::vector<int> last(static_cast<std::size_t>(size), -1);
    for (int i = 0; i < total; ++i) {
      const status& s = st[static_cast<std::size_t>(i)];
      const int src = static_cast<int>(in[static_cast<std::size_t>(i)] >> 32);
      const int seq = static_cast<int>(in[static_cast<std::size_t>(i)] & 0xffffffffu);
      EXPECT_TRUE(s.ok());
      EXPECT_EQ(s.source, src) << "status.source does not name the sender";
      EXPECT_EQ(s.tag, 1000 + src * 10 + seq) << "status.tag is not the message's tag";
      EXPECT_EQ(s.bytes, 8u);
      EXPECT_TRUE(seen.insert({src, seq}).second) << "message (" << src << "," << seq << ") received twice";
      if (src > 0 && src < size) {
        EXPECT_GT(seq, last[static_cast<std::size_t>(src)]) << "messages of rank " << src << " overtook each other";
        last[static_cast<std::size_t>(src)] = seq;
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(total));
  }
}

TEST_F(P2P, AnySourceWithTagAndSourceWithAnyTag) {
  const std::uint64_t mine = 0xabc00000u + static_cast<std::uint64_t>(rank);
  std::uint64_t a = 0, b = 0;
  // Round 1: any source, fixed tag.
  request r = sidecore::irecv(&a, 8, sidecore::any_source, 31);
  MPI_Barrier(MPI_COMM_WORLD);  // posted before the message arrives (AnyTagReceivesOfUnexpectedMessages: after)
  request s = sidecore::isend(&mine, 8, right(rank, size), 31);
  status st = sidecore::wait(r);
  EXPECT_EQ(st.source, left(rank, size));
  EXPECT_EQ(st.tag, 31);
  EXPECT_EQ(a, 0xabc00000u + static_cast<std::uint64_t>(left(rank, size)));
  (void)sidecore::wait(s);
  // Round 2: fixed source, any tag (the tag differs per sender).
  r = sidecore::irecv(&b, 8, left(rank, size), sidecore::any_tag);
  MPI_Barrier(MPI_COMM_WORLD);
  s = sidecore::isend(&mine, 8, right(rank, size), 40 + rank);
  st = sidecore::wait(r);
  EXPECT_EQ(st.source, left(rank, size));
  EXPECT_EQ(st.tag, 40 + left(rank, size));
  EXPECT_EQ(b, 0xabc00000u + static_cast<std::uint64_t>(left(rank, size)));
  const status ss = sidecore::wait(s);
  EXPECT_EQ(ss.source, -1);
  EXPECT_EQ(ss.tag, -1);
}

TEST_F(P2P, LargestTagAndTagZero) {
  std::uint64_t v = 0;
  const std::uint64_t mine = static_cast<std::uint64_t>(rank);
  for (int t : {0, sidecore::tag_max}) {
    request r = sidecore::irecv(&v, 8, sidecore::any_source, sidecore::any_tag);
    MPI_Barrier(MPI_COMM_WORLD);
    request s = sidecore::isend(&mine, 8, right(rank, size), t);
    const status st = sidecore::wait(r);
    EXPECT_EQ(st.tag, t);
    EXPECT_EQ(v, static_cast<std::uint64_t>(left(rank, size)));
    (void)sidecore::wait(s);
  }
}

// ---- sizes ---------------------------------------------------------------------------------------------------

TEST_F(P2P, RingExchangeZeroBytesTo16MiB) {
  const std::size_t sizes[] = {0, 1, 7, 8, 63, 64, 1000, 4 * kib, 8 * kib - 1, 64 * kib, 64 * kib + 1, 256 * kib,
                               1 * mib, 4 * mib + 5, 16 * mib};
  constexpr std::size_t guard = 64;
  const int to = right(rank, size), from = left(rank, size);
  int tag = 50;
  for (std::size_t n : sizes) {
    ++tag;
    std::vector<std::uint8_t> out(std::max<std::size_t>(n, 1)), in(n + guard, 0xEE);
    sctest::fill(out, static_cast<std::uint64_t>(rank + tag), n);
    request reqs[2];
    // Zero bytes: null buffers are accepted.
    reqs[0] = sidecore::irecv(n ? in.data() : nullptr, static_cast<std::int64_t>(n), from, tag);
    reqs[1] = sidecore::isend(n ? out.data() : nullptr, static_cast<std::int64_t>(n), to, tag);
    status st[2];
    sidecore::waitall(reqs, st);
    EXPECT_TRUE(st[0].ok()) << n << " B: " << sidecore::errc_name(st[0].error);
    EXPECT_EQ(st[0].bytes, n);
    EXPECT_EQ(st[0].source, from);
    EXPECT_EQ(st[0].tag, tag);
    EXPECT_TRUE(st[1].ok()) << n << " B send";
    EXPECT_EQ(sctest::first_mismatch(in.data(), static_cast<std::uint64_t>(from + tag), n), -1) << n << " B";
    for (std::size_t g = 0; g < guard; ++g) ASSERT_EQ(in[n + g], 0xEE) << n << " B: wrote past the message";
    EXPECT_FALSE(reqs[0].active());
    EXPECT_FALSE(reqs[1].active());
  }
}

// Blocking send/recv in a ring, with the order of send and recv alternating by rank parity (so it cannot
// deadlock on eager or rendezvous sizes).
TEST_F(P2P, BlockingSendRecvRing) {
  for (std::size_t n : {std::size_t{8}, 512 * kib}) {
    std::vector<std::uint8_t> out(n), in(n);
    sctest::fill(out, static_cast<std::uint64_t>(rank), n);
    const int t = 77;
    if (rank % 2 == 0 || size % 2 == 1) {
      // With an odd ring two neighbours have the same parity: fall back to isend + recv.
      request s = sidecore::isend(out.data(), static_cast<std::int64_t>(n), right(rank, size), t);
      const status st = sidecore::recv(in.data(), static_cast<std::int64_t>(n), left(rank, size), t);
      EXPECT_TRUE(st.ok());
      (void)sidecore::wait(s);
    } else {
      const status st = sidecore::recv(in.data(), static_cast<std::int64_t>(n), left(rank, size), t);
      EXPECT_TRUE(st.ok());
      sidecore::send(out.data(), static_cast<std::int64_t>(n), right(rank, size), t);
    }
    EXPECT_EQ(sctest::first_mismatch(in.data(), static_cast<std::uint64_t>(left(rank, size)), n), -1) << n;
  }
}

// ---- many outstanding requests ------------------------------------------------------------------------------

// Every receive waits in sidecore's posted list (the provider sees none of them until a message matches).
TEST_F(P2P, TwoThousandReceivesPostedBeforeTheSends) {
  constexpr int n = 2000, tag = 300;
  std::vector<std::uint64_t> in(n, ~0ULL), out(n);
  std::vector<request> recvs(n), sends(n);
  for (int i = 0; i < n; ++i)
    recvs[static_cast<std::size_t>(i)] = sidecore::irecv(&in[static_cast<std::size_t>(i)], 8, left(rank, size), tag);
  for (const auto& r : recvs) ASSERT_TRUE(r.active());
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i);
    sends[static_cast<std::size_t>(i)] = sidecore::isend(&out[static_cast<std::size_t>(i)], 8, right(rank, size), tag);
  }
  std::vector<status> st(n);
  sidecore::waitall(recvs, st);
  sidecore::waitall(sends);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (in[static_cast<std::size_t>(i)] != static_cast<std::uint64_t>(i) || !st[static_cast<std::size_t>(i)].ok())
      ++bad;
  EXPECT_EQ(bad, 0) << "receives that did not get their message in order";
  for (const auto& r : recvs) EXPECT_FALSE(r.active());
}

// 1500 rendezvous messages in flight at once: more data receives than the provider's receive queue holds (shm:
// 1024), so the rendezvous receives wait in the engine's backlog while their clear-to-sends wait in the other one.
// A regression test: retrying the receive backlog used to drop its tail when a posted receive queued its
// clear-to-send behind others (hang).
TEST_F(P2P, FifteenHundredRendezvousMessagesInFlight) {
  constexpr int n = 1500, tag = 310;
  constexpr std::size_t len = 9000;  // above the default SIDECORE_EAGER_MAX (8192): rendezvous
  std::vector<std::vector<std::uint32_t>> in(n, std::vector<std::uint32_t>(len / 4, 0xffffffffu)), out(n);
  std::vector<request> recvs(n), sends(n);
  for (int i = 0; i < n; ++i)
    recvs[static_cast<std::size_t>(i)] =
        sidecore::irecv(in[static_cast<std::size_t>(i)].data(), len, left(rank, size), tag);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)].assign(len / 4, static_cast<std::uint32_t>(i));
    sends[static_cast<std::size_t>(i)] =
        sidecore::isend(out[static_cast<std::size_t>(i)].data(), len, right(rank, size), tag);
  }
  std::vector<status> st(n);
  sidecore::waitall(recvs, st);
  sidecore::waitall(sends);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const auto& v = in[static_cast<std::size_t>(i)];
    if (!st[static_cast<std::size_t>(i)].ok() || st[static_cast<std::size_t>(i)].bytes != len ||
        std::any_of(v.begin(), v.end(), [i](std::uint32_t x) { return x != static_cast<std::uint32_t>(i); }))
      ++bad;
  }
  EXPECT_EQ(bad, 0) << "rendezvous receives that did not get their message, whole and in order";
}

TEST_F(P2P, WaitanyLoopCompletesEachRequestOnce) {
  constexpr int n = 32;
  std::vector<std::uint64_t> in(n, ~0ULL), out(n);
  std::vector<request> recvs(n), sends(n);
  for (int i = 0; i < n; ++i)
    recvs[static_cast<std::size_t>(i)] =
        sidecore::irecv(&in[static_cast<std::size_t>(i)], 8, left(rank, size), 400 + i);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = n - 1; i >= 0; --i) {  // reverse order: completion order differs from posting order
    out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i);
    sends[static_cast<std::size_t>(i)] =
        sidecore::isend(&out[static_cast<std::size_t>(i)], 8, right(rank, size), 400 + i);
  }
  std::vector<int> hits(n, 0);
  for (int done = 0;; ++done) {
    status st;
    const int idx = sidecore::waitany(recvs, &st);
    if (idx < 0) {
      EXPECT_EQ(done, n);
      break;
    }
    ASSERT_LT(idx, n);
    ++hits[static_cast<std::size_t>(idx)];
    EXPECT_EQ(st.tag, 400 + idx);
    EXPECT_EQ(st.source, left(rank, size));
    EXPECT_EQ(in[static_cast<std::size_t>(idx)], static_cast<std::uint64_t>(idx));
    EXPECT_FALSE(recvs[static_cast<std::size_t>(idx)].active());
    ASSERT_LE(done, n);
  }
  for (int i = 0; i < n; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)], 1) << "request " << i;
  EXPECT_EQ(sidecore::waitany(recvs), -1) << "no active request left";
  while (sidecore::waitany(sends) >= 0) {
  }
}

TEST_F(P2P, TestanyAndTestallLoops) {
  constexpr int n = 24;
  std::vector<std::uint64_t> in(n, ~0ULL), out(n);
  std::vector<request> recvs(n), sends(n);
  for (int i = 0; i < n; ++i)
    recvs[static_cast<std::size_t>(i)] =
        sidecore::irecv(&in[static_cast<std::size_t>(i)], 8, left(rank, size), 450 + i);
  // Nothing was sent yet: testall is false and leaves every request active; testany finds none.
  std::vector<status> st(n);
  EXPECT_FALSE(sidecore::testall(recvs, st));
  for (const auto& r : recvs) EXPECT_TRUE(r.active());
  EXPECT_EQ(sidecore::testany(recvs), -1);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i);
    sends[static_cast<std::size_t>(i)] =
        sidecore::isend(&out[static_cast<std::size_t>(i)], 8, right(rank, size), 450 + i);
  }
  // Half with testany, the rest with testall.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<int> hits(n, 0);
  for (int got = 0; got < n / 2;) {
    status s;
    const int idx = sidecore::testany(recvs, &s);
    if (idx >= 0) {
      ++hits[static_cast<std::size_t>(idx)];
      EXPECT_EQ(s.tag, 450 + idx);
      EXPECT_EQ(in[static_cast<std::size_t>(idx)], static_cast<std::uint64_t>(idx));
      ++got;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "testany loop made no progress";
  }
  std::fill(st.begin(), st.end(), status{});
  while (!sidecore::testall(recvs, st)) ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "testall loop stuck";
  for (int i = 0; i < n; ++i) {
    if (hits[static_cast<std::size_t>(i)] == 0) {
      EXPECT_EQ(st[static_cast<std::size_t>(i)].tag, 450 + i);
      EXPECT_EQ(in[static_cast<std::size_t>(i)], static_cast<std::uint64_t>(i));
    }
    EXPECT_FALSE(recvs[static_cast<std::size_t>(i)].active());
  }
  EXPECT_TRUE(sidecore::testall(recvs)) << "testall over consumed requests is true";
  EXPECT_EQ(sidecore::testany(recvs), -1);
  // Sends with test() one by one.
  for (auto& r : sends)
    while (r.active() && !sidecore::test(r)) ASSERT_LT(std::chrono::steady_clock::now(), deadline);
}

// ---- many threads -----------------------------------------------------------------------------------------------

TEST_F(P2P, FourOpenMPThreadsIssueBothDirectionsAtOnce) {
  constexpr int threads = 4, iters = 20;
  std::atomic<int> bad_content{0}, bad_status{0}, exceptions{0};
  std::string first_error;
  const int to_r = right(rank, size), to_l = left(rank, size);
  auto seed = [](int src, int t, int dir, int it) {
    return static_cast<std::uint64_t>(((src * 8 + t) * 2 + dir) * 1000 + it);
  };
  sctest::omp_parallel(threads, [&] {  // an OpenMP region whose fork and join TSan sees (omp_parallel.hpp)
    const int t = omp_get_thread_num();
    try {
      for (int it = 0; it < iters; ++it) {
        const std::size_t n = it % 3 == 0 ? 8 : it % 3 == 1 ? 2000 : 70 * kib;
        std::vector<std::uint8_t> o_r(n), o_l(n), i_l(n), i_r(n);
        sctest::fill(o_r, seed(rank, t, 0, it), n);
        sctest::fill(o_l, seed(rank, t, 1, it), n);
        const int tag_r = 500 + 2 * t, tag_l = 501 + 2 * t;  // tag says thread and direction
        request r[4];
        r[0] = sidecore::irecv(i_l.data(), static_cast<std::int64_t>(n), to_l, tag_r);  // left neighbour's "to right"
        r[1] = sidecore::irecv(i_r.data(), static_cast<std::int64_t>(n), to_r, tag_l);  // right neighbour's "to left"
        r[2] = sidecore::isend(o_r.data(), static_cast<std::int64_t>(n), to_r, tag_r);
        r[3] = sidecore::isend(o_l.data(), static_cast<std::int64_t>(n), to_l, tag_l);
        status st[4];
        if (it % 2 == 0) {
          sidecore::waitall(r, st);
        } else {
          for (int k = 0; k < 4; ++k) st[k] = sidecore::wait(r[k]);
        }
        for (const status& s : st)
          if (!s.ok()) ++bad_status;
        if (st[0].bytes != n || st[1].bytes != n || st[0].source != to_l || st[1].source != to_r) ++bad_status;
        if (sctest::first_mismatch(i_l.data(), seed(to_l, t, 0, it), n) >= 0) ++bad_content;
        if (sctest::first_mismatch(i_r.data(), seed(to_r, t, 1, it), n) >= 0) ++bad_content;
      }
    } catch (const std::exception& e) {
      if (exceptions.fetch_add(1) == 0) first_error = e.what();
    }
  });
  EXPECT_EQ(exceptions.load(), 0) << first_error;
  EXPECT_EQ(bad_status.load(), 0);
  EXPECT_EQ(bad_content.load(), 0);
}

// Threads that each send a stream on their own tag at once: each tag's stream arrives in order (the submission
// queue between threads and the progressing thread must not reorder one thread's operations).
TEST_F(P2P, ThreadsStreamingToOneReceiverKeepPerTagOrder) {
  constexpr int threads = 3, per = 50;
  std::atomic<int> exceptions{0};
  std::vector<std::uint64_t> out(threads * per);
  std::vector<request> sends(threads * per);
  sctest::omp_parallel(threads, [&] {  // an OpenMP region whose fork and join TSan sees (omp_parallel.hpp)
    const int t = omp_get_thread_num();
    try {
      for (int i = 0; i < per; ++i) {
        const auto k = static_cast<std::size_t>(t * per + i);
        out[k] = static_cast<std::uint64_t>(i);
        sends[k] = sidecore::isend(&out[k], 8, right(rank, size), 600 + t);
      }
    } catch (...) {
      ++exceptions;
    }
  });
  ASSERT_EQ(exceptions.load(), 0);
  // Receive tag by tag.
  for (int t = threads - 1; t >= 0; --t)
    for (int i = 0; i < per; ++i) {
      std::uint64_t v = ~0ULL;
      const status st = sidecore::recv(&v, 8, left(rank, size), 600 + t);
      EXPECT_TRUE(st.ok());
      ASSERT_EQ(v, static_cast<std::uint64_t>(i)) << "tag " << 600 + t << " out of order";
    }
  sidecore::waitall(sends);
}

// ---- truncation ----------------------------------------------------------------------------------------------

// check_prefix: the posted bytes hold the start of the message (status.bytes is the bytes written, = the buffer
// size).
void check_truncation(int rank, int size, std::size_t sent, std::size_t posted, int tag, bool blocking,
                      bool check_prefix = false) {
  constexpr std::size_t guard = 256;
  std::vector<std::uint8_t> out(std::max<std::size_t>(sent, 1)), in(posted + guard, 0xEE);
  sctest::fill(out, static_cast<std::uint64_t>(rank + tag), sent);
  request s = sidecore::isend(out.data(), static_cast<std::int64_t>(sent), right(rank, size), tag);
  status st;
  if (blocking) {
    st = sidecore::recv(posted ? in.data() : nullptr, static_cast<std::int64_t>(posted), left(rank, size), tag);
  } else {
    request r = sidecore::irecv(posted ? in.data() : nullptr, static_cast<std::int64_t>(posted), left(rank, size), tag);
    st = sidecore::wait(r);
  }
  EXPECT_EQ(st.error, errc::truncated) << sent << " B into " << posted << " B: " << sidecore::errc_name(st.error);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.bytes, posted) << "bytes written must be the buffer size";
  EXPECT_EQ(st.source, left(rank, size));
  EXPECT_EQ(st.tag, tag);
  if (check_prefix) {
    EXPECT_EQ(sctest::first_mismatch(in.data(), static_cast<std::uint64_t>(left(rank, size) + tag), posted), -1)
        << "the part that fits is the start of the message";
  }
  std::size_t touched = 0;
  for (std::size_t g = 0; g < guard; ++g) touched += in[posted + g] != 0xEE;
  EXPECT_EQ(touched, 0u) << sent << " B into " << posted << " B: guard bytes after the buffer were overwritten";
  const status ss = sidecore::wait(s);
  EXPECT_NE(ss.error, errc::transport) << "the sender of a truncated message";
}

// ---- cancel -------------------------------------------------------------------------------------------------------

TEST_F(P2P, CancelPostedReceiveNobodySends) {
  std::uint64_t v = 0x1234;
  request r = sidecore::irecv(&v, 8, left(rank, size), 800);
  sidecore::cancel(r);
  EXPECT_TRUE(r.active()) << "a cancelled request must still be waited";
  const status st = sidecore::wait(r);
  EXPECT_EQ(st.error, errc::canceled) << sidecore::errc_name(st.error);
  EXPECT_TRUE(st.canceled());
  EXPECT_EQ(st.bytes, 0u);
  EXPECT_EQ(v, 0x1234u) << "a cancelled receive wrote its buffer";
  // Any-source, any-tag receive cancelled, completed with test().
  request r2 = sidecore::irecv(&v, 8, sidecore::any_source, sidecore::any_tag);
  sidecore::cancel(r2);
  status st2;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!sidecore::test(r2, &st2)) ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "cancel never completed";
  EXPECT_TRUE(st2.canceled());
}

TEST_F(P2P, CancelledReceiveDoesNotTakeALaterMessage) {
  std::uint64_t dead = 0, v = 0;
  request r = sidecore::irecv(&dead, 8, left(rank, size), 801);
  sidecore::cancel(r);
  EXPECT_TRUE(sidecore::wait(r).canceled());
  MPI_Barrier(MPI_COMM_WORLD);
  const std::uint64_t mine = 7u + static_cast<std::uint64_t>(rank);
  request s = sidecore::isend(&mine, 8, right(rank, size), 801);
  const status st = sidecore::recv(&v, 8, left(rank, size), 801);
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(v, 7u + static_cast<std::uint64_t>(left(rank, size)));
  EXPECT_EQ(dead, 0u);
  (void)sidecore::wait(s);
}

// Cancel racing a matching message: the outcome is either canceled (then the message is still there for
// another receive) or received; never lost, never a hang on either side.
TEST_F(P2P, CancelRacingAMatchingMessage) {
  constexpr int iters = 30;
  int canceled = 0, received = 0;
  for (int it = 0; it < iters; ++it) {
    const int tag = 900 + it;
    const std::size_t n = it % 3 == 2 ? 200 * kib : 8;
    std::vector<std::uint8_t> out(n), in(n, 0);
    sctest::fill(out, static_cast<std::uint64_t>(rank * 100 + it), n);
    request r = sidecore::irecv(in.data(), static_cast<std::int64_t>(n), left(rank, size), tag);
    request s = sidecore::isend(out.data(), static_cast<std::int64_t>(n), right(rank, size), tag);
    // Spin a little, varying, so that the cancel lands before, during and after the arrival.
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds((it % 5) * 20);
    while (std::chrono::steady_clock::now() < spin_until) {
    }
    sidecore::cancel(r);
    status st = sidecore::wait(r);
    if (st.canceled()) {
      ++canceled;
      EXPECT_EQ(st.bytes, 0u);
      st = sidecore::recv(in.data(), static_cast<std::int64_t>(n), left(rank, size), tag);
    } else {
      ++received;
    }
    EXPECT_TRUE(st.ok()) << "iteration " << it << ": " << sidecore::errc_name(st.error);
    EXPECT_EQ(st.bytes, n);
    EXPECT_EQ(sctest::first_mismatch(in.data(), static_cast<std::uint64_t>(left(rank, size) * 100 + it), n), -1)
        << "iteration " << it;
    const status ss = sidecore::wait(s);
    EXPECT_TRUE(ss.ok()) << "iteration " << it;
  }
  EXPECT_EQ(canceled + received, iters);
  RecordProperty("canceled", canceled);
  RecordProperty("received", received);
}

// Dropping a handle whose receive is still in flight: the operation completes in the engine and its slot is
// released (the buffer stays valid). The test reads the buffer only after a second message from the same peer,
// sent after the first, has arrived: the engine handles arrivals in order, so the dropped receive was filled
// before that receive completed (reading it any earlier would race with the progress thread writing it).
TEST_F(P2P, DroppedHandleStillCompletes) {
  static std::uint64_t dropped_buf = 0;  // must outlive the operation
  {
    request r = sidecore::irecv(&dropped_buf, 8, left(rank, size), 1100);
  }  // dropped while pending
  std::uint64_t fence_in = 0;
  const std::uint64_t fence_out = 1;
  request fence = sidecore::irecv(&fence_in, 8, left(rank, size), 1102);
  const std::uint64_t mine = 99u + static_cast<std::uint64_t>(rank);
  {
    request s = sidecore::isend(&mine, 8, right(rank, size), 1100);
    (void)sidecore::wait(s);
  }
  sidecore::send(&fence_out, 8, right(rank, size), 1102);
  EXPECT_TRUE(sidecore::wait(fence).ok());
  EXPECT_EQ(dropped_buf, 99u + static_cast<std::uint64_t>(left(rank, size))) << "the orphaned receive never completed";
}

// Ten messages from the left neighbour, all arrived (unexpected) before the receives are posted one by one with
// the given source and tag (wildcards or not). Guarded by a deadline, so a lost match fails instead of hanging.
void receive_unexpected(int rank, int size, int source, int tag, int send_tag) {
  constexpr int n = 10;
  std::vector<std::uint64_t> out(n);
  std::vector<request> sends(n);
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i);
    sends[static_cast<std::size_t>(i)] =
        sidecore::isend(&out[static_cast<std::size_t>(i)], 8, right(rank, size), send_tag);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // all of them unexpected at the receiver
  int got = 0;
  for (int i = 0; i < n; ++i) {
    std::uint64_t v = ~0ULL;
    request r = sidecore::irecv(&v, 8, source, tag);
    status st;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    bool done = false;
    while (!(done = sidecore::test(r, &st)) && std::chrono::steady_clock::now() < deadline) {
    }
    if (!done) {
      sidecore::cancel(r);
      (void)sidecore::wait(r);
      break;
    }
    EXPECT_EQ(v, static_cast<std::uint64_t>(i));
    EXPECT_EQ(st.tag, send_tag);
    EXPECT_EQ(st.source, left(rank, size));
    ++got;
  }
  EXPECT_EQ(got, n) << "receives (source " << source << ", tag " << tag << ") found only " << got << " of " << n
                    << " unexpected messages";
  // Drain what is left with exact receives, so that the next test starts clean.
  for (int i = got; i < n; ++i) {
    std::uint64_t v = 0;
    (void)sidecore::recv(&v, 8, left(rank, size), send_tag);
  }
  sidecore::waitall(sends);
}

TEST_F(P2P, AnySourceReceivesOfUnexpectedMessages) { receive_unexpected(rank, size, sidecore::any_source, 1201, 1201); }
TEST_F(P2P, ExactReceivesOfUnexpectedMessages) { receive_unexpected(rank, size, left(rank, size), 1202, 1202); }

// libfabric 1.17 shm does not match an any_tag receive to a message that arrived before it (it compares every tag
// bit of unexpected messages, whatever the ignore mask); sidecore matches itself.
TEST_F(P2P, AnyTagReceivesOfUnexpectedMessages) {
  receive_unexpected(rank, size, left(rank, size), sidecore::any_tag, 1200);
}

// Known bug (seen on shm in core mode at 4 ranks, ~2 runs in 3 of runtime.api.core.shm.np4 before this test
// existed): a receive for tag A that is being cancelled while a message with tag B != A arrives from the same
// source completes with success and that message (status.tag == B), i.e. it matched a tag it does not accept;
// the receive posted later for tag B then waits forever. Deadline-guarded.
TEST_F(P2P, CancelledReceiveNeverMatchesAnotherTag) {
  constexpr int iters = 40;
  int wrong = 0, lost = 0;
  for (int it = 0; it < iters; ++it) {
    const int tag_a = 1300 + 2 * it, tag_b = tag_a + 1;
    std::uint64_t a = 0, b = 0;
    const std::uint64_t mine = 1000u * static_cast<std::uint64_t>(rank) + static_cast<std::uint64_t>(it);
    request r = sidecore::irecv(&a, 8, left(rank, size), tag_a);
    request s = sidecore::isend(&mine, 8, right(rank, size), tag_b);
    sidecore::cancel(r);
    const status st = sidecore::wait(r);
    if (!st.canceled()) {
      ++wrong;
      ADD_FAILURE() << "iteration " << it << ": the receive for tag " << tag_a << " got tag " << st.tag << " from "
                    << st.source << " (" << sidecore::errc_name(st.error) << ")";
    }
    request rb = sidecore::irecv(&b, 8, left(rank, size), tag_b);
    status sb;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    bool done = false;
    while (!(done = sidecore::test(rb, &sb)) && std::chrono::steady_clock::now() < deadline) {
    }
    if (!done) {
      ++lost;
      sidecore::cancel(rb);
      (void)sidecore::wait(rb);
    }
    (void)sidecore::wait(s);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(lost, 0) << "messages taken by a cancelled receive of another tag";
}

// ---- truncation, on every provider ------------------------------------------------------------------------
// libfabric 1.17 shm hung on a truncation above 4 KiB and tcp;ofi_rxm lost the pair's traffic after one; the
// engine's own protocol (docs/runtime.md) never lets the provider truncate: eager messages land in sidecore's
// receive buffers, and rendezvous data is sent only for what the receiver posted.

TEST_F(P2P, TruncationSmallMessage) { check_truncation(rank, size, 100, 64, 700, false, true); }
TEST_F(P2P, TruncationIntoZeroByteBuffer) { check_truncation(rank, size, 10, 0, 702, false); }
TEST_F(P2P, TruncationBlockingRecv) { check_truncation(rank, size, 5000, 4999, 703, true, true); }
TEST_F(P2P, TruncationRendezvousMessage) { check_truncation(rank, size, 1 * mib, 256 * kib, 701, false, true); }
TEST_F(P2P, TruncationRendezvousIntoZeroByteBuffer) { check_truncation(rank, size, 64 * kib, 0, 706, false); }
// Around the eager/rendezvous boundary (SIDECORE_EAGER_MAX, 8 KiB by default) and the shm inject size (4 KiB).
TEST_F(P2P, TruncationAroundProtocolBoundaries) {
  const std::size_t sizes[] = {4096 - 40, 4096 - 39, 4096, 8 * kib - 1, 8 * kib, 8 * kib + 1, 64 * kib};
  int tag = 710;
  for (std::size_t sent : sizes)
    for (std::size_t posted : {std::size_t{1}, sent / 2, sent - 1})
      check_truncation(rank, size, sent, posted, tag++, false, true);
}

TEST_F(P2P, TrafficGoesOnAfterTruncation) {
  for (std::size_t sent : {std::size_t{300}, 20 * kib}) {
    check_truncation(rank, size, sent, 10, 704, false, true);
    std::uint64_t v = 0;
    const std::uint64_t mine = 42u + static_cast<std::uint64_t>(rank);
    request s = sidecore::isend(&mine, 8, right(rank, size), 704);
    const status st = sidecore::recv(&v, 8, left(rank, size), 704);
    EXPECT_TRUE(st.ok());
    EXPECT_EQ(v, 42u + static_cast<std::uint64_t>(left(rank, size)));
    (void)sidecore::wait(s);
  }
}

// Unexpected messages of every protocol (eager, injected or not, and rendezvous), then wildcard receives: each
// takes the first message in arrival order that it accepts, whole and intact.
TEST_F(P2P, WildcardReceivesOfUnexpectedMessagesOfEverySize) {
  const std::size_t sizes[] = {0, 8, 4000, 6000, 8 * kib, 8 * kib + 1, 100 * kib, 2 * mib};
  constexpr int n = static_cast<int>(sizeof(sizes) / sizeof(sizes[0]));
  std::vector<std::vector<std::uint8_t>> out(n), in(n);
  std::vector<request> sends(n);
  for (int i = 0; i < n; ++i) {
    out[i].resize(std::max<std::size_t>(sizes[i], 1));
    in[i].assign(2 * mib, 0);
    sctest::fill(out[i], static_cast<std::uint64_t>(rank * 31 + i), sizes[i]);
    sends[i] = sidecore::isend(out[i].data(), static_cast<std::int64_t>(sizes[i]), right(rank, size), 1400 + i);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // all of them arrived (or announced) before any receive
  for (int i = 0; i < n; ++i) {
    const int source = i % 2 ? sidecore::any_source : left(rank, size);
    const int tag = i % 3 ? sidecore::any_tag : 1400 + i;
    const status st = sidecore::recv(in[i].data(), static_cast<std::int64_t>(in[i].size()), source, tag);
    EXPECT_TRUE(st.ok()) << i << ": " << sidecore::errc_name(st.error);
    EXPECT_EQ(st.tag, 1400 + i) << "message " << i << " overtaken";
    EXPECT_EQ(st.source, left(rank, size));
    EXPECT_EQ(st.bytes, sizes[i]);
    EXPECT_EQ(sctest::first_mismatch(in[i].data(), static_cast<std::uint64_t>(left(rank, size) * 31 + i), sizes[i]), -1)
        << "message " << i << " (" << sizes[i] << " B)";
  }
  sidecore::waitall(sends);
}

// Eager and rendezvous messages on one (source, tag) keep their order (MPI's non-overtaking rule), both when
// the receives are posted first and when the messages arrive first.
TEST_F(P2P, MixedProtocolsKeepOrder) {
  const std::size_t sizes[] = {16 * kib, 8, 300 * kib, 100, 9000, 0, 1 * mib, 4};
  constexpr int n = static_cast<int>(sizeof(sizes) / sizeof(sizes[0]));
  for (bool pre_post : {true, false}) {
    std::vector<std::vector<std::uint8_t>> out(n), in(n, std::vector<std::uint8_t>(1 * mib));
    std::vector<request> recvs(n), sends(n);
    if (pre_post)
      for (int i = 0; i < n; ++i) recvs[i] = sidecore::irecv(in[i].data(), 1 * mib, left(rank, size), 1450);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) {
      out[i].resize(std::max<std::size_t>(sizes[i], 1));
      sctest::fill(out[i], static_cast<std::uint64_t>(rank * 7 + i), sizes[i]);
      sends[i] = sidecore::isend(out[i].data(), static_cast<std::int64_t>(sizes[i]), right(rank, size), 1450);
    }
    if (!pre_post) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < n; ++i) recvs[i] = sidecore::irecv(in[i].data(), 1 * mib, left(rank, size), 1450);
    }
    std::vector<status> st(n);
    sidecore::waitall(recvs, st);
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(st[i].ok()) << i;
      EXPECT_EQ(st[i].bytes, sizes[i]) << "message " << i << " overtaken (pre-posted: " << pre_post << ")";
      EXPECT_EQ(sctest::first_mismatch(in[i].data(), static_cast<std::uint64_t>(left(rank, size) * 7 + i), sizes[i]),
                -1)
          << i;
    }
    sidecore::waitall(sends);
    if (!pre_post) MPI_Barrier(MPI_COMM_WORLD);
  }
}

// More unexpected messages than the engine has receive buffers (64 by default): the provider keeps the rest
// until buffers are given back; nothing is lost or reordered.
TEST_F(P2P, MoreUnexpectedMessagesThanReceiveBuffers) {
  constexpr int n = 500;
  std::vector<std::uint64_t> out(n);
  std::vector<request> sends(n);
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i);
    sends[static_cast<std::size_t>(i)] = sidecore::isend(&out[static_cast<std::size_t>(i)], 8, right(rank, size), 1460);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    std::uint64_t v = ~0ULL;
    const status st = sidecore::recv(&v, 8, sidecore::any_source, sidecore::any_tag);
    ASSERT_TRUE(st.ok());
    ASSERT_EQ(v, static_cast<std::uint64_t>(i));
  }
  sidecore::waitall(sends);
}

// Between the ranks of a node eager messages go through rings of 64 KiB (SIDECORE_SHM_FASTPATH, progress/src/
// node_rings.hpp): 3,000 messages of every eager size (7 MB) sent before any receive fill the ring many times over
// and wrap it at every record size. A sender whose ring is full waits (its sends in the backlog) until the
// receiver reads; nothing is lost, duplicated or reordered. With the fast path off the same goes through the
// provider.
TEST_F(P2P, FullNodeRingsHoldSendersBackAndLoseNothing) {
  constexpr int n = 3000;
  const std::size_t sizes[] = {8, 0, 100, 4000, 8 * kib, 1, 5000, 40};
  constexpr int nsizes = static_cast<int>(sizeof(sizes) / sizeof(sizes[0]));
  const auto size_of = [&](int i) { return sizes[static_cast<std::size_t>(i % nsizes)]; };
  std::vector<std::vector<std::uint8_t>> out(n);
  std::vector<request> sends(n);
  for (int i = 0; i < n; ++i) {
    auto& o = out[static_cast<std::size_t>(i)];
    o.resize(std::max<std::size_t>(size_of(i), 1));
    sctest::fill(o, static_cast<std::uint64_t>(rank * 100003 + i), size_of(i));
    sends[static_cast<std::size_t>(i)] =
        sidecore::isend(o.data(), static_cast<std::int64_t>(size_of(i)), right(rank, size), 1470);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::uint8_t> in(8 * kib);
  const int from = left(rank, size);
  for (int i = 0; i < n; ++i) {
    const status st = sidecore::recv(in.data(), static_cast<std::int64_t>(in.size()), from, 1470);
    ASSERT_TRUE(st.ok()) << i;
    ASSERT_EQ(st.bytes, size_of(i)) << "message " << i << " lost or overtaken";
    ASSERT_EQ(sctest::first_mismatch(in.data(), static_cast<std::uint64_t>(from * 100003 + i), size_of(i)), -1) << i;
  }
  sidecore::waitall(sends);
}

}  // namespace
