// The node-local fast path (node_rings.hpp): sizing and handing over the rings, writing a message into a peer's
// ring, and the progress pass's step that reads ours.
#include "node_rings.hpp"

#include <cerrno>
#include <cstring>
#include <new>

#include "engine_core.hpp"

namespace sidecore::progress {
namespace {
// Records read from one ring per pass: bounds a pass's length when a peer floods us.
constexpr unsigned ring_batch = 64;
// The smallest ring: room for a burst of small messages (an 8 B message takes 56 bytes).
constexpr std::size_t min_ring_capacity = std::size_t{64} << 10;

[[nodiscard]] bool fits(std::size_t capacity, std::size_t eager_max) noexcept {
  // Four of the largest records: a writer never waits for a reader to take a record before it can write one.
  return capacity >= 4 * ring_record_bytes(hdr_size + eager_max);
}
}  // namespace

std::size_t engine::node_ring_bytes(std::size_t eager_max) noexcept {
  std::size_t c = min_ring_capacity;
  while (!fits(c, eager_max)) c *= 2;
  return ring_data_offset + c;
}

void engine::set_node_rings(const std::vector<void*>& inbox, const std::vector<void*>& outbox) {
  engine_core& e = core_of(*this);
  node_rings& r = e.fastpath;
  r.out.assign(outbox.size(), ring_out{});
  r.in.clear();
  for (std::size_t i = 0; i < outbox.size(); ++i) {
    if (!outbox[i] || i == e.my_index) continue;
    auto* ctl = static_cast<ring_ctl*>(outbox[i]);
    // A peer with a smaller SIDECORE_EAGER_MAX has rings too small for our largest eager message: the provider.
    if (ctl->capacity == 0 || !fits(ctl->capacity, e.eager_max_)) continue;
    r.out[i].ctl = ctl;
    r.out[i].data = static_cast<char*>(outbox[i]) + ring_data_offset;
    r.out[i].capacity = ctl->capacity;
    r.out[i].tail = ctl->tail.load(std::memory_order_relaxed);
    r.out[i].head_seen = ctl->head.load(std::memory_order_acquire);
  }
  for (std::size_t i = 0; i < inbox.size(); ++i) {
    if (!inbox[i] || i == e.my_index) continue;
    auto* ctl = static_cast<ring_ctl*>(inbox[i]);
    r.in.push_back(ring_in{ctl, static_cast<char*>(inbox[i]) + ring_data_offset, ctl->capacity,
                           ctl->head.load(std::memory_order_relaxed), static_cast<std::uint32_t>(i)});
  }
  r.on = true;
}

void engine::init_node_ring(void* ring, std::size_t bytes) noexcept {
  std::memset(ring, 0, bytes);
  auto* ctl = new (ring) ring_ctl();
  ctl->capacity = bytes - ring_data_offset;
}

bool ring_write(ring_out& o, const wire_hdr& h, const void* data, std::size_t n) noexcept {
  const std::size_t cap = o.capacity;
  const std::size_t len = hdr_size + n;
  const std::size_t rec = ring_record_bytes(len);
  std::size_t pos = static_cast<std::size_t>(o.tail) & (cap - 1);
  const std::size_t skip = pos + rec > cap ? cap - pos : 0;  // a record never straddles the end
  if (o.tail + skip + rec - o.head_seen > cap) {
    // Acquire: the consumer read what it released before we overwrite it.
    o.head_seen = o.ctl->head.load(std::memory_order_acquire);
    if (o.tail + skip + rec - o.head_seen > cap) return false;
  }
  if (skip) {
    const std::uint32_t mark = ring_wrap;
    std::memcpy(o.data + pos, &mark, sizeof mark);
    o.tail += skip;
    pos = 0;
  }
  char* p = o.data + pos;
  const auto l = static_cast<std::uint32_t>(len);
  std::memcpy(p, &l, sizeof l);
  std::memcpy(p + ring_rec_hdr, &h, hdr_size);
  if (n) copy_bytes(p + ring_rec_hdr + hdr_size, data, n);
  o.tail += rec;
  // Release: the record's bytes are visible before the position that publishes them.
  o.ctl->tail.store(o.tail, std::memory_order_release);
  return true;
}

bool engine_core::poll_rings() {
  bool did = false;
  for (ring_in& r : fastpath.in) {
    const int n = ring_read(r, ring_batch, [this](const char* msg, std::size_t len) { on_wire(msg, len, true); });
    if (n < 0) [[unlikely]] {
      fail_engine("a node ring holds a record that overruns it (shared memory overwritten?)", EPROTO);
      return true;
    }
    did |= n > 0;
  }
  return did;
}

}  // namespace sidecore::progress
