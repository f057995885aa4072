// libsidecore-pmpi.so — engine "sidecore": a progress thread of ours, pinned to the reserved core, that drives MPICH's
// progress engine while the application has nonblocking operations outstanding and computes.
//
// How it progresses without touching the application's requests. MPI_Test on a request completes and frees it, so a
// second thread testing the application's requests would steal the completion the application's MPI_Wait expects
// (and race with it on a freed handle). MPICH's progress engine is global instead: any call that progresses moves
// every outstanding transfer of the process. So the thread tests a receive of its own, posted on a private duplicate
// of MPI_COMM_SELF and never sent: each MPI_Test of it runs one pass of MPICH's progress engine (MPID_Progress_test),
// and completes nothing of the application's. MPI_COMM_SELF, not MPI_COMM_WORLD: duplicating it is local, so ranks
// may run in different modes (an MPMD job) without a collective call that only some of them make.
//
// When it progresses. Only while the application is outside MPI (inside, the application's own call progresses, and
// a second thread would only contend for MPICH's lock) and armed: from the return of a nonblocking start (Isend,
// Irecv, I<collective>, Start...) to the return of the next wait. A wait that leaves other requests outstanding
// (Waitany, or one Wait of several) disarms it until the next start; a test does not. When not armed it spins on its
// core for 5 ms, then checks every 20 us: the core is reserved, spinning on it costs the application nothing.
#include <mpi.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "core_state.hpp"

namespace sidecore::instrument::pmpi::core {

namespace detail {
std::atomic<bool> watching{false};
std::atomic<int> app_calls{0};
std::atomic<bool> armed{false};
}  // namespace detail

namespace {

constexpr std::uint64_t spin_before_sleep_ns = 5'000'000;
constexpr long sleep_ns = 20'000;

struct poll_thread {
  std::thread thread;
  std::atomic<bool> stop{false};
  std::atomic<bool> stopped{false};  // the loop has returned: joining cannot wait on it
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Request never = MPI_REQUEST_NULL;  // a receive nobody sends: testing it is one progress pass
  poll_stats stats;

  poll_thread() = default;
  poll_thread(const poll_thread&) = delete;
  poll_thread& operator=(const poll_thread&) = delete;
  // Still running here: the program is ending without MPI_Finalize (exit(), or a return from main). A joinable
  // std::thread's destructor would call std::terminate, turning the program's own exit status into SIGABRT. The
  // thread is stopped and joined once it has left MPI; one stuck inside MPI (MPICH's lock held by a thread that
  // called exit) is left to the process's end rather than hanging it.
  ~poll_thread() {
    if (!thread.joinable()) return;
    stop.store(true, std::memory_order_release);
    for (int i = 0; i < 1000 && !stopped.load(std::memory_order_acquire); ++i) {
      const timespec ts{0, 1'000'000};
      nanosleep(&ts, nullptr);
    }
    if (stopped.load(std::memory_order_acquire)) thread.join();
    else thread.detach();
  }
};
poll_thread g;

void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void loop() {
  std::string why;
  if (!pin_to_reserved(why))
    std::fprintf(stderr, "sidecore-pmpi: %s: cannot pin the progress thread to the reserved %s: %s\n", who().c_str(),
                 state().reserved_name.c_str(), why.c_str());
  pthread_setname_np(pthread_self(), "sidecore-prog");
  std::uint64_t last = now_ns(), idle_since = last;
  while (!g.stop.load(std::memory_order_acquire)) {
    const bool work = detail::armed.load(std::memory_order_acquire) &&
                      detail::app_calls.load(std::memory_order_acquire) == 0;
    if (work) {
      int flag = 0;
      PMPI_Test(&g.never, &flag, MPI_STATUS_IGNORE);
      ++g.stats.polls;
    } else if (now_ns() - idle_since > spin_before_sleep_ns) {
      const timespec ts{0, sleep_ns};
      nanosleep(&ts, nullptr);
    } else {
      cpu_relax();
    }
    const std::uint64_t t = now_ns();
    (work ? g.stats.busy_s : g.stats.idle_s) += static_cast<double>(t - last) * 1e-9;
    if (work) idle_since = t;
    last = t;
  }
  g.stopped.store(true, std::memory_order_release);
}

}  // namespace

void start_poll_thread() {
  PMPI_Comm_dup(MPI_COMM_SELF, &g.comm);
  static char byte;
  PMPI_Irecv(&byte, 1, MPI_BYTE, 0, 0, g.comm, &g.never);
  detail::watching.store(true, std::memory_order_release);
  g.thread = std::thread(loop);
}

poll_stats stop_poll_thread() {
  if (!g.thread.joinable()) return {};
  g.stop.store(true, std::memory_order_release);
  g.thread.join();
  detail::watching.store(false, std::memory_order_release);
  PMPI_Cancel(&g.never);
  PMPI_Wait(&g.never, MPI_STATUS_IGNORE);
  PMPI_Comm_free(&g.comm);
  return g.stats;
}

}  // namespace sidecore::instrument::pmpi::core
