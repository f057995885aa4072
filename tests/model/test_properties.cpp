// Properties of the model that must hold for any input.
#include <gtest/gtest.h>

#include "sidecore/model/job.hpp"
#include "sidecore/model/model.hpp"

namespace sm = sidecore::model;
using sidecore::category;

namespace {

sm::rank_inputs base() {
  sm::rank_inputs in;
  in.t_noprogress_s = 100;
  in.t_comp_s = 60;
  in.n_core = 16;
  in[category::blocking] = {20.0, 10000, 1e-4};
  in[category::init] = {2.0, 20000, 2e-5};
  in[category::test] = {5.0, 50000, 1e-5};
  in[category::wait] = {12.0, 20000, 3e-5};
  in[category::other] = {1.0, 10, 1e-3};
  return in;
}

}  // namespace

TEST(Properties, SpeedupFallsAsComputationGrows) {
  sm::model_options o;
  double prev = 1e300;
  for (double t_comp = 0; t_comp <= 1000; t_comp += 25) {
    auto in = base();
    in.t_comp_s = t_comp;
    in.t_noprogress_s = 40 + t_comp;  // everything else fixed: t_MPI = 40
    const double s = sm::predict(in, o).speedup;
    EXPECT_LT(s, prev) << "t_comp " << t_comp;
    prev = s;
  }
}

TEST(Properties, AlphaZeroIsTheBaseCase) {
  const auto in = base();
  sm::model_options o;
  const auto p = sm::predict(in, o);
  // The base case written out: t_comp*N/(N-1) + counts x minima + t_MPIblocking + t_MPIother.
  const double expected = 60.0 * 16 / 15 + 20000 * 2e-5 + 50000 * 1e-5 + 20000 * 3e-5 + 20.0 + 1.0;
  EXPECT_NEAR(p.t_dedicated_s, expected, 1e-9);
  EXPECT_EQ(p.t_converted_s, 0.0);
  EXPECT_NEAR(p.t_remaining_blocking_s, in[category::blocking].time_s, 1e-12);
  // A sweep starting at 0 reproduces it too.
  const auto sweep = sm::alpha_sweep({in}, o, {0.0, 1.0, 0.25});
  ASSERT_EQ(sweep.size(), 5u);
  EXPECT_NEAR(sweep.front().t_dedicated_s, expected, 1e-9);
}

TEST(Properties, MoreCoresNeverSlowerUnderLinearScaling) {
  sm::model_options o;
  for (double t_comp : {0.0, 1.0, 60.0, 5000.0}) {
    double prev = 1e300;
    for (int n = 2; n <= 512; ++n) {
      auto in = base();
      in.t_comp_s = t_comp;
      in.n_core = n;
      const double t = sm::predict(in, o).t_dedicated_s;
      EXPECT_LE(t, prev + 1e-12) << "N_core " << n;
      prev = t;
    }
  }
}

TEST(Properties, TimeIsLinearInAlpha) {
  const auto in = base();
  sm::model_options o;
  o.alpha = 0;
  const double t0 = sm::predict(in, o).t_dedicated_s;
  o.alpha = 1;
  const double t1 = sm::predict(in, o).t_dedicated_s;
  EXPECT_NEAR(t1 - t0, sm::dedicated_time_slope(in), 1e-9);
  o.alpha = 0.3;
  EXPECT_NEAR(sm::predict(in, o).t_dedicated_s, t0 + 0.3 * (t1 - t0), 1e-9);
}

TEST(Properties, VerdictBand) {
  EXPECT_EQ(sm::classify(1.03, 0.02), sm::verdict::pays_off);
  EXPECT_EQ(sm::classify(1.01, 0.02), sm::verdict::within_noise);
  EXPECT_EQ(sm::classify(0.99, 0.02), sm::verdict::within_noise);
  EXPECT_EQ(sm::classify(0.97, 0.02), sm::verdict::does_not_pay_off);
  EXPECT_EQ(sm::classify(1.01, 0.0), sm::verdict::pays_off);
  EXPECT_EQ(sm::verdict_name(sm::verdict::within_noise), "within noise");
}

TEST(Properties, TermsAddUp) {
  const auto p = sm::predict(base(), sm::model_options{0.4, sm::scaling_model::linear(), 0.02});
  EXPECT_NEAR(p.t_mpi_dedicated_s, p.t_init_s + p.t_test_s + p.t_wait_s + p.t_converted_s + p.t_remaining_blocking_s +
                                       p.t_other_s, 1e-12);
  EXPECT_NEAR(p.t_dedicated_s, p.t_comp_s + p.t_overhead_s + p.t_mpi_dedicated_s, 1e-9);
  EXPECT_NEAR(p.t_mpi_overlapable_s, p.t_mpi_noprogress_s - p.t_mpi_dedicated_s, 1e-12);
  // Every term comes with an explanation.
  ASSERT_GE(p.terms.size(), 14u);
  for (const auto& t : p.terms) {
    EXPECT_FALSE(t.explanation.empty()) << t.symbol;
    EXPECT_FALSE(t.formula.empty()) << t.symbol;
  }
}
