// When the model's hypotheses do not hold, the headline says "cannot judge" and why (docs/model.md, "When the
// model cannot judge"); multi-threaded ranks are modelled from the communicating thread; --cores asks "what if
// the node had N cores".
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/analysis.hpp"
#include "sidecore/model/input.hpp"
#include "sidecore/model/render.hpp"
#include "model_test_util.hpp"

namespace sm = sidecore::model;
using sidecore::category;

namespace {

using sctest::model_data;

using sctest::sample_profile;

bool has_reason(const sm::analysis& a, const std::string& id) {
  return std::any_of(a.cannot_judge.begin(), a.cannot_judge.end(), [&](const auto& r) { return r.id == id; });
}

using sctest::error_of;

}  // namespace

TEST(Judgement, HealthyInputsGetAVerdict) {
  const auto a = sm::analyze(sm::load_profiles({model_data + "/kripke_case1_off.json"}), {});
  EXPECT_TRUE(a.cannot_judge.empty());
  EXPECT_EQ(a.headline(), sm::verdict::pays_off);
  EXPECT_EQ(sm::render_text(a).rfind("VERDICT: PAYS OFF", 0), 0u);
}

// The real 8-thread ping-pong: t_MPI summed over threads (5.1 s) against 0.73 s of run time, no
// computation. It was "PAYS OFF 9.23x" with the warnings below.
TEST(Judgement, EightThreadPingPongWithoutThreadData) {
  const auto a = sm::analyze(sm::load_profiles({model_data + "/pingpong_8threads_off.json"}), {});
  EXPECT_TRUE(has_reason(a, "several-communicating-threads"));
  EXPECT_TRUE(has_reason(a, "no-computation"));
  EXPECT_EQ(a.headline(), sm::verdict::cannot_judge);
  const std::string text = sm::render_text(a);
  EXPECT_EQ(text.rfind("VERDICT: CANNOT JUDGE", 0), 0u) << text;
  EXPECT_NE(text.find("8 threads made calls"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(sm::render_json(a));
  EXPECT_EQ(j["verdict"], "cannot judge");
  EXPECT_EQ(j["cannot_judge"].size(), a.cannot_judge.size());
  EXPECT_NE(sm::render_html(a).find("cannot judge"), std::string::npos);
}

TEST(Judgement, CommunicatingThreadTotalsAreModelled) {
  auto p = sample_profile("pingpong_8threads_off.json");
  std::array<sidecore::category_totals, sidecore::category_count> own{};
  own[static_cast<std::size_t>(category::blocking)] = {0.5, 1000, 1e-4};
  p.thread_categories = own;
  p.t_comp_s = 0.2;
  const auto in = sm::make_job_input({p}, {"p.json"});
  ASSERT_EQ(in.ranks.size(), 1u);
  EXPECT_DOUBLE_EQ(in.ranks[0].t_mpi_s(), 0.5);  // the communicating thread's, not the 5.1 s of all threads
  const auto a = sm::analyze(in, {});
  EXPECT_FALSE(has_reason(a, "several-communicating-threads"));
  EXPECT_NE(sm::render_text(a).find("communicating thread's own calls"), std::string::npos);
}

TEST(Judgement, OversubscribedHost) {
  // The 8 ranks on 2 cores (shm: every rank on one host): was "PAYS OFF 2.136" without a word.
  auto r = sample_profile("kripke_case1_off.json");
  r.provider = "shm";
  r.nranks = 8;
  r.n_core = 2;
  std::vector<sidecore::profile> ranks;
  for (int i = 0; i < 8; ++i) {
    r.rank = i;
    ranks.push_back(r);
  }
  const auto a = sm::analyze(sm::make_job_input(ranks, {}), {});
  ASSERT_TRUE(has_reason(a, "oversubscribed"));
  EXPECT_EQ(a.headline(), sm::verdict::cannot_judge);
  // Two ranks of 2 cores each on one host: nothing says they shared cores.
  ranks.resize(2);
  for (auto& x : ranks) x.nranks = 2;
  EXPECT_FALSE(has_reason(sm::analyze(sm::make_job_input(ranks, {}), {}), "oversubscribed"));
}

// Profiles that name their host: the busy threads of each host (the n_core of its ranks) against its cores, whatever
// the provider. Two ranks of 2 cores on a 2-core host are oversubscribed, as `sidecore study` says of them; ranks
// spread over hosts of their own are not.
TEST(Judgement, OversubscribedHostFromTheProfilesHost) {
  auto r = sample_profile("kripke_case1_off.json");
  r.provider = "tcp;ofi_rxm";
  r.nranks = 2;
  r.n_core = 2;
  const auto job = [&](std::vector<sidecore::host_info> hosts) {
    std::vector<sidecore::profile> ranks;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      r.rank = static_cast<int>(i);
      r.nranks = static_cast<int>(hosts.size());
      r.host = hosts[i];
      ranks.push_back(r);
    }
    return sm::analyze(sm::make_job_input(ranks, {}), {});
  };
  const sidecore::host_info small{"00000000000000aa", 2}, big{"00000000000000aa", 4}, other{"00000000000000bb", 2};
  const auto a = job({small, small});
  ASSERT_TRUE(has_reason(a, "oversubscribed"));
  EXPECT_EQ(a.headline(), sm::verdict::cannot_judge);
  const auto reason = std::find_if(a.cannot_judge.begin(), a.cannot_judge.end(), [](const auto& b) {
                        return b.id == "oversubscribed";
                      })->reason;
  EXPECT_NE(reason.find("2 ranks (0, 1) ran on host 00000000000000aa, 2 cores each: 4 busy threads on its 2 cores"),
            std::string::npos)
      << reason;
  EXPECT_FALSE(has_reason(job({big, big}), "oversubscribed"));
  EXPECT_FALSE(has_reason(job({small, other}), "oversubscribed"));
  // Eight ranks over four 4-core hosts, two each: the shm-only rule would have flagged them (with provider shm).
  r.provider = "shm";
  const sidecore::host_info h[] = {{"01", 4}, {"02", 4}, {"03", 4}, {"04", 4}};
  EXPECT_FALSE(has_reason(job({h[0], h[0], h[1], h[1], h[2], h[2], h[3], h[3]}), "oversubscribed"));
  // One host of the four takes a third rank: that host is named.
  const auto three = job({h[0], h[0], h[1], h[1], h[2], h[2], h[3], h[3], h[3]});
  ASSERT_TRUE(has_reason(three, "oversubscribed"));
  EXPECT_NE(three.cannot_judge.front().reason.find(
                "3 ranks (6, 7, 8) ran on host 04, 2 cores each: 6 busy threads on its 4 cores"),
            std::string::npos)
      << three.cannot_judge.front().reason;
}

// One rank's profile of a 2-rank shm run (every rank on one host): the rank not given ran on that host too, so the
// host is as oversubscribed as the job profile says (it was judged "does not pay off" alone).
TEST(Judgement, OversubscribedHostCountsTheRanksNotGiven) {
  auto r = sample_profile("kripke_case1_off.json");
  r.provider = "shm";
  r.nranks = 2;
  r.rank = 1;
  r.n_core = 2;
  r.host = sidecore::host_info{"00000000000000aa", 2};
  const auto a = sm::analyze(sm::make_job_input({r}, {}), {});
  ASSERT_TRUE(has_reason(a, "oversubscribed"));
  const auto reason = std::find_if(a.cannot_judge.begin(), a.cannot_judge.end(), [](const auto& b) {
                        return b.id == "oversubscribed";
                      })->reason;
  EXPECT_NE(reason.find("2 ranks (1; 1 more not among the profiles given, counted at 2 cores: provider shm ran every "
                        "rank on one host) ran on host 00000000000000aa"),
            std::string::npos)
      << reason;
  // Another provider places ranks anywhere: the ranks not given are not counted.
  r.provider = "tcp;ofi_rxm";
  EXPECT_FALSE(has_reason(sm::analyze(sm::make_job_input({r}, {}), {}), "oversubscribed"));
}

// The times of a rank must add up to its run time. With neither computation nor calls over 5 s of run the formula's
// t_dedicated is 0 s: no speedup to print.
TEST(Judgement, RunTimeNotCoveredByComputationAndCalls) {
  auto p = sample_profile("kripke_case1_off.json");
  p.t_comp_s = 0;
  for (auto& c : p.categories) c = {};
  p.t_total_s = 5;
  const auto a = sm::analyze(sm::make_job_input({p}, {"idle.json"}), {});
  EXPECT_TRUE(has_reason(a, "run-time-not-covered"));
  EXPECT_TRUE(has_reason(a, "no-computation"));
  const std::string text = sm::render_text(a);
  EXPECT_EQ(text.rfind("VERDICT: CANNOT JUDGE - the model's hypotheses do not hold for this run, so its formula "
                       "(t_dedicated 0 s, no speedup) says nothing about it:",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("Rank 0 computed 0 s and spent 0 s in calls: 0 s of its run time of 5 s (0 %)"),
            std::string::npos)
      << text;
  EXPECT_NE(sm::render_html(a).find("its formula (t_dedicated 0 s, no speedup) says nothing"), std::string::npos);
  // Half the run unaccounted for, with computation: still refused; within 1 % (rounding): a verdict.
  p = sample_profile("kripke_case1_off.json");
  p.t_total_s *= 2;
  EXPECT_TRUE(has_reason(sm::analyze(sm::make_job_input({p}, {"half.json"}), {}), "run-time-not-covered"));
  p = sample_profile("kripke_case1_off.json");
  p.t_total_s *= 1.005;
  EXPECT_FALSE(has_reason(sm::analyze(sm::make_job_input({p}, {"round.json"}), {}), "run-time-not-covered"));
}

TEST(Judgement, MpiTimeAboveRunTime) {
  // mpiP means are rounded, and its rows can add up above AppTime; the model's decomposition no longer holds.
  sm::job_input in;
  in.source = "r.mpiP";
  in.nranks = 1;
  sm::rank_inputs r;
  r.n_core = 16;
  r.t_noprogress_s = 10;
  r.t_comp_s = 0;
  r[category::blocking] = {12, 100, 0.01};
  in.ranks.push_back(r);
  const auto a = sm::analyze(in, {});
  EXPECT_TRUE(has_reason(a, "mpi-above-run-time"));
  EXPECT_EQ(a.headline(), sm::verdict::cannot_judge);
}

TEST(Cores, BoundToOneCoreSaysHowToGiveTheNodesCores) {
  auto p = sample_profile("kripke_case1_off.json");
  p.n_core = 1;  // mpiexec -bind-to core
  const std::string m = error_of([&] { (void)sm::make_job_input({p}, {"bound.json"}); });
  EXPECT_NE(m.find("bound.json"), std::string::npos) << m;
  EXPECT_NE(m.find("-bind-to core"), std::string::npos) << m;
  EXPECT_NE(m.find("--cores N"), std::string::npos) << m;
}

TEST(Cores, WhatIfTheNodeHadNCores) {
  // --cores 16 on a run bound to 1 core: the computation measured on 1 core is moved to 16 with the scaling model
  // (linear: 73.6 / 16 = 4.6 s), t_noprogress changes by as much, and the prediction is for 16 cores.
  auto p = sample_profile("kripke_case1_off.json");
  p.n_core = 1;
  const auto in = sm::make_job_input({p}, {"bound.json"}, 16);
  EXPECT_EQ(in.ranks[0].n_core, 1);  // the measurement is kept as it was
  const auto a = sm::analyze(in, {});
  const auto& r = a.job.ranks[0];
  EXPECT_EQ(r.n_core, 16);
  EXPECT_NEAR(r.t_comp_s, 73.6 / 16, 1e-9);
  EXPECT_NEAR(r.t_noprogress_s, 147.0 - 73.6 + 73.6 / 16, 1e-9);
  EXPECT_NE(sm::render_text(a).find("what if the node had 16 cores"), std::string::npos);
  // At the measured count --cores changes nothing.
  const auto same = sm::analyze(sm::load_profiles({model_data + "/kripke_case1_off.json"}, 16), {});
  EXPECT_DOUBLE_EQ(same.job.speedup,
                   sm::analyze(sm::load_profiles({model_data + "/kripke_case1_off.json"}), {}).job.speedup);
  // A dedicated run on 16 cores answers another question than "what if 32": it is not compared, and that is said.
  const auto other = sm::analyze(
      sm::load_profiles({model_data + "/minimd_case3_off.json", model_data + "/minimd_case3_core.json"}, 32), {});
  EXPECT_FALSE(other.validation);
  EXPECT_TRUE(std::none_of(other.diagnostics.begin(), other.diagnostics.end(),
                           [](const auto& d) { return d.id == "model-error"; }));
  EXPECT_NE(sm::render_text(other).find("the core-mode run is not compared with the prediction: it ran on 16 cores"),
            std::string::npos);
}

// Under a CANNOT JUDGE headline the per-rank, sweep and N_core what-if lines printed the formula's own verdicts
// ("pays off from N_core = 2 cores per node"), contradicting the headline. They say "cannot judge" now; the figures
// stay, and the JSON keeps the formula's verdict as model_verdict.
TEST(Judgement, NoVerdictBelowACannotJudgeHeadline) {
  sm::analysis_options o;
  o.sweep = sm::parse_alpha_range("0:1:0.5");
  auto in = sm::load_profiles({model_data + "/pingpong_8threads_off.json"});
  in.ranks.push_back(in.ranks.front());
  in.ranks.back().rank = 1;
  const auto a = sm::analyze(in, o);
  ASSERT_EQ(a.headline(), sm::verdict::cannot_judge);
  sm::render_options ro;
  ro.show_sweep = true;
  const std::string text = sm::render_text(a, ro);
  // The what-if line may quote the formula, marked as such.
  std::string below = text.substr(text.find('\n'));
  const auto quoted = below.find("the formula alone: ");
  ASSERT_NE(quoted, std::string::npos) << text;
  below.erase(quoted, below.find('\n', quoted) - quoted);
  for (const char* v : {"pays off", "within noise"})
    EXPECT_EQ(below.find(v), std::string::npos) << v << " in\n" << below;
  const std::string html = sm::render_html(a);
  EXPECT_EQ(html.find("<td class=\"l\">pays off"), std::string::npos);
  EXPECT_NE(html.find("the formula alone: "), std::string::npos);
  const std::string csv = sm::render_csv(a);
  EXPECT_EQ(csv.find("pays off"), std::string::npos) << csv;
}
