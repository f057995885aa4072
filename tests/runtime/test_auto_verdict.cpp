// SIDECORE_PROGRESS=auto's verdict from what the ranks agree (runtime/src/auto_verdict.hpp), fed with predictions
// that the shared formula (common/dedicated_core.hpp) makes from synthetic category totals of each rank, reduced as
// the runtime reduces them (MPI_MAXLOC: the largest value, and the rank that has it).
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <vector>

#include <sidecore/common/dedicated_core.hpp>

#include "auto_verdict.hpp"

namespace {

namespace d = sidecore::detail;
namespace ded = sidecore::dedicated;
using sidecore::category;
using ::testing::HasSubstr;

struct rank_window {
  double window_s;       // t_noprogress
  double comp_s;         // computation in it
  double wait_s;         // waits (the rest of the window); 100 of them, the shortest 10 us
  int n_core;
  d::auto_veto veto = d::auto_veto::none;
  d::auto_forced_vote force = d::auto_forced_vote::none;
};

// What the ranks agree: the maxima of their windows and of their predictions, each with its rank.
d::job_vote agree(const std::vector<rank_window>& ranks) {
  d::job_vote v;
  for (int r = 0; r < static_cast<int>(ranks.size()); ++r) {
    const rank_window& w = ranks[static_cast<std::size_t>(r)];
    ded::inputs in;
    in.t_noprogress_s = w.window_s;
    in.t_comp_s = w.comp_s;
    in.categories[static_cast<std::size_t>(category::wait)] = {w.wait_s, 100, 1e-5};
    in.categories[static_cast<std::size_t>(category::init)] = {1e-3, 100, 1e-5};
    in.newcomp_ratio = ded::linear_ratio(w.n_core);
    const double t_ded = ded::predict(in).t_dedicated_s;
    if (r == 0 || w.window_s > v.t_noprogress_s) v.t_noprogress_s = w.window_s, v.slowest_rank_off = r;
    if (r == 0 || t_ded > v.t_dedicated_s) v.t_dedicated_s = t_ded, v.slowest_rank_core = r;
    if (r == 0 || static_cast<int>(w.veto) > static_cast<int>(v.veto)) v.veto = w.veto, v.veto_rank = r;
    if (static_cast<int>(w.force) > static_cast<int>(v.force)) v.force = w.force;
  }
  return v;
}

TEST(AutoVerdict, PaysOffWhenEveryRankWaitsForWhatACoreWouldMove) {
  const d::job_verdict j = d::judge(agree({{10.0, 6.0, 4.0, 16}, {10.0, 6.0, 4.0, 16}}));
  EXPECT_TRUE(j.core);
  EXPECT_FALSE(j.forced);
  EXPECT_EQ(j.outcome, ded::outcome::pays_off);
  EXPECT_GT(j.speedup, 1.4);
  EXPECT_THAT(j.reason, HasSubstr("pays off"));
}

TEST(AutoVerdict, DoesNotPayWhenComputationLosesHalfItsCores) {
  const d::job_verdict j = d::judge(agree({{10.0, 9.0, 1.0, 2}, {10.0, 9.0, 1.0, 2}}));
  EXPECT_FALSE(j.core);
  EXPECT_EQ(j.outcome, ded::outcome::does_not_pay_off);
  EXPECT_THAT(j.reason, HasSubstr("does not pay off"));
}

// Rank 0 would gain, rank 1 computes nearly all its window and would lose: the job ends with rank 1 in core mode,
// so the slowest rank decides, not rank 0's gain.
TEST(AutoVerdict, RanksThatDisagreeTheSlowestRankDecides) {
  const d::job_vote v = agree({{10.0, 5.0, 5.0, 4}, {10.0, 9.9, 0.1, 4}});
  EXPECT_EQ(v.slowest_rank_core, 1);
  const d::job_verdict j = d::judge(v);
  EXPECT_FALSE(j.core);
  EXPECT_THAT(j.reason, HasSubstr("(rank 1), speedup"));
  // The other way round: the rank that is slowest without progress is the one that gains, and it decides.
  const d::job_verdict k = d::judge(agree({{8.0, 7.9, 0.1, 4}, {12.0, 4.0, 8.0, 4}}));
  EXPECT_TRUE(k.core);
  EXPECT_THAT(k.reason, HasSubstr("window 12 s (rank 1)"));
}

TEST(AutoVerdict, ARankWithoutACoreToReserveKeepsEveryRankOffEvenWhenForced) {
  std::vector<rank_window> ranks = {{10.0, 6.0, 4.0, 16}, {10.0, 6.0, 4.0, 1, d::auto_veto::no_core}};
  ranks[0].force = d::auto_forced_vote::core;
  const d::job_verdict j = d::judge(agree(ranks));
  EXPECT_FALSE(j.core);
  EXPECT_THAT(j.reason, HasSubstr("rank 1 cannot reserve a core"));
}

TEST(AutoVerdict, OversubscribedOrNoComputationCannotBeJudged) {
  const d::job_verdict o =
      d::judge(agree({{10.0, 6.0, 4.0, 16}, {10.0, 6.0, 4.0, 16, d::auto_veto::oversubscribed}}));
  EXPECT_FALSE(o.core);
  EXPECT_THAT(o.reason, HasSubstr("rank 1 is oversubscribed"));
  const d::job_verdict n = d::judge(agree({{10.0, 0.01, 9.99, 16, d::auto_veto::no_computation}}));
  EXPECT_FALSE(n.core);
  EXPECT_THAT(n.reason, HasSubstr("less than 1 %"));
  // A veto of higher precedence names its rank.
  const d::job_verdict both = d::judge(
      agree({{10.0, 0.01, 9.99, 16, d::auto_veto::no_computation}, {10.0, 6.0, 4.0, 16, d::auto_veto::oversubscribed}}));
  EXPECT_THAT(both.reason, HasSubstr("rank 1 is oversubscribed"));
}

// SIDECORE_NCORE=1: the formula has no N_core - 1 cores for the computation; the rank votes its window as its
// prediction (nothing predicted) and vetoes, so the job stays off unless forced.
TEST(AutoVerdict, AModelWithOneCoreCannotBeJudged) {
  const d::job_verdict j = d::judge(agree({{10.0, 6.0, 4.0, 16}, {10.0, 6.0, 4.0, 16, d::auto_veto::one_core}}));
  EXPECT_FALSE(j.core);
  EXPECT_THAT(j.reason, HasSubstr("rank 1's model has one core"));
  // Below a rank without a core to reserve, above the other vetoes.
  const d::job_verdict k = d::judge(agree({{10.0, 6.0, 4.0, 16, d::auto_veto::one_core},
                                           {10.0, 6.0, 4.0, 16, d::auto_veto::no_core}}));
  EXPECT_THAT(k.reason, HasSubstr("rank 1 cannot reserve a core"));
  const d::job_verdict f = d::judge(agree({{10.0, 0.01, 9.99, 16, d::auto_veto::no_computation},
                                           {10.0, 6.0, 4.0, 16, d::auto_veto::one_core}}));
  EXPECT_THAT(f.reason, HasSubstr("rank 1's model has one core"));
}

TEST(AutoVerdict, ForcedVerdictOverridesTheModelButKeepsItsNumbers) {
  std::vector<rank_window> ranks = {{10.0, 9.0, 1.0, 2, d::auto_veto::oversubscribed}};
  ranks[0].force = d::auto_forced_vote::core;
  const d::job_verdict j = d::judge(agree(ranks));
  EXPECT_TRUE(j.core);
  EXPECT_TRUE(j.forced);
  EXPECT_EQ(j.outcome, ded::outcome::does_not_pay_off);
  EXPECT_THAT(j.reason, HasSubstr("SIDECORE_AUTO_FORCE=core"));
  EXPECT_THAT(j.reason, HasSubstr("speedup"));
  ranks = {{10.0, 6.0, 4.0, 16, d::auto_veto::none, d::auto_forced_vote::off}};
  EXPECT_FALSE(d::judge(agree(ranks)).core);
}

TEST(AutoVerdict, WithinTheNoiseBandStaysOff) {
  // speedup 1.01: no switch for a gain the measurement cannot tell from noise.
  d::job_vote v;
  v.t_noprogress_s = 1.01;
  v.t_dedicated_s = 1.0;
  const d::job_verdict j = d::judge(v);
  EXPECT_FALSE(j.core);
  EXPECT_EQ(j.outcome, ded::outcome::within_noise);
  EXPECT_THAT(j.reason, HasSubstr("noise band of 2 %"));
}

}  // namespace
