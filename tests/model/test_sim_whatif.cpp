// The trace-driven what-if: traces built by hand (in the format instrument/src/trace.cpp writes), read, linked
// and replayed in the three scenarios, with finish times computed by hand in the comments; and the errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/sim/trace.hpp"
#include "sidecore/model/sim/whatif.hpp"
#include "sidecore/model/sim/whatif_render.hpp"

namespace sim = sidecore::model::sim;

namespace {

// A trace of one rank, written as SIDECORE_TRACE writes it (times in µs with ns precision).
class trace_text {
 public:
  trace_text(int rank, int nranks, std::uint64_t origin = 1'000'000, bool truncated = false)
      : rank_(rank), nranks_(nranks), origin_(origin), truncated_(truncated) {}
  // A call span [t0, t1) ns, and what it posted and completed.
  trace_text& call(const char* name, const char* cat, double t0, double t1) {
    ev(fmt::format(R"({{"ph":"X","pid":{},"tid":1,"name":"{}","cat":"{}","ts":{:.3f},"dur":{:.3f}}})", rank_, name, cat,
                   t0 / 1e3, (t1 - t0) / 1e3));
    return *this;
  }
  trace_text& post(bool send, std::uint64_t req, int peer, int tag, std::uint64_t bytes, double t,
                   const char* proto = nullptr, int comm = 0) {
    ev(fmt::format(
        R"({{"ph":"i","s":"t","pid":{},"tid":1,"name":"{}","cat":"op","ts":{:.3f},"args":{{"req":"0x{:x}","peer":{},"world_peer":{},"tag":{},"comm":{},"bytes":{},"proto":"{}"}}}})",
        rank_, send ? "post_send" : "post_recv", t / 1e3, req, peer, peer, tag, comm, bytes,
        proto != nullptr ? proto : (send ? "eager" : "posted")));
    return *this;
  }
  trace_text& done(std::uint64_t req, int source, int tag, std::uint64_t bytes, double t) {
    ev(fmt::format(
        R"({{"ph":"i","s":"t","pid":{},"tid":1,"name":"done","cat":"op","ts":{:.3f},"args":{{"req":"0x{:x}","source":{},"world_source":{},"tag":{},"bytes":{}}}}})",
        rank_, t / 1e3, req, source, source, tag, bytes));
    return *this;
  }
  // The run id the writer gave (empty: no "run" field, as a trace of a sidecore without run ids).
  trace_text& run(std::string id) {
    run_ = std::move(id);
    return *this;
  }
  // The host id the writer gave (empty: no "host" field).
  trace_text& host(std::string id) {
    host_ = std::move(id);
    return *this;
  }
  [[nodiscard]] std::string str() const {
    return fmt::format(
        R"({{"displayTimeUnit":"ns","traceEvents":[{}],"otherData":{{"producer":"sidecore","events":{},"max_events":1000,"truncated":{},"origin_monotonic_ns":{},"rank":{},"nranks":{},"mode":"off","provider":"shm","eager_max":4096,"inject_size":64,"omp_threads":2,{}{}"ops":"sidecore-trace-ops/1"}}}})",
        body_, n_, truncated_ ? "true" : "false", origin_, rank_, nranks_,
        run_.empty() ? std::string() : fmt::format(R"("run":"{}",)", run_),
        host_.empty() ? std::string() : fmt::format(R"("host":"{}",)", host_));
  }
  [[nodiscard]] sim::rank_trace parse() const { return sim::parse_trace(str(), fmt::format("rank{}.json", rank_)); }

 private:
  void ev(const std::string& e) {
    body_ += (n_++ ? ",\n" : "") + e;
  }
  int rank_, nranks_;
  std::uint64_t origin_;
  bool truncated_;
  std::string run_, host_;
  std::string body_;
  int n_ = 0;
};

// L=1000 o=200 g=300 G=2 O=1 S=4096.
sim::whatif_options opts(double factor = 2.0, unsigned chunks = 2) {
  sim::whatif_options o;
  o.params = {1000, 200, 300, 2, 1, 4096};
  o.dedicated_comp_factor = factor;
  o.chunks = chunks;
  return o;
}

// Rank 0 computes 1000 ns, isends 100 B (tag 5) to rank 1, computes 2000 ns, waits. Rank 1 posts the receive at
// once, computes 5000 ns, waits.
std::vector<sim::rank_trace> ping() {
  trace_text r0(0, 2), r1(1, 2);
  r0.call("sidecore::isend", "init", 1000, 1100).post(true, 7, 1, 5, 100, 1050);
  r0.call("sidecore::wait", "wait", 3100, 3200).done(7, -1, -1, 100, 3150);
  r1.call("sidecore::irecv", "init", 0, 100).post(false, 9, 0, 5, 100, 50);
  r1.call("sidecore::wait", "wait", 5100, 5200).done(9, 0, 5, 100, 5150);
  return {r0.parse(), r1.parse()};
}

}  // namespace

TEST(WhatifTrace, ReadsCallsOperationsAndMetadata) {
  const sim::rank_trace t = ping()[0];
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.nranks, 2);
  EXPECT_EQ(t.eager_max, 4096U);
  EXPECT_EQ(t.omp_threads, 2);
  EXPECT_EQ(t.origin_monotonic_ns, 1'000'000U);
  ASSERT_EQ(t.calls.size(), 2U);
  ASSERT_EQ(t.calls[0].posts.size(), 1U);
  EXPECT_TRUE(t.calls[0].posts[0].send);
  EXPECT_EQ(t.calls[0].posts[0].bytes, 100U);
  ASSERT_EQ(t.calls[1].dones.size(), 1U);
  EXPECT_DOUBLE_EQ(t.end_ns, 3200);
}

TEST(WhatifReplay, EagerPingHandComputed) {
  const sim::linked_traces lt = sim::link_traces(ping());
  ASSERT_EQ(lt.messages.size(), 1U);
  const sim::whatif_result r = sim::run_whatif(lt, opts());
  // Progress in calls, one CPU. Rank 0: calc [0,1000); the send takes the CPU to 1000 + o + 99 O = 1299, its message
  // arrives at 1000 + o + L = 2200; the 2000 ns burst runs [1299, 3299); the wait needs the eager send, done.
  // Rank 1: the receive is posted at 0; its irecv took 100 ns of CPU, which the simulator does not charge (a
  // receive's o comes at its arrival), so the 5000 ns burst and it run [0, 5100); the message is taken in when the
  // CPU is free, [5100, 5100 + o + 99 max(O, G)) = [5100, 5498). (Rank 0's isend took 100 ns, less than its o.)
  EXPECT_EQ(r.sims[0].finish_ns, (std::vector<double>{3299, 5498}));
  // Dedicated core, computation x2. Rank 0: [0, 2000), the send on CPU 1 from 2000, the 4000 ns burst [2000, 6000).
  // Rank 1: [0, 10000); the message (at 3200) is taken in by CPU 1, [3200, 3598).
  EXPECT_EQ(r.sims[1].finish_ns, (std::vector<double>{6000, 10000}));
  EXPECT_NEAR(r.speedup(sim::scenario::dedicated_core), 5498.0 / 10000, 1e-12);
  // Ideal overlap, 2 chunks of 50 B, computation unscaled. Rank 0: [0,500), chunk 0 on CPU 1 [500, 749) (o + 49 O),
  // [500,1000); chunk 1 waits for CPU 1: [1000, 1249); the 2000 ns burst [1000, 3000). Chunk 0 arrives at
  // 500 + 200 + 1000 = 1700, chunk 1 at 2200. Rank 1: the receives are posted at 0 on CPU 1; its 5000 ns burst is
  // split where the chunks are consumed: it follows the completing wait, and here nothing follows it, so the
  // final (empty) computation waits for both: reception of chunk 0 [1700, 1998), chunk 1 [2200, 2498); the burst
  // before the wait runs [0, 5000) on CPU 0.
  EXPECT_EQ(r.sims[2].finish_ns, (std::vector<double>{3000, 5000}));
  EXPECT_EQ(r.traced_ns, (std::vector<double>{3200, 5200}));
}

// A call that never waits spent its measured time on the CPU: with progress in calls, what the simulator does not
// charge as o is the call's computation (sweep's isends between compute phases took 1.8 us, a ping-pong's o is
// 0.25 us). With a progress core that work is the core's.
TEST(WhatifReplay, CallsThatNeverWaitKeepTheirCpuTimeBeyondO) {
  trace_text r0(0, 2), r1(1, 2);
  r0.call("sidecore::isend", "init", 1000, 2000).post(true, 7, 1, 5, 100, 1050);
  r0.call("sidecore::wait", "wait", 4000, 4100).done(7, -1, -1, 100, 4050);
  r1.call("sidecore::irecv", "init", 0, 100).post(false, 9, 0, 5, 100, 50);
  r1.call("sidecore::wait", "wait", 5100, 5200).done(9, 0, 5, 100, 5150);
  const sim::whatif_result r = sim::run_whatif(sim::link_traces({r0.parse(), r1.parse()}), opts());
  // Rank 0: calc [0, 1000), the send's o + 99 O to 1299, then the rest of the isend's 1000 ns, 1000 - 299, and the
  // 2000 ns burst, [1299, 4000); the eager send is done: the wait ends at once.
  EXPECT_EQ(r.sims[0].finish_ns[0], 4000);
  // Dedicated core, computation x2: [0, 2000), the send on CPU 1, the 4000 ns burst [2000, 6000); nothing added.
  EXPECT_EQ(r.sims[1].finish_ns[0], 6000);
}

// sidecore's collectives record their completion, not their messages: such a done is taken out with a warning, and
// the call that completed it replays as its measured time (here 3000 ns of blocking allreduce on both ranks).
TEST(WhatifReplay, CollectiveCallsKeepTheirMeasuredTime) {
  trace_text r0(0, 2), r1(1, 2);
  r0.call("sidecore::allreduce", "blocking", 0, 3000).done(0xe100000001, -1, -1, 0, 2900);
  r1.call("sidecore::allreduce", "blocking", 0, 3000).done(0xe100000001, -1, -1, 0, 2900);
  const sim::linked_traces lt = sim::link_traces({r0.parse(), r1.parse()});
  EXPECT_TRUE(lt.ranks[0].calls[0].untraced);
  EXPECT_TRUE(lt.ranks[0].calls[0].dones.empty());
  ASSERT_FALSE(lt.warnings.empty());
  EXPECT_NE(lt.warnings[0].find("sidecore collectives"), std::string::npos) << lt.warnings[0];
  const sim::whatif_result r = sim::run_whatif(lt, opts(1.0));
  EXPECT_EQ(r.sims[0].finish_ns, (std::vector<double>{3000, 3000}));
  // Without a collective call in the trace, a done for a request never posted is refused as before.
  trace_text p0(0, 2), p1(1, 2);
  p0.call("sidecore::wait", "wait", 0, 3000).done(0xe100000001, -1, -1, 0, 2900);
  p1.call("sidecore::wait", "wait", 0, 3000);
  EXPECT_THROW((void)sim::link_traces({p0.parse(), p1.parse()}), sidecore::input_error);
}

// A test that found nothing and after which the program computed is polling between phases: its time is the
// program's CPU time and stays (ping's rank 0, its 2000 ns burst split by a 500 ns testany: the same finish, 3299);
// tests that follow each other at once are a loop that waits, recomputed (without the rule the first gives 2799).
TEST(WhatifReplay, PollingTestsKeepTheirTimeWaitingLoopsDoNot) {
  const auto replay = [](bool loop) {
    trace_text r0(0, 2), r1(1, 2);
    r0.call("sidecore::isend", "init", 1000, 1100).post(true, 7, 1, 5, 100, 1050);
    if (loop) {
      r0.call("sidecore::testany", "test", 2100, 2350);
      r0.call("sidecore::testany", "test", 2360, 2600);
      r0.call("sidecore::wait", "wait", 2610, 3200).done(7, -1, -1, 100, 3150);
    } else {
      r0.call("sidecore::testany", "test", 1100, 1600);
      r0.call("sidecore::wait", "wait", 3100, 3200).done(7, -1, -1, 100, 3150);
    }
    r1.call("sidecore::irecv", "init", 0, 100).post(false, 9, 0, 5, 100, 50);
    r1.call("sidecore::wait", "wait", 5100, 5200).done(9, 0, 5, 100, 5150);
    return sim::run_whatif(sim::link_traces({r0.parse(), r1.parse()}), opts()).sims[0].finish_ns[0];
  };
  EXPECT_EQ(replay(false), 3299);
  // The loop: 1000 ns of computation before it (1100..2100) and the 10 ns gaps in it; its two tests and the wait's
  // own time are waiting: 1299 + 1020.
  EXPECT_EQ(replay(true), 2319);
}

TEST(WhatifReplay, IdealOverlapSplitsProductionAndConsumption) {
  // Rank 0 computes 4000 ns then sends 8 KiB + 1 (rendezvous) and waits; rank 1 posts, waits at once, then computes
  // 4000 ns on the data, then sends 8 B back, which rank 0 waits for.
  trace_text r0(0, 2), r1(1, 2);
  r0.call("sidecore::send", "blocking", 4000, 4100).post(true, 3, 1, 0, 8193, 4010, "rndv").done(3, -1, -1, 8193, 4090);
  r1.call("sidecore::recv", "blocking", 0, 9000).post(false, 4, 0, 0, 8193, 10).done(4, 0, 0, 8193, 8990);
  r1.call("sidecore::send", "blocking", 13000, 13100).post(true, 5, 0, 1, 8, 13010).done(5, -1, -1, 8, 13090);
  r0.call("sidecore::recv", "blocking", 4100, 14000).post(false, 6, 1, 1, 8, 4110).done(6, 1, 1, 8, 13990);
  const sim::linked_traces lt = sim::link_traces({r0.parse(), r1.parse()});
  ASSERT_EQ(lt.messages.size(), 2U);
  sim::whatif_options o = opts(1.0, 2);
  o.params = {1000, 0, 0, 1, 0, 4096};  // L=1000, o=g=0, G=1 ns/B, O=0, S=4096
  const sim::whatif_result r = sim::run_whatif(lt, o);
  // Progress in calls (one CPU). Rank 0: [0, 4000), then the rendezvous send: its NIC busy to 4000 + 8192 G = 12192,
  // the message at rank 1 at 5000. Rank 1 takes it in on its CPU, [5000, 5000 + 8192 max(O, G)) = [5000, 13192); the
  // match at 5000 completes rank 0's send (its CPU free from 5000 on). Rank 1 computes [13192, 17192) and sends 8 B at
  // 17192 (arriving 18192). Rank 0 posts its receive at 5000 and takes the message in [18192, 18199).
  EXPECT_EQ(r.sims[0].finish_ns, (std::vector<double>{18199, 17192}));
  // Ideal overlap, 2 chunks: 4096 B (eager) and 4097 B (rendezvous); then 4 B and 4 B. Rank 0: [0, 2000) and
  // [2000, 4000); chunk 0 leaves at 2000 on CPU 1 (NIC to 6095, at rank 1 at 3000); chunk 1, ready at 4000, waits
  // for the NIC: 6095 (NIC to 10191, at rank 1 at 7095). Rank 1 takes chunk 0 in on CPU 1, [3000, 7095), and chunk 1,
  // [7095, 11191) (the match at 7095 completes rank 0's rendezvous chunk). Its consuming burst: the first half after
  // chunk 0, [7095, 9095), the second after chunk 1, [11191, 13191); its two 4 B chunks leave at 11191 (CPU 1 busy
  // until then) and 13191, at rank 0 at 12191 and 14191. Rank 0 posted their receives at 7095 (after its send's
  // chunks were done) and takes them in [12191, 12194) and [14191, 14194).
  EXPECT_EQ(r.sims[2].finish_ns, (std::vector<double>{14194, 13191}));
  EXPECT_NEAR(r.speedup(sim::scenario::ideal_overlap), 18199.0 / 14194, 1e-12);
}

// The computation between initiations and their waits: each stretch of computation once, however many messages are
// in flight over it (two sends over the same 3800 ns were 7700 ns "in all", more than the run computed).
TEST(WhatifRoom, ComputationUnderSeveralMessagesCountsOnce) {
  trace_text r0(0, 2), r1(1, 2);
  r0.call("sidecore::isend", "init", 1000, 1100).post(true, 7, 1, 5, 100, 1050);
  r0.call("sidecore::isend", "init", 1200, 1300).post(true, 8, 1, 6, 100, 1250);
  r0.call("sidecore::waitall", "wait", 5100, 5200).done(7, -1, -1, 100, 5150).done(8, -1, -1, 100, 5160);
  r1.call("sidecore::irecv", "init", 0, 100).post(false, 9, 0, 5, 100, 50);
  r1.call("sidecore::irecv", "init", 100, 200).post(false, 10, 0, 6, 100, 150);
  r1.call("sidecore::waitall", "wait", 5300, 5400).done(9, 0, 5, 100, 5350).done(10, 0, 6, 100, 5360);
  const sim::overlap_room room = sim::measure_overlap_room(sim::link_traces({r0.parse(), r1.parse()}));
  EXPECT_DOUBLE_EQ(room.comp_overlappable_ns, 3900.0 + 5100.0);
  EXPECT_EQ(room.nonblocking_bytes, 400U);
}

TEST(WhatifLink, NonOvertakingMatchesWildcardsAndReusedHandles) {
  // Rank 1 receives two messages of rank 0 with any_source / any_tag; the trace recorded the matched source and tag.
  // Rank 0 reuses its request handle 1 for both sends.
  trace_text r0(0, 2), r1(1, 2);
  r0.call("sidecore::send", "blocking", 100, 200).post(true, 1, 1, 3, 10, 110).done(1, -1, -1, 10, 190);
  r0.call("sidecore::send", "blocking", 300, 400).post(true, 1, 1, 4, 20, 310).done(1, -1, -1, 20, 390);
  r1.call("sidecore::irecv", "init", 0, 10).post(false, 2, -1, -1, 64, 5);
  r1.call("sidecore::irecv", "init", 10, 20).post(false, 3, -1, 4, 64, 15);
  r1.call("sidecore::waitall", "wait", 20, 500).done(2, 0, 3, 10, 250).done(3, 0, 4, 20, 450);
  const sim::linked_traces lt = sim::link_traces({r1.parse(), r0.parse()});  // any order
  ASSERT_EQ(lt.messages.size(), 2U);
  EXPECT_EQ(lt.messages[0].bytes + lt.messages[1].bytes, 30U);
  EXPECT_EQ(lt.message_of_post[1][0][0], lt.message_of_post[0][0][0]);
  EXPECT_EQ(lt.message_of_post[1][1][0], lt.message_of_post[0][1][0]);
  const sim::whatif_result r = sim::run_whatif(lt, opts());
  EXPECT_TRUE(r.sims[0].complete && r.sims[1].complete && r.sims[2].complete);
}

// The input_error that f throws; a test failure when it throws none.
template <class F>
sidecore::input_error refusal(F&& f) {
  try {
    f();
  } catch (const sidecore::input_error& e) {
    return e;
  }
  ADD_FAILURE() << "accepted; expected an input_error";
  return sidecore::input_error("", "", "(accepted)");
}

TEST(WhatifErrors, MalformedTraceNamesFileAndPosition) {
  {
    const sidecore::input_error e =
        refusal([&] { (void)sim::parse_trace(R"({"traceEvents": [ {"ph": "X",, ]})", "bad.json"); });
    EXPECT_EQ(e.source(), "bad.json");
    EXPECT_NE(std::string(e.what()).find("malformed JSON (in traceEvents[0].ph) at byte 30"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
  }
  std::string t = trace_text(0, 1).call("sidecore::isend", "init", 0, 10).post(true, 1, 0, 0, 8, 5).str();
  t.replace(t.find("\"world_peer\":0"), 14, "\"world_peer\":7");
  {
    const sidecore::input_error e = refusal([&] { (void)sim::parse_trace(t, "w.json"); });
    EXPECT_EQ(e.field(), "traceEvents[1].args.world_peer");
    EXPECT_NE(std::string(e.what()).find("0..0"), std::string::npos) << e.what();
  }
  // A number beyond a double is nlohmann's out_of_range, not a parse_error: still a named input error.
  {
    const sidecore::input_error e =
        refusal([&] { (void)sim::parse_trace(R"({"traceEvents": [ {"ph": "X", "ts": 1e999} ]})", "huge.json"); });
    EXPECT_EQ(e.source(), "huge.json");
    EXPECT_NE(std::string(e.what()).find("1e999"), std::string::npos) << e.what();
  }
  // A time beyond 1e9 s (1e15 µs): refused as profiles refuse theirs, not carried into an infinite replay.
  for (const char* key : {"\"ts\":", "\"dur\":"}) {
    std::string big = trace_text(0, 1).call("sidecore::isend", "init", 0, 10).str();
    const std::size_t at = big.find(key) + std::string(key).size();
    big.replace(at, big.find_first_of(",}", at) - at, "1e307");
    const sidecore::input_error e = refusal([&] { (void)sim::parse_trace(big, "big.json"); });
    EXPECT_EQ(e.field(), std::string("traceEvents[0].") + (key[1] == 't' ? "ts" : "dur"));
    EXPECT_NE(std::string(e.what()).find("1e9 s"), std::string::npos) << e.what();
  }
  // An event type SIDECORE_TRACE never writes (a "B" begin event: an edited trace, or another producer's).
  std::string b = trace_text(0, 1).call("sidecore::isend", "init", 0, 10).str();
  b.replace(b.find("\"ph\":\"X\""), 8, "\"ph\":\"B\"");
  {
    const sidecore::input_error e = refusal([&] { (void)sim::parse_trace(b, "b.json"); });
    EXPECT_EQ(e.field(), "traceEvents[0].ph");
    EXPECT_NE(std::string(e.what()).find("'B' is not an event type SIDECORE_TRACE writes; accepted: X, i, b, e, M"),
              std::string::npos)
        << e.what();
  }
  // An operation outside every call span.
  EXPECT_THROW((void)trace_text(0, 1).call("sidecore::isend", "init", 0, 10).post(true, 1, 0, 0, 8, 50000).parse(),
               sidecore::input_error);
  // A trace without operation records (an older sidecore, or the PMPI profiler).
  std::string old = trace_text(0, 1).str();
  old.replace(old.find(",\"ops\""), 29, "");
  {
    const sidecore::input_error e = refusal([&] { (void)sim::parse_trace(old, "old.json"); });
    EXPECT_NE(std::string(e.what()).find("no operation records"), std::string::npos) << e.what();
  }
}

TEST(WhatifErrors, TruncatedMissingAndUnmatchedAreRefused) {
  trace_text cut(0, 1, 0, true);
  {
    const sidecore::input_error e = refusal([&] { (void)sim::link_traces({cut.parse()}); });
    EXPECT_NE(std::string(e.what()).find("SIDECORE_TRACE_MAX_EVENTS"), std::string::npos) << e.what();
  }
  {
    const sidecore::input_error e = refusal([&] { (void)sim::link_traces({trace_text(0, 3).parse()}); });
    EXPECT_NE(std::string(e.what()).find("rank(s) 1, 2"), std::string::npos) << e.what();
  }
  // Rank 0 sends twice with tag 5, rank 1 received only once: the second send is named.
  trace_text r0(0, 2), r1(1, 2);
  r0.call("sidecore::send", "blocking", 0, 10).post(true, 1, 1, 5, 8, 5).done(1, -1, -1, 8, 6);
  r0.call("sidecore::send", "blocking", 20, 30).post(true, 2, 1, 5, 8, 25).done(2, -1, -1, 8, 26);
  r1.call("sidecore::recv", "blocking", 0, 40).post(false, 1, 0, 5, 8, 5).done(1, 0, 5, 8, 35);
  {
    const sidecore::input_error e = refusal([&] { (void)sim::link_traces({r0.parse(), r1.parse()}); });
    const std::string w = e.what();
    EXPECT_NE(w.find("rank0.json: the send by rank 0 call 1 (sidecore::send at 0.020 µs) (peer 1, communicator 0, "
                     "tag 5, 8 B): no receive at the destination matches it"),
              std::string::npos)
        << w;
  }
  // A done for a request never posted.
  trace_text r2(0, 1);
  r2.call("sidecore::wait", "wait", 0, 10).done(42, -1, -1, 8, 5);
  EXPECT_THROW((void)sim::link_traces({r2.parse()}), sidecore::input_error);
}

// Traces that no run could have written are refused, naming both ends: a receive that completed before its send's
// call began (traces that name one host: the ranks' clocks are one clock), a receive of another size than its send,
// traces of different runs.
TEST(WhatifErrors, ImpossibleMessagesAndMixedRunsAreRefused) {
  const auto refused = [](const std::vector<sim::rank_trace>& ts, const std::string& want) {
    const sidecore::input_error e = refusal([&] { (void)sim::link_traces(ts); });
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  };
  // Rank 1's receive completes at 500 ns; rank 0's send call began at 4000 ns, on the same clock.
  trace_text r0(0, 2), r1(1, 2);
  r0.host("00000000000000cc");
  r1.host("00000000000000cc");
  r0.call("sidecore::send", "blocking", 4000, 4100).post(true, 1, 1, 5, 8, 4050).done(1, -1, -1, 8, 4090);
  r1.call("sidecore::recv", "blocking", 0, 600).post(false, 1, 0, 5, 8, 5).done(1, 0, 5, 8, 500);
  refused({r0.parse(), r1.parse()},
          "rank1.json: the receive by rank 1 call 0 (sidecore::recv at 0.000 µs) (peer 0, communicator 0, tag 5, 8 B): "
          "completed at 0.500 µs, 3.500 µs before the call that sent its message began (rank0.json: rank 0 call 0 "
          "(sidecore::send at 4.000 µs))");
  // The same times on two hosts (their clocks are not one clock, however close their origins): no order to check.
  trace_text h0(0, 2), h1(1, 2);
  h0.host("00000000000000cc");
  h1.host("00000000000000dd");
  h0.call("sidecore::send", "blocking", 4000, 4100).post(true, 1, 1, 5, 8, 4050).done(1, -1, -1, 8, 4090);
  h1.call("sidecore::recv", "blocking", 0, 600).post(false, 1, 0, 5, 8, 5).done(1, 0, 5, 8, 500);
  const sim::linked_traces two = sim::link_traces({h0.parse(), h1.parse()});
  ASSERT_FALSE(two.warnings.empty());
  EXPECT_NE(two.warnings.front().find("several hosts"), std::string::npos) << two.warnings.front();
  // Traces that name no host (an older sidecore): no order to check either, whatever their origins.
  trace_text u0(0, 2), u1(1, 2);
  u0.call("sidecore::send", "blocking", 4000, 4100).post(true, 1, 1, 5, 8, 4050).done(1, -1, -1, 8, 4090);
  u1.call("sidecore::recv", "blocking", 0, 600).post(false, 1, 0, 5, 8, 5).done(1, 0, 5, 8, 500);
  EXPECT_NO_THROW((void)sim::link_traces({u0.parse(), u1.parse()}));
  // A receive that completed just before its send's call began, within the clocks' 2 µs: accepted.
  trace_text n0(0, 2), n1(1, 2);
  n0.host("00000000000000cc");
  n1.host("00000000000000cc");
  n0.call("sidecore::send", "blocking", 1000, 1100).post(true, 1, 1, 5, 8, 1050).done(1, -1, -1, 8, 1090);
  n1.call("sidecore::recv", "blocking", 0, 600).post(false, 1, 0, 5, 8, 5).done(1, 0, 5, 8, 500);
  EXPECT_NO_THROW((void)sim::link_traces({n0.parse(), n1.parse()}));
  // 8 B sent, 16 B received.
  trace_text s0(0, 2), s1(1, 2);
  s0.call("sidecore::send", "blocking", 0, 100).post(true, 1, 1, 5, 8, 50).done(1, -1, -1, 8, 90);
  s1.call("sidecore::recv", "blocking", 0, 600).post(false, 1, 0, 5, 64, 5).done(1, 0, 5, 16, 500);
  refused(
      {s0.parse(), s1.parse()},
      "rank1.json: the receive by rank 1 call 0 (sidecore::recv at 0.000 µs) (peer 0, communicator 0, tag 5, 64 B): "
      "received 16 B, but its send (rank0.json: rank 0 call 0 (sidecore::send at 0.000 µs)) sent 8 B");
  // 64 B sent to a receive of 16 B: the run truncated the message (the receive completed with errc::truncated and
  // the first 16 B), an error of the program: said as that, not as a size no run receives.
  trace_text t0(0, 2), t1(1, 2);
  t0.call("sidecore::send", "blocking", 0, 100).post(true, 1, 1, 5, 64, 50).done(1, -1, -1, 64, 90);
  t1.call("sidecore::recv", "blocking", 0, 600).post(false, 1, 0, 5, 16, 5).done(1, 0, 5, 16, 500);
  refused(
      {t0.parse(), t1.parse()},
      "rank1.json: the receive by rank 1 call 0 (sidecore::recv at 0.000 µs) (peer 0, communicator 0, tag 5, 16 B): "
      "truncated: its send (rank0.json: rank 0 call 0 (sidecore::send at 0.000 µs)) sent 64 B to its 16 B buffer, "
      "and it received the first 16 B (errc::truncated; MPI_ERR_TRUNCATE in MPI), an error of the run that no "
      "what-if replays; give the receive a count that holds the message");
  // Traces of two runs.
  trace_text a0(0, 2), a1(1, 2);
  a0.run("00000000000000aa")
      .call("sidecore::send", "blocking", 0, 100)
      .post(true, 1, 1, 5, 8, 50)
      .done(1, -1, -1, 8, 90);
  a1.run("00000000000000bb")
      .call("sidecore::recv", "blocking", 0, 600)
      .post(false, 1, 0, 5, 8, 5)
      .done(1, 0, 5, 8, 500);
  refused({a0.parse(), a1.parse()},
          "rank1.json: otherData.run: run id \"00000000000000bb\", but rank0.json is of run \"00000000000000aa\": the "
          "traces are not of one run");
  // One run's traces carry its id; an empty id is refused where it is read.
  a1.run("00000000000000aa");
  EXPECT_EQ(sim::link_traces({a0.parse(), a1.parse()}).run, "00000000000000aa");
  for (const char* field : {"run", "host"}) {
    std::string empty = trace_text(0, 1).str();
    empty.insert(empty.find("\"ops\""), fmt::format("\"{}\":\"\",", field));
    EXPECT_EQ(refusal([&] { (void)sim::parse_trace(empty, "empty.json"); }).field(),
              std::string("otherData.") + field);
  }
  // A run id on one trace only: not of one run either.
  trace_text o0(0, 2), o1(1, 2);
  o0.run("00000000000000aa");
  refused({o0.parse(), o1.parse()},
          "rank1.json: otherData.run: no run id, but rank0.json is of run \"00000000000000aa\"");
}

TEST(WhatifRender, TimelinesAndSweep) {
  const sim::linked_traces lt = sim::link_traces(ping());
  std::array<sim::busy_recorder, 3> rec;
  const sim::whatif_result r = sim::run_whatif(lt, opts(), {&rec[0], &rec[1], &rec[2]});
  const auto sweep = sim::bandwidth_sweep(lt, opts(), {0.25, 1, 4});
  ASSERT_EQ(sweep.size(), 3U);
  EXPECT_DOUBLE_EQ(sweep[1].makespan_ns[0], r.makespan(sim::scenario::in_calls));
  const std::string json = sim::whatif_chrome_json({&rec[0], &rec[1], &rec[2]}, 2);
  EXPECT_NE(json.find("dedicated core / rank 1"), std::string::npos);
  const std::string svg =
      sim::whatif_svg({&rec[0], &rec[1], &rec[2]}, 2,
                      {r.makespan(sim::scenario::in_calls), r.makespan(sim::scenario::dedicated_core),
                       r.makespan(sim::scenario::ideal_overlap)},
                      sweep);
  EXPECT_EQ(svg.rfind("<svg", 0), 0U);
  EXPECT_NE(svg.find("ideal overlap"), std::string::npos);
}
