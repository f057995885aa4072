// Renderers: the content that users and scripts rely on.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <regex>

#include "sidecore/model/analysis.hpp"
#include "sidecore/model/input.hpp"
#include "sidecore/model/render.hpp"
#include "model_test_util.hpp"

namespace sm = sidecore::model;

namespace {
using sctest::model_data;

sm::analysis kripke_analysis() { return sm::analyze(sm::load_profiles({model_data + "/kripke_case1_off.json"}), {}); }
}  // namespace

TEST(Render, TextVerdictFirstAndTerms) {
  const std::string t = sm::render_text(kripke_analysis());
  EXPECT_EQ(t.rfind("VERDICT: PAYS OFF", 0), 0u) << t.substr(0, 80);
  for (const char* s : {"t_newcomp", "t_overhead", "N_test*t_minMPItest", "t_MPIdedicated", "t_dedicated", "123.755",
                        "break-even", "N_core", "many-tests"})
    EXPECT_NE(t.find(s), std::string::npos) << s;
}

TEST(Render, JsonIsStructured) {
  const auto j = nlohmann::json::parse(sm::render_json(kripke_analysis()));
  EXPECT_EQ(j["verdict"], "pays off");
  EXPECT_NEAR(j["t_dedicated_s"].get<double>(), 123.7547717, 1e-6);
  EXPECT_EQ(j["ranks"][0]["terms"].size(), 14u);
  EXPECT_EQ(j["sweep"].size(), 21u);
  EXPECT_EQ(j["break_even"]["kind"], "always");
}

TEST(Render, CsvRows) {
  const auto a = kripke_analysis();
  std::string csv = sm::render_csv(a);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);  // header, rank 0, job
  EXPECT_EQ(csv.rfind("rank,alpha,n_core,", 0), 0u);
  sm::render_options ro;
  ro.show_sweep = true;
  csv = sm::render_csv(a, ro);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 21);
}

TEST(Render, SvgPlot) {
  auto a = sm::analyze(sm::load_profiles({model_data + "/minimd_case3_off.json"}), {});
  const std::string svg = sm::render_alpha_svg(a);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("alpha: fraction of blocking calls converted"), std::string::npos);
  EXPECT_NE(svg.find("predicted speedup"), std::string::npos);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  // A break-even inside [0, 1] is marked: MiniMD case #1 of Table II crosses at alpha = 0.547.
  sm::job_input in;
  in.ranks = {sctest::minimd_case1()};
  const auto c = sm::analyze(in, {});
  ASSERT_TRUE(c.break_even.alpha);
  EXPECT_NE(sm::render_alpha_svg(c).find("break-even alpha = 0.547"), std::string::npos);
  // An interval with both ends inside (0, 1): both are marked, and the label gives the interval.
  auto in_between = c;
  in_between.break_even.k = sm::break_even_result::kind::crossing;
  in_between.break_even.pays_off_from = 0.0102;
  in_between.break_even.pays_off_to = 0.3222;
  in_between.break_even.alpha = 0.0102;
  const std::string svg2 = sm::render_alpha_svg(in_between);
  std::size_t lines = 0;
  for (auto at = svg2.find("stroke=\"#c0392b\" stroke-width=\"1.5\""); at != std::string::npos;
       at = svg2.find("stroke=\"#c0392b\" stroke-width=\"1.5\"", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2U) << svg2;
  EXPECT_NE(svg2.find("t_dedicated &lt;= t_noprogress for alpha in [0.010, 0.322]"), std::string::npos) << svg2;
}

TEST(Render, HtmlSelfContained) {
  const auto a = sm::analyze(sm::load_profiles({model_data + "/job_off.json", model_data + "/job_core.json"}), {});
  const std::string h = sm::render_html(a);
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* s : {"id=\"verdict\"", "Term by term", "<svg", "By message size", "By region", "Progress thread",
                        "busy", "idle", "sweep &lt;halo &amp; faces&gt;"})
    EXPECT_NE(h.find(s), std::string::npos) << s;
  // Nothing fetched: no src/href attributes, no CSS url(), no @import, no script.
  EXPECT_FALSE(std::regex_search(h, std::regex(R"((src|href)\s*=)", std::regex::icase)));
  EXPECT_EQ(h.find("url("), std::string::npos);
  EXPECT_EQ(h.find("@import"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(sm::xml_escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
}

namespace {
// Two ranks of the sample profile, each with one kind of collective that `fill` describes (rank, its profile).
template <typename F>
std::vector<sidecore::profile> two_ranks_with_collectives(F&& fill) {
  std::vector<sidecore::profile> ps;
  for (int rank = 0; rank < 2; ++rank) {
    sidecore::profile p = sctest::sample_profile("kripke_case1_off.json");
    p.rank = rank;
    p.nranks = 2;
    sidecore::collective_kind_stats k;
    fill(rank, p, k);
    sidecore::collectives_section c;
    c.sample_capacity = 256;
    c.by_kind = {k};
    p.collectives = c;
    ps.push_back(p);
  }
  return ps;
}
}  // namespace

// The imbalance headline: the waits are measured at the sampled instances only (a quarter here), so the time the
// other ranks lost is scaled to every instance of each kind, and the line says so. It summed the sampled waits
// against the whole run time: a longer run of the same behaviour looked ever more balanced.
TEST(Render, ImbalanceScalesTheSampledWaitsToEveryInstance) {
  const std::vector<sidecore::profile> ps = two_ranks_with_collectives([](int rank, const sidecore::profile& p,
                                                                          sidecore::collective_kind_stats& k) {
    k.kind = "allreduce";
    k.count = 1000;
    k.bytes = 8000;
    k.latency.count = 1000;
    k.sampled = 250;
    k.arrival_wait.count = 250;
    k.departure_wait.count = 250;
    sidecore::collective_rank_order o;
    o.rank = rank;
    o.last_arrivals = rank == 1 ? 250 : 0;
    o.arrival_wait_s = rank == 0 ? 0.01 * p.t_total_s : 0.0;  // rank 0 waits for rank 1 at every sampled instance
    k.ranks = {o};
  });
  const std::string t = sm::render_text(sm::analyze(sm::make_job_input(ps, {"r0", "r1"}), {}));
  const auto at = t.find("imbalance: rank 1 arrived last at 100.0 %");
  ASSERT_NE(at, std::string::npos) << t;
  const std::string line = t.substr(at, t.find('\n', at) - at);
  EXPECT_NE(line.find("lost about " + fmt::format("{:.6g}", 0.04 * ps[0].t_total_s) + " s"), std::string::npos) << line;
  EXPECT_NE(line.find("(4.0 % of their run time;"), std::string::npos) << line;
  EXPECT_NE(line.find("at the 250 sampled of their 1000 instances"), std::string::npos) << line;
}

// The text's collectives table: a kind with no sampled instance has no measured wait, said "-" (as the HTML says it),
// not "0 s"; the instance count says it is all ranks' together.
TEST(Render, CollectivesTextSaysNoWaitWhereNothingWasSampled) {
  const std::vector<sidecore::profile> ps =
      two_ranks_with_collectives([](int, const sidecore::profile&, sidecore::collective_kind_stats& k) {
        k.kind = "bcast";
        k.count = 10;
        k.bytes = 80;
        k.latency.count = 10;
        k.latency.median_s = k.latency.mean_s = k.latency.max_s = 1e-6;
      });
  const std::string t = sm::render_text(sm::analyze(sm::make_job_input(ps, {"r0", "r1"}), {}));
  const auto head = t.find("instances (all ranks)");
  ASSERT_NE(head, std::string::npos) << t;
  const auto at = t.find("  bcast ");
  ASSERT_NE(at, std::string::npos) << t;
  const std::string line = t.substr(at, t.find('\n', at) - at);
  EXPECT_EQ(line.find("0 s"), std::string::npos) << line;
  EXPECT_NE(line.find(" -"), std::string::npos) << line;
}

// Inputs whose t_comp + t_MPI exceed t_noprogress (an inconsistent profile, warned about but judged): every bar
// stays inside the chart, its scale the longest bar's sum, not the longest single time.
TEST(Render, CompositionChartStaysInsideWhenTheBarsOvercount) {
  std::vector<sidecore::profile> ps = {sctest::sample_profile("kripke_case1_off.json")};
  ps[0].t_comp_s = ps[0].t_total_s * 0.9;
  const std::string h = sm::render_html(sm::analyze(sm::make_job_input(ps, {"r0"}), {}));
  const std::regex rect(R"re(<rect x="([0-9.]+)" y="(?:10|50)\.0" width="([0-9.]+)" height="28")re");
  int rects = 0;
  for (auto it = std::sregex_iterator(h.begin(), h.end(), rect); it != std::sregex_iterator(); ++it, ++rects)
    EXPECT_LE(std::stod((*it)[1].str()) + std::stod((*it)[2].str()), 700.05) << (*it)[0].str();
  EXPECT_GT(rects, 2);
}

// A converted call that costs more than the blocking call it replaces (its initiation and wait at their minimum
// against a short blocking call) is said as an addition, not as a negative share removed.
TEST(Render, ConversionThatCostsMoreIsSaidSo) {
  sm::slope_result s;
  s.conversion_efficiency = 0.25;
  EXPECT_EQ(sm::conversion_sentence(s), "converting removes 25.0 % of its blocking time");
  s.conversion_efficiency = -47.114;
  EXPECT_EQ(sm::conversion_sentence(s), "converting adds 4711.4 % to its blocking time (a converted call's initiation "
                                        "and wait, at their minimum, cost more than its blocking call took)");
}

namespace {
// The widths of the composition chart's rects on the bar at `y` (10: t_noprogress, 50: t_dedicated) and their titles.
double composition_bar_width(const std::string& html, const char* y, std::string* titles = nullptr) {
  const std::regex rect(std::string(R"re(<rect x="[0-9.]+" y=")re") + y +
                        R"re(" width="([0-9.]+)" height="28" fill="[^"]+"><title>([^<]*)</title>)re");
  double w = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), rect); it != std::sregex_iterator(); ++it) {
    w += std::stod((*it)[1].str());
    if (titles) *titles += (*it)[2].str() + "\n";
  }
  return w;
}
}  // namespace

// The chart's t_dedicated bar is t_newcomp + the communication left: t_comp (measured on N cores) and the
// overhead of one core fewer when that costs time, t_newcomp alone when it saves time (t_overhead < 0). It labelled
// t_comp "computation on N-1 cores" and drew a negative overhead as nothing, so the bar was longer than t_dedicated.
TEST(Render, CompositionChartAddsUpToTheTimesItNames) {
  for (const double delta : {1.0, -0.5}) {
    sm::analysis_options o;
    o.model.scaling = sm::scaling_model::power_law(delta);
    const sm::analysis a = sm::analyze(sm::load_profiles({model_data + "/kripke_case1_off.json"}), o);
    const sm::prediction& p = a.job.ranks.at(a.job.slowest);
    ASSERT_EQ(delta < 0, p.t_overhead_s < 0) << p.t_overhead_s;
    const std::string h = sm::render_html(a);
    std::string titles;
    const double before = composition_bar_width(h, "10.0"), after = composition_bar_width(h, "50.0", &titles);
    ASSERT_GT(before, 0) << h;
    const double unaccounted = std::max(0.0, p.t_noprogress_s - p.t_comp_s - p.t_mpi_noprogress_s);
    EXPECT_NEAR(after / before, p.t_dedicated_s / (p.t_comp_s + p.t_mpi_noprogress_s + unaccounted), 0.01)
        << "delta " << delta << ":\n" << titles;
    EXPECT_EQ(titles.find("computation on N-1 cores: " + fmt::format("{:.6g}", p.t_comp_s)), std::string::npos)
        << titles;
  }
}

TEST(Render, TheLimitsTheRunReachedAreSaidInEveryFormat) {
  // A profile whose run went past the thread table (rank 0) and the trace's bound: each renderer says which figures
  // are incomplete, with the ranks; a profile within every limit says nothing of the kind.
  sidecore::profile p = sidecore::read_profile_file(model_data + "/kripke_case1_off.json");  // rank 0 of 1
  p.limits = {sidecore::make_limit_hit("thread_table", 1024, 76), sidecore::make_limit_hit("trace_events", 50, 1)};
  const sm::analysis a = sm::analyze(sm::make_job_input({p}, {"p.json"}, std::nullopt), {});
  const std::string line = fmt::format("incomplete: 76 threads found the 1024-slot thread table full: their calls "
                                       "and regions are counted, their transfers (the overlap bounds) and trace "
                                       "events are not recorded (rank 0)");
  const std::string text = sm::render_text(a);
  EXPECT_NE(text.find("  " + line + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("incomplete: the trace reached its bound of 50 events"), std::string::npos) << text;
  const std::string html = sm::render_html(a);
  EXPECT_NE(html.find("<p>Incomplete: 76 threads found the 1024-slot thread table full"), std::string::npos);
  const auto j = nlohmann::json::parse(sm::render_json(a));
  ASSERT_EQ(j["incomplete"].size(), 2u);
  EXPECT_EQ("incomplete: " + j["incomplete"][0].get<std::string>(), line);
  const std::string whole = sm::render_text(kripke_analysis());
  EXPECT_EQ(whole.find("incomplete"), std::string::npos);
  EXPECT_EQ(sm::render_html(kripke_analysis()).find("Incomplete"), std::string::npos);
}
