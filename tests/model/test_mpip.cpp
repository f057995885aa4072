// mpiP reports: both Aggregate Time layouts, categories built from the callsite statistics.
#include <gtest/gtest.h>

#include <sstream>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/input.hpp"
#include "sidecore/model/mpip.hpp"
#include "model_test_util.hpp"

namespace sm = sidecore::model;
using sidecore::category;

namespace {

using sctest::model_data;

// Rank 0 of the sample, by hand from its Callsite Time statistics (milliseconds):
//   blocking: Allreduce 1000 x 1.5 = 1500 + Barrier 10 x 0.2 = 2   -> 1.502 s, 1010 calls, min 0.05 ms
//   init:     Irecv 240000 x 0.025 = 6000 + Isend 240000 x 0.03 = 7200 -> 13.2 s, 480000, min 0.0214 ms
//   test:     Testany 1000000 x 0.021 = 21000                      -> 21.0 s, 1000000, min 0.0205 ms
//   wait:     Waitall 10000 x 0.05 = 500                            -> 0.5 s, 10000, min 0.032 ms
//   other:    Comm_split 2 x 1 = 2                                  -> 0.002 s, 2, min 0.8 ms
//   t_noprogress = AppTime 150 s; t_comp = 150 - 36.204 = 113.796 s
void expect_rank0(const sm::rank_inputs& r) {
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.n_core, 16);
  EXPECT_DOUBLE_EQ(r.t_noprogress_s, 150.0);
  EXPECT_NEAR(r.t_comp_s, 113.796, 1e-9);
  EXPECT_NEAR(r[category::blocking].time_s, 1.502, 1e-12);
  EXPECT_EQ(r[category::blocking].count, 1010u);
  EXPECT_NEAR(r[category::blocking].min_s, 5e-5, 1e-15);
  EXPECT_NEAR(r[category::init].time_s, 13.2, 1e-9);
  EXPECT_EQ(r[category::init].count, 480000u);
  EXPECT_NEAR(r[category::init].min_s, 2.14e-5, 1e-15);
  EXPECT_NEAR(r[category::test].time_s, 21.0, 1e-9);
  EXPECT_EQ(r[category::test].count, 1000000u);
  EXPECT_NEAR(r[category::test].min_s, 2.05e-5, 1e-15);
  EXPECT_NEAR(r[category::wait].time_s, 0.5, 1e-12);
  EXPECT_EQ(r[category::wait].count, 10000u);
  EXPECT_NEAR(r[category::wait].min_s, 3.2e-5, 1e-15);
  EXPECT_NEAR(r[category::other].time_s, 0.002, 1e-15);
  EXPECT_EQ(r[category::other].count, 2u);
  EXPECT_NEAR(r[category::other].min_s, 8e-4, 1e-15);
}

// Rank 1: blocking 2500 + 3 ms = 2.503 s (1010, min 0.06 ms); init 5760 + 7440 = 13.2 s (min 0.0215 ms);
// test 900000 x 0.022 = 19.8 s; wait 400 ms; other 3 ms; t_comp = 149 - 35.906 = 113.094 s.
void expect_rank1(const sm::rank_inputs& r) {
  EXPECT_EQ(r.rank, 1);
  EXPECT_NEAR(r.t_comp_s, 113.094, 1e-9);
  EXPECT_NEAR(r[category::blocking].time_s, 2.503, 1e-12);
  EXPECT_NEAR(r[category::blocking].min_s, 6e-5, 1e-15);
  EXPECT_NEAR(r[category::init].min_s, 2.15e-5, 1e-15);
  EXPECT_NEAR(r[category::test].time_s, 19.8, 1e-9);
  EXPECT_EQ(r[category::test].count, 900000u);
}

}  // namespace

TEST(Mpip, Layout35WithCountColumn) {
  const auto rep = sm::read_mpip_file(model_data + "/kripke_mpip35.mpiP");
  EXPECT_EQ(rep.version, "3.5.0");
  EXPECT_TRUE(rep.aggregate_has_count);
  ASSERT_EQ(rep.aggregate.size(), 7u);
  EXPECT_EQ(rep.aggregate[0].call, "Testany");
  EXPECT_EQ(rep.aggregate[0].count.value_or(0), 1900000u);
  EXPECT_DOUBLE_EQ(rep.aggregate[0].time_ms, 4.08e4);
  EXPECT_DOUBLE_EQ(rep.aggregate[0].cov, 0.04);
  EXPECT_EQ(rep.tasks.size(), 2u);
  EXPECT_EQ(rep.callsites.size(), 14u);  // the 7 "*" rows are skipped
  EXPECT_TRUE(rep.warnings.empty()) << rep.warnings.front();
  const auto in = sm::mpip_to_inputs(rep, 16);
  ASSERT_EQ(in.size(), 2u);
  expect_rank0(in[0]);
  expect_rank1(in[1]);
}

TEST(Mpip, Layout34WithoutCountColumn) {
  const auto rep = sm::read_mpip_file(model_data + "/kripke_mpip34.mpiP");
  EXPECT_EQ(rep.version, "3.4.1");
  EXPECT_FALSE(rep.aggregate_has_count);
  ASSERT_EQ(rep.aggregate.size(), 7u);
  EXPECT_FALSE(rep.aggregate[0].count.has_value());
  EXPECT_DOUBLE_EQ(rep.aggregate[3].time_ms, 4e3);
  EXPECT_DOUBLE_EQ(rep.aggregate[3].cov, 0.35);  // COV found by name, not by position
  const auto in = sm::mpip_to_inputs(rep, 16);
  ASSERT_EQ(in.size(), 2u);
  expect_rank0(in[0]);
  expect_rank1(in[1]);
}

TEST(Mpip, LoadAsJobInput) {
  const auto job = sm::load_mpip(model_data + "/kripke_mpip34.mpiP", 16);
  EXPECT_TRUE(job.from_mpip);
  EXPECT_EQ(job.ranks.size(), 2u);
  EXPECT_EQ(job.nranks, 2);
  try {
    (void)sm::load_mpip(model_data + "/kripke_mpip34.mpiP", 1);
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_EQ(e.source(), "--cores");
    EXPECT_NE(std::string(e.what()).find("N_core >= 2"), std::string::npos);
  }
}

TEST(Mpip, Classification) {
  using sm::classify_mpi_call;
  for (const char* n : {"Isend", "Irecv", "Issend", "Ibsend", "Irsend", "Iallreduce", "Ibcast", "Ialltoallv",
                        "Ineighbor_alltoall", "Ibarrier", "Ireduce_scatter_block", "Start", "Startall", "Rput",
                        "Put", "MPI_Isend", "mpi_irecv", "PMPI_Iallgather"})
    EXPECT_EQ(classify_mpi_call(n), category::init) << n;
  for (const char* n : {"Test", "Testall", "Testany", "Testsome", "Iprobe", "MPI_Test"})
    EXPECT_EQ(classify_mpi_call(n), category::test) << n;
  for (const char* n : {"Wait", "Waitall", "Waitany", "Waitsome", "MPI_Waitall"})
    EXPECT_EQ(classify_mpi_call(n), category::wait) << n;
  for (const char* n : {"Send", "Recv", "Ssend", "Sendrecv", "Sendrecv_replace", "Probe", "Barrier", "Bcast",
                        "Allreduce", "Alltoallv", "Reduce_scatter", "Neighbor_alltoallw", "Scan", "Win_fence",
                        "MPI_Allgatherv"})
    EXPECT_EQ(classify_mpi_call(n), category::blocking) << n;
  for (const char* n : {"Init", "Finalize", "Comm_split", "Comm_rank", "Type_commit", "Cancel", "Request_free",
                        "Send_init", "Recv_init", "File_iread", "Win_create", "Wtime", "Info"})
    EXPECT_EQ(classify_mpi_call(n), category::other) << n;
}

TEST(MpipErrors, MissingSectionsAndBadRows) {
  auto expect = [](const std::string& text, const char* fragment) {
    std::istringstream in(text);
    try {
      (void)sm::parse_mpip(in, "r.mpiP");
      ADD_FAILURE() << "accepted";
    } catch (const sidecore::input_error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_EQ(e.source(), "r.mpiP");
    }
  };
  expect("hello\nworld\n", "not an mpiP report");
  const std::string mpi_time =
      "@ mpiP\n---------\n@--- MPI Time (seconds) ------\n---------\nTask    AppTime    MPITime     MPI%\n"
      "   0       10.0       2.0    20.00\n   *       10.0       2.0    20.00\n";
  expect(mpi_time, "no \"@--- Callsite Time statistics\" section");
  expect("@ mpiP\n", "no \"@--- MPI Time (seconds)\" section");
  const std::string cs_head = "---------\n@--- Callsite Time statistics (all, milliseconds): 2 -----\n---------\n";
  expect(mpi_time + cs_head + "Name Site Rank Count Max Mean Min App% MPI%\nSend 1 0 10 abc 0.1 0.1 1 1\n",
         "Max \"abc\" is not a number");
  expect(mpi_time + cs_head + "Name Site Rank Count Max Mean Min App% MPI%\nSend 1 0 10 0.2 0.1 0.3 1 1\n",
         "need Min <= Mean <= Max");
  expect(mpi_time + cs_head + "Name Site Rank Count Max Mean App% MPI%\nSend 1 0 10 0.2 0.1 1 1\n",
         "no column \"Min\"");
  expect(mpi_time + cs_head + "Name Site Rank Count Max Mean Min App% MPI%\nSend 1 0 -3 0.2 0.1 0.1 1 1\n",
         "negative Count");
  std::istringstream ok(mpi_time + cs_head +
                        "Name Site Rank Count Max Mean Min App% MPI%\nSend 1 3 10 0.2 0.1 0.1 1 1\n");
  const auto rep = sm::parse_mpip(ok, "r.mpiP");
  try {
    (void)sm::mpip_to_inputs(rep, 8);
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 3: has callsite statistics but no row in the MPI Time section"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)sm::read_mpip_file("/nonexistent.mpiP"), sidecore::input_error);
}
