// The builder every algorithm writes its schedule through. An algorithm emits operations in a sequential program
// order, on byte regions of the send, receive and scratch buffers; the builder cuts each message, copy and
// reduction into segments (spec::segment_bytes), gives each message segment its tag, and takes each operation's
// dependencies from the data hazards between regions (hazards.hpp). So every ordering the data needs is in the DAG,
// no other one is, and a pipelined algorithm is written as the plain sequential algorithm: segment i of step k+1
// waits for segment i of step k only. Orderings that carry no data (a barrier's zero-byte messages, pairwise
// algorithms that keep one exchange in flight) are stated explicitly: signal_send/recv and gate. The scratch
// buffer's size is the end of the furthest scratch region used.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "hazards.hpp"
#include "sidecore/common/schedule.hpp"

namespace sidecore::coll::detail {

/// `bytes` bytes at `off` in one of the three buffers.
struct region {
  buffer buf = buffer::tmp;
  std::uint64_t off = 0;
  std::uint64_t bytes = 0;
  /// The sub-range [o, o + b) of this region.
  [[nodiscard]] region sub(std::uint64_t o, std::uint64_t b) const noexcept { return {buf, off + o, b}; }
};

/// Blocks [first, first + k) of `block` bytes each in `buf`.
[[nodiscard]] inline region blocks(buffer buf, std::int64_t first, std::int64_t k, std::uint64_t block) noexcept {
  return {buf, static_cast<std::uint64_t>(first) * block, static_cast<std::uint64_t>(k) * block};
}

/// Which operand of a reduction comes first (matters for non-commutative user operators).
enum class operands : std::uint8_t {
  src_left,  ///< dst = src op dst
  dst_left,  ///< dst = dst op src
};

class builder {
 public:
  builder(const spec& s, algorithm a, int rank, int size);

  const spec& s;
  const int rank;
  const int size;
  const std::uint64_t esize;  ///< bytes per element
  const std::uint64_t seg;    ///< bytes per segment: a positive multiple of esize

  [[nodiscard]] std::uint64_t bytes(std::uint64_t elements) const noexcept { return elements * esize; }
  /// Whether operands may be combined in any order (every built-in operator; a user one that says so).
  [[nodiscard]] bool commutative() const noexcept { return s.op != reduce_op::user || s.commutative; }
  /// Segments a message, copy or reduction of `b` bytes is cut into (0 for 0 bytes).
  [[nodiscard]] std::uint64_t segments(std::uint64_t b) const noexcept { return (b + seg - 1) / seg; }

  /// Declares the largest message the algorithm sends, before its first data message: message `msg`'s segment i
  /// gets tag msg * segments(largest) + i, the same on both sides whatever order each emits in.
  void largest_message(std::uint64_t b);

  /// Data operations, cut into segments; a region of 0 bytes emits nothing (both sides of a message skip it alike,
  /// since both compute its size from the spec).
  void send(int peer, std::uint32_t msg, region src);
  void recv(int peer, std::uint32_t msg, region dst);
  /// Segment i of the message only (to interleave the segments of several messages, as a pipelined tree does).
  void send_segment(int peer, std::uint32_t msg, region src, std::uint64_t i);
  void recv_segment(int peer, std::uint32_t msg, region dst, std::uint64_t i);
  void reduce(region src, region dst, operands order);
  void copy(region src, region dst);

  /// A zero-byte message with tag `tag` that waits for the operations `after` (no_op entries are ignored); returns
  /// its index. For synchronization only: no data, so no hazards.
  std::uint32_t signal_send(int peer, std::uint32_t tag, std::initializer_list<std::uint32_t> after);
  std::uint32_t signal_recv(int peer, std::uint32_t tag, std::initializer_list<std::uint32_t> after);
  static constexpr std::uint32_t no_op = 0xffffffffu;

  /// Index the next operation will get.
  [[nodiscard]] std::uint32_t mark() const noexcept { return static_cast<std::uint32_t>(sched_.ops.size()); }
  /// From now on every operation also waits for operations [from, to) (if there are none, the gate stays as it
  /// was): one step of a pairwise algorithm starts when the previous one's messages are done.
  void gate(std::uint32_t from, std::uint32_t to);

  [[nodiscard]] schedule finish() &&;
  /// The most operations the schedule may hold: emitting one more throws too_many_ops (build()'s budget).
  void limit_ops(std::uint64_t max_ops) noexcept { max_ops_ = max_ops; }

 private:
  struct access {
    region r;
    bool write;
  };
  std::uint32_t emit(const op& o, std::initializer_list<access> accesses, std::initializer_list<std::uint32_t> after);
  std::uint32_t tag(std::uint32_t msg, std::uint64_t segment);
  void message_segment(op_type t, int peer, std::uint32_t msg, region r, std::uint64_t i);
  void local(op_type t, region src, region dst, bool dst_first);
  std::uint32_t signal(op_type t, int peer, std::uint32_t tag, std::initializer_list<std::uint32_t> after);

  schedule sched_;
  hazards hazards_;
  std::vector<std::uint32_t> gate_;
  std::vector<std::uint32_t> pending_deps_;
  std::uint64_t stride_ = 0;  // tags per message; 0 until largest_message()
  std::uint64_t tags_ = 0;    // 1 + the largest tag used
  std::uint64_t max_ops_ = ~std::uint64_t{0};
};

/// One builder per (kind, algorithm): emits rank b.rank's schedule of b.s into b (validated spec, size >= 1).
using build_fn = void (*)(builder& b);

}  // namespace sidecore::coll::detail
