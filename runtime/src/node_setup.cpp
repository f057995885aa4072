// Node set-up at init: one doorbell per rank in an MPI shared window of the node and, with SIDECORE_SHM_FASTPATH,
// the node rings that carry eager messages between the node's ranks without the provider.
#include <cstdint>
#include <new>
#include <vector>

#include <unistd.h>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "state.hpp"

namespace sidecore {

using detail::mpi_check;

namespace {

progress::doorbell* aligned_bell(void* base) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t al = alignof(progress::doorbell);
  return reinterpret_cast<progress::doorbell*>((a + al - 1) & ~(al - 1));
}

}  // namespace

// One doorbell per rank in an MPI shared window of the node, so that a rank that sends to a sleeping peer on
// the same node wakes it at once (see progress::doorbell); with SIDECORE_SHM_FASTPATH, after it the rank's inbox:
// one node ring per rank of the node (indexed by the writer's rank in the node communicator).
// A doorbell is 64-byte aligned (its own cache line); MPICH's shared segment is not always (UBSan, 1 rank: a
// 16-byte aligned base). Each rank's segment holds one doorbell plus the slack to align it, then its rings.
void detail::setup_doorbells(detail::runtime_state& s, MPI_Comm world) {
  int local = 0, nranks = 0, my_local = 0;
  MPI_Comm_size(s.node, &local);
  MPI_Comm_rank(s.node, &my_local);
  MPI_Comm_size(world, &nranks);
  // The rings follow the doorbell's cache line; none for a rank alone on its node.
  const bool fastpath = s.cfg.shm_fastpath && local > 1;
  const std::size_t ring_bytes = fastpath ? progress::engine::node_ring_bytes(s.cfg.eager_max) : 0;
  const auto seg = static_cast<MPI_Aint>(sizeof(progress::doorbell) + alignof(progress::doorbell) +
                                         ring_bytes * static_cast<std::size_t>(local));
  void* base = nullptr;
  mpi_check(MPI_Win_allocate_shared(seg, 1, MPI_INFO_NULL, s.node, &base, &s.bell_window),
            "MPI_Win_allocate_shared (doorbells)");
  progress::doorbell* mine = aligned_bell(base);
  new (mine) progress::doorbell();
  mine->pid.store(static_cast<std::int32_t>(getpid()), std::memory_order_relaxed);  // peers check it lives
  const auto rings_of = [ring_bytes](progress::doorbell* bell) { return reinterpret_cast<char*>(bell + 1); };
  for (int j = 0; j < local && fastpath; ++j)
    progress::engine::init_node_ring(rings_of(mine) + ring_bytes * static_cast<std::size_t>(j), ring_bytes);
  MPI_Barrier(s.node);
  MPI_Group g_node, g_world;
  MPI_Comm_group(s.node, &g_node);
  MPI_Comm_group(world, &g_world);
  std::vector<progress::doorbell*> peers(static_cast<std::size_t>(nranks), nullptr);
  std::vector<void*> inbox, outbox;
  if (fastpath) {
    inbox.assign(static_cast<std::size_t>(nranks), nullptr);
    outbox.assign(static_cast<std::size_t>(nranks), nullptr);
  }
  for (int i = 0; i < local; ++i) {
    MPI_Aint sz = 0;
    int disp = 0;
    void* ptr = nullptr;
    mpi_check(MPI_Win_shared_query(s.bell_window, i, &sz, &disp, &ptr), "MPI_Win_shared_query (doorbells)");
    int w = 0;
    MPI_Group_translate_ranks(g_node, 1, &i, g_world, &w);
    if (w < 0 || w >= nranks || ptr == nullptr) continue;
    progress::doorbell* bell = aligned_bell(ptr);
    peers[static_cast<std::size_t>(w)] = bell;
    if (fastpath && i != my_local) {
      inbox[static_cast<std::size_t>(w)] = rings_of(mine) + ring_bytes * static_cast<std::size_t>(i);
      outbox[static_cast<std::size_t>(w)] = rings_of(bell) + ring_bytes * static_cast<std::size_t>(my_local);
    }
  }
  MPI_Group_free(&g_node);
  MPI_Group_free(&g_world);
  std::vector<int> local_ranks;
  for (int i = 0; i < nranks; ++i)
    if (peers[static_cast<std::size_t>(i)]) local_ranks.push_back(i);
  s.eng->set_doorbells(mine, std::move(peers));
  int me = 0;
  MPI_Comm_rank(world, &me);
  s.eng->connect_peers(me, local_ranks, nranks, s.cfg.peer_timeout_s);
  if (fastpath) s.eng->set_node_rings(inbox, outbox);
}

}  // namespace sidecore
