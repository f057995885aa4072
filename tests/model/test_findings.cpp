// What real applications showed (issue 15): findings that said the wrong thing or nothing, PMPI profiles, the
// alpha plot's labels, the conversion of apps without nonblocking calls, the scaling model's choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include <fmt/format.h>
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

const sm::diagnostic* finding(const sm::analysis& a, const std::string& id) {
  auto it = std::find_if(a.diagnostics.begin(), a.diagnostics.end(), [&](const auto& d) { return d.id == id; });
  return it == a.diagnostics.end() ? nullptr : &*it;
}

// A calibration run and a dedicated run of one rank with nothing remarkable but the dedicated run's length.
std::vector<sidecore::profile> off_and_core(double core_total, double core_blocking) {
  sidecore::profile off = sample_profile("kripke_case1_off.json");
  off[category::test] = {0.0, 0, 0.0};  // no test calls: no many-tests finding
  off.t_comp_s = 118.6;
  sidecore::profile core = off;
  core.mode = sidecore::progress_mode::core;
  core.t_total_s = core_total;
  core.t_comp_s = 60;
  core[category::blocking].time_s = core_blocking;
  return {off, core};
}

}  // namespace

TEST(Findings, ModelErrorDoesNotPointToFindingsThatAreNotThere) {
  const auto a = sm::analyze(sm::make_job_input(off_and_core(100, 11.7), {}), {});
  const auto* d = finding(a, "model-error");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->message.find("Read the other findings"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("No other finding explains it"), std::string::npos) << d->message;
  // MiniMD case #3: the wait grows; model-error names that finding.
  const auto m = sm::analyze(
      sm::load_profiles({model_data + "/minimd_case3_off.json", model_data + "/minimd_case3_core.json"}), {});
  const auto* e = finding(m, "model-error");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("wait-grows-in-core"), std::string::npos) << e->message;
}

// A run the model cannot judge (here: oversubscribed) measures the machine: the difference from the core-mode run is
// printed as such, never as the model's error (docs/study.md).
TEST(Findings, NoModelErrorWhereTheRunCannotBeJudged) {
  auto runs = off_and_core(100, 11.7);
  for (auto& p : runs) p.host = sidecore::host_info{"0123456789abcdef", 4};  // one rank of 16 cores on 4 cores
  const auto a = sm::analyze(sm::make_job_input(runs, {}), {});
  ASSERT_FALSE(a.cannot_judge.empty());
  EXPECT_EQ(finding(a, "model-error"), nullptr);
  ASSERT_TRUE(a.validation);
  EXPECT_FALSE(a.validation->not_judged.empty());
  const std::string text = sm::render_text(a);
  EXPECT_NE(text.find("difference +48.8 % (not the model's error: "), std::string::npos) << text;
  EXPECT_EQ(text.find("error +"), std::string::npos) << text;
  EXPECT_EQ(sm::render_html(a).find("Model error"), std::string::npos);
}

// A measured scaling table in which N-1 threads compute faster than N (a busy or noisy host) makes t_overhead
// negative and the core look free: said as a warning, not used silently.
TEST(Findings, ScalingTableFasterOnFewerThreadsIsSaid) {
  const auto in = sm::load_profiles({model_data + "/kripke_case1_off.json"});  // N_core 16
  sm::analysis_options o;
  o.model.scaling = sm::scaling_model::from_table({{15, 1.0}, {16, 1.2}}, "busy.csv");
  const auto a = sm::analyze(in, o);
  const auto* d = finding(a, "scaling-faster-on-fewer-threads");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, sm::diagnostic::level::warning);
  EXPECT_NE(d->message.find("busy.csv"), std::string::npos) << d->message;
  o.model.scaling = sm::scaling_model::from_table({{15, 1.2}, {16, 1.0}}, "quiet.csv");
  EXPECT_EQ(finding(sm::analyze(in, o), "scaling-faster-on-fewer-threads"), nullptr);
}

TEST(Findings, ModelErrorCitesOnlyFindingsThatExplainItsSign) {
  // The dedicated run far faster than predicted (pessimistic): longer blocking calls beside the progress thread
  // only make a run slower, so they explain nothing here, and information findings never do.
  const auto a = sm::analyze(sm::make_job_input(off_and_core(20, 117), {}), {});
  ASSERT_NE(finding(a, "blocking-grows-in-core"), nullptr);
  const auto* e = finding(a, "model-error");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("pessimistic"), std::string::npos) << e->message;
  EXPECT_EQ(e->message.find("blocking-grows-in-core"), std::string::npos) << e->message;
  EXPECT_EQ(e->message.find("no-overlap-data"), std::string::npos) << e->message;
  EXPECT_NE(e->message.find("No other finding explains it"), std::string::npos) << e->message;
  // One finding: "says".
  const auto b = sm::analyze(sm::make_job_input(off_and_core(240, 117), {}), {});
  const auto* f = finding(b, "model-error");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("The finding blocking-grows-in-core says why"), std::string::npos) << f->message;
}

TEST(Findings, BlockingGrowsInCore) {
  // miniMD beside a progress thread: Sendrecv 10-50x longer. Blocking time 11.7 s -> 117 s for the same calls.
  const auto a = sm::analyze(sm::make_job_input(off_and_core(240, 117), {}), {});
  const auto* d = finding(a, "blocking-grows-in-core");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, sm::diagnostic::level::warning);
  EXPECT_NE(d->message.find("11.7 s without progress and 117 s with the dedicated core"), std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("10.0 times"), std::string::npos) << d->message;
  const auto* e = finding(a, "model-error");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("blocking-grows-in-core"), std::string::npos) << e->message;
  // Unchanged blocking time: no finding.
  EXPECT_EQ(finding(sm::analyze(sm::make_job_input(off_and_core(100, 11.7), {}), {}), "blocking-grows-in-core"),
            nullptr);
}

TEST(Findings, QuoteTheRankThatDecidesTheJob) {
  // In this job rank 1 decides t_dedicated; rank 0 has the larger test cost. The finding quotes rank 1, and its
  // speedups are the job's, as the verdict above it computes them: 147 / 124.567 = 1.180 (rank 1 alone: 146 /
  // 124.567 = 1.172), and without every rank's tests 147 / max(124.567 - 22.89, 123.755 - 22.956) = 1.446.
  const auto a = sm::analyze(sm::load_profiles({model_data + "/job_off.json", model_data + "/job_core.json"}), {});
  ASSERT_EQ(a.job.ranks[a.job.slowest].rank, 1);
  const auto* d = finding(a, "many-tests");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rank, 1);
  EXPECT_NE(d->message.find("Numbers from rank 1, the rank that decides the job"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("up to 1.446"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find(fmt::format("instead of {:.3f}", a.job.speedup)), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("instead of 1.180"), std::string::npos) << d->message;
}

TEST(Findings, OverlapWindowQuotesTheAlphaAsked) {
  // BT-MZ at alpha 1: the verdict's speedup is alpha 1's, and so is the one the finding corrects.
  sm::analysis_options opt;
  opt.model.alpha = 1.0;
  const auto a = sm::analyze(sm::load_profiles({model_data + "/btmz_off.json"}), opt);
  const auto* d = finding(a, "no-overlap-window");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find(fmt::format("instead of {:.3f}, at alpha 1)", a.job.speedup)), std::string::npos)
      << d->message;
}

TEST(Findings, TermsSayWhereTheirTimesComeFrom) {
  // --cores 8 on profiles measured on 16 cores: t_noprogress and t_comp are moved, not measured.
  auto in = sm::load_profiles({model_data + "/job_off.json"});
  in.what_if_cores = 8;
  const auto a = sm::analyze(in, {});
  const auto& terms = a.job.ranks[0].terms;
  ASSERT_GE(terms.size(), 2u);
  EXPECT_EQ(terms[0].symbol, "t_noprogress");
  EXPECT_NE(terms[0].formula, "measured");
  EXPECT_NE(terms[0].explanation.find("measured on 16 cores"), std::string::npos) << terms[0].explanation;
  EXPECT_EQ(terms[1].symbol, "t_comp");
  EXPECT_NE(terms[1].formula, "measured");
  EXPECT_NE(terms[1].explanation.find("moved to 8 cores"), std::string::npos) << terms[1].explanation;
  // Without --cores both are measured.
  const auto m = sm::analyze(sm::load_profiles({model_data + "/job_off.json"}), {});
  EXPECT_EQ(m.job.ranks[0].terms[0].formula, "measured");
  EXPECT_EQ(m.job.ranks[0].terms[1].formula, "measured");
}

TEST(Findings, ConversionOfAnAppWithoutNonblockingCalls) {
  // miniMD-like: only blocking calls. Their converted cost is unknown, so "removes 100.0 %" was a guess.
  auto p = sample_profile("kripke_case1_off.json");
  p[category::init] = {0.0, 0, 0.0};
  p[category::wait] = {0.0, 0, 0.0};
  p[category::test] = {0.0, 0, 0.0};
  p[category::blocking] = {20.0, 20000, 1e-5};
  p.t_comp_s = 127;
  const auto a = sm::analyze(sm::make_job_input({p}, {}), {});
  EXPECT_FALSE(a.slope.cost_known);
  const std::string t = sm::render_text(a);
  EXPECT_EQ(t.find("removes 100.0 %"), std::string::npos) << t;
  EXPECT_NE(t.find("unknown"), std::string::npos);
  const auto* d = finding(a, "missing-minimum");
  ASSERT_NE(d, nullptr);  // at alpha = 0 too: the alpha analysis is printed
  EXPECT_EQ(d->severity, sm::diagnostic::level::info);
  EXPECT_TRUE(nlohmann::json::parse(sm::render_json(a))["slope"]["conversion_efficiency"].is_null());
  EXPECT_EQ(sm::render_html(a).find("removes 100.0 %"), std::string::npos);
}

TEST(Findings, PmpiProfileSaysWhatItCannotHold) {
  // libsidecore-pmpi.so: provider "pmpi: ...", no transfers seen, overlap source "none" with zeros.
  auto p = sample_profile("kripke_case1_off.json");
  p.provider = "pmpi: MPICH Version: 4.0.2";
  sidecore::overlap_section none;
  none.xfer_time_source = "none";
  p.overlap = none;
  const auto a = sm::analyze(sm::make_job_input({p}, {}), {});
  const std::string h = sm::render_html(a);
  EXPECT_EQ(h.find("SIDECORE_PROGRESS=off"), std::string::npos);
  EXPECT_EQ(h.find("transfer time source: <code>none</code>"), std::string::npos);
  EXPECT_NE(h.find("A PMPI profile"), std::string::npos);
  EXPECT_EQ(sm::render_text(a).find("SIDECORE_PROGRESS=off"), std::string::npos);
  const auto* d = finding(a, "no-overlap-data");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("PMPI"), std::string::npos) << d->message;
}

namespace {

struct box {
  double x0, x1, y0, y1;
  bool overlaps(const box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// The box of the first <text> whose content contains `needle` (font 12: ~6.6 px a character, 12 px high).
std::optional<box> text_box(const std::string& svg, const std::string& needle) {
  static const std::regex re(R"re(<text x="([0-9.]+)" y="([0-9.]+)"(?: text-anchor="(\w+)")?[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    const std::string content = (*it)[4];
    if (content.find(needle) == std::string::npos) continue;
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), w = 6.6 * static_cast<double>(content.size());
    const std::string anchor = (*it)[3];
    const double left = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
    return box{left, left + w, y - 12, y + 3};
  }
  return std::nullopt;
}

}  // namespace

TEST(Findings, AlphaPlotLabelsDoNotOverlap) {
  // Rising, falling and flat curves, with and without a break-even inside [0, 1].
  std::vector<sm::analysis> cases;
  for (const char* f : {"kripke_case1_off.json", "kripke_case2_off.json", "minimd_case3_off.json", "btmz_off.json"})
    cases.push_back(sm::analyze(sm::load_profiles({model_data + "/" + f}), {}));
  sm::job_input in;
  in.ranks = {sctest::minimd_case1()};  // crosses at alpha = 0.547
  cases.push_back(sm::analyze(in, {}));
  // Flat and below the band (no blocking call to convert): the band sits at the top of the plot, where the
  // break-even sentence was drawn.
  sm::rank_inputs flat;
  flat.t_noprogress_s = 100;
  flat.t_comp_s = 98;
  flat.n_core = 16;
  flat[category::init] = {2, 100, 1e-4};
  in.ranks = {flat};
  cases.push_back(sm::analyze(in, {}));
  // Rising from 0.62 to 0.99 without reaching 1: the band is near the top and labelled on the left, where the
  // "none in [0, 1]" sentence starts (a rank whose calls overlap, as the old 8-thread profiles had).
  sm::rank_inputs rising = flat;
  rising.t_comp_s = 95;
  rising[category::blocking] = {60, 1000, 1e-3};
  rising[category::init] = {0.1, 1000, 1e-5};
  rising[category::wait] = {0.1, 1000, 1e-5};
  in.ranks = {rising};
  cases.push_back(sm::analyze(in, {}));
  for (const auto& a : cases) {
    const std::string svg = sm::render_alpha_svg(a);
    const auto band = text_box(svg, "noise band");
    const auto be = text_box(svg, "break-even");
    ASSERT_TRUE(band && be) << svg;
    EXPECT_FALSE(band->overlaps(*be)) << a.source << "\n" << svg;
  }
}

TEST(Findings, TwoCalibrationRunsOfOneRankSayWhatToDo) {
  // A dedicated run whose profile says "off" (the PMPI profiler's today) next to the calibration run.
  try {
    (void)sm::load_profiles({model_data + "/kripke_case1_off.json", model_data + "/kripke_case2_off.json"});
    FAIL();
  } catch (const sidecore::input_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("give each rank once per mode"), std::string::npos) << m;
    EXPECT_NE(m.find("SIDECORE_PROGRESS=core"), std::string::npos) << m;
    EXPECT_NE(m.find("predict from the calibration run alone"), std::string::npos) << m;
  }
}
