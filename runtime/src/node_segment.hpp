// The node's shared memory: one POSIX shared-memory object per node holding every rank's doorbell and, with
// SIDECORE_SHM_FASTPATH, its inbox of node rings.
#pragma once

#include <cstddef>
#include <string>

#include <mpi.h>

namespace sidecore::detail {

/// A shared-memory segment of the ranks of a node: one part per rank, page aligned, mapped by every rank. Letting
/// it go is each rank's own munmap, never a collective: a rank that dies at any point leaves the others nothing to
/// wait for (an MPI shared window's MPI_Win_free waits for every rank of the node, a dead one included).
class node_segment {
 public:
  /// Collective over `node`: its rank 0 creates the object (/dev/shm/sidecore-<pid>-<64 random bits>-node) with
  /// `part_bytes` (rounded up to a page) per rank of `node`, every rank maps it, and rank 0 unlinks the name once
  /// every rank has mapped it, so that a process killed later leaves nothing in /dev/shm. The parts start zeroed.
  /// Throws error(errc::transport) on every rank of `node` when any rank cannot create, size or map it: the
  /// message names the object, its size, the system's reason and `remedy` (what the user can change).
  node_segment(MPI_Comm node, std::size_t part_bytes, const std::string& remedy);
  ~node_segment();
  node_segment(const node_segment&) = delete;
  node_segment& operator=(const node_segment&) = delete;

  /// The part of the rank `local` of the node communicator (64-byte aligned and more: a page).
  [[nodiscard]] char* part(int local) const noexcept { return base_ + part_bytes_ * static_cast<std::size_t>(local); }
  /// Bytes of one part (the requested size rounded up to a page).
  [[nodiscard]] std::size_t part_bytes() const noexcept { return part_bytes_; }

 private:
  char* base_ = nullptr;
  std::size_t part_bytes_ = 0;
  std::size_t total_ = 0;
};

}  // namespace sidecore::detail
