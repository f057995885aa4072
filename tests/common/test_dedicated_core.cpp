// The dedicated-core formula of common/ (dedicated_core.hpp), from synthetic category totals: the one copy the model
// and the runtime's auto mode share. The model's own tests (tests/model) check that `sidecore predict` still gives
// the paper's figures through it.
#include <gtest/gtest.h>

#include <sidecore/common/dedicated_core.hpp>

namespace {

namespace ded = sidecore::dedicated;
using sidecore::category;

sidecore::category_totals totals(double time_s, std::uint64_t count, double min_s) { return {time_s, count, min_s}; }

// A rank that waits long for transfers a dedicated core would have moved during its computation.
ded::inputs waiting_rank() {
  ded::inputs in;
  in.t_noprogress_s = 10.0;
  in.t_comp_s = 6.0;
  in.categories[static_cast<std::size_t>(category::init)] = totals(0.1, 1000, 5e-5);
  in.categories[static_cast<std::size_t>(category::wait)] = totals(3.9, 1000, 1e-4);
  in.newcomp_ratio = ded::linear_ratio(16);
  return in;
}

TEST(DedicatedCore, LinearRatioIsNOverNMinusOne) {
  EXPECT_DOUBLE_EQ(ded::linear_ratio(2), 2.0);
  EXPECT_DOUBLE_EQ(ded::linear_ratio(16), 16.0 / 15.0);
  EXPECT_EQ(ded::linear_ratio(1), 0.0);
  EXPECT_EQ(ded::linear_ratio(0), 0.0);
}

TEST(DedicatedCore, WaitsThatOverlapPayOff) {
  const ded::terms t = ded::predict(waiting_rank());
  EXPECT_DOUBLE_EQ(t.t_mpi_s, 4.0);
  EXPECT_DOUBLE_EQ(t.t_newcomp_s, 6.0 * 16.0 / 15.0);
  EXPECT_DOUBLE_EQ(t.t_init_s, 1000 * 5e-5);
  EXPECT_DOUBLE_EQ(t.t_wait_s, 1000 * 1e-4);
  EXPECT_DOUBLE_EQ(t.t_mpi_dedicated_s, 0.05 + 0.1);
  EXPECT_DOUBLE_EQ(t.t_dedicated_s, 6.4 + 0.15);
  EXPECT_DOUBLE_EQ(t.gain_s, 10.0 - 6.55);
  EXPECT_GT(t.speedup, 1.5);
  EXPECT_EQ(ded::classify(t.speedup, ded::default_noise), ded::outcome::pays_off);
}

TEST(DedicatedCore, ComputationBoundOnTwoCoresDoesNotPay) {
  ded::inputs in = waiting_rank();
  in.newcomp_ratio = ded::linear_ratio(2);  // half the cores gone: 12 s of computation
  const ded::terms t = ded::predict(in);
  EXPECT_DOUBLE_EQ(t.t_dedicated_s, 12.0 + 0.15);
  EXPECT_LT(t.gain_s, 0.0);
  EXPECT_EQ(ded::classify(t.speedup, ded::default_noise), ded::outcome::does_not_pay_off);
}

TEST(DedicatedCore, BlockingCallsKeptOrConvertedWithAlpha) {
  ded::inputs in;
  in.t_noprogress_s = 4.0;
  in.t_comp_s = 2.0;
  in.categories[static_cast<std::size_t>(category::blocking)] = totals(2.0, 100, 0.01);
  in.categories[static_cast<std::size_t>(category::init)] = totals(0.0, 0, 0.0);
  in.newcomp_ratio = 1.0;
  EXPECT_DOUBLE_EQ(ded::predict(in).t_dedicated_s, 4.0);  // alpha 0: blocking calls as measured
  EXPECT_DOUBLE_EQ(ded::predict(in).t_blockingcom_s, 0.02);
  in.alpha = 1.0;  // every blocking call converted: at the (unknown, 0) minimum times
  EXPECT_DOUBLE_EQ(ded::predict(in).t_remaining_blocking_s, 0.0);
  EXPECT_DOUBLE_EQ(ded::predict(in).t_dedicated_s, 2.0);
}

TEST(DedicatedCore, NoiseBandAroundOne) {
  EXPECT_EQ(ded::classify(1.019, 0.02), ded::outcome::within_noise);
  EXPECT_EQ(ded::classify(0.981, 0.02), ded::outcome::within_noise);
  EXPECT_EQ(ded::classify(1.021, 0.02), ded::outcome::pays_off);
  EXPECT_EQ(ded::classify(0.979, 0.02), ded::outcome::does_not_pay_off);
  EXPECT_EQ(ded::predict(ded::inputs{}).speedup, 0.0);  // nothing measured: no division by zero
}

}  // namespace
