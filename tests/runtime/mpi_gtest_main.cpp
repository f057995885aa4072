// main() of the multi-rank GoogleTest programs: MPI_Init_thread(MPI_THREAD_MULTIPLE), sidecore::init(), the
// tests (every rank runs every test in the same order, so a test may be collective), then every rank exits
// non-zero when any rank failed. Rank 0 prints the usual gtest output; the other ranks print only their
// failures, prefixed with their rank.
#include <mpi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <sidecore/sidecore.hpp>

namespace {

class rank_failure_printer : public ::testing::EmptyTestEventListener {
 public:
  explicit rank_failure_printer(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                 r.message());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d] [  FAILED  ] %s.%s\n", rank_, info.test_suite_name(), info.name());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ::testing::InitGoogleTest(&argc, argv);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new rank_failure_printer(rank));
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "[rank %d] MPI gives thread level %d, MPI_THREAD_MULTIPLE needed\n", rank, provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  try {
    sidecore::init();
  } catch (const sidecore::error& e) {
    std::fprintf(stderr, "[rank %d] sidecore::init failed (%s): %s\n", rank, sidecore::errc_name(e.code()), e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  const int local = RUN_ALL_TESTS();
  int any = 0;
  const int mine = local != 0 ? 1 : 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any && rank == 0 && local == 0) std::fprintf(stderr, "another rank failed (see its [rank N] lines)\n");
  try {
    sidecore::finalize();
  } catch (const sidecore::error& e) {
    std::fprintf(stderr, "[rank %d] sidecore::finalize failed: %s\n", rank, e.what());
    any = 1;
  }
  MPI_Finalize();
  return any ? 1 : 0;
}
