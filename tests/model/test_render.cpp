// Renderers: the content that users and scripts rely on.
#include <gtest/gtest.h>

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
