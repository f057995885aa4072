// sidecore collective schedules — the one description of what a collective does, shared by the executor that
// runs it on the reserved core (progress/coll/) and the LogGOPS simulator that predicts it (model/), so that the two
// cannot drift apart. No MPI, no libfabric: the standard library only.
//
// A collective instance, as seen by one rank, is a DAG of operations over three buffers (the caller's send and
// receive buffers and a scratch buffer the executor provides):
//
//   send    `bytes` bytes from src_buf + src_off to rank `peer`, as message `tag` of this instance
//   recv    `bytes` bytes from rank `peer`, message `tag`, into dst_buf + dst_off (exactly that many arrive)
//   reduce  dst = src (op) dst over `bytes` bytes of elements of the schedule's type (dst_first: dst (op) src)
//   copy    `bytes` bytes from src to dst (never overlapping)
//
// An operation may start once every operation it depends on has completed (LogGOPSim's `requires`). Operations are
// stored in a topological order: the dependencies of ops[i] all have smaller indices. A recv matches the send with
// the same (peer, tag) of the same instance; tags are small integers, 0 .. tags-1, distinct for every message
// between one ordered pair of ranks within the instance, so messages of one instance can be matched whatever the
// order in which the DAG lets them be posted. Different instances are kept apart by the executor (communicator and
// instance sequence number in the wire tag), not by the schedule.
//
// The builders (build(), one source file per algorithm under common/coll/) are pure functions of (spec, algorithm,
// rank, size): every rank builds its own part, and the simulator builds every rank's part of the same collective.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace sidecore::coll {

/// The collective operations (MPI's names without the leading i; the blocking and persistent forms share them).
enum class kind : std::uint8_t {
  barrier,
  bcast,
  reduce,
  allreduce,
  gather,
  scatter,
  allgather,
  alltoall,
  reduce_scatter_block,
  allgatherv,
  alltoallv,
};
inline constexpr int kind_count = 11;

/// Element types of reductions (and of typed collectives); `byte` for data that is only moved.
enum class dtype : std::uint8_t { byte, int32, int64, uint64, float32, float64 };
inline constexpr int dtype_count = 6;

/// Reduction operators. minloc/maxloc work on pairs { T value; std::int32_t index; } laid out as the C struct of
/// those two members (MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_2INT, MPI_LONG_INT have the same layouts); `user` is a
/// callback the executor holds (the simulator charges it as any reduction).
enum class reduce_op : std::uint8_t { none, sum, prod, min, max, land, lor, band, bor, bxor, minloc, maxloc, user };
inline constexpr int reduce_op_count = 13;

/// Collective algorithms. Each kind supports a subset (supports()); `automatic` lets choose() pick by message size
/// and communicator size.
enum class algorithm : std::uint8_t {
  automatic,
  linear,              ///< root (or every rank) talks to every other rank directly
  binomial,            ///< binomial tree (bcast, reduce, gather, scatter)
  dissemination,       ///< barrier: round k talks to rank ± 2^k (any size)
  recursive_doubling,  ///< allreduce, allgather, barrier: pairwise exchange with rank ^ 2^k (non-powers of two folded)
  ring,                ///< allreduce (reduce-scatter + allgather around a ring), allgather(v)
  rabenseifner,        ///< allreduce and reduce: recursive-halving reduce-scatter, then recursive-doubling allgather
  scatter_allgather,   ///< bcast (van de Geijn): binomial scatter of the segments, then ring allgather
  bruck,               ///< allgather, alltoall: log(p) rounds of rotated blocks
  pairwise,            ///< alltoall(v), reduce_scatter_block: round k exchanges with rank ± k
  recursive_halving,   ///< reduce_scatter_block
};
inline constexpr int algorithm_count = 11;

/// Which buffer an operation reads or writes.
enum class buffer : std::uint8_t { send, recv, tmp };

enum class op_type : std::uint8_t { send, recv, reduce, copy };

/// One operation of a rank's schedule (see the file comment for the meaning of each field per type).
struct op {
  op_type type = op_type::copy;
  buffer src_buf = buffer::send;
  buffer dst_buf = buffer::recv;
  bool dst_first = false;         ///< reduce: dst = dst (op) src instead of src (op) dst (operand order matters
                                  ///< for non-commutative user operators)
  std::int32_t peer = -1;         ///< send/recv: rank in the communicator
  std::uint32_t tag = 0;          ///< send/recv: message number within the instance, < schedule::tags
  std::uint64_t bytes = 0;        ///< bytes moved, copied or reduced (a multiple of the element size for reduce)
  std::uint64_t src_off = 0;      ///< send, copy, reduce: offset in src_buf
  std::uint64_t dst_off = 0;      ///< recv, copy, reduce: offset in dst_buf
  std::uint32_t dep_first = 0;    ///< this op's dependencies: deps[dep_first .. dep_first + dep_count)
  std::uint32_t dep_count = 0;
};

/// What a rank does for one collective instance.
struct schedule {
  kind k = kind::barrier;
  algorithm alg = algorithm::automatic;  ///< the algorithm that built it (never automatic)
  dtype type = dtype::byte;
  reduce_op rop = reduce_op::none;
  std::uint64_t tmp_bytes = 0;     ///< scratch buffer the executor provides (contents undefined at start)
  std::uint32_t tags = 0;          ///< tags used: every send/recv tag is < tags
  std::vector<op> ops;             ///< topologically ordered
  std::vector<std::uint32_t> deps; ///< indices into ops
};

/// A collective call, as every rank of the communicator makes it (MPI's argument rules: counts in elements; root
/// and the v-variants' counts must agree across ranks).
struct spec {
  kind k = kind::barrier;
  dtype type = dtype::byte;
  reduce_op op = reduce_op::none;
  int root = 0;                 ///< bcast, reduce, gather, scatter
  std::uint64_t count = 0;      ///< elements: of the buffer (bcast, reduce, allreduce); per rank's block (gather,
                                ///< scatter, allgather, alltoall, reduce_scatter_block)
  bool in_place = false;        ///< MPI_IN_PLACE: the input is already in the receive buffer (see docs/collectives.md)
  /// allgatherv: recv_counts/recv_displs (elements, one per rank); alltoallv: all four. Empty otherwise.
  std::vector<std::uint64_t> send_counts, send_displs, recv_counts, recv_displs;
  /// Largest message a pipelined algorithm sends at once (0: the algorithm's default, no pipelining below it).
  std::uint64_t segment_bytes = 0;
};

/// Size in bytes of one element of `t` under `op` (minloc/maxloc: the value-index pair, padding included).
[[nodiscard]] std::size_t element_size(dtype t, reduce_op op) noexcept;

/// Stable lower-case names, as the settings and the simulator's files spell them ("allreduce", "int32", "sum",
/// "recursive_doubling"); parse_* return nullopt for a name that is not one.
[[nodiscard]] std::string_view kind_name(kind k) noexcept;
[[nodiscard]] std::string_view dtype_name(dtype t) noexcept;
[[nodiscard]] std::string_view reduce_op_name(reduce_op op) noexcept;
[[nodiscard]] std::string_view algorithm_name(algorithm a) noexcept;
[[nodiscard]] std::optional<kind> parse_kind(std::string_view name) noexcept;
[[nodiscard]] std::optional<dtype> parse_dtype(std::string_view name) noexcept;
[[nodiscard]] std::optional<reduce_op> parse_reduce_op(std::string_view name) noexcept;
[[nodiscard]] std::optional<algorithm> parse_algorithm(std::string_view name) noexcept;

/// Whether algorithm `a` implements kind `k` (automatic: always true).
[[nodiscard]] bool supports(kind k, algorithm a) noexcept;
/// The algorithms that implement `k`, in the order `sidecore info` lists them (automatic excluded).
[[nodiscard]] std::vector<algorithm> algorithms_for(kind k);

/// The algorithm `automatic` stands for: by kind, communicator size and the bytes each rank contributes.
[[nodiscard]] algorithm choose(const spec& s, int size) noexcept;

/// Rank `rank`'s schedule of collective `s` on `size` ranks with algorithm `a` (automatic: choose()). Throws
/// std::invalid_argument naming the argument for what no rank could run: rank or root outside [0, size), an
/// algorithm that does not implement the kind, a reduce_op that does not fit the type (bitwise on floats), v-variant
/// counts of the wrong length.
[[nodiscard]] schedule build(const spec& s, algorithm a, int rank, int size);

}  // namespace sidecore::coll
