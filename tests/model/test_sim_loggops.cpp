// The LogGOPS simulator: finish times computed by hand for small GOAL schedules at two parameter
// sets. Every expected time below was also printed by LogGOPSim itself (spcl/LogGOPSim at commit
// 76451de16546c7ea39651c183cbc532f4a3457c0, built by hand outside this repository, `txt2bin -i F
// -o F.bin; LogGOPSim -f F.bin [-L .. -o .. -g .. -G .. -O .. -S ..]`), and matches the hand
// computation given beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <vector>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/sim/generators.hpp"
#include "sidecore/model/sim/goal.hpp"
#include "sidecore/model/sim/loggops.hpp"
#include "sidecore/model/sim/timeline.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sim = sidecore::model::sim;

namespace {

const std::string sim_dir = std::string(SIDECORE_MODEL_TEST_DATA) + "/sim/";

// LogGOPSim's defaults, and a second set with a per-byte CPU overhead and a small S.
const sim::loggops_params defaults{};
const sim::loggops_params second{1000, 200, 300, 2, 1, 4096};

std::vector<double> finish(const std::string& file, const sim::loggops_params& p) {
  const sim::sim_result r = sim::simulate(sim::read_goal_file(sim_dir + file), p);
  EXPECT_TRUE(r.complete);
  return r.finish_ns;
}

using times = std::vector<double>;

}  // namespace

// One hop of an s-byte eager message: o at the sender, L, then o + (s-1) max(O, G) at the receiver.
// Defaults, s = 8: 1500 + 2500 + 1500 + 7*6 = 5542 to rank 1's receive; its send then takes o:
// rank 1 ends at 5542 + 1500 = 7042; the pong arrives 5542 after rank 1's send: 11084.
// Second set: hop 200 + 1000 + 200 + 7*2 = 1414; rank 1 ends at 1414 + 200 + 7*1 = 1621; rank 0 at 2828.
TEST(SimLogGOPS, PingPong) {
  EXPECT_EQ(finish("pingpong.goal", defaults), (times{11084, 7042}));
  EXPECT_EQ(finish("pingpong.goal", second), (times{2828, 1621}));
}

// Defaults: rank 0's send (4096 B) takes its CPU for o = 1500 and its NIC for g + 4095 G = 25570;
// the calc (irequires the send) starts when the CPU is free: 1500 .. 21500; the receive of the
// reply posts at 21500. Rank 1's calc (irequires its posted receive) runs 0 .. 3000; the message
// (arriving at o + L = 4000) takes its CPU to 4000 + 1500 + 4095*6 = 30070; w runs to 31070; the
// 64-byte reply starts there (CPU to 32570) and reaches rank 0 at 35070: 35070 + 1500 + 63*6 = 36948.
// Second set (4096 <= S: eager): rank 0's send takes its CPU to 200 + 4095*1 = 4295, the calc runs
// 4295 .. 24295. The message arrives at rank 1 at o + L = 1200 while its calc runs (0 .. 3000), so
// it waits for the CPU: 3000 + 200 + 4095*2 = 11390; w to 12390; the reply's o + 63 O ends rank 1
// at 12653; the reply reaches rank 0 at 13590, whose CPU computes until 24295: 24295 + 200 + 63*2 = 24621.
TEST(SimLogGOPS, CalcOverlap) {
  EXPECT_EQ(finish("overlap.goal", defaults), (times{36948, 32570}));
  EXPECT_EQ(finish("overlap.goal", second), (times{24621, 12653}));
}

// Defaults: the 1000-B send is eager: done at once, its NIC busy to 1000 + 999*6 = 6994, where the
// 100000-B rendezvous send starts (CPU to 8494). Rank 1 computes to 50000; both messages wait for
// its CPU. At 50000 the eager message takes the CPU to 50000 + 1500 + 5994 = 57494 and is
// unexpected; the receive posted at 50000 matches it at once; the any-source receive is posted at
// 57494, after the rendezvous message took the CPU at 57494 to 57494 + 1500 + 99999*6 = 658988.
// The match completes the rendezvous send at 57494; rank 0's calc runs 57494 .. 57994.
TEST(SimLogGOPS, EagerAndRendezvous) {
  EXPECT_EQ(finish("eager_rndv.goal", defaults), (times{57994, 658988}));
  // Second set: S = 4096, so the 1000-B message is eager and the 100000-B one rendezvous again.
  EXPECT_EQ(finish("eager_rndv.goal", second), (times{102997, 252496}));
}

// Defaults, 1024 B: a send holds the CPU o = 1500 and the NIC g + 1023 G = 7138; a hop to the
// receiver's end is o + L + o + 1023 G = 11638. Rank 0 sends to 2 at 0 and to 1 at 7138 (NIC):
// rank 0 ends at 8638, rank 1 at 7138 + 11638 = 18776; rank 2 receives by 11638 and sends to 3
// (CPU to 13138); rank 3 ends at 11638 + 11638 = 23276.
// Second set: send CPU 200 + 1023 = 1223, NIC 300 + 2046 = 2346, hop 1200 + 200 + 2046 = 3446:
// rank 0 ends at 2346 + 1223 = 3569, rank 1 at 2346 + 3446 = 5792, rank 2 at 3446 + 1223 = 4669,
// rank 3 at 6892.
TEST(SimLogGOPS, BinomialBroadcast4) {
  EXPECT_EQ(finish("bcast4.goal", defaults), (times{8638, 18776, 13138, 23276}));
  EXPECT_EQ(finish("bcast4.goal", second), (times{3569, 5792, 4669, 6892}));
  // The generator builds the same schedule.
  EXPECT_EQ(sim::simulate(sim::binomial_broadcast(4, 1024), defaults).finish_ns, (times{8638, 18776, 13138, 23276}));
}

// The generated broadcast at a size where nothing can be checked by eye, against an independent
// recursive computation of the same LogGP rules (every rank receives once, so its CPU is free when
// its message arrives; its sends are spaced by max(o + (s-1)O, g + (s-1)G)).
TEST(SimLogGOPS, GeneratedBroadcastMatchesRecursion) {
  for (const sim::loggops_params& p : {defaults, second}) {
    for (std::uint32_t n : {1u, 2u, 7u, 1000u, 1024u}) {
      const std::uint64_t s = 8;
      const double send_cpu = p.o + (s - 1) * p.O, spacing = std::max(send_cpu, p.g + (s - 1) * p.G);
      const double recv_cpu = p.o + (s - 1) * std::max(p.O, p.G);
      std::vector<double> expect(n, 0);
      std::function<void(std::uint32_t, std::uint64_t, double)> visit = [&](std::uint32_t v, std::uint64_t mask,
                                                                            double ready) {
        double t = ready, end = ready;
        for (std::uint64_t m = mask; m > 0; m >>= 1) {
          if (v + m >= n) continue;
          visit(static_cast<std::uint32_t>(v + m), m >> 1, t + p.o + p.L + recv_cpu);
          end = t + send_cpu;
          t += spacing;
        }
        expect[v] = end;
      };
      std::uint64_t top = 1;
      while (top < n) top <<= 1;
      visit(0, top >> 1, 0);
      const sim::sim_result r = sim::simulate(sim::binomial_broadcast(n, s), p);
      ASSERT_TRUE(r.complete);
      EXPECT_EQ(r.finish_ns, expect) << n << " ranks";
      EXPECT_EQ(r.messages, n - 1);
    }
  }
}

TEST(SimLogGOPS, RootAnywhere) {
  const sim::sim_result a = sim::simulate(sim::binomial_broadcast(13, 64, 0), defaults);
  const sim::sim_result b = sim::simulate(sim::binomial_broadcast(13, 64, 5), defaults);
  for (std::uint32_t r = 0; r < 13; ++r) EXPECT_EQ(b.finish_ns[(r + 5) % 13], a.finish_ns[r]);
  EXPECT_THROW((void)sim::binomial_broadcast(4, 8, 4), std::invalid_argument);
  EXPECT_THROW((void)sim::binomial_broadcast(0, 8), std::invalid_argument);
}

// Two CPUs: a calc on cpu 1 runs beside the send's o on cpu 0; the receive uses cpu 1 too.
TEST(SimLogGOPS, SeparateCpus) {
  const sim::schedule s = sim::parse_goal(R"(num_ranks 2
rank 0 {
a: send 8b to 1 cpu 0
b: calc 1000 cpu 1
}
rank 1 {
r: recv 8b from 0 cpu 1
}
)", "two-cpus");
  EXPECT_EQ(s.num_cpus(), 2u);
  const sim::sim_result r = sim::simulate(s, defaults);
  ASSERT_TRUE(r.complete);
  // Rank 0: cpu 0 busy to 1500, cpu 1 to 1000. Rank 1: the message arrives at 4000 and takes the
  // CPU of the send's index (0): 5542.
  EXPECT_EQ(r.finish_ns, (times{1500, 5542}));
}

TEST(SimLogGOPS, DeadlockIsReportedByName) {
  // Both ranks wait for a message before sending theirs; and a send nobody receives.
  const sim::schedule s = sim::parse_goal(R"(num_ranks 3
rank 0 {
r0: recv 8b from 1 tag 1
s0: send 8b to 1 tag 2
s0 requires r0
}
rank 1 {
r1: recv 8b from 0 tag 2
s1: send 8b to 0 tag 1
s1 requires r1
}
rank 2 {
lost: send 8b to 0 tag 9
}
)", "deadlock.goal");
  const sim::sim_result r = sim::simulate(s, defaults);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.unfinished, 4u);
  std::string all;
  for (const auto& p : r.problems) all += p + "\n";
  EXPECT_NE(all.find("receive r0 (rank 0, line 3: recv 8b from 1 tag 1) was posted but no matching message"),
            std::string::npos) << all;
  EXPECT_NE(all.find("s1 (rank 1, line 9: send 8b to 0 tag 1) never started: it waits for r1 (rank 1, line 8"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("the message of lost (rank 2, line 13: send 8b to 0 tag 9) arrived but no receive matched it"),
            std::string::npos) << all;
}

TEST(SimLogGOPS, RendezvousMatchedBySmallerReceiveIsReported) {
  // The message arrives before the receive is posted, and the receive is <= S: LogGOPSim decides
  // "eager" by the receive's size, so the rendezvous send never completes.
  const sim::schedule s = sim::parse_goal(R"(num_ranks 2
rank 0 {
big: send 100000b to 1
}
rank 1 {
c: calc 100000
r: recv 8b from 0
r requires c
}
)", "mismatch.goal");
  const sim::sim_result r = sim::simulate(s, defaults);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.size_mismatches, 1u);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_NE(r.problems[0].find("rendezvous send big"), std::string::npos) << r.problems[0];
}

// The other direction: an eager send, done when it started, matched from the unexpected queue by a
// receive larger than S. LogGOPSim's rule (the protocol by the receive's size there) would complete
// it a second time, releasing its dependents again: rank 0's calc started before the reply it
// requires had arrived (1011542 instead of 1517084). The send is completed once and the case reported.
TEST(SimLogGOPS, EagerSendMatchedByLargerReceiveIsReportedNotCompletedTwice) {
  const std::string head = "num_ranks 2\nrank 0 {\ns: send 8b to 1\nr0: recv 8b from 1 tag 9\nc: calc 1000000\n"
                           "c requires s\nc requires r0\n}\nrank 1 {\nw: calc 10000\nr: recv ";
  const std::string tail = "b from 0\nr requires w\nz: calc 500000\nz requires r\ns1: send 8b to 0 tag 9\n"
                           "s1 requires z\n}\n";
  const sim::sim_result same = sim::simulate(sim::parse_goal(head + "8" + tail, "same.goal"), defaults);
  ASSERT_TRUE(same.complete);
  EXPECT_EQ(same.finish_ns[0], 1517084);
  const sim::sim_result r = sim::simulate(sim::parse_goal(head + "100000" + tail, "larger.goal"), defaults);
  EXPECT_EQ(r.finish_ns, same.finish_ns);
  EXPECT_EQ(r.size_mismatches, 1u);
  EXPECT_EQ(r.unfinished, 0u);
  EXPECT_FALSE(r.complete);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0],
            "rank 1: receive r (rank 1, line 11: recv 100000b from 0 tag 0) matched eager send s (rank 0, line 3: "
            "send 8b to 1 tag 0) from the unexpected queue: LogGOPSim decides the protocol there by the receive's "
            "size, rendezvous above S = 65535 bytes, and would complete the send, done when it started, a second time");
}

TEST(SimLogGOPS, ZeroByteMessages) {
  // LogGOPSim charges (s - 1) = -1 times G for a 0-byte message: the receiver's CPU is busy
  // o - G after the arrival (o + L): rank 1 ends at 1500 + 2500 + 1500 - 6 = 5494.
  const sim::schedule s = sim::parse_goal("num_ranks 2\nrank 0 {\nsend 0b to 1\n}\nrank 1 {\nrecv 0b from 0\n}\n", "z");
  EXPECT_EQ(sim::simulate(s, defaults).finish_ns, (times{1500, 5494}));
  // Where that would make a clock negative (LogGOPSim's unsigned clock wraps to ~2^64), it stays 0.
  const sim::sim_result r = sim::simulate(s, sim::loggops_params{0, 0, 0, 1, 0, 0});
  EXPECT_EQ(r.finish_ns, (times{0, 0}));
}

TEST(SimLogGOPS, BadParameters) {
  sim::loggops_params p;
  p.G = -1;
  EXPECT_THROW((void)sim::simulate(sim::binomial_broadcast(2, 8), p), sidecore::input_error);
  p.G = std::numeric_limits<double>::quiet_NaN();
  try {
    (void)sim::simulate(sim::binomial_broadcast(2, 8), p);
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("-G: 'nan' is not accepted; accepted: a number of nanoseconds in [0, 1e+15]"),
              std::string::npos) << e.what();
  }
}

// A parameter so large that the finish times overflow to infinity (or inf - inf = NaN) is refused before the
// simulation, naming the parameter, its value and the accepted range; the largest accepted one stays finite.
TEST(SimLogGOPS, HugeParametersRefused) {
  const sim::schedule s = sim::parse_goal("num_ranks 2\nrank 0 {\nsend 1000000b to 1\n}\nrank 1 {\n"
                                          "recv 1000000b from 0\n}\n", "huge");
  for (const char* name : {"-L", "-o", "-g", "-G", "-O"}) {
    sim::loggops_params p;
    double& v = name[1] == 'L' ? p.L : name[1] == 'o' ? p.o : name[1] == 'g' ? p.g : name[1] == 'G' ? p.G : p.O;
    v = 1e308;
    try {
      (void)sim::simulate(s, p);
      ADD_FAILURE() << name << " 1e308 was accepted";
    } catch (const sidecore::input_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(name) + ": '1e+308' is not accepted; accepted: a number of "
                                           "nanoseconds in [0, 1e+15]"), std::string::npos) << e.what();
    }
    v = sim::max_param_ns;
    const sim::sim_result r = sim::simulate(s, p);
    for (double t : r.finish_ns) EXPECT_TRUE(std::isfinite(t)) << name;
  }
}

TEST(SimLogGOPS, Timeline) {
  // eager_rndv.goal at the defaults (see EagerAndRendezvous): the CPU spans and the two messages.
  const sim::schedule s = sim::read_goal_file(sim_dir + "eager_rndv.goal");
  sim::chrome_timeline tl(s);
  ASSERT_TRUE(sim::simulate(s, defaults, &tl).complete);
  const nlohmann::json j = nlohmann::json::parse(tl.json());
  std::vector<std::string> spans, messages;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X")
      spans.push_back(fmt::format("{} {} {}+{}", e["pid"].get<int>(), e["name"].get<std::string>(),
                                  e["ts"].get<double>(), e["dur"].get<double>()));
    if (e["ph"] == "b" || e["ph"] == "e")
      messages.push_back(
          fmt::format("{} {} {}", e["ph"].get<std::string>(), e["name"].get<std::string>(), e["ts"].get<double>()));
  }
  EXPECT_EQ(spans, (std::vector<std::string>{"0 o send to 1 0+1.5", "1 calc 0+50", "0 o send to 1 6.994+1.5",
                                             "1 o recv from 0 50+7.494", "1 o recv from 0 57.494+601.494",
                                             "0 calc 57.494+0.5"}));
  EXPECT_EQ(messages, (std::vector<std::string>{"b 1000 B to 1 1.5", "e 1000 B to 1 50", "b 100000 B to 1 8.494",
                                                "e 100000 B to 1 57.494"}));
}
