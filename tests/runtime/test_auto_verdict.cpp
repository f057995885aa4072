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
    // As the runtime: the packed veto, the largest wins (the lowest rank among equals).
    const double packed = d::pack_veto({.why = w.veto});
    if (r == 0 || packed > d::pack_veto(v.veto)) v.veto = d::unpack_veto(packed), v.veto_rank = r;
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
  const d::job_verdict both = d::judge(agree(
      {{10.0, 0.01, 9.99, 16, d::auto_veto::no_computation}, {10.0, 6.0, 4.0, 16, d::auto_veto::oversubscribed}}));
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

// A veto travels as one value of the MAXLOC vote with the vetoing rank's figures, so that every rank (rank 0's line,
// the job profile) says which rank vetoed and why in that rank's terms.
TEST(AutoVerdict, AVetoCarriesItsRanksFiguresAndKeepsItsPrecedence) {
  const d::rank_veto over{.why = d::auto_veto::oversubscribed, .node_ranks = 3, .node_cores = 12, .machine_cores = 8};
  const d::rank_veto back = d::unpack_veto(d::pack_veto(over));
  EXPECT_EQ(back.why, d::auto_veto::oversubscribed);
  EXPECT_EQ(back.node_ranks, 3);
  EXPECT_EQ(back.node_cores, 12);
  EXPECT_EQ(back.machine_cores, 8);
  EXPECT_EQ(d::unpack_veto(d::pack_veto({.why = d::auto_veto::no_core, .cores = 1})).cores, 1);
  EXPECT_NEAR(d::unpack_veto(d::pack_veto({.why = d::auto_veto::no_computation, .comp_share = 0.0042})).comp_share,
              0.0042, 1e-6);
  EXPECT_EQ(d::unpack_veto(0.0).why, d::auto_veto::none);
  EXPECT_EQ(d::unpack_veto(d::pack_veto({})).why, d::auto_veto::none);
  // Figures never lift a veto above one of higher precedence, however large.
  const d::rank_veto huge{.why = d::auto_veto::oversubscribed, .node_ranks = 1 << 30, .node_cores = 1 << 30,
                          .machine_cores = 1 << 30};
  EXPECT_LT(d::pack_veto({.why = d::auto_veto::no_computation, .comp_share = 1.0}),
            d::pack_veto({.why = d::auto_veto::one_core}));
  EXPECT_LT(d::pack_veto({.why = d::auto_veto::one_core}), d::pack_veto({.why = d::auto_veto::oversubscribed}));
  EXPECT_LT(d::pack_veto(huge), d::pack_veto({.why = d::auto_veto::no_core, .cores = 0}));
  EXPECT_EQ(d::unpack_veto(d::pack_veto(huge)).node_cores, (1 << 18) - 1);

  d::job_vote v;
  v.t_noprogress_s = 10.0;
  v.t_dedicated_s = 8.0;
  v.veto_rank = 3;
  v.veto = over;
  EXPECT_THAT(d::judge(v).reason, HasSubstr("rank 3 is oversubscribed: its node runs 3 ranks whose cpusets hold 12 "
                                            "cores in all, on 8 cores"));
  v.veto = d::unpack_veto(d::pack_veto(huge));
  EXPECT_THAT(d::judge(v).reason, HasSubstr("65535 or more ranks whose cpusets hold 262143 or more cores"));
  v.veto = {.why = d::auto_veto::no_core, .cores = 1};
  EXPECT_THAT(d::judge(v).reason, HasSubstr("rank 3 cannot reserve a core: its cpuset holds 1 core,"));
  v.veto = {.why = d::auto_veto::one_core};
  EXPECT_THAT(d::judge(v).reason, HasSubstr("rank 3's model has one core (SIDECORE_NCORE=1)"));
  v.veto = {.why = d::auto_veto::no_computation, .comp_share = 0.0042};
  EXPECT_THAT(d::judge(v).reason, HasSubstr("rank 3 computed 0.42 % of its window, less than 1 %"));
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
