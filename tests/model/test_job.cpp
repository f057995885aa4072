// Job level, alpha analysis, N_core what-if, scaling models, diagnostics, option errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sidecore/model/analysis.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/input.hpp"
#include "sidecore/model/job.hpp"
#include "model_test_util.hpp"

namespace sm = sidecore::model;
using sidecore::category;

namespace {

using sctest::model_data;

sm::rank_inputs rank(int r, double t_np, double t_comp, double t_block) {
  sm::rank_inputs in;
  in.rank = r;
  in.t_noprogress_s = t_np;
  in.t_comp_s = t_comp;
  in.n_core = 16;
  in[category::blocking] = {t_block, 1000, t_block / 2000};
  in[category::init] = {1.0, 1000, 1e-5};
  in[category::wait] = {t_np - t_comp - t_block - 1.0, 1000, 1e-5};
  return in;
}

}  // namespace

TEST(Job, SlowestRankDecidesAndIsNamed) {
  // Rank 0: t_newcomp = 60*16/15 = 64, MPI: 1000*1e-5*2 + 30 = 30.02 -> 94.02
  // Rank 1: t_newcomp = 75*16/15 = 80, MPI: 0.02 + 10 = 10.02 -> 90.02
  const std::vector<sm::rank_inputs> ranks = {rank(0, 100, 60, 30), rank(1, 98, 75, 10)};
  const auto j = sm::predict_job(ranks, {});
  EXPECT_EQ(j.ranks[j.slowest].rank, 0);
  EXPECT_EQ(j.ranks[j.slowest_noprogress].rank, 0);
  EXPECT_NEAR(j.t_dedicated_s, 94.02, 1e-9);
  EXPECT_NEAR(j.t_noprogress_s, 100, 1e-12);
  EXPECT_NEAR(j.speedup, 100 / 94.02, 1e-12);
  // With all blocking converted: rank 0 = 64 + 0.02 + 1000*2e-5 = 64.04, rank 1 = 80.04: rank 1 decides.
  sm::model_options o;
  o.alpha = 1;
  const auto j1 = sm::predict_job(ranks, o);
  EXPECT_EQ(j1.ranks[j1.slowest].rank, 1);
  EXPECT_NEAR(j1.t_dedicated_s, 80.04, 1e-9);
}

TEST(Job, BreakEvenKinds) {
  sm::model_options o;
  // Pays off everywhere: little computation.
  auto be = sm::break_even({rank(0, 100, 10, 30)}, o);
  EXPECT_EQ(be.k, sm::break_even_result::kind::always);
  EXPECT_FALSE(be.alpha);
  // Never: all computation, nothing to convert.
  be = sm::break_even({rank(0, 100, 98, 0.5)}, o);
  EXPECT_EQ(be.k, sm::break_even_result::kind::never);
  EXPECT_NE(be.describe().find("t_dedicated > t_noprogress for every alpha"), std::string::npos) << be.describe();
  // Crossing: t(0) = 90*16/15 + 0.02 + 8 = 104.02, slope 1000*2e-5 - 8 = -7.98; 104.02 - 7.98 a = 100 -> a = 0.503759
  be = sm::break_even({rank(0, 100, 90, 8)}, o);
  ASSERT_EQ(be.k, sm::break_even_result::kind::crossing);
  EXPECT_NEAR(*be.alpha, 4.02 / 7.98, 1e-9);
  // Break-even is speedup 1, below the verdict's noise band: the sentence does not say "pays off" (at alpha 0.51
  // the speedup is 1.0003, "within noise").
  EXPECT_NE(be.describe().find("t_dedicated <= t_noprogress for alpha >= 0.5038"), std::string::npos) << be.describe();
  EXPECT_EQ(be.describe().find("pays off"), std::string::npos) << be.describe();
}

TEST(Job, AlphaRangeParsing) {
  const auto r = sm::parse_alpha_range("0:1:0.1");
  const auto v = sm::alpha_values(r);
  ASSERT_EQ(v.size(), 11u);
  EXPECT_DOUBLE_EQ(v.back(), 1.0);
  EXPECT_EQ(sm::alpha_values(sm::parse_alpha_range("0.2:0.5:0.2")).back(), 0.5);  // STOP included
  // Every refusal quotes the option's whole value and says what is accepted.
  EXPECT_EQ(sctest::error_of([] { (void)sm::parse_alpha_range("0:2:0.1"); }),
            "--alpha-sweep: '0:2:0.1' is not accepted; accepted: START:STOP:STEP with 0 <= START <= STOP <= 1 (alpha "
            "is a fraction)");
  EXPECT_EQ(sctest::error_of([] { (void)sm::parse_alpha_range("0:1"); }),
            "--alpha-sweep: '0:1' is not accepted; accepted: START:STOP:STEP, three numbers, e.g. 0:1:0.05");
  EXPECT_EQ(sctest::error_of([] { (void)sm::parse_alpha_range("0:1:0"); }),
            "--alpha-sweep: '0:1:0' is not accepted; accepted: START:STOP:STEP with STEP > 0");
  EXPECT_EQ(sctest::error_of([] { (void)sm::parse_alpha_range("a:1:0.1"); }),
            "--alpha-sweep: 'a:1:0.1' is not accepted; accepted: START:STOP:STEP, three numbers, e.g. 0:1:0.05 (START "
            "'a' is not a number)");
  EXPECT_EQ(sctest::error_of([] { (void)sm::parse_alpha_range("0:1:1e-9"); }),
            "--alpha-sweep: '0:1:1e-09' is not accepted; accepted: at most 10001 points (1000000001 asked; a larger "
            "STEP)");
  // A tiny step: the count asked for in a few digits, not the 300 of its fixed-point form.
  EXPECT_EQ(sctest::error_of([] { (void)sm::parse_alpha_range("0:1:1e-300"); }),
            "--alpha-sweep: '0:1:1e-300' is not accepted; accepted: at most 10001 points (1e+300 asked; a larger "
            "STEP)");
}

TEST(Job, OptionErrors) {
  const auto in = rank(0, 100, 60, 30);
  sm::model_options o;
  o.alpha = 1.5;
  const std::string m = sctest::error_of([&] { (void)sm::predict(in, o); });
  EXPECT_NE(m.find("--alpha: alpha 1.5 is outside [0, 1]"), std::string::npos) << m;
  o.alpha = -0.1;
  EXPECT_THROW((void)sm::predict(in, o), sidecore::input_error);
  o.alpha = std::nan("");
  EXPECT_THROW((void)sm::predict(in, o), sidecore::input_error);
  o.alpha = 0;
  o.noise = 1.5;
  EXPECT_NE(sctest::error_of([&] { (void)sm::predict(in, o); }).find("--noise"), std::string::npos);
  auto bad = in;
  bad.n_core = 1;
  EXPECT_NE(sctest::error_of([&] { (void)sm::predict(bad, {}); }).find("N_core >= 2"), std::string::npos);
  bad = in;
  bad.t_comp_s = -3;
  EXPECT_NE(sctest::error_of([&] { (void)sm::predict(bad, {}); }).find("negative time"), std::string::npos);
  EXPECT_THROW((void)sm::predict_job({}, {}), sidecore::input_error);
  EXPECT_NE(sctest::error_of([] { (void)sm::scaling_model::power_law(3.0); }).find("--delta"), std::string::npos);
  EXPECT_THROW((void)sm::min_cores_to_pay_off({in}, {}, 1), sidecore::input_error);
  // 2^31 - 1 searched for hours (one job prediction per count).
  EXPECT_NE(sctest::error_of([&] { (void)sm::min_cores_to_pay_off({in}, {}, 2147483647); })
                .find("'2147483647' is not accepted; accepted: an integer in [2 - 65536]"),
            std::string::npos);
}

TEST(Scaling, Models) {
  EXPECT_DOUBLE_EQ(sm::scaling_model::linear().new_comp(30, 16), 32);
  // Power law delta = 1 is the linear model; delta = 0 costs nothing; delta = 0.5: 30 * sqrt(16/15).
  EXPECT_DOUBLE_EQ(sm::scaling_model::power_law(1.0).new_comp(30, 16), 32);
  EXPECT_DOUBLE_EQ(sm::scaling_model::power_law(0.0).new_comp(30, 16), 30);
  EXPECT_NEAR(sm::scaling_model::power_law(0.5).new_comp(30, 16), 30 * std::sqrt(16.0 / 15.0), 1e-12);
  // Table: exact at its points, log-log in between (8 -> 16 threads halving: 12 threads = 120 * (12/8)^-1 = 80).
  const auto t = sm::scaling_model::from_table({{16, 60}, {8, 120}, {4, 240}}, "t.csv");
  EXPECT_DOUBLE_EQ(t.time_ratio(8, 16), 0.5);
  EXPECT_NEAR(t.time_ratio(8, 12), 80.0 / 120.0, 1e-12);
  EXPECT_NEAR(t.new_comp(60, 16), 64.0, 1e-9);  // 60 * t(15)/t(16), t(15) = 120 * (15/8)^-1 = 64
  const std::string m = sctest::error_of([&] { (void)t.time_ratio(16, 17); });
  EXPECT_NE(m.find("t.csv"), std::string::npos) << m;
  EXPECT_NE(m.find("outside the measured range 4..16"), std::string::npos) << m;
  EXPECT_NE(sctest::error_of([] {
              (void)sm::scaling_model::from_table({{4, 1.0}}, "one.csv");
            }).find("at least 2 points"),
            std::string::npos);
  EXPECT_NE(sctest::error_of([] {
              (void)sm::scaling_model::from_table({{4, 1.0}, {4, 2.0}}, "d.csv");
            }).find("appears twice"),
            std::string::npos);
}

TEST(Scaling, TableFile) {
  const auto t = sm::scaling_model::read_table_file(model_data + "/scaling_sublinear.csv");
  ASSERT_EQ(t.table().size(), 6u);
  // t(15) between 12 (92 s) and 16 (73.6 s), log-log: x = ln(15/12)/ln(16/12).
  const double x = std::log(15.0 / 12) / std::log(16.0 / 12);
  const double t15 = std::exp(std::log(92.0) + x * (std::log(73.6) - std::log(92.0)));
  EXPECT_NEAR(t.new_comp(73.6, 16), t15, 1e-9);
  const std::string path = (std::filesystem::temp_directory_path() / "sidecore_bad_table.csv").string();
  std::ofstream(path) << "threads,t\n1,10\n2,x\n";
  const std::string m = sctest::error_of([&] { (void)sm::scaling_model::read_table_file(path); });
  EXPECT_NE(m.find("line 3"), std::string::npos) << m;
  EXPECT_NE(m.find("time 'x' is not accepted; accepted: a decimal number of seconds in [1e-09, 1e+09]"),
            std::string::npos) << m;
  std::filesystem::remove(path);
}

// strtod and strtol take more than the decimal numbers a table holds: hex ("0x10" is 16), a denormal time
// (1e-310 s, whose logarithms and ratios lose their precision), "+4". Each is refused naming the line, the column,
// the value and the accepted form; a first line whose first word starts with a digit is data, not a header.
TEST(Scaling, TableRefusesOtherNumberForms) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"4 10\n8 0x10\n", "t.csv: line 2: time '0x10' is not accepted; accepted: a decimal number of seconds in "
                          "[1e-09, 1e+09]"},
      {"4 10\n8 1e-310\n", "t.csv: line 2: time '1e-310' is not accepted; accepted: a decimal number of seconds in "
                            "[1e-09, 1e+09]"},
      {"4 10\n8 1e-10\n", "time '1e-10' is not accepted"},
      {"4 10\n8 -5\n", "time '-5' is not accepted"},
      {"0x4 10\n8 5\n", "t.csv: line 1: thread count '0x4' is not accepted; accepted: an integer in [1 - 1048576] "
                         "(decimal digits)"},
      {"threads t\n+4 10\n8 5\n", "t.csv: line 2: thread count '+4' is not accepted"},
      {"4 10\n2000000 5\n", "thread count '2000000' is not accepted; accepted: an integer in [1 - 1048576]"},
  };
  for (const auto& c : cases) {
    const std::string m = sctest::error_of([&] { (void)sm::scaling_model::parse_table(c.text, "t.csv"); });
    EXPECT_NE(m.find(c.message), std::string::npos) << c.text << " gave: " << m;
  }
  // Decimal forms still read: a fraction, an exponent, a leading zero, ".5", "3.".
  const auto t = sm::scaling_model::parse_table("threads,t_comp_s\n1,8e1\n2,040.5\n4,.5\n8,3.\n", "t.csv");
  ASSERT_EQ(t.table().size(), 4u);
  EXPECT_DOUBLE_EQ(t.table()[0].t_comp_s, 80);
  EXPECT_DOUBLE_EQ(t.table()[1].t_comp_s, 40.5);
  EXPECT_DOUBLE_EQ(t.table()[2].t_comp_s, 0.5);
  EXPECT_DOUBLE_EQ(t.table()[3].t_comp_s, 3);
}

TEST(Job, CoreWhatIf) {
  // Rank: t_np 100, t_comp 60 on 16 cores, MPI gain 30 - 0.02 = 29.98 s at alpha 0.
  // On N cores: t_comp(N) = 60*16/N, overhead t_comp(N)/(N-1) = 960/(N(N-1)). Pays off (speedup > 1.02) when
  // (40 + 960/N) / (960/(N-1) + 10.02) > 1.02: N = 2 gives 520/970.02 < 1; the search finds the first N.
  const std::vector<sm::rank_inputs> ranks = {rank(0, 100, 60, 30)};
  const auto w = sm::min_cores_to_pay_off(ranks, {}, 64);
  ASSERT_TRUE(w.n_core);
  for (int n = 2; n < *w.n_core; ++n) {
    const auto j = sm::predict_job(sm::with_cores(ranks, n, sm::scaling_model::linear()), {});
    EXPECT_NE(j.result, sm::verdict::pays_off) << n;
  }
  const auto at = sm::predict_job(sm::with_cores(ranks, *w.n_core, sm::scaling_model::linear()), {});
  EXPECT_EQ(at.result, sm::verdict::pays_off);
  // with_cores at the measured count is the identity.
  const auto same = sm::with_cores(ranks, 16, sm::scaling_model::linear());
  EXPECT_DOUBLE_EQ(same[0].t_comp_s, 60);
  EXPECT_DOUBLE_EQ(same[0].t_noprogress_s, 100);
  // Never pays off: nothing to gain.
  const auto none = sm::min_cores_to_pay_off({rank(0, 100, 98, 0.5)}, {}, 32);
  EXPECT_FALSE(none.n_core);
  EXPECT_EQ(none.searched_to, 32);
  EXPECT_NE(none.describe().find("2..32"), std::string::npos);
}

TEST(Diagnostics, BtMzNoOverlapWindow) {
  const auto in = sm::load_profiles({model_data + "/btmz_off.json"});
  const auto a = sm::analyze(in, {});
  const auto it = std::find_if(a.diagnostics.begin(), a.diagnostics.end(),
                               [](const auto& d) { return d.id == "no-overlap-window"; });
  ASSERT_NE(it, a.diagnostics.end());
  EXPECT_EQ(it->severity, sm::diagnostic::level::warning);
  // Upper bound 1.2 s of 28 s of transfer: 26.8 s cannot be hidden.
  EXPECT_NE(it->message.find("1.2 s for 28 s"), std::string::npos) << it->message;
  EXPECT_NE(it->message.find("exch_qbc"), std::string::npos) << it->message;
  EXPECT_NE(it->message.find("4096-1048575 B"), std::string::npos) << it->message;
}

TEST(Diagnostics, MiniMdWaitGrowsInCore) {
  const auto in = sm::load_profiles({model_data + "/minimd_case3_off.json", model_data + "/minimd_case3_core.json"});
  ASSERT_EQ(in.core_run.size(), 1u);
  const auto a = sm::analyze(in, {});
  const auto it = std::find_if(a.diagnostics.begin(), a.diagnostics.end(),
                               [](const auto& d) { return d.id == "wait-grows-in-core"; });
  ASSERT_NE(it, a.diagnostics.end());
  EXPECT_NE(it->message.find("4.19 s without progress and 8.69 s with the dedicated core"), std::string::npos)
      << it->message;
  ASSERT_TRUE(a.validation);
  EXPECT_DOUBLE_EQ(a.validation->measured_t_dedicated_s, 63.7);
  // Predicted 55.53 s (the MiniMD case #3 formula value) against 63.7 measured: -12.8 %, optimistic.
  EXPECT_NEAR(a.validation->relative_error, (a.validation->predicted_t_dedicated_s - 63.7) / 63.7, 1e-12);
  EXPECT_TRUE(
      std::any_of(a.diagnostics.begin(), a.diagnostics.end(), [](const auto& d) { return d.id == "model-error"; }));
}

TEST(Diagnostics, KripkeManyTests) {
  const auto a = sm::analyze(sm::load_profiles({model_data + "/kripke_case1_off.json"}), {});
  const auto it = std::find_if(a.diagnostics.begin(), a.diagnostics.end(),
                               [](const auto& d) { return d.id == "many-tests"; });
  ASSERT_NE(it, a.diagnostics.end());
  // 1119810 x 2.05e-5 = 22.96 s; without them t_dedicated = 123.75 - 22.96 = 100.8 s.
  EXPECT_NE(it->message.find("22.96 s"), std::string::npos) << it->message;
  EXPECT_NE(it->message.find("100.8 s"), std::string::npos) << it->message;
  // Kripke case #2: 109679 tests for 96 initiations but only 2.4 s of 155: still flagged (> 1 %).
  const auto b = sm::analyze(sm::load_profiles({model_data + "/kripke_case2_off.json"}), {});
  EXPECT_TRUE(
      std::any_of(b.diagnostics.begin(), b.diagnostics.end(), [](const auto& d) { return d.id == "many-tests"; }));
}

TEST(Diagnostics, JobWorstRankAndCount) {
  const auto a = sm::analyze(sm::load_profiles({model_data + "/job_off.json", model_data + "/job_core.json"}), {});
  EXPECT_EQ(a.job.ranks.size(), 2u);
  EXPECT_EQ(a.core_run.size(), 2u);
  const auto it = std::find_if(a.diagnostics.begin(), a.diagnostics.end(),
                               [](const auto& d) { return d.id == "many-tests"; });
  ASSERT_NE(it, a.diagnostics.end());
  EXPECT_EQ(it->ranks_affected, 2);
  EXPECT_NE(it->message.find("2 of 2 ranks"), std::string::npos);
}
