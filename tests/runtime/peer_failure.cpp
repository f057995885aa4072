// A rank dies (SIGKILL) while the others have operations with it in flight; run under
// `mpiexec -disable-auto-cleanup` (hydra otherwise kills the whole job), at 2 or 3 ranks, by peer_failure.sh.
//
// Rank 1 dies. Before that, rank 0 posts what must fail: a receive from rank 1 that it never sends, a 16 MiB
// receive whose ready-to-send rank 1 sends just before it dies (the transfer is cut off after its clear-to-send), an
// any-source receive nobody sends to, a rendezvous send rank 1 never receives; ranks 0 and 2 start an allreduce rank
// 1 never joins. Each completes with errc::peer_failed, never canceled, within a few seconds; later requests
// involving rank 1 (a receive from it, an eager and a rendezvous send to it, a blocking send and receive, a new
// collective) fail at once; rank 2 still exchanges 8 B and 1 MiB with rank 0 both ways; finalize returns;
// failed_ranks() is {1}.
// Each survivor prints "peer_failure: rank R: passed" and ends with exit(0) without MPI_Finalize (MPICH's waits
// for the dead rank: docs/failures.md). Every failed check prints a line with FAILED.
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <sidecore/sidecore.h>
#include <sidecore/sidecore.hpp>
#include <sidecore/collectives.hpp>

namespace {

using clk = std::chrono::steady_clock;
using sidecore::errc;

int g_rank = 0;
int g_failures = 0;
constexpr double deadline_s = 10;  // a failure must be reported well within this (detection: ~20 ms on one node)

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++g_failures;
  std::fprintf(stderr, "peer_failure: rank %d: FAILED: %s\n", g_rank, what.c_str());
}

// Polls r until it completes or the deadline passes (a hang is reported as a failure, not left to ctest's timeout).
sidecore::status wait_bounded(sidecore::request& r, const char* what) {
  const auto t0 = clk::now();
  sidecore::status st;
  while (!sidecore::test(r, &st)) {
    if (std::chrono::duration<double>(clk::now() - t0).count() > deadline_s) {
      check(false, std::string(what) + ": still pending after " + std::to_string(deadline_s) + " s");
      std::fflush(stderr);
      std::_Exit(3);
    }
    std::this_thread::yield();
  }
  return st;
}

void expect_peer_failed(sidecore::request& r, const char* what) {
  const sidecore::status st = wait_bounded(r, what);
  check(st.error == errc::peer_failed,
        std::string(what) + ": completed with " + sidecore::errc_name(st.error) + ", expected peer_failed");
}

void expect_ok(sidecore::request& r, const char* what) {
  const sidecore::status st = wait_bounded(r, what);
  check(st.error == errc::success, std::string(what) + ": completed with " + sidecore::errc_name(st.error));
}

// Rank 0 and rank 2 after the death: 8 B and 1 MiB each way, contents checked.
void exchange_with_live_peer(int peer) {
  for (std::size_t n : {std::size_t{8}, std::size_t{1} << 20}) {
    std::vector<unsigned char> out(n), in(n, 0);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>(i * 7 + g_rank);
    sidecore::request rr = sidecore::irecv(in.data(), static_cast<std::int64_t>(n), peer, 40);
    sidecore::request sr = sidecore::isend(out.data(), static_cast<std::int64_t>(n), peer, 40);
    expect_ok(sr, "send to the live rank");
    expect_ok(rr, "receive from the live rank");
    bool same = true;
    for (std::size_t i = 0; i < n && same; ++i) same = in[i] == static_cast<unsigned char>(i * 7 + peer);
    check(same, "the " + std::to_string(n) + "-byte message from the live rank differs");
  }
}

void survivor(int nranks) {
  constexpr std::size_t big = std::size_t{16} << 20;
  std::vector<char> small(64), four_kib(4096), large(big), rdv(std::size_t{1} << 20, 'r'), any(64);
  std::vector<double> red_in(8, 1.0), red_out(8, 0.0);
  sidecore::request never, cut, any_src, rdv_send;
  if (g_rank == 0) {
    never = sidecore::irecv(small.data(), 64, 1, 1);
    cut = sidecore::irecv(large.data(), static_cast<std::int64_t>(big), 1, 2);
    any_src = sidecore::irecv(any.data(), 64, sidecore::any_source, 5);
    rdv_send = sidecore::isend(rdv.data(), static_cast<std::int64_t>(rdv.size()), 1, 3);
  }
  sidecore::request coll = sidecore::iallreduce(red_in.data(), red_out.data(), 8, sidecore::dtype::float64,
                                                sidecore::op::sum);
  MPI_Barrier(MPI_COMM_WORLD);  // rank 1 dies after this
  const auto t0 = clk::now();
  if (g_rank == 0) {
    expect_peer_failed(never, "a receive from the dead rank");
    expect_peer_failed(cut, "a 16 MiB receive cut off by the death");
    expect_peer_failed(any_src, "an any-source receive pending at the death");
    expect_peer_failed(rdv_send, "a 1 MiB send the dead rank never received");
  }
  expect_peer_failed(coll, "an allreduce the dead rank never joined");
  const double seen_s = std::chrono::duration<double>(clk::now() - t0).count();
  check(seen_s < deadline_s, "the failures took " + std::to_string(seen_s) + " s");

  // Later requests involving the dead rank fail at once; the message names it.
  sidecore::request r1 = sidecore::irecv(small.data(), 64, 1, 6);
  expect_peer_failed(r1, "a receive from the dead rank posted after its death");
  sidecore::request s1 = sidecore::isend(four_kib.data(), 4096, 1, 7);
  (void)wait_bounded(s1, "a 4 KiB send to the dead rank");  // may be taken by the provider at once (docs/failures.md)
  sidecore::request s2 = sidecore::isend(rdv.data(), static_cast<std::int64_t>(rdv.size()), 1, 8);
  expect_peer_failed(s2, "a 1 MiB send to the dead rank after its death");
  try {
    sidecore::send(rdv.data(), static_cast<std::int64_t>(rdv.size()), 1, 9);
    check(false, "a blocking send to the dead rank returned");
  } catch (const sidecore::error& e) {
    check(e.code() == errc::peer_failed && std::string(e.what()).find("peer rank 1 failed") != std::string::npos,
          std::string("a blocking send to the dead rank threw ") + sidecore::errc_name(e.code()) + ": " + e.what());
  }
  try {  // the blocking receive throws as the blocking send does (errc::peer_failed's contract)
    (void)sidecore::recv(small.data(), 64, 1, 11);
    check(false, "a blocking receive from the dead rank returned");
  } catch (const sidecore::error& e) {
    check(e.code() == errc::peer_failed && std::string(e.what()).find("peer rank 1 failed") != std::string::npos,
          std::string("a blocking receive from the dead rank threw ") + sidecore::errc_name(e.code()) + ": " +
              e.what());
  }
  sidecore::request c2 = sidecore::iallreduce(red_in.data(), red_out.data(), 8, sidecore::dtype::float64,
                                              sidecore::op::sum);
  expect_peer_failed(c2, "an allreduce started after the death");
  // The C API's code and message.
  sidecore_request cr = SIDECORE_REQUEST_NULL;
  check(sidecore_irecv(small.data(), 64, 1, 10, SIDECORE_COMM_WORLD, &cr) == SIDECORE_SUCCESS,
        "sidecore_irecv from the dead rank");
  const int code = sidecore_wait(&cr, nullptr);
  check(code == SIDECORE_ERR_PEER_FAILED && std::string(sidecore_last_error()).find("peer rank 1") != std::string::npos,
        "sidecore_wait on a receive from the dead rank: " + std::to_string(code) + " (" + sidecore_last_error() + ")");

  if (nranks > 2) exchange_with_live_peer(g_rank == 0 ? 2 : 0);

  const auto f0 = clk::now();
  sidecore::finalize();
  const double fin_s = std::chrono::duration<double>(clk::now() - f0).count();
  check(fin_s < deadline_s, "finalize took " + std::to_string(fin_s) + " s");
  const std::vector<int> dead = sidecore::failed_ranks();
  check(dead.size() == 1 && dead[0] == 1, "failed_ranks() does not say {1}");
}

// PEER_FAILURE_CASE=stream: rank 1 dies while its data is moving: it sends 64 messages of 1 MiB to rank 0 and
// progresses them (testany) for 10 ms, then dies. Each of rank 0's receives completes with success (its data
// intact) or peer_failed, never another error: on shm a copy from the dead process fails in the provider
// (Input/output error), which is its death too. The other ranks only take part in the barrier.
void stream_case() {
  constexpr int count = 64;
  constexpr std::size_t size = std::size_t{1} << 20;
  std::vector<char> buf(g_rank <= 1 ? count * size : 0, g_rank == 1 ? 'q' : 0);
  std::vector<sidecore::request> rs;
  for (int i = 0; i < count && g_rank <= 1; ++i) {
    char* at = buf.data() + static_cast<std::size_t>(i) * size;
    rs.push_back(g_rank == 1 ? sidecore::isend(at, static_cast<std::int64_t>(size), 0, 20)
                             : sidecore::irecv(at, static_cast<std::int64_t>(size), 1, 20));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 1) {
    const auto t0 = clk::now();
    while (std::chrono::duration<double>(clk::now() - t0).count() < 0.01) (void)sidecore::testany(rs);
    std::raise(SIGKILL);
  }
  if (g_rank != 0) return;
  int ok = 0, failed = 0;
  for (int i = 0; i < count; ++i) {
    const sidecore::status st = wait_bounded(rs[static_cast<std::size_t>(i)], "a 1 MiB receive from the dying rank");
    if (st.error == errc::success) {
      ++ok;
      const char* at = buf.data() + static_cast<std::size_t>(i) * size;
      bool intact = true;
      for (std::size_t j = 0; j < size && intact; ++j) intact = at[j] == 'q';
      check(intact, "receive " + std::to_string(i) + " completed with success but its data differs");
    } else {
      ++failed;
      check(st.error == errc::peer_failed, "receive " + std::to_string(i) + " from the dying rank completed with " +
                                               sidecore::errc_name(st.error) + ", expected success or peer_failed");
    }
  }
  std::fprintf(stderr, "peer_failure: rank 0: stream: %d received, %d peer_failed\n", ok, failed);
}

// PEER_FAILURE_CASE=ended, 3 ranks: rank 1 dies; rank 0 finalizes at once (it finds the death, and with a dead
// rank no collective keeps it from exiting), then ends; rank 2, slower, finds both processes gone. Rank 0 ended
// normally: failed_ranks() says {1} on both survivors, and rank 2's receive from rank 0, which rank 0 never sent,
// completes with peer_failed saying that rank 0 ended.
void ended_case() {
  std::vector<char> small(64);
  sidecore_request from0 = SIDECORE_REQUEST_NULL;
  if (g_rank == 2)
    check(sidecore_irecv(small.data(), 64, 0, 30, SIDECORE_COMM_WORLD, &from0) == SIDECORE_SUCCESS, "sidecore_irecv");
  MPI_Barrier(MPI_COMM_WORLD);  // rank 1 dies after this
  if (g_rank == 1) std::raise(SIGKILL);
  if (g_rank == 2) {
    // No sidecore call meanwhile: rank 0 finalizes and exits.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const int code = sidecore_wait(&from0, nullptr);
    check(code == SIDECORE_ERR_PEER_FAILED &&
              std::string(sidecore_last_error()).find("peer rank 0 ended") != std::string::npos,
          "sidecore_wait on a receive from the rank that ended: " + std::to_string(code) + " (" +
              sidecore_last_error() + ")");
  }
  sidecore::finalize();
  const std::vector<int> dead = sidecore::failed_ranks();
  std::string said;
  for (int r : dead) said += " " + std::to_string(r);
  check(dead.size() == 1 && dead[0] == 1, "failed_ranks() says {" + said + " }, expected { 1 }");
}

// PEER_FAILURE_CASE=comm, 3 ranks: communicators made before rank 1 dies: `live` (split: ranks 0 and 2 only) and
// `both` (a dup of world()). After the death, world().dup(), world().split() and both.free() need the dead rank:
// each throws errc::peer_failed naming it within the deadline (a watchdog reports a hang), and `both` stays usable
// for point-to-point between the survivors; `live` has no dead rank: its dup, an allreduce on that dup and its free
// work as before.
void expect_comm_peer_failed(const char* what, const std::function<void()>& f) {
  const auto t0 = clk::now();
  try {
    f();
    check(false, std::string(what) + " over the dead rank returned");
  } catch (const sidecore::error& e) {
    const bool names_it = std::string(e.what()).find("rank 1 of sidecore::world()") != std::string::npos;
    check(e.code() == errc::peer_failed && names_it,
          std::string(what) + " over the dead rank threw " + sidecore::errc_name(e.code()) + ": " + e.what());
  }
  const double s = std::chrono::duration<double>(clk::now() - t0).count();
  check(s < deadline_s, std::string(what) + " took " + std::to_string(s) + " s");
}

void comm_case(int nranks) {
  if (nranks != 3) {
    check(false, "PEER_FAILURE_CASE=comm needs 3 ranks");
    return;
  }
  sidecore::comm live = sidecore::world().split(g_rank == 1 ? -1 : 0, g_rank);
  sidecore::comm both = sidecore::world().dup();
  MPI_Barrier(MPI_COMM_WORLD);  // rank 1 dies after this
  if (g_rank == 1) std::raise(SIGKILL);
  std::thread([] {  // a survivor stuck in an MPI collective never returns to report it
    std::this_thread::sleep_for(std::chrono::duration<double>(3 * deadline_s));
    check(false, "a communicator call still waits after " + std::to_string(3 * deadline_s) + " s");
    std::fflush(stderr);
    std::_Exit(3);
  }).detach();
  expect_comm_peer_failed("world().dup()", [] { (void)sidecore::world().dup(); });
  expect_comm_peer_failed("world().split()", [] { (void)sidecore::world().split(0, g_rank); });
  expect_comm_peer_failed("free() of a dup of world()", [&] { both.free(); });
  check(!both.null(), "the communicator whose free() failed became null");
  const int other = g_rank == 0 ? 2 : 0;
  std::int64_t out = g_rank, in = -1;
  sidecore::request rr = sidecore::irecv(&in, 8, other, 50, both);
  sidecore::request sr = sidecore::isend(&out, 8, other, 50, both);
  expect_ok(sr, "a send to the live rank on the communicator whose free() failed");
  expect_ok(rr, "a receive from the live rank on the communicator whose free() failed");
  check(in == other, "the message from the live rank says " + std::to_string(in));
  try {
    sidecore::comm again = live.dup();
    std::int64_t one = 1, sum = 0;
    sidecore::allreduce(&one, &sum, 1, sidecore::dtype::int64, sidecore::op::sum, again);
    check(again.size() == 2 && sum == 2, "the dup of the survivors' communicator: size " +
                                             std::to_string(again.size()) + ", allreduce " + std::to_string(sum));
    again.free();
    live.free();
  } catch (const sidecore::error& e) {
    check(false, std::string("the survivors' communicator: ") + e.what());
  }
  sidecore::finalize();
  const std::vector<int> dead = sidecore::failed_ranks();
  check(dead.size() == 1 && dead[0] == 1, "failed_ranks() does not say {1}");
}

// PEER_FAILURE_CASE=in_dup: every rank calls world().dup(); rank 1 dies inside MPI's duplication (MPI_Comm_dup or
// MPI_Comm_idup, after the ranks agreed on the new id). The others' dup throws errc::peer_failed naming it within
// the deadline (a watchdog reports a hang); finalize returns.
bool g_die_in_dup = false;

void in_dup_case() {
  MPI_Barrier(MPI_COMM_WORLD);
  g_die_in_dup = g_rank == 1;
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::duration<double>(3 * deadline_s));
    check(false, "dup still waits after " + std::to_string(3 * deadline_s) + " s");
    std::fflush(stderr);
    std::_Exit(3);
  }).detach();
  expect_comm_peer_failed("world().dup()", [] { (void)sidecore::world().dup(); });
  sidecore::finalize();
  const std::vector<int> dead = sidecore::failed_ranks();
  check(dead.size() == 1 && dead[0] == 1, "failed_ranks() does not say {1}");
}

// PEER_FAILURE_CASE=steps (mode auto, SIDECORE_AUTO_STEPS=3): rank 1 dies after its first step(); the others'
// third step() closes the window and waits for the agreement of every rank, which the dead rank never joins: it
// gives the decision up and returns (the run stays in mode off), and finalize returns.
void steps_case() {
  sidecore::step();
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 1) std::raise(SIGKILL);
  const auto t0 = clk::now();
  for (int i = 0; i < 4; ++i) sidecore::step();
  const double s = std::chrono::duration<double>(clk::now() - t0).count();
  check(s < deadline_s, "the steps took " + std::to_string(s) + " s");
  sidecore::finalize();
  const std::vector<int> dead = sidecore::failed_ranks();
  check(dead.size() == 1 && dead[0] == 1, "failed_ranks() does not say {1}");
}

// PEER_FAILURE_CASE=in_finalize (SIDECORE_PROFILE set): rank 1 dies inside finalize, after the barrier every rank
// passed, at its first send of the profile exchange (the cross-rank analysis, then the job profile's gathering):
// the others' finalize returns, each writes its own profile, and failed_ranks() says {1}.
bool g_die_at_send = false;

void die_if_armed() {
  if (g_die_at_send) std::raise(SIGKILL);
}

void in_finalize_case() {
  MPI_Barrier(MPI_COMM_WORLD);
  g_die_at_send = g_rank == 1;
  const auto t0 = clk::now();
  sidecore::finalize();
  const double s = std::chrono::duration<double>(clk::now() - t0).count();
  check(s < deadline_s, "finalize took " + std::to_string(s) + " s");
  const std::vector<int> dead = sidecore::failed_ranks();
  std::string said;
  for (int r : dead) said += " " + std::to_string(r);
  check(dead.size() == 1 && dead[0] == 1, "failed_ranks() says {" + said + " }, expected { 1 }");
}

// PEER_FAILURE_CASE=after_barrier: rank 1 dies inside finalize after its second watched barrier completed, at the
// first MPI object it frees (the node's shared memory, a communicator): the others may be anywhere in their own
// finalize's last steps, and none of those waits for a rank. Their finalize returns; rank 1 passed the barrier, so
// it ended (failed_ranks() is empty), unless a survivor found it dead before its own barrier completed ({1}).
int g_barriers_in_finalize = -1;  // -1: not counting; MPI_Ibarrier calls made in finalize

void after_barrier_case() {
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 1) g_barriers_in_finalize = 0;
  const auto t0 = clk::now();
  sidecore::finalize();
  const double s = std::chrono::duration<double>(clk::now() - t0).count();
  check(g_rank != 1, "rank 1 left finalize without passing its second barrier and freeing an MPI object");
  check(s < deadline_s, "finalize took " + std::to_string(s) + " s");
  const std::vector<int> dead = sidecore::failed_ranks();
  std::string said;
  for (int r : dead) said += " " + std::to_string(r);
  check(dead.empty() || (dead.size() == 1 && dead[0] == 1), "failed_ranks() says {" + said + " }, expected {} or {1}");
}

void die_if_past_second_barrier() {
  if (g_barriers_in_finalize >= 2) std::raise(SIGKILL);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  if (g_barriers_in_finalize >= 0) ++g_barriers_in_finalize;
  return PMPI_Ibarrier(comm, request);
}

extern "C" __attribute__((visibility("default"))) int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  if (g_die_in_dup) std::raise(SIGKILL);
  return PMPI_Comm_dup(comm, out);
}

extern "C" __attribute__((visibility("default"))) int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* out,
                                                                    MPI_Request* request) {
  if (g_die_in_dup) std::raise(SIGKILL);
  return PMPI_Comm_idup(comm, out, request);
}

extern "C" __attribute__((visibility("default"))) int MPI_Win_free(MPI_Win* win) {
  die_if_past_second_barrier();
  return PMPI_Win_free(win);
}

extern "C" __attribute__((visibility("default"))) int MPI_Comm_free(MPI_Comm* comm) {
  die_if_past_second_barrier();
  return PMPI_Comm_free(comm);
}

// The program's own MPI_Send and MPI_Isend (exported: ENABLE_EXPORTS) stand before MPICH's for libsidecore's calls:
// in_finalize_case's rank 1 dies in the first one finalize makes.
extern "C" __attribute__((visibility("default"))) int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest,
                                                               int tag, MPI_Comm comm) {
  die_if_armed();
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

extern "C" __attribute__((visibility("default"))) int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest,
                                                                int tag, MPI_Comm comm, MPI_Request* request) {
  die_if_armed();
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  int nranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) {
    std::fprintf(stderr, "peer_failure: needs 2 or more ranks\n");
    return 2;
  }
  // The rank that dies runs in mode off whatever the others do: its data moves only inside its own sidecore calls,
  // and it makes none after its last isend, so the 16 MiB transfer is cut after its clear-to-send every time. Mode
  // auto must be every rank's or none's (init checks), and starts in mode off.
  const char* which = std::getenv("PEER_FAILURE_CASE");
  const std::string which_case = which ? which : "";
  const bool stream = which_case == "stream", ended = which_case == "ended", steps = which_case == "steps",
             in_finalize = which_case == "in_finalize", after_barrier = which_case == "after_barrier",
             comms = which_case == "comm", in_dup = which_case == "in_dup";
  const char* mode = std::getenv("SIDECORE_PROGRESS");
  if (g_rank == 1 && !(mode && std::string(mode) == "auto")) setenv("SIDECORE_PROGRESS", "off", 1);
  try {
    sidecore::init();
    if (g_rank == 1 && !stream && !ended && !steps && !in_finalize && !after_barrier && !comms &&
        !in_dup) {
      // A 16 MiB send to rank 0: its ready-to-send goes out inside isend, then this rank dies.
      std::vector<char> big(std::size_t{16} << 20, 'x');
      sidecore::request r = sidecore::isend(big.data(), static_cast<std::int64_t>(big.size()), 0, 2);
      MPI_Barrier(MPI_COMM_WORLD);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::raise(SIGKILL);
    }
    if (stream) stream_case();
    else if (ended) ended_case();
    else if (steps) steps_case();
    else if (in_finalize) in_finalize_case();
    else if (after_barrier) after_barrier_case();
    else if (comms) comm_case(nranks);
    else if (in_dup) in_dup_case();
    else survivor(nranks);
  } catch (const std::exception& e) {
    check(false, std::string("exception: ") + e.what());
  }
  if (g_failures == 0) std::fprintf(stderr, "peer_failure: rank %d: passed\n", g_rank);
  std::fflush(stderr);
  std::fflush(stdout);
  // No MPI_Finalize: MPICH's waits for every rank, the dead one included.
  std::exit(g_failures == 0 ? 0 : 1);
}
