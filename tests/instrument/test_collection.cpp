// Rings and incremental folding, threads, traces, profile JSON and the job merge.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/instrument.hpp"
#include "synthetic_time.hpp"
#include "threads.hpp"  // the call sequence number and the seqlock's version, started near their wrap

namespace si = sidecore::instrument;
namespace sd = sidecore::instrument::detail;
using sidecore::category;
using json = nlohmann::json;

namespace {
using sctest::spin_for_ns;
using sctest::T0;

json read_json(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str());  // throws on invalid JSON
}
}  // namespace

TEST(Collection, OffByDefaultAndAfterStop) {
  si::stop();
  EXPECT_FALSE(si::enabled());
  EXPECT_EQ(si::current_thread_id(), si::no_thread);
  si::call_enter(category::wait);  // no effect, no crash
  si::call_exit(category::wait);
  si::config c;  // both off
  si::start(c, 0, 1);
  EXPECT_FALSE(si::enabled());
  si::stop();
}

TEST(Collection, TinyRingFoldsIncrementallyWithoutLoss) {
  // A 16-record ring and 10000 calls + 1000 transfers: every event must be counted (folding at the high-water mark).
  si::config c;
  c.profile = true;
  c.ring_events = 16;
  c.clock = si::event_clock::monotonic;  // synthetic times are nanoseconds
  si::start(c, 0, 1);
  si::set_xfer_time_table({{0, 1e-6}}, "test");
  const auto me = si::current_thread_id();
  std::uint64_t t = T0;
  for (int i = 0; i < 10000; ++i) {
    const auto cat = static_cast<category>(i % sidecore::category_count);
    sd::call_enter_at(cat, t);
    if (i % 10 == 0) sd::xfer_begin_at(static_cast<std::uint64_t>(i), 64, 1, me, t + 1);
    if (i % 10 == 0) sd::xfer_end_at(static_cast<std::uint64_t>(i), me, t + 2);
    sd::call_exit_at(cat, t + 100 + static_cast<std::uint64_t>(i % sidecore::category_count));
    t += 1000;
  }
  const json p = json::parse(si::rank_profile_json());
  std::uint64_t calls = 0;
  for (const auto& [name, v] : p["categories"].items()) {
    EXPECT_EQ(v["count"], 2000) << name;
    calls += v["count"].get<std::uint64_t>();
  }
  EXPECT_EQ(calls, 10000u);
  // category k's calls last 100 + k ns: min_s is exactly that.
  EXPECT_NEAR(p["categories"]["test"]["min_s"].get<double>(), 102e-9, 1e-15);
  EXPECT_EQ(p["overlap"]["total"]["count"], 1000);
  si::stop();
}

TEST(Collection, ManyThreadsAndAProgressThread) {
  // 3 application threads post transfers (in an init call) that a progress thread begins and completes while the
  // owner waits for the completion inside a wait call — core mode, with the real clock and a small ring, all
  // threads concurrent. Counts must be exact; bounds must respect 0 <= min <= max <= xfer_time.
  si::config c;
  c.profile = true;
  c.ring_events = 64;
  si::start(c, 0, 1);
  si::set_xfer_time_table({{0, 2e-6}, {1 << 20, 100e-6}}, "test");
  constexpr int kThreads = 3, kIters = 500;
  struct slot {
    std::atomic<std::uint64_t> posted{0};
    std::atomic<std::uint64_t> completed{0};
    std::atomic<std::uint32_t> owner{0};
  };
  std::vector<slot> mailbox(kThreads);
  std::atomic<bool> done{false};
  std::thread progress([&] {
    si::mark_progress_thread();
    while (!done.load()) {
      bool idle = true;
      for (int k = 0; k < kThreads; ++k) {
        const auto id = mailbox[k].posted.load(std::memory_order_acquire);
        if (id != mailbox[k].completed.load(std::memory_order_relaxed)) {
          idle = false;
          const auto owner = mailbox[k].owner.load();
          si::xfer_begin(id, 4096, k, owner);
          si::xfer_end(id, owner);
          mailbox[k].completed.store(id, std::memory_order_release);
        }
      }
      if (idle) {
        si::fold_current_thread();  // analysis while idle
        std::this_thread::yield();
      }
    }
  });
  std::vector<std::thread> apps;
  for (int k = 0; k < kThreads; ++k) {
    apps.emplace_back([&, k] {
      const auto me = si::current_thread_id();
      mailbox[k].owner.store(me);
      for (int i = 1; i <= kIters; ++i) {
        const std::uint64_t id = (static_cast<std::uint64_t>(k) << 32) | static_cast<std::uint64_t>(i);
        si::call_enter(category::init);
        mailbox[k].posted.store(id, std::memory_order_release);
        si::call_exit(category::init);
        si::call_enter(category::wait);
        while (mailbox[k].completed.load(std::memory_order_acquire) != id) std::this_thread::yield();
        si::call_exit(category::wait);
      }
    });
  }
  for (auto& a : apps) a.join();
  done = true;
  progress.join();
  const json p = json::parse(si::rank_profile_json());
  EXPECT_EQ(p["categories"]["init"]["count"], kThreads * kIters);
  EXPECT_EQ(p["categories"]["wait"]["count"], kThreads * kIters);
  const json& tot = p["overlap"]["total"];
  EXPECT_EQ(tot["count"], kThreads * kIters);
  EXPECT_LE(tot["min_s"].get<double>(), tot["max_s"].get<double>() + 1e-12);
  EXPECT_LE(tot["max_s"].get<double>(), tot["xfer_time_s"].get<double>() + 1e-12);
  si::stop();
}

namespace {
// One owner's calls and transfers, with its outermost-call sequence number and its seqlock's version started at
// `seq0` and `version0` (synthetic ns, xfer_time 10 ns). Outermost calls: A init [10, 20], B wait [100, 130],
// C test [200, 210], D blocking [300, 320], E other [400, 420], F wait [500, 530].
//   xfer 1: owner, begin 11 in A, end 105 in B: noncomputation 9 + 5 = 14 of a window of 94: max 10, min 0
//   xfer 2: owner, begin 110 and end 120 in B (adjacent records: paired without the table): case 1, x 10
//   xfer 3: owner, begin 112 in B, end 205 in C: noncomputation 18 + 5 = 23 of 93: max 10, min 0
//   xfer 4: another thread, begin 301 and end 310 while the owner is in D (its seqlock read): case 1, x 9
//   xfer 5: another thread, begin 315 in D; a third thread, end 410 in E: noncomputation 5 + 10 = 15 of 95:
//           max 10, min 0
//   xfer 6: owner, begin 419 in E, end 501 in F: noncomputation 1 + 1 = 2 of 82: max 10, min 8
// Total: min 8, max 40, xfer 59, count 6.
json run_owner_from_seq(std::uint32_t seq0, std::uint32_t version0) {
  namespace in = sidecore::instrument::internal;
  si::config cfg;
  cfg.profile = true;
  cfg.clock = si::event_clock::monotonic;
  si::start(cfg, 0, 1);
  si::set_xfer_time_table({{0, 10e-9}}, "test");
  const auto me = si::current_thread_id();
  in::thread_state* st = in::self();
  st->pub_seq.store(seq0, in::relaxed);
  st->version.store(version0, in::relaxed);
  sd::set_window_start(T0);
  sd::call_enter_at(category::init, T0 + 10);
  sd::xfer_begin_at(1, 64, 1, me, T0 + 11);
  sd::call_exit_at(category::init, T0 + 20);
  sd::call_enter_at(category::wait, T0 + 100);
  sd::xfer_end_at(1, me, T0 + 105);
  sd::xfer_begin_at(2, 64, 1, me, T0 + 110);
  sd::xfer_end_at(2, me, T0 + 120);
  sd::xfer_begin_at(3, 64, 1, me, T0 + 112);
  sd::call_exit_at(category::wait, T0 + 130);
  sd::call_enter_at(category::test, T0 + 200);
  sd::xfer_end_at(3, me, T0 + 205);
  sd::call_exit_at(category::test, T0 + 210);
  sd::call_enter_at(category::blocking, T0 + 300);
  std::thread([me] {
    sd::xfer_begin_at(4, 64, 1, me, T0 + 301);
    sd::xfer_end_at(4, me, T0 + 310);
    sd::xfer_begin_at(5, 64, 1, me, T0 + 315);
  }).join();
  sd::call_exit_at(category::blocking, T0 + 320);
  sd::call_enter_at(category::other, T0 + 400);
  std::thread([me] { sd::xfer_end_at(5, me, T0 + 410); }).join();
  sd::xfer_begin_at(6, 64, 1, me, T0 + 419);
  sd::call_exit_at(category::other, T0 + 420);
  sd::call_enter_at(category::wait, T0 + 500);
  sd::xfer_end_at(6, me, T0 + 501);
  sd::call_exit_at(category::wait, T0 + 530);
  sd::set_window_end(T0 + 1000);
  json p = json::parse(si::rank_profile_json());
  si::stop();
  return p;
}
}  // namespace

TEST(Collection, CallSequenceNumberWrapChangesNoBoundAndNoCount) {
  // The owner's 32-bit outermost-call number tells "begin and end in one call" (case 1) by equality: it may wrap
  // (2^32 calls of one thread) between or inside the calls of a transfer, and the seqlock's version with it.
  const json base = run_owner_from_seq(0, 0);
  const json& total = base["overlap"]["total"];
  EXPECT_NEAR(total["min_s"].get<double>(), 8e-9, 1e-18);
  EXPECT_NEAR(total["max_s"].get<double>(), 40e-9, 1e-18);
  EXPECT_NEAR(total["xfer_time_s"].get<double>(), 59e-9, 1e-18);
  EXPECT_EQ(total["count"], 6);
  EXPECT_EQ(base["categories"]["wait"]["count"], 2);
  for (std::uint32_t before = 1; before <= 6; ++before) {  // the wrap just before call A, B, ... F
    const std::uint32_t seq0 = static_cast<std::uint32_t>(0) - before;
    const json p = run_owner_from_seq(seq0, static_cast<std::uint32_t>(0) - 2 * before);
    EXPECT_EQ(p["overlap"], base["overlap"]) << "sequence number started at " << seq0;
    EXPECT_EQ(p["categories"], base["categories"]) << "sequence number started at " << seq0;
    EXPECT_EQ(p["t_comp_s"], base["t_comp_s"]) << "sequence number started at " << seq0;
  }
}

TEST(Collection, EndWindowBoundsTotalAndComputationAlike) {
  // end_window() (the runtime: finalize's entry) ends t_total and t_comp at one instant: a call after it is
  // counted in its category but neither in t_total nor against t_comp, and t_comp + the calls inside = t_total.
  // No fixed upper bound on t_total (a loaded machine stretches the spins): it is checked against the wall time
  // measured up to end_window(), which the 7 ms spun after it would exceed.
  si::config c;
  c.profile = true;
  const auto w0 = std::chrono::steady_clock::now();
  si::start(c, 0, 1);
  si::call_enter(category::wait);
  spin_for_ns(1'000'000);
  si::call_exit(category::wait);
  spin_for_ns(1'000'000);
  si::end_window();
  const auto w1 = std::chrono::steady_clock::now();
  si::end_window();  // the first call counts
  si::call_enter(category::wait);
  spin_for_ns(5'000'000);
  si::call_exit(category::wait);
  spin_for_ns(2'000'000);
  const json p = json::parse(si::rank_profile_json());
  const double t_total = p["t_total_s"], t_comp = p["t_comp_s"];
  const json& wait = p["categories"]["wait"];
  EXPECT_EQ(wait["count"], 2);
  EXPECT_GE(t_total, 2e-3);
  EXPECT_LE(t_total, std::chrono::duration<double>(w1 - w0).count() + 1e-4) << "the window ended at end_window()";
  EXPECT_LE(t_comp, t_total);
  // Inside the window: the first call only, which the communicating thread's own categories hold (min_s need not be
  // that call: a loaded machine may stretch the first spin beyond the second).
  const json& own_wait = p["communicating_thread"]["categories"]["wait"];
  EXPECT_EQ(own_wait["count"], 1);
  EXPECT_NEAR(t_comp + own_wait["time_s"].get<double>(), t_total, 1e-6);
  si::stop();
}

TEST(Trace, ChromeTraceWithCallsComputeTransfersAndNames) {
  const std::string path = ::testing::TempDir() + "trace.%r.json";
  si::config c;
  c.trace = true;
  c.trace_path = path;
  si::start(c, 2, 4);
  si::name_current_thread("main");
  const auto me = si::current_thread_id();
  si::region_enter("solve");
  for (int i = 0; i < 3; ++i) {
    si::call_enter(category::init, "sidecore_isend");
    si::call_exit(category::init);
    spin_for_ns(20000);
    si::call_enter(category::wait);
    si::xfer_begin(static_cast<std::uint64_t>(i), 128, 1, me);
    si::xfer_end(static_cast<std::uint64_t>(i), me);
    si::call_exit(category::wait);
  }
  si::region_exit();
  si::region_enter("empty");  // nothing recorded inside: its enter and exit are folded as one pair
  si::region_exit();
  std::thread([&] {
    si::mark_progress_thread();
    si::xfer_begin(99, 1 << 20, 3, me);
    si::xfer_end(99, me);
  }).join();
  si::stop();
  const json t = read_json(si::path_for_rank(path, 2));
  ASSERT_TRUE(t["traceEvents"].is_array());
  int calls = 0, computes = 0, begins = 0, ends = 0, regions = 0, instants = 0;
  std::set<std::string> thread_names;
  for (const auto& e : t["traceEvents"]) {
    EXPECT_EQ(e["pid"], 2);
    const std::string ph = e["ph"];
    if (ph == "X" && (e["cat"] == "init" || e["cat"] == "wait")) ++calls;
    if (ph == "X" && e["cat"] == "init") {
      EXPECT_EQ(e["name"], "sidecore_isend");
    }
    if (ph == "X" && e["cat"] == "compute") ++computes;
    if (ph == "X" && e["cat"] == "region") ++regions;
    if (ph == "b") ++begins;
    if (ph == "e") ++ends;
    if (ph == "i") ++instants;
    if (ph == "M" && e["name"] == "thread_name") thread_names.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(computes, 5);  // between consecutive calls
  EXPECT_EQ(regions, 2);
  EXPECT_EQ(begins, 4);
  EXPECT_EQ(ends, 4);
  EXPECT_EQ(instants, 2);  // post/complete on the progress thread's track
  EXPECT_TRUE(thread_names.count("main"));
  EXPECT_TRUE(thread_names.count("progress"));
  EXPECT_TRUE(thread_names.count("main regions"));
  EXPECT_EQ(t["otherData"]["truncated"], false);
  std::remove(si::path_for_rank(path, 2).c_str());
}

TEST(Trace, BoundedByMaxEventsStillValidJson) {
  const std::string path = ::testing::TempDir() + "trace_bounded.json";
  si::config c;
  c.trace = true;
  c.profile = true;
  c.trace_path = path;
  c.trace_max_events = 50;
  c.ring_events = 32;
  si::start(c, 0, 1);
  for (int i = 0; i < 1000; ++i) {
    si::call_enter(category::test);
    si::call_exit(category::test);
  }
  si::stop();
  EXPECT_EQ(si::trace_events_written(), 50u);
  const json t = read_json(si::path_for_rank(path, 0));
  int counted = 0;
  for (const auto& e : t["traceEvents"]) counted += e["ph"] != "M";
  EXPECT_EQ(counted, 50);
  EXPECT_EQ(t["otherData"]["truncated"], true);
  // The profile does not lose anything to the trace bound, and says that the trace was cut.
  const json p = json::parse(si::rank_profile_json());
  EXPECT_EQ(p["categories"]["test"]["count"], 1000);
  ASSERT_TRUE(p.contains("limits")) << "no limits in the profile";
  ASSERT_EQ(p["limits"].size(), 1u) << p["limits"].dump();
  EXPECT_EQ(p["limits"][0]["limit"], "trace_events");
  EXPECT_EQ(p["limits"][0]["capacity"], 50);
  EXPECT_GE(p["limits"][0]["count"], 1);
  std::remove(si::path_for_rank(path, 0).c_str());
}

TEST(Trace, CutByMaxEventsLeavesNoTransferHalfOpen) {
  // A trace cut by trace_max_events must not leave an async span begun ('b') without its end ('e'), nor an end
  // without its begin: the bound keeps room for the other half of every transfer it has written half of. Main
  // thread: begins 1..3, the end of 99 (begun on another thread, whose ring is folded after main's: the end is
  // written first), 20 calls, ends 1..3. Bound 14: 3 'b', the 'e' of 99, 6 call/compute spans, the 3 'e', and the 'b'
  // of 99 — not the other thread's "post" instant, which would leave no room for it.
  const std::string path = ::testing::TempDir() + "trace_cut.json";
  si::config c;
  c.trace = true;
  c.trace_path = path;
  c.trace_max_events = 14;
  si::start(c, 0, 1);
  const auto me = si::current_thread_id();
  for (std::uint64_t id = 1; id <= 3; ++id) si::xfer_begin(id, 64, 1, me);
  std::thread([&] { si::xfer_begin(99, 64, 1, me); }).join();
  si::xfer_end(99, me);
  for (int i = 0; i < 20; ++i) {
    si::call_enter(category::test);
    si::call_exit(category::test);
  }
  for (std::uint64_t id = 1; id <= 3; ++id) si::xfer_end(id, me);
  ::testing::internal::CaptureStderr();
  si::stop();
  (void)::testing::internal::GetCapturedStderr();
  const json t = read_json(si::path_for_rank(path, 0));
  std::map<std::string, std::pair<int, int>> halves;  // id -> (b, e)
  int events = 0, spans = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M") continue;
    ++events;
    if (e["ph"] == "X") ++spans;
    if (e["ph"] == "b") ++halves[e["id"].get<std::string>()].first;
    if (e["ph"] == "e") ++halves[e["id"].get<std::string>()].second;
  }
  EXPECT_LE(events, 14);
  EXPECT_EQ(t["otherData"]["truncated"], true);
  for (const auto& [id, be] : halves) {
    EXPECT_EQ(be.first, 1) << "transfer " << id << ": 'b' events";
    EXPECT_EQ(be.second, 1) << "transfer " << id << ": 'e' events";
  }
  EXPECT_EQ(halves.size(), 4u);  // 1, 2, 3 and 99: written before the cut, so their ends are too
  EXPECT_EQ(spans, 6);
  std::remove(si::path_for_rank(path, 0).c_str());
}

namespace {
json sample_rank(int rank, int nranks) {
  si::config c;
  c.profile = true;
  c.clock = si::event_clock::monotonic;  // synthetic times are nanoseconds
  si::start(c, rank, nranks);
  si::set_run_info("core", "shm", 4);
  si::set_progress_stats(0.5, 1.5, 100, 10);
  si::set_xfer_time_table({{0, 1e-6}}, "calibration: test");
  const auto me = si::current_thread_id();
  const std::uint64_t b = T0 + static_cast<std::uint64_t>(rank) * 1000;
  sd::call_enter_at(category::init, b);
  sd::xfer_begin_at(1, 10, 0, me, b + 1);
  sd::call_exit_at(category::init, b + 2);
  sd::call_enter_at(category::wait, b + 5000);
  sd::xfer_end_at(1, me, b + 5001);
  sd::call_exit_at(category::wait, b + 5002 + static_cast<std::uint64_t>(rank));
  sd::region_enter_at("r", b + 6000);
  sd::call_enter_at(category::blocking, b + 6001);
  sd::xfer_begin_at(2, 1000, 0, me, b + 6002);
  sd::xfer_end_at(2, me, b + 6003);
  sd::call_exit_at(category::blocking, b + 6004);
  sd::region_exit_at(b + 6005);
  json p = json::parse(si::rank_profile_json());
  si::stop();
  return p;
}
}  // namespace

TEST(Profile, RankProfileHasEveryField) {
  const json p = sample_rank(1, 2);
  EXPECT_EQ(p["schema"], "sidecore-profile");
  EXPECT_EQ(p["schema_version"], 1);
  EXPECT_EQ(p["kind"], "rank");
  EXPECT_EQ(p["rank"], 1);
  EXPECT_EQ(p["nranks"], 2);
  EXPECT_EQ(p["mode"], "core");
  EXPECT_EQ(p["provider"], "shm");
  EXPECT_EQ(p["n_core"], 4);
  for (const char* k : {"t_total_s", "t_comp_s"}) EXPECT_TRUE(p[k].is_number()) << k;
  for (const char* c : {"blocking", "init", "test", "wait", "other"}) {
    for (const char* k : {"time_s", "count", "min_s"}) EXPECT_TRUE(p["categories"][c][k].is_number()) << c << k;
  }
  const json& o = p["overlap"];
  EXPECT_EQ(o["xfer_time_source"], "calibration: test");
  for (const char* k : {"min_s", "max_s", "xfer_time_s", "count"}) EXPECT_TRUE(o["total"][k].is_number()) << k;
  EXPECT_EQ(o["total"]["count"], 2);
  EXPECT_EQ(o["by_size"].size(), 2u);
  ASSERT_EQ(o["by_region"].size(), 1u);
  EXPECT_EQ(o["by_region"][0]["name"], "r");
  ASSERT_EQ(p["regions"].size(), 1u);
  EXPECT_EQ(p["regions"][0]["name"], "r");
  EXPECT_EQ(p["regions"][0]["entries"], 1);
  for (const char* c : {"blocking", "init", "test", "wait", "other"}) {
    for (const char* k : {"time_s", "count"}) EXPECT_TRUE(p["regions"][0]["categories"][c][k].is_number()) << c << k;
  }
  EXPECT_DOUBLE_EQ(p["progress_thread"]["busy_s"].get<double>(), 0.5);
  EXPECT_EQ(p["progress_thread"]["polls"], 100);
}

TEST(Profile, MergeIntoJob) {
  const json r0 = sample_rank(0, 2), r1 = sample_rank(1, 2);
  const json j = json::parse(si::merge_job_profile({r1.dump(), r0.dump()}));
  EXPECT_EQ(j["kind"], "job");
  EXPECT_EQ(j["nranks"], 2);
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["ranks"][0]["rank"], 0);  // sorted by rank
  EXPECT_EQ(j["categories"]["wait"]["count"], 2);
  // wait lasted 5002 - 5000 = 2 ns on rank 0 and 3 ns on rank 1: sum 5 ns, min 2 ns.
  EXPECT_NEAR(j["categories"]["wait"]["time_s"].get<double>(), 5e-9, 1e-18);
  EXPECT_NEAR(j["categories"]["wait"]["min_s"].get<double>(), 2e-9, 1e-18);
  EXPECT_EQ(j["overlap"]["total"]["count"], 4);
  EXPECT_EQ(j["progress_thread"]["polls"], 200);
  // Region "r" on each rank: one entry of 6005 - 6000 = 5 ns holding one blocking call of 6004 - 6001 = 3 ns.
  ASSERT_EQ(j["regions"].size(), 1u);
  const json& r = j["regions"][0];
  EXPECT_EQ(r["name"], "r");
  EXPECT_EQ(r["entries"], 2);
  EXPECT_NEAR(r["time_s"].get<double>(), 10e-9, 1e-18);
  EXPECT_EQ(r["categories"]["blocking"]["count"], 2);
  EXPECT_NEAR(r["categories"]["blocking"]["time_s"].get<double>(), 6e-9, 1e-18);
  EXPECT_EQ(r["categories"]["wait"]["count"], 0);
  EXPECT_DOUBLE_EQ(j["t_total_s"].get<double>(),
                   std::max(r0["t_total_s"].get<double>(), r1["t_total_s"].get<double>()));
  EXPECT_THROW((void)si::merge_job_profile({r0.dump(), r0.dump()}), std::invalid_argument);
  EXPECT_THROW((void)si::merge_job_profile({"{}"}), std::invalid_argument);
  EXPECT_THROW((void)si::merge_job_profile({}), std::invalid_argument);
}

TEST(Profile, MergeErrorsNameTheInputsByTheirPosition) {
  // The inputs are sorted by rank for the merge; an error must still name them by their position in the input.
  const json r0 = sample_rank(0, 3), r1 = sample_rank(1, 3), r2 = sample_rank(2, 3);
  auto message = [](const std::vector<std::string>& in) -> std::string {
    try {
      (void)si::merge_job_profile(in);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    ADD_FAILURE() << "merged";
    return {};
  };
  const std::string dup = message({r2.dump(), r0.dump(), r1.dump(), r0.dump()});
  EXPECT_NE(dup.find("ranks[3]"), std::string::npos) << dup;
  EXPECT_NE(dup.find("ranks[1]"), std::string::npos) << dup;
  EXPECT_NE(dup.find("rank 0 appears twice"), std::string::npos) << dup;
  json r1off = r1;
  r1off["mode"] = "off";
  const std::string mixed = message({r2.dump(), r1off.dump(), r0.dump()});
  EXPECT_NE(mixed.find("ranks[1]"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("\"off\""), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("ranks[0]"), std::string::npos) << mixed;
  json bad = r2;
  bad["categories"]["wait"]["time_s"] = -1.0;
  const std::string invalid = message({r0.dump(), bad.dump()});
  EXPECT_NE(invalid.find("input 1: categories.wait.time_s"), std::string::npos) << invalid;
}

TEST(Regions, TimeEntriesAndCallsOnASyntheticSequence) {
  // Synthetic times in ns (monotonic event clock). Main thread:
  //   [0, 200]      "solve"        entry 1
  //     [10, 15]      init call    (5)        -> solve
  //     [20, 100]     "halo"       entry 1   (path "solve/halo")
  //       [30, 70]      wait call  (40)       -> solve/halo and solve (a region's calls include its sub-regions')
  //   [300, 350]    "solve"        entry 2
  //     [310, 330]    blocking call (20)     -> solve
  //     [320, ...]    nested init inside the blocking call: counted once, under blocking
  //   [400, 410]    other call outside every region: in no region
  //   [2000, open]  "tail", still open when the window ends at 2500: one entry of 500
  // Second thread: [1000, 1100] "solve" entry 3, with a test call [1010, 1013] (3).
  // Expected: solve: 3 entries, 200 + 50 + 100 = 350 ns; init 5/1, wait 40/1, blocking 20/1, test 3/1, other 0/0.
  //           solve/halo: 1 entry, 80 ns; wait 40/1.   tail: 1 entry, 500 ns, no calls.
  si::config cfg;
  cfg.profile = true;
  cfg.clock = si::event_clock::monotonic;
  si::start(cfg, 0, 1);
  sd::set_window_start(T0);
  sd::region_enter_at("solve", T0);
  sd::call_enter_at(category::init, T0 + 10);
  sd::call_exit_at(category::init, T0 + 15);
  sd::region_enter_at("halo", T0 + 20);
  sd::call_enter_at(category::wait, T0 + 30);
  sd::call_exit_at(category::wait, T0 + 70);
  sd::region_exit_at(T0 + 100);
  sd::region_exit_at(T0 + 200);
  sd::region_enter_at("solve", T0 + 300);
  sd::call_enter_at(category::blocking, T0 + 310);
  sd::call_enter_at(category::init, T0 + 320);
  sd::call_exit_at(category::init, T0 + 325);
  sd::call_exit_at(category::blocking, T0 + 330);
  sd::region_exit_at(T0 + 350);
  sd::call_enter_at(category::other, T0 + 400);
  sd::call_exit_at(category::other, T0 + 410);
  std::thread([] {
    sd::region_enter_at("solve", T0 + 1000);
    sd::call_enter_at(category::test, T0 + 1010);
    sd::call_exit_at(category::test, T0 + 1013);
    sd::region_exit_at(T0 + 1100);
  }).join();
  sd::region_enter_at("tail", T0 + 2000);
  sd::set_window_end(T0 + 2500);
  const json p = json::parse(si::rank_profile_json());
  const json& regions = p["regions"];
  ASSERT_EQ(regions.size(), 3u);  // sorted by name
  const json& solve = regions[0];
  const json& halo = regions[1];
  const json& tail = regions[2];
  EXPECT_EQ(solve["name"], "solve");
  EXPECT_EQ(halo["name"], "solve/halo");
  EXPECT_EQ(tail["name"], "tail");
  EXPECT_EQ(solve["entries"], 3);
  EXPECT_NEAR(solve["time_s"].get<double>(), 350e-9, 1e-18);
  auto cat = [](const json& r, const char* c) { return std::make_pair(r["categories"][c]["time_s"].get<double>(),
                                                                      r["categories"][c]["count"].get<int>()); };
  EXPECT_NEAR(cat(solve, "init").first, 5e-9, 1e-18);
  EXPECT_EQ(cat(solve, "init").second, 1);
  EXPECT_NEAR(cat(solve, "wait").first, 40e-9, 1e-18);
  EXPECT_EQ(cat(solve, "wait").second, 1);
  EXPECT_NEAR(cat(solve, "blocking").first, 20e-9, 1e-18);
  EXPECT_EQ(cat(solve, "blocking").second, 1);
  EXPECT_NEAR(cat(solve, "test").first, 3e-9, 1e-18);
  EXPECT_EQ(cat(solve, "test").second, 1);
  EXPECT_EQ(cat(solve, "other").second, 0);
  EXPECT_EQ(cat(solve, "other").first, 0.0);
  EXPECT_EQ(halo["entries"], 1);
  EXPECT_NEAR(halo["time_s"].get<double>(), 80e-9, 1e-18);
  EXPECT_NEAR(cat(halo, "wait").first, 40e-9, 1e-18);
  EXPECT_EQ(cat(halo, "wait").second, 1);
  for (const char* c : {"blocking", "init", "test", "other"}) EXPECT_EQ(cat(halo, c).second, 0) << c;
  EXPECT_EQ(tail["entries"], 1);
  EXPECT_NEAR(tail["time_s"].get<double>(), 500e-9, 1e-18);
  for (const char* c : {"blocking", "init", "test", "wait", "other"}) EXPECT_EQ(cat(tail, c).second, 0) << c;
  // The whole-rank categories are unchanged by regions: 5 outermost calls (the nested init is not one).
  EXPECT_EQ(p["categories"]["init"]["count"], 1);
  EXPECT_EQ(p["categories"]["other"]["count"], 1);
  // A second profile does not consume the open region.
  const json again = json::parse(si::rank_profile_json());
  EXPECT_EQ(again["regions"][2]["entries"], 1);
  // The job merge sums regions by name.
  const json j = json::parse(si::merge_job_profile({p.dump()}));
  ASSERT_EQ(j["regions"].size(), 3u);
  EXPECT_EQ(j["regions"][0]["entries"], 3);
  EXPECT_NEAR(j["regions"][0]["categories"]["wait"]["time_s"].get<double>(), 40e-9, 1e-18);
  si::stop();
}

TEST(Regions, OverlapBoundsIncludeSubRegions) {
  // Synthetic ns, xfer_time 10 ns for every size. Like region times and calls, a region's overlap bounds include
  // its sub-regions': a transfer begun in "solve/halo" counts for "solve/halo" and for "solve".
  //   [0, 400] "solve"
  //     xfer 1: begin at 11 in init [10, 12], end at 102 in wait [100, 105]: window 91, noncomputation 1 + 2 = 3,
  //             x = 10: max = min(88, 10) = 10, min = 10 - 3 = 7                                -> solve
  //     xfer 5: unpaired end at 150 (case 3): min 0, max 10, xfer 10                            -> solve
  //     [200, 300] "halo"
  //       xfer 2: begin at 211 in init [210, 212], end at 219 in wait [214, 220]: window 8, noncomputation
  //               1 + 5 = 6, x = 8: max = min(2, 8) = 2, min = 8 - 6 = 2                      -> solve/halo, solve
  //       xfer 4: begin at 250, never ended (case 3): min 0, max 10, xfer 10                  -> solve/halo, solve
  //   xfer 3 outside every region: begin 501 and end 502 in one call [500, 510] (case 1): 0, 0, xfer 1
  // Expected: solve/halo {min 2, max 12, xfer 18, count 2}; solve {9, 32, 38, 4}; total {9, 32, 39, 5}.
  si::config cfg;
  cfg.profile = true;
  cfg.clock = si::event_clock::monotonic;
  si::start(cfg, 0, 1);
  si::set_xfer_time_table({{0, 10e-9}}, "test");
  const auto me = si::current_thread_id();
  sd::set_window_start(T0);
  sd::region_enter_at("solve", T0);
  sd::call_enter_at(category::init, T0 + 10);
  sd::xfer_begin_at(1, 64, 1, me, T0 + 11);
  sd::call_exit_at(category::init, T0 + 12);
  sd::call_enter_at(category::wait, T0 + 100);
  sd::xfer_end_at(1, me, T0 + 102);
  sd::call_exit_at(category::wait, T0 + 105);
  sd::xfer_end_only_at(5, 64, 1, me, T0 + 150);
  sd::region_enter_at("halo", T0 + 200);
  sd::call_enter_at(category::init, T0 + 210);
  sd::xfer_begin_at(2, 64, 1, me, T0 + 211);
  sd::call_exit_at(category::init, T0 + 212);
  sd::call_enter_at(category::wait, T0 + 214);
  sd::xfer_end_at(2, me, T0 + 219);
  sd::call_exit_at(category::wait, T0 + 220);
  sd::xfer_begin_at(4, 64, 1, me, T0 + 250);
  sd::region_exit_at(T0 + 300);
  sd::region_exit_at(T0 + 400);
  sd::call_enter_at(category::blocking, T0 + 500);
  sd::xfer_begin_at(3, 64, 1, me, T0 + 501);
  sd::xfer_end_at(3, me, T0 + 502);
  sd::call_exit_at(category::blocking, T0 + 510);
  sd::set_window_end(T0 + 1000);
  const json p = json::parse(si::rank_profile_json());
  auto expect_bounds = [](const json& b, double mn, double mx, double xt, int count, const std::string& what) {
    EXPECT_NEAR(b["min_s"].get<double>(), mn * 1e-9, 1e-18) << what;
    EXPECT_NEAR(b["max_s"].get<double>(), mx * 1e-9, 1e-18) << what;
    EXPECT_NEAR(b["xfer_time_s"].get<double>(), xt * 1e-9, 1e-18) << what;
    EXPECT_EQ(b["count"], count) << what;
  };
  const json& by_region = p["overlap"]["by_region"];
  ASSERT_EQ(by_region.size(), 2u);  // sorted by name
  EXPECT_EQ(by_region[0]["name"], "solve");
  EXPECT_EQ(by_region[1]["name"], "solve/halo");
  expect_bounds(by_region[0], 9, 32, 38, 4, "solve");
  expect_bounds(by_region[1], 2, 12, 18, 2, "solve/halo");
  expect_bounds(p["overlap"]["total"], 9, 32, 39, 5, "total");
  // The job merge keeps them (summed by name).
  const json j = json::parse(si::merge_job_profile({p.dump()}));
  expect_bounds(j["overlap"]["by_region"][0], 9, 32, 38, 4, "job solve");
  si::stop();
}

TEST(Regions, APathThatCannotBeInternedIsNotCountedTwiceInItsParent) {
  // Past 65535 distinct paths a new path cannot be interned; its time and calls belong to its parent, but the
  // parent is not entered a second time: "p" keeps 1 entry of 100 ns, and the call made inside the path that did not
  // fit counts for "p" once.
  si::config cfg;
  cfg.profile = true;
  cfg.clock = si::event_clock::monotonic;
  si::start(cfg, 0, 1);
  sd::set_window_start(T0);
  sd::region_enter_at("p", T0);
  for (int i = 0; i < 65534; ++i) {  // p and these 65534 fill the 65535 paths
    sd::region_enter_at("c" + std::to_string(i), T0 + 1);
    sd::region_exit_at(T0 + 1);
  }
  ::testing::internal::CaptureStderr();
  sd::region_enter_at("overflow", T0 + 10);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("distinct region paths"), std::string::npos) << err;
  sd::call_enter_at(category::init, T0 + 12);
  sd::call_exit_at(category::init, T0 + 15);
  sd::region_exit_at(T0 + 20);
  sd::region_exit_at(T0 + 100);
  sd::set_window_end(T0 + 1000);
  const json p = json::parse(si::rank_profile_json());
  const json* top = nullptr;
  for (const auto& r : p["regions"]) {
    if (r["name"] == "p") top = &r;
    EXPECT_EQ(r["name"].get<std::string>().find("overflow"), std::string::npos);
  }
  ASSERT_NE(top, nullptr);
  EXPECT_EQ((*top)["entries"], 1);
  EXPECT_NEAR((*top)["time_s"].get<double>(), 100e-9, 1e-18);
  EXPECT_EQ((*top)["categories"]["init"]["count"], 1);
  EXPECT_NEAR((*top)["categories"]["init"]["time_s"].get<double>(), 3e-9, 1e-18);
  ASSERT_EQ(p["limits"].size(), 1u) << p.dump();  // the one entry without a path of its own
  EXPECT_EQ(p["limits"][0]["limit"], "region_paths");
  EXPECT_EQ(p["limits"][0]["capacity"], 65535);
  EXPECT_EQ(p["limits"][0]["count"], 1);
  si::stop();
}

TEST(Regions, DeeperThanTheDepthLimitWarnsOnceAndCountsForTheDeepestTrackedRegion) {
  // 70 nested regions r0 .. r69 (the limit is 64): r64 .. r69 have no path of their own; their time and the call made
  // in r69 count for r0/../r63, the deepest tracked path, which stays entered once. One warning names the limit, the
  // region past it and where its time goes. The exits unwind to depth 0, and a region entered afterwards is tracked.
  //   r_d entered at 10 d, left at 2000 + 10 (69 - d): time 2690 - 20 d; wait call [1000, 1010] inside r69.
  constexpr int kDepth = 70;
  si::config cfg;
  cfg.profile = true;
  cfg.clock = si::event_clock::monotonic;
  si::start(cfg, 0, 1);
  sd::set_window_start(T0);
  ::testing::internal::CaptureStderr();
  for (int d = 0; d < kDepth; ++d) {
    sd::region_enter_at("r" + std::to_string(d), T0 + 10 * static_cast<std::uint64_t>(d));
  }
  sd::call_enter_at(category::wait, T0 + 1000);
  sd::call_exit_at(category::wait, T0 + 1010);
  sd::region_exit_at(T0 + 1500);  // r69 left and entered again: too deep again, no second warning
  sd::region_enter_at("again", T0 + 1600);
  for (int d = kDepth - 1; d >= 0; --d) {
    sd::region_exit_at(T0 + 2000 + 10 * static_cast<std::uint64_t>(kDepth - 1 - d));
  }
  sd::region_exit_at(T0 + 2900);  // one exit too many: ignored
  const std::string err = ::testing::internal::GetCapturedStderr();
  sd::region_enter_at("after", T0 + 3000);
  sd::call_enter_at(category::test, T0 + 3010);
  sd::call_exit_at(category::test, T0 + 3013);
  sd::region_exit_at(T0 + 3100);
  sd::set_window_end(T0 + 4000);
  std::size_t warnings = 0;
  for (std::size_t at = err.find("sidecore: instrument:"); at != std::string::npos;
       at = err.find("sidecore: instrument:", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 1u) << err;
  EXPECT_NE(err.find("64 nested regions"), std::string::npos) << err;
  EXPECT_NE(err.find("'r64'"), std::string::npos) << err;
  std::string deepest = "r0";
  for (int d = 1; d < 64; ++d) deepest += "/r" + std::to_string(d);
  EXPECT_NE(err.find("'" + deepest + "'"), std::string::npos) << err;
  const json p = json::parse(si::rank_profile_json());
  std::map<std::string, json> by_name;
  for (const auto& r : p["regions"]) by_name[r["name"].get<std::string>()] = r;
  EXPECT_EQ(by_name.size(), 65u);  // r0 .. r63's paths and "after"
  std::string path;
  for (int d = 0; d < 64; ++d) {
    path += (d == 0 ? "" : "/") + ("r" + std::to_string(d));
    ASSERT_EQ(by_name.count(path), 1u) << path;
    const json& r = by_name[path];
    EXPECT_EQ(r["entries"], 1) << path;
    EXPECT_NEAR(r["time_s"].get<double>(), (2690.0 - 20.0 * d) * 1e-9, 1e-18) << path;
    EXPECT_EQ(r["categories"]["wait"]["count"], 1) << path;
    EXPECT_NEAR(r["categories"]["wait"]["time_s"].get<double>(), 10e-9, 1e-18) << path;
  }
  ASSERT_EQ(by_name.count("after"), 1u);
  EXPECT_EQ(by_name["after"]["entries"], 1);
  EXPECT_NEAR(by_name["after"]["time_s"].get<double>(), 100e-9, 1e-18);
  EXPECT_EQ(by_name["after"]["categories"]["test"]["count"], 1);
  EXPECT_EQ(by_name["after"]["categories"]["wait"]["count"], 0);
  EXPECT_EQ(p["categories"]["wait"]["count"], 1);
  // The profile says its region figures are incomplete: r64 .. r69 and "again", 7 entries past the depth.
  ASSERT_TRUE(p.contains("limits")) << p.dump();
  ASSERT_EQ(p["limits"].size(), 1u) << p["limits"].dump();
  EXPECT_EQ(p["limits"][0]["limit"], "region_depth");
  EXPECT_EQ(p["limits"][0]["capacity"], 64);
  EXPECT_EQ(p["limits"][0]["count"], 7);
  EXPECT_EQ(p["limits"][0]["detail"], "7 region entries went deeper than 64 nested regions: their time, calls and "
                                      "transfers count for the enclosing region");
  EXPECT_FALSE(p["limits"][0].contains("ranks"));
  si::stop();
}

TEST(Regions, ALaterCollectionWithinTheLimitsListsNone) {
  // The counts of a limit belong to one collection: after one that went past the depth and the trace's bound, a
  // collection within every limit (and without a trace) writes no "limits" at all, as profiles did before the field.
  const std::string path = ::testing::TempDir() + "trace_limits_reset.json";
  si::config cfg;
  cfg.profile = true;
  cfg.trace = true;
  cfg.trace_path = path;
  cfg.trace_max_events = 4;
  si::start(cfg, 0, 1);
  ::testing::internal::CaptureStderr();
  for (int d = 0; d < 65; ++d) si::region_enter("r");
  for (int d = 0; d < 65; ++d) si::region_exit();
  for (int i = 0; i < 20; ++i) {
    si::call_enter(category::test);
    si::call_exit(category::test);
  }
  si::stop();
  (void)::testing::internal::GetCapturedStderr();
  const json before = json::parse(si::rank_profile_json());
  ASSERT_TRUE(before.contains("limits")) << before.dump();
  std::set<std::string> kinds;
  for (const auto& l : before["limits"]) kinds.insert(l["limit"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"region_depth", "trace_events"}));
  std::remove(si::path_for_rank(path, 0).c_str());
  si::config plain;
  plain.profile = true;
  si::start(plain, 0, 1);
  si::region_enter("r");
  si::call_enter(category::test);
  si::call_exit(category::test);
  si::region_exit();
  const json after = json::parse(si::rank_profile_json());
  si::stop();
  EXPECT_FALSE(after.contains("limits")) << after["limits"].dump();
}

TEST(Regions, ManyEntriesThroughTheRealHooks) {
  // The public hooks with the real clock: 1000 entries of a region holding a call, name cache included
  // (a std::string buffer reused with different contents must not alias).
  si::config c;
  c.profile = true;
  c.ring_events = 64;
  si::start(c, 0, 1);
  std::string name = "a";
  for (int i = 0; i < 1000; ++i) {
    name[0] = i % 2 == 0 ? 'a' : 'b';
    si::region_enter(name);
    si::call_enter(category::test);
    si::call_exit(category::test);
    si::region_exit();
  }
  const json p = json::parse(si::rank_profile_json());
  ASSERT_EQ(p["regions"].size(), 2u);
  for (const auto& r : p["regions"]) {
    EXPECT_EQ(r["entries"], 500) << r["name"];
    EXPECT_EQ(r["categories"]["test"]["count"], 500) << r["name"];
    EXPECT_GE(r["time_s"].get<double>(), r["categories"]["test"]["time_s"].get<double>()) << r["name"];
  }
  EXPECT_EQ(p["regions"][0]["name"], "a");
  EXPECT_EQ(p["regions"][1]["name"], "b");
  si::stop();
}

TEST(Regions, OneNameFromManyBuffersAndParentsThroughTheRealHooks) {
  // The name caches key on the caller's pointer and on the contents' hash: the same contents from different buffers
  // are one region, the same buffer under another parent is another path, and an empty view (null data) is safe.
  si::config c;
  c.profile = true;
  c.ring_events = 64;
  si::start(c, 0, 1);
  const char literal[] = "solve";
  std::string heap(40, 'x');  // long: heap-allocated, a pointer of its own
  heap = "solve";
  std::string other = "solve";
  for (int i = 0; i < 300; ++i) {
    const std::string_view pick = i % 3 == 0 ? std::string_view(literal) : i % 3 == 1 ? std::string_view(heap)
                                                                                      : std::string_view(other);
    si::region_enter(pick);  // adjacent enter/exit records: folded as a pair
    si::region_exit();
    si::region_enter("outer");
    si::region_enter(literal);  // same pointer as above, other parent
    si::region_exit();
    si::region_exit();
  }
  si::region_enter(std::string_view{});
  si::region_exit();
  const json p = json::parse(si::rank_profile_json());
  std::map<std::string, int> entries;
  for (const auto& r : p["regions"]) entries[r["name"].get<std::string>()] = r["entries"].get<int>();
  EXPECT_EQ(entries["solve"], 300);
  EXPECT_EQ(entries["outer"], 300);
  EXPECT_EQ(entries["outer/solve"], 300);
  si::stop();
}

TEST(Profile, ModelReaderAcceptsRankAndJobProfiles) {
  const json r0 = sample_rank(0, 2), r1 = sample_rank(1, 2);
  const auto rp = sidecore::parse_profile(r0.dump(), "rank 0");
  EXPECT_EQ(rp.rank, 0);
  EXPECT_EQ(rp[category::wait].count, 1u);
  const auto jp = sidecore::parse_profile(si::merge_job_profile({r0.dump(), r1.dump()}), "job");
  EXPECT_EQ(jp.ranks.size(), 2u);
}

TEST(Profile, WrittenThroughTheSchemaLibraryAndReadBackEqual) {
  // The instrumentation fills sidecore::profile and writes it with format_profile: what it writes, the reader reads
  // back field for field (regions, event clock, the communicating thread and calling_threads included), for a rank
  // profile and for the job merge.
  const json r0 = sample_rank(0, 2), r1 = sample_rank(1, 2);
  const sidecore::profile p0 = sidecore::parse_profile(r0.dump(), "rank 0");
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(p0)), p0);
  ASSERT_EQ(p0.regions.size(), 1u);
  EXPECT_EQ(p0.regions[0].name, "r");
  EXPECT_EQ(p0.regions[0].categories[static_cast<std::size_t>(category::blocking)].count, 1u);
  ASSERT_TRUE(p0.event_clock.has_value());
  EXPECT_EQ(p0.event_clock->source, "monotonic");
  EXPECT_EQ(p0.calling_threads, 1);
  ASSERT_TRUE(p0.thread_categories.has_value());
  EXPECT_EQ(*p0.thread_categories, p0.categories) << "one calling thread: its own calls are the rank's";
  const std::string job_text = si::merge_job_profile({r1.dump(), r0.dump()});
  const sidecore::profile job = sidecore::parse_profile(job_text, "job");
  EXPECT_EQ(sidecore::format_profile(job), job_text);
  EXPECT_EQ(job.ranks[0], p0);
  ASSERT_EQ(job.regions.size(), 1u);
  EXPECT_EQ(job.regions[0].entries, 2u);
  // The text keeps the schema's order: schema fields first.
  EXPECT_EQ(job_text.find("\"schema\""), job_text.find('"'));
}

TEST(Profile, CommunicatingThreadCountsItsOwnCallsInsideTheWindow) {
  // Two calling threads: the first is the communicating one (t_comp's thread). Its own categories hold its calls
  // inside the window only, so that they never sum above t_total; the rank's categories hold every call.
  si::config c;
  c.profile = true;
  c.clock = si::event_clock::monotonic;
  si::start(c, 0, 1);
  sd::set_window_start(T0);
  sd::call_enter_at(category::wait, T0 + 100);
  sd::call_exit_at(category::wait, T0 + 400);  // 300 ns, the communicating thread
  std::thread([] {
    sd::call_enter_at(category::blocking, T0 + 200);
    sd::call_exit_at(category::blocking, T0 + 900);  // 700 ns, another thread
  }).join();
  sd::set_window_end(T0 + 1000);
  si::end_window();
  sd::call_enter_at(category::wait, T0 + 2000);  // after the window
  sd::call_exit_at(category::wait, T0 + 7000);
  const sidecore::profile p = si::rank_profile();
  si::stop();
  EXPECT_EQ(p.calling_threads, 2);
  EXPECT_EQ(p[category::wait].count, 2u);
  EXPECT_EQ(p[category::blocking].count, 1u);
  ASSERT_TRUE(p.thread_categories.has_value());
  const auto& own = *p.thread_categories;
  EXPECT_EQ(own[static_cast<std::size_t>(category::wait)].count, 1u);
  EXPECT_NEAR(own[static_cast<std::size_t>(category::wait)].time_s, 300e-9, 1e-15);
  EXPECT_EQ(own[static_cast<std::size_t>(category::blocking)].count, 0u);
  EXPECT_NEAR(p.t_total_s, 1000e-9, 1e-15);
  EXPECT_NEAR(p.t_comp_s + own[static_cast<std::size_t>(category::wait)].time_s, p.t_total_s, 1e-15);
}

TEST(Collection, ThreadsPastTheTableTakeOverExitedThreadsStates) {
  // More threads over the collection than the table has slots (1024), never more than one alive: every call
  // counts, and so does every calling thread.
  si::config c;
  c.profile = true;
  si::start(c, 0, 1);
  constexpr int kThreads = 1100;
  for (int i = 0; i < kThreads; ++i) {
    std::thread t([] {
      si::call_enter(category::init);
      si::call_exit(category::init);
    });
    t.join();
  }
  const json p = json::parse(si::rank_profile_json());
  EXPECT_EQ(p["categories"]["init"]["count"], kThreads);
  EXPECT_EQ(p["calling_threads"], kThreads);
  si::stop();
}

TEST(Collection, ThreadsAliveAtOncePastTheTableStillCountEveryCall) {
  // More threads alive at once than the table has slots (an OpenMP team of 1100 threads): none has exited, so none
  // can take a state over. Every call still counts in its category, nested ones once, and so does every thread.
  si::config c;
  c.profile = true;
  si::start(c, 0, 1);
  constexpr int kThreads = static_cast<int>(si::max_threads) + 76;
  std::atomic<int> called{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&called] {
      si::call_enter(category::wait);
      si::call_enter(category::test);  // nested: counted once, under the outermost call
      si::call_exit(category::test);
      si::call_exit(category::wait);
      si::call_enter(category::blocking);
      si::call_exit(category::blocking);
      called.fetch_add(1);
      while (called.load() < kThreads) std::this_thread::yield();  // nobody exits before every thread has called
    });
  }
  for (auto& t : threads) t.join();
  const json p = json::parse(si::rank_profile_json());
  si::stop();
  EXPECT_EQ(p["categories"]["wait"]["count"], kThreads);
  EXPECT_EQ(p["categories"]["blocking"]["count"], kThreads);
  EXPECT_EQ(p["categories"]["test"]["count"], 0);
  EXPECT_EQ(p["calling_threads"], kThreads);
  // The transfers of the 76 threads without a slot would be missing: the profile says so.
  ASSERT_TRUE(p.contains("limits")) << "no limits in the profile";
  ASSERT_EQ(p["limits"].size(), 1u) << p["limits"].dump();
  EXPECT_EQ(p["limits"][0]["limit"], "thread_table");
  EXPECT_EQ(p["limits"][0]["capacity"], si::max_threads);
  EXPECT_EQ(p["limits"][0]["count"], 76);
  EXPECT_NE(p["limits"][0]["detail"].get<std::string>().find("76 threads found the 1024-slot thread table full"),
            std::string::npos)
      << p["limits"][0]["detail"];
}

TEST(Collection, ThreadsAliveAtOncePastTheTableStillCountTheirRegions) {
  // As above, with regions (synthetic ns): the threads past the table count their regions' entries, time and calls
  // in shared counters, so every thread's are in the profile, an entry still open at the window's end included.
  //   team [100, 300] > inner [110, 190] > wait call [120, 150]; open [400, ...) left open, the window ends at 1000.
  si::config c;
  c.profile = true;
  c.clock = si::event_clock::monotonic;
  si::start(c, 0, 1);
  sd::set_window_start(T0);
  constexpr int kThreads = static_cast<int>(si::max_threads) + 76;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&done] {
      sd::region_enter_at("team", T0 + 100);
      sd::region_enter_at("inner", T0 + 110);
      sd::call_enter_at(category::wait, T0 + 120);
      sd::call_exit_at(category::wait, T0 + 150);
      sd::region_exit_at(T0 + 190);
      sd::region_exit_at(T0 + 300);
      sd::region_enter_at("open", T0 + 400);
      done.fetch_add(1);
      while (done.load() < kThreads) std::this_thread::yield();  // nobody exits before every thread has entered
    });
  }
  for (auto& t : threads) t.join();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("regions are counted"), std::string::npos) << err;
  sd::set_window_end(T0 + 1000);
  const json p = json::parse(si::rank_profile_json());
  si::stop();
  std::map<std::string, json> by_name;
  for (const auto& r : p["regions"]) by_name[r["name"].get<std::string>()] = r;
  ASSERT_EQ(by_name.size(), 3u);
  const double n = kThreads;
  for (const auto& [name, ns, calls] : {std::tuple{"team", 200.0, 1}, std::tuple{"team/inner", 80.0, 1},
                                        std::tuple{"open", 600.0, 0}}) {
    const json& r = by_name[name];
    EXPECT_EQ(r["entries"], kThreads) << name;
    EXPECT_NEAR(r["time_s"].get<double>(), n * ns * 1e-9, 1e-15) << name;
    EXPECT_EQ(r["categories"]["wait"]["count"], calls * kThreads) << name;
    EXPECT_NEAR(r["categories"]["wait"]["time_s"].get<double>(), calls * n * 30e-9, 1e-15) << name;
  }
  EXPECT_EQ(p["categories"]["wait"]["count"], kThreads);
}

TEST(Profile, CommandLineThatIsNotUtf8IsWrittenWithReplacements) {
  // JSON holds UTF-8 only: a Latin-1 byte, a truncated sequence, an overlong form and a surrogate each become
  // U+FFFD; well-formed multi-byte characters are kept.
  si::config c;
  c.profile = true;
  si::start(c, 0, 1);
  si::set_command_line("app caf\xe9 \xc3\xa9 \xe2\x82 \xc0\xaf \xed\xa0\x80 \xf0\x9f\x98\x80 \xf4\x90\x80\x80");
  const json p = json::parse(si::rank_profile_json());
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(p["command"], "app caf" + r + " \xc3\xa9 " + r + r + " " + r + r + " " + r + r + r + " \xf0\x9f\x98\x80 " +
                              r + r + r + r);
  si::stop();
}

TEST(Profile, RegionNameThatIsNotUtf8IsWrittenWithAReplacement) {
  // A region named in Latin-1 (sidecore_region_begin("café") in a Latin-1 source file) is in the profile and the trace,
  // its byte written as U+FFFD: it cost the whole profile before.
  const std::string trace = ::testing::TempDir() + "sidecore_latin1_region.trace.json";
  si::config c;
  c.profile = true;
  c.trace = true;
  c.trace_path = trace;
  si::start(c, 0, 1);
  si::region_enter("caf\xe9");
  si::call_enter(category::init);
  si::call_exit(category::init);
  si::region_exit();
  const json p = json::parse(si::rank_profile_json());
  ASSERT_EQ(p["regions"].size(), 1u);
  EXPECT_EQ(p["regions"][0]["name"], "caf\xef\xbf\xbd");
  si::stop();
  const json t = read_json(si::path_for_rank(trace, 0));
  bool named = false;
  for (const auto& e : t["traceEvents"]) {
    if (e.contains("name") && e["name"] == "caf\xef\xbf\xbd") named = true;
  }
  EXPECT_TRUE(named) << "no trace event named after the region";
  std::remove(si::path_for_rank(trace, 0).c_str());
}
