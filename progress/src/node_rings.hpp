// The node-local fast path (node_rings.cpp): one single-producer, single-consumer byte ring in shared memory per
// ordered pair of ranks on a node, carrying every eager and control message (the 40-byte wire header and eager
// data) between them instead of the provider. Rendezvous data still goes through the provider (shm's single-copy
// path), into a receive posted for exactly its bytes, so the rings carry everything whose order matters.
//
// Why its own rings: measured on the 2-core development VM, libfabric 1.17's shm provider costs 1146 instructions
// per 8-byte round trip (bench/run-instructions.sh), and an 8 B one-way trip through it 0.96-1.06 us against
// MPICH's 0.70-0.73 us, whose UCX transport uses rings of its own (UCX uct/sm/mm, MPICH ch4 shm "fastbox").
//
// The producer is whichever thread of the sending process holds its progress lock, the consumer whichever thread
// of the receiving process holds its own: one of each at a time, so each ring is single-producer, single-consumer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "wire.hpp"

namespace sidecore::progress {

/// The shared part of one ring: the producer's and the consumer's positions, each on a cache line of its own, then
/// the data. Positions are byte counts since the start (never wrapped); a record begins with its message length.
struct ring_ctl {
  alignas(64) std::atomic<std::uint64_t> tail{0};  ///< bytes the producer has published
  alignas(64) std::atomic<std::uint64_t> head{0};  ///< bytes the consumer has taken
  std::uint64_t capacity = 0;  ///< data bytes (a power of two), written by the owner before the ring is shared
};
inline constexpr std::size_t ring_data_offset = sizeof(ring_ctl);
static_assert(ring_data_offset == 128);

/// A record's length word; a record that would not fit before the end of the data leaves this marker and starts
/// again at the beginning.
inline constexpr std::uint32_t ring_wrap = 0xffffffffU;
inline constexpr std::size_t ring_rec_hdr = 8;

/// The bytes of a record carrying a message of `len` bytes (header and data), 8-byte aligned.
[[nodiscard]] constexpr std::size_t ring_record_bytes(std::size_t len) noexcept {
  return ring_rec_hdr + ((len + 7) & ~std::size_t{7});
}

/// This process's end of a ring it writes to (in the peer's memory).
struct ring_out {
  ring_ctl* ctl = nullptr;
  char* data = nullptr;
  std::size_t capacity = 0;      // the owner's (rings of ranks with another SIDECORE_EAGER_MAX differ)
  std::uint64_t tail = 0;        // our published position (the shared tail's only writer)
  std::uint64_t head_seen = 0;   // the consumer's position when we last looked: free space without a shared read
};

/// This process's end of a ring it reads from (in its own memory).
struct ring_in {
  ring_ctl* ctl = nullptr;
  char* data = nullptr;
  std::size_t capacity = 0;
  std::uint64_t head = 0;  // our position (the shared head's only writer)
  std::uint32_t peer = 0;  // the writer's engine address index
};

struct node_rings {
  std::vector<ring_out> out;  // by engine address index; ctl null: no ring to that address
  std::vector<ring_in> in;    // one per peer of this node that writes to us
  bool on = false;

  /// The ring to address `index`, or null (another node, this process, or the fast path off).
  [[nodiscard]] ring_out* to(int index) noexcept {
    if (!on || index < 0 || static_cast<std::size_t>(index) >= out.size()) return nullptr;
    ring_out* o = &out[static_cast<std::size_t>(index)];
    return o->ctl ? o : nullptr;
  }
  /// Whether anything waits in one of our rings (a sleeper's last look).
  [[nodiscard]] bool pending() const noexcept {
    for (const ring_in& r : in)
      if (r.ctl->tail.load(std::memory_order_acquire) != r.head) return true;
    return false;
  }
};

/// Writes one message (header `h`, then `n` bytes of `data`) into ring `o` and publishes it. false when the ring
/// has no room for it now (the consumer has not caught up); nothing is written then.
bool ring_write(ring_out& o, const wire_hdr& h, const void* data, std::size_t n) noexcept;

/// Reads up to `max` of the records published in ring `r`, calling `on(msg, len)` for each (the message's bytes
/// stay valid until `on` returns), then gives their bytes back to the writer. Returns how many it read, or -1 when
/// a record overruns the ring (a writer that is not this sidecore, or memory overwritten): nothing after it can be
/// read, and the ring is emptied.
template <class F>
int ring_read(ring_in& r, unsigned max, F&& on) {
  const std::uint64_t tail = r.ctl->tail.load(std::memory_order_acquire);
  if (tail == r.head) return 0;
  const std::size_t cap = r.capacity;
  std::uint64_t at = r.head;
  int taken = 0;
  while (at != tail && static_cast<unsigned>(taken) < max) {
    const std::size_t pos = static_cast<std::size_t>(at) & (cap - 1);
    std::uint32_t len = 0;
    std::memcpy(&len, r.data + pos, sizeof len);
    if (len == ring_wrap) {
      at += cap - pos;
      continue;
    }
    if (pos + ring_record_bytes(len) > cap || at + ring_record_bytes(len) > tail) [[unlikely]] {
      taken = -1;
      at = tail;
      break;
    }
    on(static_cast<const char*>(r.data + pos + ring_rec_hdr), static_cast<std::size_t>(len));
    at += ring_record_bytes(len);
    ++taken;
  }
  r.head = at;
  // Release: our reads of the records are done before the writer may reuse their bytes.
  r.ctl->head.store(at, std::memory_order_release);
  return taken;
}

}  // namespace sidecore::progress
