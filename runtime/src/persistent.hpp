// Persistent requests (MPI 4.0's MPI_Send_init, MPI_Recv_init, MPI_Allreduce_init, ...): objects of the runtime,
// named by handles with progress::runtime_bit set, so that they travel in the same request type (and the C API's
// integers) as the engine's. A persistent request is inactive, or active with the engine handle of its current run.
// Internal.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <sidecore/progress/collective.hpp>
#include <sidecore/progress/engine.hpp>

namespace sidecore::detail {

struct persistent_op {
  enum class what : std::uint8_t { send, recv, coll };
  what w = what::send;
  // point-to-point: the call's arguments
  void* buf = nullptr;
  std::int64_t bytes = 0;
  int peer = 0;
  int tag = 0;
  int comm_id = 0;
  std::uint64_t comm_serial = 0;  // the communicator's comm_entry::serial: freed when it no longer matches
  // collective: the executor's persistent collective
  progress::coll_persistent* coll = nullptr;
  /// The engine handle of the run in flight; 0 while inactive. Read and written by the thread that owns the
  /// request (MPI: one thread at a time per request).
  std::uint64_t running = 0;
};

/// Bit 62 set and bit 63 clear (inline handles and the consumed mark ~0 have bit 63): one shift and compare, on every
/// wait and test.
[[nodiscard]] constexpr bool is_persistent(std::uint64_t handle) noexcept {
  static_assert(progress::runtime_bit == std::uint64_t{1} << 62 && progress::inline_bit == std::uint64_t{1} << 63);
  return (handle >> 62) == 1;
}

/// The live persistent requests, by handle: (generation << 32) | (index + 1) | runtime_bit, the generation on 30
/// bits, so that a freed request's handle is recognised as such when its slot serves another.
class persistent_table {
 public:
  [[nodiscard]] std::uint64_t add(std::unique_ptr<persistent_op> op);
  /// The request `handle` names, or nullptr (freed, malformed, not persistent).
  [[nodiscard]] persistent_op* find(std::uint64_t handle);
  /// Takes the request out of the table (its handle names nothing from now on); nullptr if none.
  [[nodiscard]] std::unique_ptr<persistent_op> remove(std::uint64_t handle);
  /// Takes every request out (finalize).
  [[nodiscard]] std::vector<std::unique_ptr<persistent_op>> clear();

 private:
  struct slot {
    std::uint32_t gen = 1;
    std::unique_ptr<persistent_op> op;
  };
  slot* slot_of(std::uint64_t handle) noexcept;  // mutex held
  std::mutex mutex_;
  std::vector<slot> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace sidecore::detail
