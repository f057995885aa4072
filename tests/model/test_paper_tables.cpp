// The paper's Tables I (Kripke) and II (MiniMD) through the Section III-D formula, with the
// expected values computed by hand below (not copied from the tables: docs/model.md lists where
// the printed t_model differs from what the formula gives for the printed inputs).
#include <gtest/gtest.h>

#include "sidecore/model/job.hpp"
#include "sidecore/model/model.hpp"

namespace sm = sidecore::model;
using sidecore::category;

namespace {

// Builds rank inputs from table values; category times the tables do not print are irrelevant to
// t_dedicated (only counts x minima, t_MPIblocking and t_MPIother enter the formula).
sm::rank_inputs make(double t_np, double t_comp, int n_core, std::uint64_t n_block, double t_block, std::uint64_t n_nb,
                     double min_nb, std::uint64_t n_test, double min_test, std::uint64_t n_wait, double min_wait,
                     double t_other) {
  sm::rank_inputs in;
  in.t_noprogress_s = t_np;
  in.t_comp_s = t_comp;
  in.n_core = n_core;
  in[category::blocking] = {t_block, n_block, n_block ? t_block / static_cast<double>(n_block) : 0.0};
  in[category::init] = {static_cast<double>(n_nb) * min_nb, n_nb, min_nb};
  in[category::test] = {static_cast<double>(n_test) * min_test, n_test, min_test};
  in[category::wait] = {static_cast<double>(n_wait) * min_wait, n_wait, min_wait};
  in[category::other] = {t_other, t_other > 0 ? 1u : 0u, t_other};
  return in;
}

sm::prediction run(const sm::rank_inputs& in, double alpha = 0.0) {
  sm::model_options o;
  o.alpha = alpha;
  return sm::predict(in, o);
}

}  // namespace

// Table I, Kripke case #1: t_noprogress 147, t_comp 73.6, N_core 16, N_nonblocking 480000 x 2.14e-5,
// N_test 1119810 x 2.05e-5, N_wait 10000 x 3.2e-5, t_MPIblocking 11.7, t_MPIother 0.0.
// N_blocking is not printed; at alpha = 0 only t_MPIblocking matters (20000 assumed).
TEST(PaperTableI, KripkeCase1) {
  const auto in = make(147, 73.6, 16, 20000, 11.7, 480000, 2.14e-5, 1119810, 2.05e-5, 10000, 3.2e-5, 0.0);
  const auto p = run(in);
  // t_newcomp = 73.6 * 16 / 15 = 1177.6 / 15 = 78.50666...
  EXPECT_NEAR(p.t_newcomp_s, 78.5066667, 1e-6);
  // t_overhead = 73.6 / 15 = 4.90666...
  EXPECT_NEAR(p.t_overhead_s, 4.9066667, 1e-6);
  // 480000 * 2.14e-5 = 10.272 ; 1119810 * 2.05e-5 = 22.956105 ; 10000 * 3.2e-5 = 0.32
  EXPECT_NEAR(p.t_init_s, 10.272, 1e-9);
  EXPECT_NEAR(p.t_test_s, 22.956105, 1e-9);
  EXPECT_NEAR(p.t_wait_s, 0.32, 1e-9);
  // (1 - 0) * t_MPIblocking = 11.7 ; other 0.0
  EXPECT_NEAR(p.t_oldblocking_s, 11.7, 1e-9);
  // t_MPIdedicated = 10.272 + 22.956105 + 0.32 + 11.7 + 0 = 45.248105
  EXPECT_NEAR(p.t_mpi_dedicated_s, 45.248105, 1e-9);
  // t_dedicated = 78.5066667 + 45.248105 = 123.7547717 (the table prints 119.82)
  EXPECT_NEAR(p.t_dedicated_s, 123.7547717, 1e-6);
  // speedup = 147 / 123.7547717 = 1.18783...
  EXPECT_NEAR(p.speedup, 147.0 / 123.7547717, 1e-9);
  EXPECT_EQ(p.result, sm::verdict::pays_off);
}

// Table I, Kripke case #2: t_noprogress 155, t_comp 145.7, N_nonblocking 96 x 2.16e-5,
// N_test 109679 x 2.2e-5, N_wait 2 x 7.19e-5, t_MPIblocking 4.98, t_MPIother 0.34.
TEST(PaperTableI, KripkeCase2) {
  const auto in = make(155, 145.7, 16, 20000, 4.98, 96, 2.16e-5, 109679, 2.2e-5, 2, 7.19e-5, 0.34);
  const auto p = run(in);
  // t_newcomp = 145.7 * 16 / 15 = 2331.2 / 15 = 155.41333...
  EXPECT_NEAR(p.t_newcomp_s, 155.4133333, 1e-6);
  // 96 * 2.16e-5 = 0.0020736 ; 109679 * 2.2e-5 = 2.412938 ; 2 * 7.19e-5 = 0.0001438
  EXPECT_NEAR(p.t_init_s, 0.0020736, 1e-12);
  EXPECT_NEAR(p.t_test_s, 2.412938, 1e-9);
  EXPECT_NEAR(p.t_wait_s, 0.0001438, 1e-12);
  // t_MPIdedicated = 0.0020736 + 2.412938 + 0.0001438 + 4.98 + 0.34 = 7.7351554
  EXPECT_NEAR(p.t_mpi_dedicated_s, 7.7351554, 1e-9);
  // t_dedicated = 155.4133333 + 7.7351554 = 163.1484887 (the table prints 156.75)
  EXPECT_NEAR(p.t_dedicated_s, 163.1484887, 1e-6);
  // speedup = 155 / 163.1484887 = 0.950055 -> below 1 - 2 %: does not pay off (measured: 155/154)
  EXPECT_NEAR(p.speedup, 0.9500548, 1e-6);
  EXPECT_EQ(p.result, sm::verdict::does_not_pay_off);
}

// Table II, MiniMD. The table prints neither N_nonblocking nor N_test: N_nonblocking = N_wait
// (one MPI_Irecv per MPI_Wait in MiniMD's exchange) and N_test = 0 are assumed, see docs/model.md.
TEST(PaperTableII, MiniMDCase1) {
  const auto in = make(112, 94.55, 16, 5863, 19.16, 5862, 2.50e-5, 0, 0.0, 5862, 5.33e-6, 2.20);
  const auto p = run(in);
  // t_newcomp = 94.55 * 16 / 15 = 1512.8 / 15 = 100.853333...
  EXPECT_NEAR(p.t_newcomp_s, 100.8533333, 1e-6);
  // 5862 * 2.5e-5 = 0.14655 ; 5862 * 5.33e-6 = 0.03124446
  EXPECT_NEAR(p.t_init_s, 0.14655, 1e-12);
  EXPECT_NEAR(p.t_wait_s, 0.03124446, 1e-12);
  // t_dedicated = 100.8533333 + 0.14655 + 0.03124446 + 19.16 + 2.20 = 122.3911278
  // (the table prints t_model 98 and a measured t_dedicated of 122)
  EXPECT_NEAR(p.t_dedicated_s, 122.3911278, 1e-6);
  // speedup = 112 / 122.3911278 = 0.915099
  EXPECT_NEAR(p.speedup, 0.9150990, 1e-6);
  EXPECT_EQ(p.result, sm::verdict::does_not_pay_off);
}

TEST(PaperTableII, MiniMDCase2) {
  const auto in = make(17.9, 9.73, 16, 5863, 4.99, 5862, 7.49e-5, 0, 0.0, 5862, 5.47e-6, 1.42);
  const auto p = run(in);
  // t_newcomp = 9.73 * 16 / 15 = 155.68 / 15 = 10.378667
  EXPECT_NEAR(p.t_newcomp_s, 10.3786667, 1e-6);
  // 5862 * 7.49e-5 = 0.4390638 ; 5862 * 5.47e-6 = 0.03206514
  // t_dedicated = 10.3786667 + 0.4390638 + 0.03206514 + 4.99 + 1.42 = 17.2597956 (table: 12.61)
  EXPECT_NEAR(p.t_dedicated_s, 17.2597956, 1e-6);
  // speedup = 17.9 / 17.2597956 = 1.03709 -> beyond +2 %: pays off
  EXPECT_NEAR(p.speedup, 1.0370922, 1e-6);
  EXPECT_EQ(p.result, sm::verdict::pays_off);

  // alpha = 1 (Figure 5, green line): converted = 5863 * (7.49e-5 + 5.47e-6) = 5863 * 8.037e-5 = 0.47120931,
  // remaining blocking 0: t_dedicated = 10.3786667 + 0.4390638 + 0.03206514 + 0.47120931 + 1.42 = 12.7410049
  const auto p1 = run(in, 1.0);
  EXPECT_NEAR(p1.t_converted_s, 0.47120931, 1e-9);
  EXPECT_NEAR(p1.t_remaining_blocking_s, 0.0, 1e-12);
  EXPECT_NEAR(p1.t_dedicated_s, 12.7410049, 1e-6);
  // alpha = 0.5: t_dedicated = 17.2597956 - 0.5 * (4.99 - 0.47120931) = 17.2597956 - 2.25939535 = 15.00040025
  EXPECT_NEAR(run(in, 0.5).t_dedicated_s, 15.0004003, 1e-6);
}

TEST(PaperTableII, MiniMDCase3) {
  const auto in = make(57.3, 34.9, 16, 263, 0.41, 5862, 1.03e-5, 0, 0.0, 5862, 5.59e-6, 17.8);
  const auto p = run(in);
  // t_newcomp = 34.9 * 16 / 15 = 558.4 / 15 = 37.226667
  // 5862 * 1.03e-5 = 0.0603786 ; 5862 * 5.59e-6 = 0.03276858
  // t_dedicated = 37.2266667 + 0.0603786 + 0.03276858 + 0.41 + 17.8 = 55.52981388 (table: 54.9; measured 63.7)
  EXPECT_NEAR(p.t_dedicated_s, 55.5298139, 1e-6);
  EXPECT_NEAR(p.speedup, 57.3 / 55.5298139, 1e-9);
  // Quasi-neutral slope (Section VI-C): d t/d alpha = 263 * (1.03e-5 + 5.59e-6) - 0.41 = 0.00417907 - 0.41 =
  // -0.40582093
  EXPECT_NEAR(sm::dedicated_time_slope(in), -0.40582093, 1e-9);
}

// Section VI-C: the slope is the efficiency of the conversion; case #2 has the steepest one.
TEST(PaperTableII, SlopesOrderAsFigure5) {
  const auto c1 = make(112, 94.55, 16, 5863, 19.16, 5862, 2.50e-5, 0, 0.0, 5862, 5.33e-6, 2.20);
  const auto c2 = make(17.9, 9.73, 16, 5863, 4.99, 5862, 7.49e-5, 0, 0.0, 5862, 5.47e-6, 1.42);
  const auto c3 = make(57.3, 34.9, 16, 263, 0.41, 5862, 1.03e-5, 0, 0.0, 5862, 5.59e-6, 17.8);
  sm::model_options o;
  const double s1 = sm::conversion_slope({c1}, o).speedup_per_alpha;
  const double s2 = sm::conversion_slope({c2}, o).speedup_per_alpha;
  const double s3 = sm::conversion_slope({c3}, o).speedup_per_alpha;
  EXPECT_GT(s1, 0);
  EXPECT_GT(s2, s1);
  EXPECT_LT(std::abs(s3), 0.02);  // quasi-neutral
  // Case #1: t(0) = 122.3911278 > 112; slope = 5863 * (2.5e-5 + 5.33e-6) - 19.16 = 0.17782479 - 19.16
  // = -18.98217521, so t(1) = 103.4089526. Break-even where 122.3911278 - 18.98217521 * alpha = 112:
  // alpha = 10.3911278 / 18.98217521 = 0.547415
  const auto be = sm::break_even({c1}, o);
  ASSERT_EQ(be.k, sm::break_even_result::kind::crossing);
  ASSERT_TRUE(be.alpha.has_value());
  EXPECT_NEAR(*be.alpha, 0.547415, 1e-6);
  EXPECT_NEAR(be.pays_off_to, 1.0, 1e-12);
}
