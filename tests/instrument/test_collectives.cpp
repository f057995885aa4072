// Collective monitoring (instrument/collectives.hpp): arrivals and departures paired in any order and on any thread,
// per-kind latency statistics, the deterministic sample every member keeps, the clock-offset estimator over an
// exchange, the transfers' operation kind in the overlap bounds, and the profile's collectives section (written, read
// back equal, merged into a job, its errors named).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock_sync.hpp"
#include "coll_monitor.hpp"
#include "fold.hpp"
#include "profile_test_util.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/collectives.hpp"
#include "sidecore/instrument/instrument.hpp"
#include "synthetic_time.hpp"

namespace si = sidecore::instrument;
namespace sd = sidecore::instrument::detail;
using si::op_kind;

namespace {

using sctest::T0;

void start_monotonic(std::size_t coll_samples = 1024) {
  si::stop();
  si::config c;
  c.profile = true;
  c.clock = si::event_clock::monotonic;  // synthetic times are nanoseconds
  c.coll_samples = coll_samples;
  si::start(c, 0, 1);
}

const sidecore::collective_kind_stats* kind_of(const sidecore::profile& p, const char* kind) {
  if (!p.collectives) return nullptr;
  for (const auto& k : p.collectives->by_kind) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

// The sequence numbers a communicator's sample holds, ascending.
std::vector<std::uint64_t> kept_of(std::uint64_t key) {
  namespace in = sidecore::instrument::internal;
  (void)si::rank_profile();  // folds every ring
  std::lock_guard lk(in::g_analysis_mu);
  for (const auto& c : in::collective_samples_locked()) {
    if (c.key != key) continue;
    std::vector<std::uint64_t> seqs;
    for (const auto& s : c.kept) seqs.push_back(s.seq);
    std::sort(seqs.begin(), seqs.end());
    return seqs;
  }
  return {};
}

// P in-process "ranks" joined by a byte queue per ordered pair: an exchange per rank, one thread per rank. Counts
// each rank's sends, and the steps after which each rank had heard from rank 0 (through any chain of messages).
class rank_mesh {
 public:
  explicit rank_mesh(int ranks) : n_(ranks), sends_(static_cast<std::size_t>(ranks)), step_(sends_.size()) {}

  si::exchange end(int rank) {
    si::exchange ex;
    ex.rank = rank;
    ex.nranks = n_;
    ex.send = [this, rank](int to, const void* data, std::size_t n) {
      std::lock_guard lk(mu_);
      const auto* p = static_cast<const char*>(data);
      auto& q = q_[{rank, to}];
      q.insert(q.end(), p, p + n);
      ++sends_[static_cast<std::size_t>(rank)];
      int& s = step_[static_cast<std::size_t>(to)];
      if (s == 0 && to != 0) s = step_[static_cast<std::size_t>(rank)] + 1;
      cv_.notify_all();
    };
    ex.recv = [this, rank](int from, void* data, std::size_t n) {
      std::unique_lock lk(mu_);
      auto& q = q_[{from, rank}];
      cv_.wait(lk, [&] { return q.size() >= n; });
      std::copy_n(q.begin(), n, static_cast<char*>(data));
      q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(n));
    };
    return ex;
  }
  // Runs f(exchange) on every rank at once, one thread each.
  template <class F>
  void run(F&& f) {
    std::vector<std::thread> ts;
    for (int r = 0; r < n_; ++r) ts.emplace_back([&, r] { f(end(r)); });
    for (auto& t : ts) t.join();
  }
  [[nodiscard]] int sends(int rank) const { return sends_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] int step(int rank) const { return step_[static_cast<std::size_t>(rank)]; }

 private:
  int n_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<int, int>, std::deque<char>> q_;  // (from, to)
  std::vector<int> sends_, step_;
};

}  // namespace

TEST(Collectives, BlockingAndNonblockingInstancesPairInAnyOrder) {
  start_monotonic();
  // Blocking: arrival and departure adjacent in one ring.
  sd::coll_arrive_at(op_kind::allreduce, 7, 0, 64, 2, T0);
  sd::coll_depart_at(7, 0, T0 + 100);
  // Nonblocking, overlapping, departing in the reverse order.
  sd::coll_arrive_at(op_kind::allreduce, 7, 1, 64, 2, T0 + 1000);
  sd::coll_arrive_at(op_kind::bcast, 9, 0, 8, 2, T0 + 1100);
  sd::coll_depart_at(9, 0, T0 + 1400);
  sd::coll_depart_at(7, 1, T0 + 1300);
  // Departure recorded (and folded) on another thread before the arrival is folded.
  std::thread([] { sd::coll_depart_at(7, 2, T0 + 2500); }).join();
  si::fold_current_thread();
  sd::coll_arrive_at(op_kind::allreduce, 7, 2, 64, 2, T0 + 2000);
  // An arrival whose departure never comes is in no figure.
  sd::coll_arrive_at(op_kind::allreduce, 7, 3, 64, 2, T0 + 3000);
  si::end_window();
  const sidecore::profile p = si::rank_profile();
  si::stop();
  const auto* ar = kind_of(p, "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->count, 3u);
  EXPECT_EQ(ar->bytes, 3u * 64);
  EXPECT_EQ(ar->latency.count, 3u);
  EXPECT_DOUBLE_EQ(ar->latency.min_s, 100e-9);
  EXPECT_DOUBLE_EQ(ar->latency.max_s, 500e-9);
  EXPECT_NEAR(ar->latency.mean_s, 300e-9, 1e-15);  // 100, 300, 500
  EXPECT_NEAR(ar->latency.stddev_s, std::sqrt(80000.0 / 3) * 1e-9, 1e-15);
  EXPECT_NEAR(ar->latency.median_s, 300e-9, 300e-9 * 0.0625);
  const auto* bc = kind_of(p, "bcast");
  ASSERT_NE(bc, nullptr);
  EXPECT_EQ(bc->count, 1u);
  EXPECT_DOUBLE_EQ(bc->latency.max_s, 300e-9);
  EXPECT_EQ(kind_of(p, "barrier"), nullptr) << "kinds without instances are not written";
  EXPECT_EQ(p.collectives->sample_capacity, 1024u);
  EXPECT_EQ(p.collectives->clock.method, "not estimated: no cross-rank analysis ran");
  EXPECT_EQ(ar->sampled, 0u) << "no cross-rank analysis: nothing matched";
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(p)), p);
}

TEST(Collectives, ThroughThePublicHooksWithTheHandle) {
  si::stop();
  si::config c;
  c.profile = true;
  si::start(c, 0, 1);
  for (std::uint64_t s = 0; s < 1000; ++s) {
    const si::coll_instance i = si::coll_arrive(op_kind::barrier, 1, s, 0, 4);
    si::coll_depart(i);
  }
  si::end_window();
  const sidecore::profile p = si::rank_profile();
  si::stop();
  const auto* b = kind_of(p, "barrier");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->count, 1000u);
  EXPECT_EQ(b->latency.count, 1000u);
  // Off: the hooks record nothing and still hand back the instance.
  const si::coll_instance off = si::coll_arrive(op_kind::bcast, 5, 6, 0, 2);
  EXPECT_EQ(off.comm_key, 5u);
  EXPECT_EQ(off.seq, 6u);
  si::coll_depart(off);
}

TEST(Collectives, ADuplicateArrivalLeavesTheInstanceOut) {
  start_monotonic();
  sd::coll_arrive_at(op_kind::gather, 3, 0, 4, 2, T0);
  sd::coll_arrive_at(op_kind::gather, 3, 0, 4, 2, T0 + 10);  // the caller's error
  sd::coll_arrive_at(op_kind::gather, 3, 1, 4, 2, T0 + 20);
  sd::coll_depart_at(3, 1, T0 + 50);
  si::end_window();
  const sidecore::profile p = si::rank_profile();
  si::stop();
  const auto* g = kind_of(p, "gather");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->count, 1u) << "instance 0 is left out, instance 1 counts";
}

// What a sample of `stride` keeps of the instances 0..n-1.
std::vector<std::uint64_t> sampled_of(std::uint64_t n, std::uint64_t stride) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = 0; s < n; ++s)
    if (sidecore::instrument::internal::sampled_at(s, stride)) out.push_back(s);
  return out;
}

TEST(Collectives, TheSampleDependsOnTheSequenceNumbersOnly) {
  // Two "members" complete the same 1000 instances in different orders (nonblocking ones completing out of order):
  // both keep the same ones, those sampled_at() keeps at the smallest power-of-two stride that leaves at most the
  // capacity.
  std::vector<std::uint64_t> order(1000);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<std::vector<std::uint64_t>> kept;
  for (int member = 0; member < 2; ++member) {
    start_monotonic(16);
    if (member == 1) std::shuffle(order.begin(), order.end(), std::mt19937(42));
    for (const std::uint64_t s : order) {
      sd::coll_arrive_at(op_kind::alltoall, 11, s, 32, 2, T0 + 10 * s);
      sd::coll_depart_at(11, s, T0 + 10 * s + 5);
    }
    kept.push_back(kept_of(11));
    si::stop();
  }
  EXPECT_EQ(kept[0], kept[1]);
  std::uint64_t stride = 1;
  while (sampled_of(1000, stride).size() > 16) stride *= 2;
  EXPECT_EQ(kept[0], sampled_of(1000, stride));
  EXPECT_GE(kept[0].size(), 4u);  // about 1000 / stride, stride >= 64
  // Nested: what a larger stride keeps, a smaller one keeps too.
  for (const std::uint64_t s : sampled_of(1000, 4 * stride))
    EXPECT_TRUE(sidecore::instrument::internal::sampled_at(s, stride)) << s;
}

// A loop of two collectives a step on one communicator (a barrier, then an allreduce: even and odd sequence numbers)
// keeps instances of both once the sample is full: keeping the multiples of the stride kept barriers only.
TEST(Collectives, APeriodicLoopKeepsEveryKindOfItsStep) {
  start_monotonic(16);
  for (std::uint64_t s = 0; s < 6000; ++s) {
    sd::coll_arrive_at(s % 2 == 0 ? op_kind::barrier : op_kind::allreduce, 12, s, 8, 2, T0 + 10 * s);
    sd::coll_depart_at(12, s, T0 + 10 * s + 5);
  }
  const std::vector<std::uint64_t> kept = kept_of(12);
  si::stop();
  ASSERT_GE(kept.size(), 8u);
  const auto odd = std::count_if(kept.begin(), kept.end(), [](std::uint64_t s) { return s % 2 == 1; });
  EXPECT_GE(odd, 2) << "of " << kept.size();
  EXPECT_LE(odd, static_cast<std::ptrdiff_t>(kept.size()) - 2) << "of " << kept.size();
}

// A program that makes communicators over and over (a library's duplicate per call, freed after): every one of them
// is sampled (only 256 were at the default capacity, freed ones included), and the samples of all stay within 8 MiB
// (262144 instances of 32 B), the fullest communicators keeping every other instance once that is reached, none
// starved.
TEST(Collectives, EveryCommunicatorIsSampledWithinOneBound) {
  start_monotonic(1024);
  for (std::uint64_t comm = 1000; comm < 3000; ++comm) {  // 2000 communicators of 3 instances
    for (std::uint64_t s = 0; s < 3; ++s) {
      sd::coll_arrive_at(op_kind::barrier, comm, s, 0, 2, T0 + 10 * s);
      sd::coll_depart_at(comm, s, T0 + 10 * s + 5);
    }
  }
  EXPECT_FALSE(kept_of(1000).empty());
  EXPECT_FALSE(kept_of(2999).empty());
  si::stop();

  start_monotonic(1024);
  for (std::uint64_t comm = 1; comm <= 300; ++comm) {  // 300 x 1024 instances: past the bound
    for (std::uint64_t s = 0; s < 1024; ++s) {
      sd::coll_arrive_at(op_kind::allreduce, comm, s, 8, 2, T0 + 10 * s);
      sd::coll_depart_at(comm, s, T0 + 10 * s + 5);
    }
  }
  (void)si::rank_profile();  // folds every ring
  std::size_t total = 0, least = SIZE_MAX, comms = 0;
  {
    namespace in = sidecore::instrument::internal;
    std::lock_guard lk(in::g_analysis_mu);
    for (const auto& c : in::collective_samples_locked()) {
      ++comms;
      total += c.kept.size();
      least = std::min(least, c.kept.size());
    }
  }
  si::stop();
  EXPECT_EQ(comms, 300u);
  EXPECT_LE(total, std::size_t{262144});
  EXPECT_GE(least, std::size_t{256});  // every other instance of a full sample, give or take the hash
}

TEST(Collectives, ClockOffsetOverAnExchange) {
  // Five ranks on one clock, each measured (as on other hosts): rank 0 serves them in turn after the boot id went
  // out along the tree; every estimate is within its bound of the true offset, 0.
  rank_mesh five(5);
  std::vector<si::clock_offset> got(5);
  five.run([&](const si::exchange& ex) {
    got[static_cast<std::size_t>(ex.rank)] = si::estimate_clock_offset(ex, 8, true);
  });
  EXPECT_EQ(got[0].offset_ns, 0.0);
  EXPECT_EQ(got[0].bound_ns, 0.0);
  for (std::size_t r = 1; r < got.size(); ++r) {
    EXPECT_GT(got[r].rtt_ns, 0.0) << r;
    EXPECT_DOUBLE_EQ(got[r].bound_ns, got[r].rtt_ns / 2) << r;
    EXPECT_LE(std::abs(got[r].offset_ns), got[r].bound_ns + 1.0) << r;
    EXPECT_NE(got[r].method.find("ping-pong"), std::string::npos) << got[r].method;
  }
  // Without forcing the measure: the same host is recognised, offset 0 exactly; rank 0 sent the boot id twice (to
  // ranks 1 and 2, which passed it on), not once per rank.
  rank_mesh same(4);
  std::vector<si::clock_offset> one(4);
  same.run([&](const si::exchange& ex) { one[static_cast<std::size_t>(ex.rank)] = si::estimate_clock_offset(ex, 0); });
  for (std::size_t r = 1; r < one.size(); ++r) {
    EXPECT_EQ(one[r].offset_ns, 0.0);
    EXPECT_EQ(one[r].bound_ns, 0.0);
    EXPECT_NE(one[r].method.find("same host"), std::string::npos) << one[r].method;
  }
  EXPECT_EQ(same.sends(0), 2);
}

// Thinning a copy of the samples to the analysis' share: the fullest communicator's stride doubles until they fit,
// the kept sets stay what each stride keeps (as a sample with that stride from the start), and a budget no sample
// fits leaves at most one instance a communicator.
TEST(Collectives, SamplesThinToTheirShareOfRank0sBudget) {
  namespace in = sidecore::instrument::internal;
  const auto sample = [](std::uint64_t key, std::uint64_t stride, std::size_t count) {
    in::comm_sample c;
    c.key = key;
    c.comm_size = 4;
    c.stride = stride;
    for (std::uint64_t s = 0; c.kept.size() < count; ++s)
      if (in::sampled_at(s, stride)) c.kept.push_back({s, 10 * s, 10 * s + 5, 0});
    return c;
  };
  const std::vector<in::comm_sample> full = {sample(1, 1, 100), sample(2, 2, 20), sample(3, 8, 1)};
  EXPECT_EQ(in::sample_wire_bytes(full), 8u + 3 * 32 + 121 * 32);
  std::vector<in::comm_sample> comms = full;
  in::thin_samples(comms, in::sample_wire_bytes(comms));
  EXPECT_EQ(comms[0].kept.size(), 100u);  // fits: untouched
  const std::uint64_t budget = 8 + 3 * 32 + 60 * 32;
  in::thin_samples(comms, budget);
  EXPECT_LE(in::sample_wire_bytes(comms), budget);
  EXPECT_GT(comms[0].stride, 1u);  // the fullest thinned first
  for (std::size_t i = 0; i < comms.size(); ++i) {
    // What a thinned sample keeps is what its stride keeps of the instances it had, the instances themselves.
    std::vector<std::uint64_t> want, got;
    for (const auto& x : full[i].kept)
      if (in::sampled_at(x.seq, comms[i].stride)) want.push_back(x.seq);
    for (const auto& x : comms[i].kept) {
      got.push_back(x.seq);
      EXPECT_EQ(x.arrive, 10 * x.seq);
    }
    EXPECT_EQ(got, want) << "communicator " << comms[i].key;
  }
  in::thin_samples(comms, 0);
  for (const in::comm_sample& c : comms) EXPECT_LE(c.kept.size(), 1u) << c.key;
}

// One measurement per host: the host's lowest rank measures, the host's other ranks get its figures exactly, ranks on
// rank 0's host get 0, and a rank that names no host (its boot id unreadable) measures its own. Rank 0 serves the three
// leaders of other hosts, not the six ranks there: 3 broadcast sends (8 ranks) and 5 pongs a leader.
TEST(Collectives, ClockOffsetIsMeasuredOncePerHost) {
  const std::vector<std::string> host = {"A", "A", "B", "", "D", "B", "D", "B"};
  rank_mesh eight(8);
  std::vector<si::clock_offset> got(8);
  eight.run([&](const si::exchange& ex) {
    got[static_cast<std::size_t>(ex.rank)] =
        si::internal::estimate_clock_offset_on(ex, 5, host[static_cast<std::size_t>(ex.rank)]);
  });
  EXPECT_EQ(got[0].method, "rank 0: the reference clock");
  EXPECT_EQ(got[1].offset_ns, 0.0);
  EXPECT_EQ(got[1].bound_ns, 0.0);
  EXPECT_NE(got[1].method.find("same host as rank 0"), std::string::npos) << got[1].method;
  for (const std::size_t leader : {2, 3, 4}) {
    EXPECT_GT(got[leader].rtt_ns, 0.0) << leader;
    EXPECT_DOUBLE_EQ(got[leader].bound_ns, got[leader].rtt_ns / 2) << leader;
    EXPECT_LE(std::abs(got[leader].offset_ns), got[leader].bound_ns + 1.0) << leader;
    EXPECT_EQ(got[leader].method.rfind("ping-pong with rank 0", 0), 0u) << got[leader].method;
  }
  for (const auto& [member, leader] : std::vector<std::pair<std::size_t, std::size_t>>{{5, 2}, {7, 2}, {6, 4}}) {
    EXPECT_EQ(got[member].offset_ns, got[leader].offset_ns) << member;
    EXPECT_EQ(got[member].bound_ns, got[leader].bound_ns) << member;
    EXPECT_EQ(got[member].rtt_ns, got[leader].rtt_ns) << member;
    EXPECT_EQ(got[member].method.rfind("rank " + std::to_string(leader) + "'s ping-pong with rank 0", 0), 0u)
        << got[member].method;
  }
  EXPECT_EQ(eight.sends(0), 3 + 3 * 5);
}

// Rank 0's bytes reach every rank, rank 0 sends ceil(log2 P) messages (a loop over the ranks sent P - 1), and no
// rank waits longer than ceil(log2 P) steps.
TEST(Collectives, BroadcastFromRank0AlongABinomialTree) {
  for (int p : {1, 2, 3, 5, 8, 13, 64}) {
    rank_mesh mesh(p);
    std::vector<std::array<char, 16>> got(static_cast<std::size_t>(p));
    mesh.run([&](const si::exchange& ex) {
      std::array<char, 16>& mine = got[static_cast<std::size_t>(ex.rank)];
      if (ex.rank == 0) std::copy_n("0123456789abcdef", 16, mine.begin());
      si::broadcast_from_rank0(ex, mine.data(), mine.size());
    });
    int depth = 0;
    while ((1 << depth) < p) ++depth;
    int total = 0;
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(std::string(got[static_cast<std::size_t>(r)].data(), 16), "0123456789abcdef")
          << p << " ranks, rank " << r;
      EXPECT_LE(mesh.step(r), depth) << p << " ranks, rank " << r;
      total += mesh.sends(r);
    }
    EXPECT_EQ(mesh.sends(0), depth) << p << " ranks";
    EXPECT_EQ(total, p - 1) << p << " ranks";
  }
}

// Every rank's text reaches rank 0 in rank order (empty ones too), the other ranks get nothing, and rank 0 sends
// nothing: the profiles' gathering at finalize, in sizes of 64 bits (the job's profiles may pass 2 GiB together).
TEST(Collectives, GatherToRank0AlongABinomialTree) {
  for (int p : {1, 2, 3, 5, 8, 13, 64}) {
    rank_mesh mesh(p);
    std::vector<std::vector<std::string>> got(static_cast<std::size_t>(p));
    const auto text_of = [](int r) {
      return r == 3 ? std::string()
                    : std::string(static_cast<std::size_t>(r) * 37 + 1, static_cast<char>('a' + r % 26));
    };
    mesh.run([&](const si::exchange& ex) {
      got[static_cast<std::size_t>(ex.rank)] = si::gather_to_rank0(ex, text_of(ex.rank));
    });
    ASSERT_EQ(got[0].size(), static_cast<std::size_t>(p)) << p << " ranks";
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(got[0][static_cast<std::size_t>(r)], text_of(r)) << p << " ranks, rank " << r;
      if (r > 0) {
        EXPECT_TRUE(got[static_cast<std::size_t>(r)].empty()) << p << " ranks, rank " << r;
      }
    }
    EXPECT_EQ(mesh.sends(0), 0) << p << " ranks";
  }
}

TEST(Collectives, TransfersBreakDownByOperationKind) {
  start_monotonic();
  const std::uint32_t me = sd::register_current_thread();
  sd::xfer_begin_at(1, 100, 1, me, T0);  // the default: point-to-point
  sd::xfer_end_at(1, me, T0 + 50);
  sd::xfer_begin_at(2, 100, 1, me, T0 + 100, op_kind::allreduce);
  sd::xfer_end_at(2, me, T0 + 150);
  sd::xfer_begin_at(3, 100, 1, me, T0 + 200, op_kind::allreduce);
  std::thread([me] { sd::xfer_end_at(3, me, T0 + 260); }).join();
  sd::xfer_end_only_at(4, 10, 1, me, T0 + 300, op_kind::bcast);
  si::end_window();
  const sidecore::profile p = si::rank_profile();
  si::stop();
  ASSERT_TRUE(p.overlap);
  ASSERT_EQ(p.overlap->by_op.size(), 3u);
  EXPECT_EQ(p.overlap->by_op[0].op, "p2p");
  EXPECT_EQ(p.overlap->by_op[0].bounds.count, 1u);
  EXPECT_EQ(p.overlap->by_op[1].op, "bcast");
  EXPECT_EQ(p.overlap->by_op[1].bounds.count, 1u);
  EXPECT_EQ(p.overlap->by_op[2].op, "allreduce");
  EXPECT_EQ(p.overlap->by_op[2].bounds.count, 2u);
  std::uint64_t sum = 0;
  for (const auto& x : p.overlap->by_op) sum += x.bounds.count;
  EXPECT_EQ(sum, p.overlap->total.count);
}

TEST(Collectives, OpKindNamesRoundTrip) {
  for (std::size_t i = 0; i < si::op_kind_count; ++i) {
    const auto k = static_cast<op_kind>(i);
    EXPECT_EQ(si::op_kind_from_name(si::op_kind_name(k)), k);
  }
  EXPECT_EQ(si::op_kind_name(static_cast<op_kind>(200)), "unknown");
  EXPECT_FALSE(si::op_kind_from_name("allreduce ").has_value());
}

TEST(DurationStats, BinsMedianAndMergeAreExact) {
  EXPECT_EQ(sidecore::duration_bin(0), 0);
  EXPECT_EQ(sidecore::duration_bin(1), 1);
  for (std::uint64_t ns : {1ULL, 7ULL, 100ULL, 12345ULL, 1ULL << 40, ~0ULL}) {
    const int b = sidecore::duration_bin(ns);
    EXPECT_LE(sidecore::duration_bin_lower_ns(b), static_cast<double>(ns)) << ns;
    EXPECT_GT(sidecore::duration_bin_lower_ns(b + 1), static_cast<double>(ns) * (1 - 1e-12)) << ns;
  }
  // Two sets merged equal the statistics of their union.
  namespace in = sidecore::instrument::internal;
  in::duration_acc a, b, all;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = rng() % 1'000'000;
    (i % 3 == 0 ? a : b).add(x);
    all.add(x);
  }
  sidecore::duration_stats m = a.stats();
  sidecore::merge_duration_stats(m, b.stats());
  const sidecore::duration_stats u = all.stats();
  EXPECT_EQ(m.count, u.count);
  EXPECT_EQ(m.histogram, u.histogram);
  EXPECT_DOUBLE_EQ(m.min_s, u.min_s);
  EXPECT_DOUBLE_EQ(m.max_s, u.max_s);
  EXPECT_NEAR(m.mean_s, u.mean_s, 1e-12 * u.mean_s);
  EXPECT_NEAR(m.stddev_s, u.stddev_s, 1e-9 * u.stddev_s);
  EXPECT_DOUBLE_EQ(m.median_s, u.median_s);
}

namespace {
sidecore::profile rank_with_collectives(int rank) {
  sidecore::profile p = profile_test::minimal_rank(rank, 2, 4, 2.0, 1.5);
  sidecore::overlap_section o;
  o.xfer_time_source = "measured";
  o.total = {0.1, 0.2, 0.3, 10};
  o.by_op = {{"p2p", {0.05, 0.1, 0.15, 6}}, {"allreduce", {0.05, 0.1, 0.15, 4}}};
  p.overlap = o;
  si::internal::duration_acc lat, wait;
  for (std::uint64_t x : {1000u, 2000u, 4000u}) lat.add(x * static_cast<std::uint64_t>(rank + 1));
  wait.add(rank == 0 ? 20'000'000u : 0u);
  sidecore::collectives_section c;
  c.clock = {rank == 0 ? 0.0 : -1.5e-6, rank == 0 ? 0.0 : 2e-6, rank == 0 ? 0.0 : 4e-6,
             rank == 0 ? "rank 0: the reference clock" : "ping-pong with rank 0"};
  c.sample_capacity = 1024;
  sidecore::collective_kind_stats k;
  k.kind = "allreduce";
  k.count = 3;
  k.bytes = 192;
  k.latency = lat.stats();
  k.sampled = 1;
  k.arrival_wait = wait.stats();
  k.departure_wait = wait.stats();
  k.ranks = {
      {rank, rank == 1 ? 1u : 0u, rank == 0 ? 1u : 0u, 0, 1, rank == 1 ? 1.0 : 0.0, 0.0, rank == 0 ? 0.02 : 0.0}};
  c.by_kind = {k};
  p.collectives = c;
  return p;
}
}  // namespace

TEST(ProfileCollectives, RoundTripAndJobMerge) {
  const sidecore::profile r1 = rank_with_collectives(1);
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(r1)), r1);
  const sidecore::profile job = sidecore::make_job_profile({r1, rank_with_collectives(0)});
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(job)), job);
  ASSERT_TRUE(job.collectives);
  const auto& c = *job.collectives;
  EXPECT_DOUBLE_EQ(c.clock.bound_s, 2e-6) << "the rank with the largest bound";
  ASSERT_EQ(c.by_kind.size(), 1u);
  const auto& k = c.by_kind[0];
  EXPECT_EQ(k.count, 6u);
  EXPECT_EQ(k.bytes, 384u);
  EXPECT_EQ(k.sampled, 2u);
  EXPECT_EQ(k.latency.count, 6u);
  EXPECT_DOUBLE_EQ(k.latency.min_s, 1e-6);
  EXPECT_DOUBLE_EQ(k.latency.max_s, 8e-6);
  ASSERT_EQ(k.ranks.size(), 2u);
  EXPECT_EQ(k.ranks[0].rank, 0);
  EXPECT_EQ(k.ranks[1].last_arrivals, 1u);
  ASSERT_EQ(job.overlap->by_op.size(), 2u);
  EXPECT_EQ(job.overlap->by_op[0].op, "p2p");
  EXPECT_EQ(job.overlap->by_op[0].bounds.count, 12u);
  EXPECT_EQ(job.overlap->by_op[1].bounds.count, 8u);
  // A command line that looks like a histogram pair is written as it is.
  sidecore::profile cmd = r1;
  cmd.command = "app [1,\\n2] [3,4]";
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(cmd)), cmd);
}

TEST(ProfileCollectives, ErrorsNameTheField) {
  const nlohmann::json good = nlohmann::json::parse(sidecore::format_profile(rank_with_collectives(0)));
  auto message = [](const nlohmann::json& j) -> std::string {
    try {
      (void)sidecore::parse_profile(j.dump(), "p.json");
    } catch (const sidecore::input_error& e) {
      return e.what();
    }
    return "accepted";
  };
  nlohmann::json j = good;
  j["collectives"]["by_kind"][0]["latency"]["count"] = 4;
  EXPECT_NE(message(j).find("latency.histogram"), std::string::npos) << message(j);
  j = good;
  j["collectives"]["by_kind"][0]["count"] = 2;
  EXPECT_NE(message(j).find("latency.count"), std::string::npos) << message(j);
  j = good;
  j["collectives"]["by_kind"][0]["ranks"][0]["mean_arrival_position"] = 1.5;
  EXPECT_NE(message(j).find("mean positions"), std::string::npos) << message(j);
  j = good;
  j["collectives"]["by_kind"][0]["sampled"] = 9;
  EXPECT_NE(message(j).find("sampled"), std::string::npos) << message(j);
  j = good;
  j["collectives"]["clock"]["offset_s"] = "soon";
  EXPECT_NE(message(j).find("collectives.clock.offset_s"), std::string::npos) << message(j);
  j = good;
  j["overlap"]["by_op"] = 3;
  EXPECT_NE(message(j).find("by_op"), std::string::npos) << message(j);
  j = good;
  j["collectives"]["by_kind"][0]["latency"]["histogram"] = {{5, 1}, {3, 2}};
  EXPECT_NE(message(j).find("ascending"), std::string::npos) << message(j);
}
