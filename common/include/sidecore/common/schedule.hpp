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
//
// Buffers (n = count * element_size bytes; docs/collectives.md has the full table): the send buffer holds the
// input and is never written; recv holds the output (bcast: the data on every rank, the root's being the input);
// with in_place the input is in recv, laid out as the output (reduce_scatter_block: p blocks, the result in the
// first). buffer_bytes() gives both sizes. Messages, copies and reductions larger than spec::segment_bytes are cut
// into segments, each its own op, and an op waits only for the earlier ops it conflicts with on some byte (one of
// the two writing) and for the orderings an algorithm states without data (barrier rounds, pairwise steps), so the
// DAG pipelines segments with no barrier-like rounds. A send completes when its source may be reused; the executor
// may start ready ops in any order, and starting them in vector order follows the algorithm's intent.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
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

/// The kinds' names in enum order (kind_name() reads them): the one list that the settings, the simulator's files,
/// the instrumentation's operation kinds (instrument/op_kind.hpp: "p2p", then these) and the profiles use.
inline constexpr std::array<std::string_view, kind_count> kind_names = {
    "barrier", "bcast",     "reduce",   "allreduce", "gather", "scatter", "allgather", "alltoall",
    "reduce_scatter_block", "allgatherv", "alltoallv"};
static_assert(kind_names[static_cast<std::size_t>(kind::alltoallv)] == "alltoallv" && kind_names.back() == "alltoallv",
              "kind_names follows enum kind");

/// Element types of reductions (and of typed collectives); `byte` for data that is only moved.
enum class dtype : std::uint8_t { byte, int32, int64, uint64, float32, float64 };
inline constexpr int dtype_count = 6;
/// The types' names in enum order (dtype_name() reads them; so does the longest sentence a collective makes of them).
inline constexpr std::array<std::string_view, dtype_count> dtype_names = {"byte",   "int32",   "int64",
                                                                          "uint64", "float32", "float64"};

/// Reduction operators. minloc/maxloc work on pairs { T value; std::int32_t index; } laid out as the C struct of
/// those two members (MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_2INT, MPI_LONG_INT have the same layouts); `user` is a
/// callback the executor holds (the simulator charges it as any reduction).
enum class reduce_op : std::uint8_t { none, sum, prod, min, max, land, lor, band, bor, bxor, minloc, maxloc, user };
inline constexpr int reduce_op_count = 13;
/// The operators' names in enum order (reduce_op_name() reads them).
inline constexpr std::array<std::string_view, reduce_op_count> reduce_op_names = {
    "none", "sum", "prod", "min", "max", "land", "lor", "band", "bor", "bxor", "minloc", "maxloc", "user"};

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
/// The algorithms' names in enum order (algorithm_name() reads them).
inline constexpr std::array<std::string_view, algorithm_count> algorithm_names = {
    "auto",      "linear",       "binomial", "dissemination", "recursive_doubling", "ring",
    "rabenseifner", "scatter_allgather", "bruck", "pairwise", "recursive_halving"};

/// Which buffer an operation reads or writes.
enum class buffer : std::uint8_t { send, recv, tmp };

enum class op_type : std::uint8_t { send, recv, reduce, copy };
/// A step the rank does by itself, with no message: a reduction or a copy.
[[nodiscard]] constexpr bool is_local(op_type t) noexcept { return t == op_type::reduce || t == op_type::copy; }

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
  /// Largest message a pipelined algorithm sends at once (0: default_segment_bytes). Every message, copy and
  /// reduction larger than this is cut into segments of this size (rounded down to whole elements), each its own
  /// operation, so that the DAG lets one segment travel while the next is received or reduced (tiny segments on
  /// large buffers make large schedules: a runtime setting should keep this in the KiB range). Algorithms with
  /// nothing to pipeline send whole messages whatever this says: those that only deliver (pairwise, linear) and,
  /// on 2 ranks, every algorithm that reduces nothing.
  std::uint64_t segment_bytes = 0;
  /// reduce_op::user only: whether the callback is commutative (the built-in operators always are). When false,
  /// every rank's result is x_0 op x_1 op ... op x_{p-1} in rank order: build() refuses the algorithms that
  /// reorder operands (keeps_rank_order()) and choose() never picks them.
  bool commutative = true;
  /// Only for what the ranks compare and are told of the call (build() ignores it): value_index pairs that a kind
  /// which reduces nothing moves travel as bytes (type byte, counts in bytes), while their caller counts pairs whose
  /// value is of this type; the call's signature holds this type and the count in pairs, and a sentence about the
  /// type or the count gives them as those pairs. Empty: the caller counts in `type`.
  std::optional<dtype> moved_pairs;
};

/// The segment size used when spec::segment_bytes is 0: large enough that a segment's per-message overhead is
/// small next to its transfer time (128 KiB at 10 GB/s is 13 us), small enough that a 16 MiB collective is 128
/// segments the reserved core can interleave with its other work.
inline constexpr std::uint64_t default_segment_bytes = 128 * 1024;

/// Bytes the caller's send and receive buffers must hold for `s` on rank `rank` of `size` (the scratch buffer's
/// size is schedule::tmp_bytes). 0 where MPI ignores the buffer (send with in_place, recv of reduce and gather on
/// non-roots, recv of scatter at an in_place root, both for barrier). Throws as build() does.
struct buffer_sizes {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
};
[[nodiscard]] buffer_sizes buffer_bytes(const spec& s, int rank, int size);

/// Size in bytes of one element of `t` under `op` (minloc/maxloc: the value-index pair, padding included).
[[nodiscard]] std::size_t element_size(dtype t, reduce_op op) noexcept;

/// Elements of `s.count` per element of its caller: a pair's bytes where spec::moved_pairs is set (the count is in
/// bytes, the caller's in pairs), 1 otherwise. s.count / caller_unit(s) is the count the caller gave.
[[nodiscard]] std::uint64_t caller_unit(const spec& s) noexcept;

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
/// Whether algorithm `a` of kind `k` combines operands in rank order (x_0 op x_1 op ...), and so is correct for a
/// non-commutative user operator. True for kinds that do not reduce, and for automatic.
[[nodiscard]] bool keeps_rank_order(kind k, algorithm a) noexcept;
/// The algorithms that implement `k`, in the order `sidecore info` lists them (automatic excluded).
[[nodiscard]] std::vector<algorithm> algorithms_for(kind k);

/// The algorithm `automatic` stands for: by kind, communicator size and the bytes each rank contributes, with
/// MPICH 4.0's thresholds where MPICH makes the same choice (docs/collectives.md, "How choose() decides"). Uses
/// only what is the same on every rank, so every rank picks the same algorithm; never picks an algorithm that
/// reorders operands when the op is a non-commutative user op.
[[nodiscard]] algorithm choose(const spec& s, int size) noexcept;

/// Rank `rank`'s schedule of collective `s` on `size` ranks with algorithm `a` (automatic: choose()). Throws
/// std::invalid_argument naming the argument for what no rank could run: rank or root outside [0, size), an
/// algorithm that does not implement the kind, a reduce_op that does not fit the type (bitwise on floats), v-variant
/// counts of the wrong length.
[[nodiscard]] schedule build(const spec& s, algorithm a, int rank, int size);

/// What build() with a budget throws when the schedule would hold more operations than the budget.
class too_many_ops : public std::length_error {
 public:
  using std::length_error::length_error;
};
/// As build(), but throws too_many_ops as soon as the schedule passes `max_ops` operations, before building the
/// rest (a caller that refuses large schedules, such as the simulator, need not build one whole to find it large).
[[nodiscard]] schedule build(const spec& s, algorithm a, int rank, int size, std::uint64_t max_ops);

/// The checks build() and buffer_bytes() make, alone: throws std::invalid_argument whose message names the
/// argument, its bad value and what is accepted (size < 1; rank or root outside [0, size); an enum value out of
/// range; op none for a reduction, or an op for a kind that does not reduce; an op the type does not take: logical
/// and bitwise operators on float32/float64, anything but bitwise and user on byte; in_place for barrier and bcast;
/// v-variant arrays not of `size` entries, receive blocks that overlap, an alltoallv block to oneself whose send
/// and receive counts differ; buffers of 2^63 bytes or more; an algorithm that does not implement the kind or, for
/// a non-commutative user op, does not keep rank order). Mismatches between ranks (counts, types, roots) cannot be
/// seen by one rank: the executor finds them when a message of the wrong size arrives.
void validate(const spec& s, algorithm a, int rank, int size);

}  // namespace sidecore::coll
