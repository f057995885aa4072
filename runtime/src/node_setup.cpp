// Node set-up at init: one doorbell per rank in the node's shared memory and, with SIDECORE_SHM_FASTPATH, the node
// rings that carry eager messages between the node's ranks without the provider.
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <unistd.h>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "node_segment.hpp"
#include "state.hpp"

namespace sidecore {

// One doorbell per rank in the node's shared memory (node_segment.hpp), so that a rank that sends to a sleeping peer
// on the same node wakes it at once (see progress::doorbell); with SIDECORE_SHM_FASTPATH, after it the rank's inbox:
// one node ring per rank of the node (indexed by the writer's rank in the node communicator). Each rank's part is
// page aligned: its doorbell has its own cache line, and the rings follow it 64-byte aligned.
void detail::setup_doorbells(detail::runtime_state& s, MPI_Comm world) {
  int local = 0, nranks = 0, my_local = 0;
  MPI_Comm_size(s.node, &local);
  MPI_Comm_rank(s.node, &my_local);
  MPI_Comm_size(world, &nranks);
  // The rings follow the doorbell's cache line; none for a rank alone on its node.
  const bool fastpath = s.cfg.shm_fastpath && local > 1;
  const std::size_t ring_bytes = fastpath ? progress::engine::node_ring_bytes(s.cfg.eager_max) : 0;
  const std::string remedy = fastpath ? "SIDECORE_SHM_FASTPATH=off leaves the node rings out (one page a rank)" : "";
  s.node_shm = std::make_unique<node_segment>(
      s.node, sizeof(progress::doorbell) + ring_bytes * static_cast<std::size_t>(local), remedy);
  const auto bell_of = [&s](int i) { return reinterpret_cast<progress::doorbell*>(s.node_shm->part(i)); };
  progress::doorbell* mine = bell_of(my_local);
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
    int w = 0;
    MPI_Group_translate_ranks(g_node, 1, &i, g_world, &w);
    if (w < 0 || w >= nranks) continue;
    progress::doorbell* bell = bell_of(i);
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
