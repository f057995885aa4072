// sidecore — collective operations. Included by sidecore.hpp (include that one).
//
// MPI's collectives on any sidecore communicator (world(), dup and split results): barrier, bcast, reduce,
// allreduce, gather, scatter, allgather, alltoall, reduce_scatter_block, allgatherv, alltoallv, each in three forms:
//
//   i<name>(...)    nonblocking: returns a request; wait/test/waitall/waitany/testall/testany take it with
//                   point-to-point requests alike. In core mode the reserved core moves it round by round while the
//                   application computes (docs/collectives.md, "The executor").
//   <name>(...)     blocking: returns when this rank's part is done; throws sidecore::error when it fails.
//   <name>_init(...) persistent (MPI 4.0): returns an inactive request whose schedule is built once; start(),
//                   startall() run it, wait/test complete each run, and the request stays valid (inactive) until
//                   request_free() or its destruction. Each takes a wire id of its communicator that no live
//                   persistent collective of it holds; a communicator with 2^19 live ones refuses the next
//                   (invalid_argument). Where a communicator creates more than 2^19 while holding some, every rank
//                   must free them at the same point among its creates (request_free is local: a rank that frees
//                   later takes another id and the persistent collectives created after it never match).
//
// Every form exists untyped (pointer, element count, dtype: what the C API and MPI take) and typed (templates over
// std::int32_t, std::int64_t, std::uint64_t, float, double and value_index<T> of these, on std::span, whose sizes
// the call checks). As in MPI, every rank of the communicator calls the same collectives in the same order, with the
// same kind, type, operator, root and counts; the buffers stay untouched until the request completes.
//
// In place: sidecore::in_place where the send buffer goes (untyped: as the send pointer; typed: the overloads that
// take in_place_t), with MPI_IN_PLACE's meaning per kind: reduce and gather at the root, scatter's receive buffer at
// the root, allreduce, allgather(v), alltoall(v) and reduce_scatter_block everywhere (docs/collectives.md, "Buffer
// conventions").
//
// Errors. Arguments one rank can check throw sidecore::error(errc::invalid_argument) from the call, naming the
// argument, the bad value and what is accepted: a null buffer that this rank's part needs (one of a non-zero size;
// a reduce's or gather's recv off the root and a scatter's send off the root are not needed), a negative count, a
// root outside the communicator, an unknown dtype or op, an operator the type does not take (bitwise on float64, sum
// on byte), a null user function, in_place where the kind or this rank does not take it, v-variant arrays of the
// wrong length or with negative entries or overlapping receive blocks, an allgatherv send_count other than
// recv_counts[rank], an alltoallv send_counts[rank] other than recv_counts[rank], a typed span of the wrong size, a
// freed or null communicator, a send buffer that overlaps the receive buffer outside in_place (not checked for the
// v-variants, whose blocks may interleave in one array). Outside init..finalize every call throws
// errc::not_initialized. What only the ranks together see — counts, types, operators or roots
// that differ between ranks — completes the request with status error errc::invalid_argument (the blocking form
// throws it): every message of a collective carries its call's signature, and a receive that gets another signature
// or another size fails the collective instead of hanging or overrunning a buffer; the C API's sidecore_last_error and
// the blocking form's exception say which rank passed what. A rank whose call runs nothing (a count of 0) answers the
// first message of that call that reaches it with an abort notice, which its receiver passes on to every rank. A
// mismatch is seen only through a message, though: where no message reaches a rank that could see it, nothing moves
// and the call waits, as MPI's does. Examples: the roots of a reduce or gather that differ on 2 ranks, where both
// wait to receive; a count of 0 where the rank with it would have sent first (the root of a bcast or scatter, a
// non-root of a gather or reduce, recursive doubling's rank 0 on 3 ranks); a rank that runs nothing and makes no
// sidecore call afterwards (in mode off its refusal goes out inside its calls). And a rank that only sends in the
// call (the root of a bcast or scatter, a non-root of a gather or reduce) can complete with success before a notice
// reaches it: the ranks that received report the mismatch. Where every rank only sends (a bcast or scatter on 2
// ranks, each naming itself the root), every rank completes with success and nothing is received: no rank receives,
// so none can see it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sidecore {

/// Element types of collective buffers (byte: data that is only moved, or combined by bitwise operators).
enum class dtype : std::uint8_t { byte, int32, int64, uint64, float32, float64 };

/// Built-in reduction operators (all commutative). MPI's rules say which type takes which: sum, prod, min, max on
/// the numeric types; land, lor on the integer types; band, bor, bxor on the integer types and byte; minloc, maxloc
/// on value_index pairs (untyped: dtype names the value's type and count counts pairs).
enum class op : std::uint8_t { sum, prod, min, max, land, lor, band, bor, bxor, minloc, maxloc };

/// A user reduction: for i < count, inout[i] = in[i] (op) inout[i] (MPI_User_function's order: `in` is the left
/// operand), on elements of the call's dtype. Called from the progress pass: in mode core on the progress thread,
/// concurrently with the application's threads; it must not call sidecore.
using user_fn = void (*)(const void* in, void* inout, std::size_t count, void* ctx);

/// What a reduction combines with: a built-in operator (implicitly, from sidecore::op) or a user function.
class reduction {
 public:
  /// The built-in operator `o` (commutative). The collective refuses, with errc::invalid_argument, a value outside
  /// op and an operator the call's type does not take.
  constexpr reduction(op o) noexcept : op_(o) {}  // NOLINT: implicit, so that calls pass op::sum
  /// The user function `fn`, called with `ctx` as its last argument. `commutative` false: every rank's result is
  /// x_0 op x_1 op ... op x_{p-1} in rank order (the algorithms that reorder operands are not used for it). A null
  /// `fn` is refused by the collective that takes it (errc::invalid_argument).
  constexpr explicit reduction(user_fn fn, void* ctx = nullptr, bool commutative = true) noexcept
      : fn_(fn), ctx_(ctx), commutative_(commutative), user_(true) {}
  /// True for a user function, false for a built-in operator.
  [[nodiscard]] constexpr bool user() const noexcept { return user_; }
  /// The built-in operator; op::sum (unused) for a user function.
  [[nodiscard]] constexpr op builtin() const noexcept { return op_; }
  /// The user function; nullptr for a built-in operator.
  [[nodiscard]] constexpr user_fn function() const noexcept { return fn_; }
  /// The `ctx` given with the user function; nullptr for a built-in operator.
  [[nodiscard]] constexpr void* context() const noexcept { return ctx_; }
  /// False only for a user function constructed with commutative = false (the built-in operators all are).
  [[nodiscard]] constexpr bool commutative() const noexcept { return commutative_; }

 private:
  op op_ = op::sum;
  user_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  bool commutative_ = true;
  bool user_ = false;
};

/// The element of minloc and maxloc (MPI_2INT, MPI_LONG_INT, MPI_FLOAT_INT, MPI_DOUBLE_INT have this layout): the
/// result holds the best value and, on ties, the smaller index.
template <class T>
struct value_index {
  T value;
  std::int32_t index;
};

/// Marks the send buffer as the receive buffer (MPI_IN_PLACE). Untyped calls take it as their send pointer.
struct in_place_t {
  explicit constexpr in_place_t() = default;
  // NOLINTNEXTLINE: implicit, so that untyped calls take it where the send pointer goes
  operator const void*() const noexcept { return reinterpret_cast<const void*>(std::uintptr_t{1}); }
};
inline constexpr in_place_t in_place{};

namespace detail {
template <class T>
struct dtype_for {};  // no member: a type the collectives do not take
template <>
struct dtype_for<std::int32_t> {
  static constexpr dtype value = dtype::int32;
  static constexpr bool pair = false;
};
template <>
struct dtype_for<std::int64_t> {
  static constexpr dtype value = dtype::int64;
  static constexpr bool pair = false;
};
template <>
struct dtype_for<std::uint64_t> {
  static constexpr dtype value = dtype::uint64;
  static constexpr bool pair = false;
};
template <>
struct dtype_for<float> {
  static constexpr dtype value = dtype::float32;
  static constexpr bool pair = false;
};
template <>
struct dtype_for<double> {
  static constexpr dtype value = dtype::float64;
  static constexpr bool pair = false;
};
template <class T>
struct dtype_for<value_index<T>> {
  static constexpr dtype value = dtype_for<T>::value;
  static constexpr bool pair = true;
};
}  // namespace detail

/// The element types of the typed collectives: std::int32_t, std::int64_t, std::uint64_t, float, double, and
/// value_index<T> of one of them (for minloc and maxloc).
template <class T>
concept coll_element = requires { detail::dtype_for<std::remove_cv_t<T>>::value; };

/// The dtype of a typed collective's element T (value_index<T>: T's).
template <coll_element T>
inline constexpr dtype dtype_of = detail::dtype_for<std::remove_cv_t<T>>::value;

// ---- algorithms ------------------------------------------------------------------------------------------------

/// Forces the algorithm of every later collective of `kind` started by this process ("allreduce", ...; the
/// SIDECORE_COLL_<KIND> settings set it at init): "auto", or one of coll_algorithms(kind). Every rank must make the
/// same choice before its next collective of that kind (a rank running another algorithm fails the collective with
/// errc::invalid_argument). Throws errc::invalid_argument naming an unknown kind or algorithm and what is accepted;
/// errc::not_initialized outside init/finalize.
SIDECORE_API void set_coll_algorithm(std::string_view kind, std::string_view algorithm);
/// The algorithms `kind` accepts besides "auto", in the order `sidecore info` lists them. Throws
/// errc::invalid_argument for an unknown kind.
[[nodiscard]] SIDECORE_API std::vector<std::string> coll_algorithms(std::string_view kind);
/// Sets the segment size of later collectives (SIDECORE_COLL_SEGMENT), 1024 .. 2^26 bytes, alike on every rank.
/// Throws errc::invalid_argument outside that range.
SIDECORE_API void set_coll_segment(std::int64_t bytes);

// ---- the library's entry (every collective below goes through it) ---------------------------------------------

namespace detail {
enum class coll_form : std::uint8_t { nonblocking, blocking, persistent };
enum class coll_op_kind : std::uint8_t {
  barrier, bcast, reduce, allreduce, gather, scatter, allgather, alltoall, reduce_scatter_block, allgatherv, alltoallv
};
struct coll_args {
  coll_op_kind kind = coll_op_kind::barrier;
  coll_form form = coll_form::nonblocking;
  const void* send = nullptr;
  void* recv = nullptr;
  std::int64_t count = 0;
  dtype type = dtype::byte;
  const reduction* red = nullptr;
  int root = 0;
  std::int64_t send_count = 0;  // allgatherv
  std::span<const std::int64_t> send_counts{}, send_displs{}, recv_counts{}, recv_displs{};
  // Typed calls: the spans' element counts, which must be what the call needs; -1: untyped (not checked).
  std::int64_t send_elems = -1, recv_elems = -1;
  bool typed_pair = false;  // typed: value_index elements
  bool typed = false;
  // The buffers' sizes in bytes where a language binding knows them (sidecore_binding_limits); -1: unknown. A plan that
  // needs more of a buffer than it holds is refused.
  std::int64_t send_capacity = -1, recv_capacity = -1;
};
/// Checks, then starts (nonblocking), runs (blocking: returns an empty request) or creates (persistent) a collective.
[[nodiscard]] SIDECORE_API request coll_call(const coll_args& a, const comm& c);

template <class T>
constexpr coll_args typed(coll_op_kind k, coll_form f) noexcept {
  coll_args a;
  a.kind = k;
  a.form = f;
  a.type = dtype_of<T>;
  a.typed = true;
  a.typed_pair = detail::dtype_for<std::remove_cv_t<T>>::pair;
  return a;
}
inline std::int64_t elems(std::size_t n) noexcept { return static_cast<std::int64_t>(n); }
}  // namespace detail

// ---- barrier ---------------------------------------------------------------------------------------------------

/// Barrier: completes on this rank once every rank of `c` has started it (dissemination or recursive doubling). The
/// three forms follow: ibarrier returns its request, barrier returns once every rank has entered, barrier_init
/// returns an inactive persistent request whose every start() is one barrier. Bad input (a null or freed `c`):
/// errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request ibarrier(const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::barrier}, c);
}
inline void barrier(const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::barrier, .form = detail::coll_form::blocking}, c);
}
[[nodiscard]] inline request barrier_init(const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::barrier, .form = detail::coll_form::persistent}, c);
}

// ---- bcast ------------------------------------------------------------------------------------------------------

/// Broadcast: the `count` elements of type `t` at `buf` on rank `root` (0 .. c.size() - 1) are copied into `buf` on
/// every other rank of `c`. buf holds count elements on every rank: the input at the root, the output elsewhere. No
/// in-place form (in_place as buf is refused). The three forms follow: ibcast returns its request, bcast returns when
/// this rank's part is done, bcast_init returns an inactive persistent request. Bad input: errc::invalid_argument, as
/// "Errors." above says.
[[nodiscard]] inline request ibcast(void* buf, std::int64_t count, dtype t, int root, const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::bcast, .recv = buf,
                            .count = count, .type = t, .root = root}, c);
}
inline void bcast(void* buf, std::int64_t count, dtype t, int root, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::bcast, .form = detail::coll_form::blocking, .recv = buf,
                           .count = count, .type = t, .root = root}, c);
}
[[nodiscard]] inline request bcast_init(void* buf, std::int64_t count, dtype t, int root, const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::bcast, .form = detail::coll_form::persistent, .recv = buf,
                            .count = count, .type = t, .root = root}, c);
}

// ---- reduce -----------------------------------------------------------------------------------------------------

/// Reduce: recv on rank `root` (0 .. c.size() - 1) gets, element by element, send of rank 0 (r) send of rank 1 (r) ...
/// (r) send of rank p - 1, p = c.size() (rank order matters only for a non-commutative user reduction; `r` must be an
/// operator that `t` takes, see op). send holds `count` elements of type `t` on every rank; recv holds count elements
/// at the root and is ignored elsewhere (null allowed). In place: the root passes in_place as send, its input in recv,
/// which receives the result; the other ranks pass their send as usual (in_place on them is refused). The three forms
/// follow: ireduce returns its request, reduce returns when this rank's part is done, reduce_init returns an inactive
/// persistent request. Bad input: errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request ireduce(const void* send, void* recv, std::int64_t count, dtype t, reduction r, int root,
                                     const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::reduce, .send = send, .recv = recv, .count = count,
                            .type = t, .red = &r, .root = root}, c);
}
inline void reduce(const void* send, void* recv, std::int64_t count, dtype t, reduction r, int root,
                   const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::reduce, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .count = count, .type = t, .red = &r, .root = root}, c);
}
[[nodiscard]] inline request reduce_init(const void* send, void* recv, std::int64_t count, dtype t, reduction r,
                                         int root, const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::reduce, .form = detail::coll_form::persistent, .send = send,
                            .recv = recv, .count = count, .type = t, .red = &r, .root = root}, c);
}

// ---- allreduce --------------------------------------------------------------------------------------------------

/// Allreduce: recv on every rank of `c` gets, element by element, the reduction by `r` of every rank's send, as reduce
/// computes it (rank order for a non-commutative user reduction). send and recv hold `count` elements of type `t`. In
/// place: in_place as send, recv holds the input and receives the result. The three forms follow: iallreduce returns
/// its request, allreduce returns when this rank's result is in recv, allreduce_init returns an inactive persistent
/// request. Bad input: errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request iallreduce(const void* send, void* recv, std::int64_t count, dtype t, reduction r,
                                        const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::allreduce, .send = send, .recv = recv, .count = count,
                            .type = t, .red = &r}, c);
}
inline void allreduce(const void* send, void* recv, std::int64_t count, dtype t, reduction r, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::allreduce, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .count = count, .type = t, .red = &r}, c);
}
[[nodiscard]] inline request allreduce_init(const void* send, void* recv, std::int64_t count, dtype t, reduction r,
                                            const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::allreduce, .form = detail::coll_form::persistent,
                            .send = send, .recv = recv, .count = count, .type = t, .red = &r}, c);
}

// ---- gather -----------------------------------------------------------------------------------------------------

/// Gather: every rank's send (`count` elements of type `t`) goes to block i (elements i * count .. (i + 1) * count - 1)
/// of recv on rank `root` (0 .. c.size() - 1), i being the sender's rank. recv holds c.size() x count elements at the
/// root and is ignored elsewhere (null allowed). In place: the root passes in_place as send, its own block already in
/// recv block `root`; the other ranks pass their send as usual (in_place on them is refused). The three forms follow:
/// igather returns its request, gather returns when this rank's part is done, gather_init returns an inactive
/// persistent request. Bad input: errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request igather(const void* send, void* recv, std::int64_t count, dtype t, int root,
                                     const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::gather, .send = send, .recv = recv, .count = count,
                            .type = t, .root = root}, c);
}
inline void gather(const void* send, void* recv, std::int64_t count, dtype t, int root, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::gather, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .count = count, .type = t, .root = root}, c);
}
[[nodiscard]] inline request gather_init(const void* send, void* recv, std::int64_t count, dtype t, int root,
                                         const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::gather, .form = detail::coll_form::persistent, .send = send,
                            .recv = recv, .count = count, .type = t, .root = root}, c);
}

// ---- scatter ----------------------------------------------------------------------------------------------------

/// Scatter: block i (`count` elements of type `t`, elements i * count .. (i + 1) * count - 1) of send on rank `root`
/// (0 .. c.size() - 1) goes to recv on rank i. send holds c.size() x count elements at the root and is ignored
/// elsewhere (null allowed); recv holds count elements. In place: the root passes in_place as recv (the in_place_t
/// overloads after the three forms), its own block staying in send; in_place as send, or as recv on another rank,
/// is refused. The three forms follow: iscatter returns its request, scatter returns when this rank's part is done,
/// scatter_init returns an inactive persistent request. Bad input: errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request iscatter(const void* send, void* recv, std::int64_t count, dtype t, int root,
                                      const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::scatter, .send = send, .recv = recv, .count = count,
                            .type = t, .root = root}, c);
}
inline void scatter(const void* send, void* recv, std::int64_t count, dtype t, int root, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::scatter, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .count = count, .type = t, .root = root}, c);
}
[[nodiscard]] inline request scatter_init(const void* send, void* recv, std::int64_t count, dtype t, int root,
                                          const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::scatter, .form = detail::coll_form::persistent, .send = send,
                            .recv = recv, .count = count, .type = t, .root = root}, c);
}
/// In-place scatter at the root (MPI_IN_PLACE as recvbuf), in the three forms: its own block stays where it is in
/// send. As the scatter above otherwise.
[[nodiscard]] inline request iscatter(const void* send, in_place_t, std::int64_t count, dtype t, int root,
                                      const comm& c = world()) {
  return iscatter(send, const_cast<void*>(static_cast<const void*>(in_place)), count, t, root, c);
}
inline void scatter(const void* send, in_place_t, std::int64_t count, dtype t, int root, const comm& c = world()) {
  scatter(send, const_cast<void*>(static_cast<const void*>(in_place)), count, t, root, c);
}
[[nodiscard]] inline request scatter_init(const void* send, in_place_t, std::int64_t count, dtype t, int root,
                                          const comm& c = world()) {
  return scatter_init(send, const_cast<void*>(static_cast<const void*>(in_place)), count, t, root, c);
}

// ---- allgather --------------------------------------------------------------------------------------------------

/// Allgather: every rank's send (`count` elements of type `t`) goes to block i (elements i * count .. (i + 1) * count
/// - 1) of recv on every rank of `c`, i being the sender's rank; recv holds c.size() x count elements. In place:
/// in_place as send, this rank's block already in recv block `rank`. The three forms follow: iallgather returns its
/// request, allgather returns when this rank's recv is complete, allgather_init returns an inactive persistent
/// request. Bad input: errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request iallgather(const void* send, void* recv, std::int64_t count, dtype t,
                                        const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::allgather, .send = send, .recv = recv, .count = count,
                            .type = t}, c);
}
inline void allgather(const void* send, void* recv, std::int64_t count, dtype t, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::allgather, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .count = count, .type = t}, c);
}
[[nodiscard]] inline request allgather_init(const void* send, void* recv, std::int64_t count, dtype t,
                                            const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::allgather, .form = detail::coll_form::persistent,
                            .send = send, .recv = recv, .count = count, .type = t}, c);
}

// ---- alltoall ---------------------------------------------------------------------------------------------------

/// Alltoall: block j of send (`count` elements of type `t`, elements j * count .. (j + 1) * count - 1) goes to rank j,
/// and block i of recv comes from rank i; send and recv hold c.size() x count elements. In place: in_place as send,
/// recv holds the input in the same layout and receives the output. The three forms follow: ialltoall returns its
/// request, alltoall returns when this rank's recv is complete, alltoall_init returns an inactive persistent request.
/// Bad input: errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request ialltoall(const void* send, void* recv, std::int64_t count, dtype t,
                                       const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::alltoall, .send = send, .recv = recv, .count = count,
                            .type = t}, c);
}
inline void alltoall(const void* send, void* recv, std::int64_t count, dtype t, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::alltoall, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .count = count, .type = t}, c);
}
[[nodiscard]] inline request alltoall_init(const void* send, void* recv, std::int64_t count, dtype t,
                                           const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::alltoall, .form = detail::coll_form::persistent,
                            .send = send, .recv = recv, .count = count, .type = t}, c);
}

// ---- reduce_scatter_block ---------------------------------------------------------------------------------------

/// Reduce_scatter_block: the reduction by `r`, element by element, of every rank's send (c.size() x count elements of
/// type `t`, rank order for a non-commutative user reduction) is cut into c.size() blocks of `count` elements, and
/// rank i's recv (count elements) gets block i. In place: in_place as send, recv holding the input (c.size() x count
/// elements); the result goes to its first count elements, the rest is left as it was. The three forms follow:
/// ireduce_scatter_block returns its request, reduce_scatter_block returns when this rank's block is in recv,
/// reduce_scatter_block_init returns an inactive persistent request. Bad input: errc::invalid_argument, as "Errors."
/// above says.
[[nodiscard]] inline request ireduce_scatter_block(const void* send, void* recv, std::int64_t count, dtype t,
                                                   reduction r, const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::reduce_scatter_block, .send = send, .recv = recv,
                            .count = count, .type = t, .red = &r}, c);
}
inline void reduce_scatter_block(const void* send, void* recv, std::int64_t count, dtype t, reduction r,
                                 const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::reduce_scatter_block, .form = detail::coll_form::blocking,
                           .send = send, .recv = recv, .count = count, .type = t, .red = &r}, c);
}
[[nodiscard]] inline request reduce_scatter_block_init(const void* send, void* recv, std::int64_t count, dtype t,
                                                       reduction r, const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::reduce_scatter_block, .form = detail::coll_form::persistent,
                            .send = send, .recv = recv, .count = count, .type = t, .red = &r}, c);
}

// ---- allgatherv -------------------------------------------------------------------------------------------------

/// Allgatherv: rank i's send (send_count elements of type `t`) goes to recv + recv_displs[i] elements on every rank of
/// `c`. recv_counts and recv_displs have one non-negative entry per rank (elements), the same on every rank;
/// send_count must equal recv_counts[rank]; the receive blocks must not overlap, and recv must reach the end of the
/// furthest non-empty block (bytes between blocks are left as they were). In place: in_place as send, this rank's block
/// already at recv_displs[rank] (send_count ignored). The three forms follow: iallgatherv returns its request,
/// allgatherv returns when this rank's recv is complete, allgatherv_init returns an inactive persistent request. Bad
/// input: errc::invalid_argument, as "Errors." above says.
[[nodiscard]] inline request iallgatherv(const void* send, std::int64_t send_count, void* recv,
                                         std::span<const std::int64_t> recv_counts,
                                         std::span<const std::int64_t> recv_displs, dtype t, const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::allgatherv, .send = send, .recv = recv, .type = t,
                            .send_count = send_count, .recv_counts = recv_counts, .recv_displs = recv_displs}, c);
}
inline void allgatherv(const void* send, std::int64_t send_count, void* recv, std::span<const std::int64_t> recv_counts,
                       std::span<const std::int64_t> recv_displs, dtype t, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::allgatherv, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .type = t, .send_count = send_count, .recv_counts = recv_counts,
                           .recv_displs = recv_displs}, c);
}
[[nodiscard]] inline request allgatherv_init(const void* send, std::int64_t send_count, void* recv,
                                             std::span<const std::int64_t> recv_counts,
                                             std::span<const std::int64_t> recv_displs, dtype t,
                                             const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::allgatherv, .form = detail::coll_form::persistent,
                            .send = send, .recv = recv, .type = t, .send_count = send_count,
                            .recv_counts = recv_counts, .recv_displs = recv_displs}, c);
}

// ---- alltoallv --------------------------------------------------------------------------------------------------

/// Alltoallv: send_counts[j] elements of type `t` at send + send_displs[j] go to rank j, and recv_counts[i] elements
/// from rank i arrive at recv + recv_displs[i] (elements). Each array has one non-negative entry per rank; send blocks
/// may overlap, receive blocks must not; send_counts[rank] must equal recv_counts[rank]; what rank i sends j must be
/// what j expects from i (a message of another size fails the collective, as "Errors." above says). In place:
/// in_place as send, the input in recv with the receive layout (recv_counts symmetric, as MPI requires), the send
/// arrays ignored (may be empty). The three forms follow: ialltoallv returns its request, alltoallv returns when this
/// rank's recv is complete, alltoallv_init returns an inactive persistent request. Bad input: errc::invalid_argument,
/// as "Errors." above says.
[[nodiscard]] inline request ialltoallv(const void* send, std::span<const std::int64_t> send_counts,
                                        std::span<const std::int64_t> send_displs, void* recv,
                                        std::span<const std::int64_t> recv_counts,
                                        std::span<const std::int64_t> recv_displs, dtype t, const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::alltoallv, .send = send, .recv = recv, .type = t,
                            .send_counts = send_counts, .send_displs = send_displs, .recv_counts = recv_counts,
                            .recv_displs = recv_displs}, c);
}
inline void alltoallv(const void* send, std::span<const std::int64_t> send_counts,
                      std::span<const std::int64_t> send_displs, void* recv, std::span<const std::int64_t> recv_counts,
                      std::span<const std::int64_t> recv_displs, dtype t, const comm& c = world()) {
  (void)detail::coll_call({.kind = detail::coll_op_kind::alltoallv, .form = detail::coll_form::blocking, .send = send,
                           .recv = recv, .type = t, .send_counts = send_counts, .send_displs = send_displs,
                           .recv_counts = recv_counts, .recv_displs = recv_displs}, c);
}
[[nodiscard]] inline request alltoallv_init(const void* send, std::span<const std::int64_t> send_counts,
                                            std::span<const std::int64_t> send_displs, void* recv,
                                            std::span<const std::int64_t> recv_counts,
                                            std::span<const std::int64_t> recv_displs, dtype t,
                                            const comm& c = world()) {
  return detail::coll_call({.kind = detail::coll_op_kind::alltoallv, .form = detail::coll_form::persistent,
                            .send = send, .recv = recv, .type = t, .send_counts = send_counts,
                            .send_displs = send_displs, .recv_counts = recv_counts, .recv_displs = recv_displs}, c);
}

// ---- typed forms ------------------------------------------------------------------------------------------------
// The same calls on spans of a coll_element type (give T when the arguments are containers: iallreduce<double>(x,
// y, op::sum)). Counts come from the spans, whose sizes must be exactly what the call needs on this rank (else
// errc::invalid_argument naming the span, its size and the size needed): bcast: buf = count; reduce: send = count,
// recv = count at the root (ignored elsewhere); allreduce: send = recv = count; gather: send = count, recv = size x
// count at the root; scatter: send = size x count at the root, recv = count; allgather: send = count, recv = size x
// count; alltoall: send = recv = size x count; reduce_scatter_block: send = size x count, recv = count; allgatherv /
// alltoallv: as the counts and displacements say. Each kind comes in the untyped calls' three forms (i<name> returns
// a request, <name> returns when this rank's part is done, <name>_init returns an inactive persistent request), with
// the same semantics, root and in_place rules; the in_place_t overloads follow a kind's three forms, and only
// allreduce has a typed in-place _init (for the others, the untyped _init takes in_place as its pointer). Bad input:
// errc::invalid_argument as "Errors." above says, a span of another size included.

namespace detail {
template <coll_element T, class F>
request typed_bcast(F f, std::span<T> buf, int root, const comm& c) {
  coll_args a = typed<T>(coll_op_kind::bcast, f);
  a.recv = buf.data();
  a.count = elems(buf.size());
  a.recv_elems = a.count;
  a.root = root;
  return coll_call(a, c);
}
// reduce, allreduce, reduce_scatter_block (count: what each kind's count is in terms of the spans)
template <coll_element T>
request typed_reduction(coll_op_kind k, coll_form f, const void* send, std::int64_t send_elems, T* recv,
                        std::int64_t recv_elems, std::int64_t count, const reduction& r, int root, const comm& c) {
  coll_args a = typed<T>(k, f);
  a.send = send;
  a.send_elems = send_elems;
  a.recv = recv;
  a.recv_elems = recv_elems;
  a.count = count;
  a.red = &r;
  a.root = root;
  return coll_call(a, c);
}
// gather, scatter, allgather, alltoall
template <coll_element T>
request typed_move(coll_op_kind k, coll_form f, const void* send, std::int64_t send_elems, void* recv,
                   std::int64_t recv_elems, std::int64_t count, int root, const comm& c) {
  coll_args a = typed<T>(k, f);
  a.send = send;
  a.send_elems = send_elems;
  a.recv = recv;
  a.recv_elems = recv_elems;
  a.count = count;
  a.root = root;
  return coll_call(a, c);
}
template <coll_element T>
request typed_allgatherv(coll_form f, const void* send, std::int64_t send_elems, std::span<T> recv,
                         std::span<const std::int64_t> counts, std::span<const std::int64_t> displs, const comm& c) {
  coll_args a = typed<T>(coll_op_kind::allgatherv, f);
  a.send = send;
  a.send_count = send_elems;
  a.send_elems = send_elems;
  a.recv = recv.data();
  a.recv_elems = elems(recv.size());
  a.recv_counts = counts;
  a.recv_displs = displs;
  return coll_call(a, c);
}
template <coll_element T>
request typed_alltoallv(coll_form f, const void* send, std::int64_t send_elems, std::span<const std::int64_t> scounts,
                        std::span<const std::int64_t> sdispls, std::span<T> recv, std::span<const std::int64_t> rcounts,
                        std::span<const std::int64_t> rdispls, const comm& c) {
  coll_args a = typed<T>(coll_op_kind::alltoallv, f);
  a.send = send;
  a.send_elems = send_elems;
  a.send_counts = scounts;
  a.send_displs = sdispls;
  a.recv = recv.data();
  a.recv_elems = elems(recv.size());
  a.recv_counts = rcounts;
  a.recv_displs = rdispls;
  return coll_call(a, c);
}
// The count per rank of a span of n elements that holds one block per rank of c. Throws errc::invalid_argument,
// naming the collective `k` (as its blocking form), when n is not a multiple of c's size (a block would be cut off),
// or c is not a live communicator.
SIDECORE_API std::int64_t per_rank(std::size_t n, const comm& c, coll_op_kind k);
}  // namespace detail

/// Typed bcast (three forms follow): buf's elements on rank `root` are copied into buf on every other rank; count =
/// buf.size(), the same on every rank. No in-place form.
template <coll_element T>
[[nodiscard]] request ibcast(std::span<T> buf, int root, const comm& c = world()) {
  return detail::typed_bcast<T>(detail::coll_form::nonblocking, buf, root, c);
}
template <coll_element T>
void bcast(std::span<T> buf, int root, const comm& c = world()) {
  (void)detail::typed_bcast<T>(detail::coll_form::blocking, buf, root, c);
}
template <coll_element T>
[[nodiscard]] request bcast_init(std::span<T> buf, int root, const comm& c = world()) {
  return detail::typed_bcast<T>(detail::coll_form::persistent, buf, root, c);
}

/// Typed reduce (three forms follow): recv at `root` gets the element-wise reduction by `r` of every rank's send.
/// count = send.size(); recv.size() must be count at the root and is ignored elsewhere (may be empty). value_index
/// elements take minloc and maxloc only, and those take only them.
template <coll_element T>
[[nodiscard]] request ireduce(std::span<const T> send, std::span<T> recv, reduction r, int root,
                              const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::reduce, detail::coll_form::nonblocking, send.data(),
                                    detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                    detail::elems(send.size()), r, root, c);
}
template <coll_element T>
void reduce(std::span<const T> send, std::span<T> recv, reduction r, int root, const comm& c = world()) {
  (void)detail::typed_reduction<T>(detail::coll_op_kind::reduce, detail::coll_form::blocking, send.data(),
                                   detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                   detail::elems(send.size()), r, root, c);
}
template <coll_element T>
[[nodiscard]] request reduce_init(std::span<const T> send, std::span<T> recv, reduction r, int root,
                                  const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::reduce, detail::coll_form::persistent, send.data(),
                                    detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                    detail::elems(send.size()), r, root, c);
}
/// Typed in-place reduce, at the root only (two forms: nonblocking, blocking): buf holds the input (count =
/// buf.size()) and receives the result; the other ranks call the reduce above with send.size() = count.
template <coll_element T>
[[nodiscard]] request ireduce(in_place_t, std::span<T> buf, reduction r, int root, const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::reduce, detail::coll_form::nonblocking, in_place, -1,
                                    buf.data(), detail::elems(buf.size()), detail::elems(buf.size()), r, root, c);
}
template <coll_element T>
void reduce(in_place_t, std::span<T> buf, reduction r, int root, const comm& c = world()) {
  (void)detail::typed_reduction<T>(detail::coll_op_kind::reduce, detail::coll_form::blocking, in_place, -1, buf.data(),
                                   detail::elems(buf.size()), detail::elems(buf.size()), r, root, c);
}

/// Typed allreduce (three forms follow): recv on every rank gets the element-wise reduction by `r` of every rank's
/// send; send.size() and recv.size() must both be count. value_index elements take minloc and maxloc only.
template <coll_element T>
[[nodiscard]] request iallreduce(std::span<const T> send, std::span<T> recv, reduction r, const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::allreduce, detail::coll_form::nonblocking, send.data(),
                                    detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                    detail::elems(recv.size()), r, 0, c);
}
template <coll_element T>
void allreduce(std::span<const T> send, std::span<T> recv, reduction r, const comm& c = world()) {
  (void)detail::typed_reduction<T>(detail::coll_op_kind::allreduce, detail::coll_form::blocking, send.data(),
                                   detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                   detail::elems(recv.size()), r, 0, c);
}
template <coll_element T>
[[nodiscard]] request allreduce_init(std::span<const T> send, std::span<T> recv, reduction r, const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::allreduce, detail::coll_form::persistent, send.data(),
                                    detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                    detail::elems(recv.size()), r, 0, c);
}
/// Typed in-place allreduce (three forms follow): buf holds the input (count = buf.size()) and receives the result.
template <coll_element T>
[[nodiscard]] request iallreduce(in_place_t, std::span<T> buf, reduction r, const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::allreduce, detail::coll_form::nonblocking, in_place, -1,
                                    buf.data(), detail::elems(buf.size()), detail::elems(buf.size()), r, 0, c);
}
template <coll_element T>
void allreduce(in_place_t, std::span<T> buf, reduction r, const comm& c = world()) {
  (void)detail::typed_reduction<T>(detail::coll_op_kind::allreduce, detail::coll_form::blocking, in_place, -1,
                                   buf.data(), detail::elems(buf.size()), detail::elems(buf.size()), r, 0, c);
}
template <coll_element T>
[[nodiscard]] request allreduce_init(in_place_t, std::span<T> buf, reduction r, const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::allreduce, detail::coll_form::persistent, in_place, -1,
                                    buf.data(), detail::elems(buf.size()), detail::elems(buf.size()), r, 0, c);
}

/// Typed reduce_scatter_block (nonblocking and blocking follow; reduce_scatter_block_init after the in-place pair):
/// rank i's recv gets block i of the element-wise reduction by `r` of every rank's send. count = recv.size();
/// send.size() must be p x count, p = c.size(). value_index elements take minloc and maxloc only.
template <coll_element T>
[[nodiscard]] request ireduce_scatter_block(std::span<const T> send, std::span<T> recv, reduction r,
                                            const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::reduce_scatter_block, detail::coll_form::nonblocking,
                                    send.data(), detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                    detail::elems(recv.size()), r, 0, c);
}
template <coll_element T>
void reduce_scatter_block(std::span<const T> send, std::span<T> recv, reduction r, const comm& c = world()) {
  (void)detail::typed_reduction<T>(detail::coll_op_kind::reduce_scatter_block, detail::coll_form::blocking,
                                   send.data(), detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                   detail::elems(recv.size()), r, 0, c);
}
/// Typed in-place reduce_scatter_block (nonblocking, blocking): buf holds p x count elements of input (buf.size() a
/// multiple of p, else errc::invalid_argument); the result goes to its first count, the rest is left as it was.
template <coll_element T>
[[nodiscard]] request ireduce_scatter_block(in_place_t, std::span<T> buf, reduction r, const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::reduce_scatter_block, detail::coll_form::nonblocking,
                                    in_place, -1, buf.data(), detail::elems(buf.size()),
                                    detail::per_rank(buf.size(), c, detail::coll_op_kind::reduce_scatter_block), r,
                                    0, c);
}
template <coll_element T>
void reduce_scatter_block(in_place_t, std::span<T> buf, reduction r, const comm& c = world()) {
  (void)detail::typed_reduction<T>(detail::coll_op_kind::reduce_scatter_block, detail::coll_form::blocking, in_place,
                                   -1, buf.data(), detail::elems(buf.size()),
                                   detail::per_rank(buf.size(), c, detail::coll_op_kind::reduce_scatter_block), r,
                                   0, c);
}
template <coll_element T>
[[nodiscard]] request reduce_scatter_block_init(std::span<const T> send, std::span<T> recv, reduction r,
                                                const comm& c = world()) {
  return detail::typed_reduction<T>(detail::coll_op_kind::reduce_scatter_block, detail::coll_form::persistent,
                                    send.data(), detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                                    detail::elems(recv.size()), r, 0, c);
}

/// Typed gather (igather and gather follow; gather_init after the in-place pair): block i of recv at `root` gets rank
/// i's send. count = send.size(); recv.size() must be p x count at the root, p = c.size(), and is ignored elsewhere.
template <coll_element T>
[[nodiscard]] request igather(std::span<const T> send, std::span<T> recv, int root, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::gather, detail::coll_form::nonblocking, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::elems(send.size()), root, c);
}
template <coll_element T>
void gather(std::span<const T> send, std::span<T> recv, int root, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::gather, detail::coll_form::blocking, send.data(),
                              detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                              detail::elems(send.size()), root, c);
}
/// Typed in-place gather, at the root only (nonblocking, blocking): its own block already in recv block `root`;
/// recv.size() = p x count (a multiple of p, else errc::invalid_argument). The other ranks call the gather above.
template <coll_element T>
[[nodiscard]] request igather(in_place_t, std::span<T> recv, int root, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::gather, detail::coll_form::nonblocking, in_place, -1,
                               recv.data(), detail::elems(recv.size()),
                               detail::per_rank(recv.size(), c, detail::coll_op_kind::gather), root, c);
}
template <coll_element T>
void gather(in_place_t, std::span<T> recv, int root, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::gather, detail::coll_form::blocking, in_place, -1, recv.data(),
                              detail::elems(recv.size()),
                              detail::per_rank(recv.size(), c, detail::coll_op_kind::gather), root, c);
}
template <coll_element T>
[[nodiscard]] request gather_init(std::span<const T> send, std::span<T> recv, int root, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::gather, detail::coll_form::persistent, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::elems(send.size()), root, c);
}

/// Typed scatter (iscatter and scatter follow; scatter_init after the in-place pair): rank i's recv gets block i of
/// send at `root`. count = recv.size(); send.size() must be p x count at the root, p = c.size(), and is ignored
/// elsewhere.
template <coll_element T>
[[nodiscard]] request iscatter(std::span<const T> send, std::span<T> recv, int root, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::scatter, detail::coll_form::nonblocking, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::elems(recv.size()), root, c);
}
template <coll_element T>
void scatter(std::span<const T> send, std::span<T> recv, int root, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::scatter, detail::coll_form::blocking, send.data(),
                              detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                              detail::elems(recv.size()), root, c);
}
/// Typed in-place scatter, at the root only (nonblocking, blocking): its own block stays in send; send.size() = p x
/// count (a multiple of p, else errc::invalid_argument). The other ranks call the scatter above.
template <coll_element T>
[[nodiscard]] request iscatter(std::span<const T> send, in_place_t, int root, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::scatter, detail::coll_form::nonblocking, send.data(),
                               detail::elems(send.size()), const_cast<void*>(static_cast<const void*>(in_place)), -1,
                               detail::per_rank(send.size(), c, detail::coll_op_kind::scatter), root, c);
}
template <coll_element T>
void scatter(std::span<const T> send, in_place_t, int root, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::scatter, detail::coll_form::blocking, send.data(),
                              detail::elems(send.size()), const_cast<void*>(static_cast<const void*>(in_place)), -1,
                              detail::per_rank(send.size(), c, detail::coll_op_kind::scatter), root, c);
}
template <coll_element T>
[[nodiscard]] request scatter_init(std::span<const T> send, std::span<T> recv, int root, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::scatter, detail::coll_form::persistent, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::elems(recv.size()), root, c);
}

/// Typed allgather (three forms follow): block i of recv on every rank gets rank i's send. count = send.size();
/// recv.size() must be p x count, p = c.size().
template <coll_element T>
[[nodiscard]] request iallgather(std::span<const T> send, std::span<T> recv, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::allgather, detail::coll_form::nonblocking, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::elems(send.size()), 0, c);
}
template <coll_element T>
void allgather(std::span<const T> send, std::span<T> recv, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::allgather, detail::coll_form::blocking, send.data(),
                              detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                              detail::elems(send.size()), 0, c);
}
template <coll_element T>
[[nodiscard]] request allgather_init(std::span<const T> send, std::span<T> recv, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::allgather, detail::coll_form::persistent, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::elems(send.size()), 0, c);
}
/// Typed in-place allgather (nonblocking, blocking): recv holds this rank's block at block `rank`; recv.size() = p x
/// count (a multiple of p, else errc::invalid_argument).
template <coll_element T>
[[nodiscard]] request iallgather(in_place_t, std::span<T> recv, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::allgather, detail::coll_form::nonblocking, in_place, -1,
                               recv.data(), detail::elems(recv.size()),
                               detail::per_rank(recv.size(), c, detail::coll_op_kind::allgather), 0, c);
}
template <coll_element T>
void allgather(in_place_t, std::span<T> recv, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::allgather, detail::coll_form::blocking, in_place, -1, recv.data(),
                              detail::elems(recv.size()),
                              detail::per_rank(recv.size(), c, detail::coll_op_kind::allgather), 0, c);
}

/// Typed alltoall (three forms follow): block j of send goes to rank j, block i of recv comes from rank i.
/// send.size() and recv.size() must both be p x count, p = c.size() (send.size() a multiple of p, else
/// errc::invalid_argument); count = send.size() / p.
template <coll_element T>
[[nodiscard]] request ialltoall(std::span<const T> send, std::span<T> recv, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::alltoall, detail::coll_form::nonblocking, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::per_rank(send.size(), c, detail::coll_op_kind::alltoall), 0, c);
}
template <coll_element T>
void alltoall(std::span<const T> send, std::span<T> recv, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::alltoall, detail::coll_form::blocking, send.data(),
                              detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                              detail::per_rank(send.size(), c, detail::coll_op_kind::alltoall), 0, c);
}
template <coll_element T>
[[nodiscard]] request alltoall_init(std::span<const T> send, std::span<T> recv, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::alltoall, detail::coll_form::persistent, send.data(),
                               detail::elems(send.size()), recv.data(), detail::elems(recv.size()),
                               detail::per_rank(send.size(), c, detail::coll_op_kind::alltoall), 0, c);
}
/// Typed in-place alltoall (nonblocking, blocking): recv holds the input in the same layout and receives the output;
/// recv.size() = p x count (a multiple of p, else errc::invalid_argument).
template <coll_element T>
[[nodiscard]] request ialltoall(in_place_t, std::span<T> recv, const comm& c = world()) {
  return detail::typed_move<T>(detail::coll_op_kind::alltoall, detail::coll_form::nonblocking, in_place, -1,
                               recv.data(), detail::elems(recv.size()),
                               detail::per_rank(recv.size(), c, detail::coll_op_kind::alltoall), 0, c);
}
template <coll_element T>
void alltoall(in_place_t, std::span<T> recv, const comm& c = world()) {
  (void)detail::typed_move<T>(detail::coll_op_kind::alltoall, detail::coll_form::blocking, in_place, -1, recv.data(),
                              detail::elems(recv.size()),
                              detail::per_rank(recv.size(), c, detail::coll_op_kind::alltoall), 0, c);
}

/// Typed allgatherv (nonblocking and blocking, the in-place pair, then allgatherv_init): rank i's send goes to recv at
/// displs[i] on every rank. counts and displs as the untyped allgatherv's recv_counts and recv_displs; send.size()
/// must be counts[rank] (not checked in place, where this rank's block is already in recv); recv.size() must be
/// exactly the end of the furthest non-empty block (max of displs[i] + counts[i]), where there is one.
template <coll_element T>
[[nodiscard]] request iallgatherv(std::span<const T> send, std::span<T> recv, std::span<const std::int64_t> counts,
                                  std::span<const std::int64_t> displs, const comm& c = world()) {
  return detail::typed_allgatherv<T>(detail::coll_form::nonblocking, send.data(), detail::elems(send.size()), recv,
                                     counts, displs, c);
}
template <coll_element T>
void allgatherv(std::span<const T> send, std::span<T> recv, std::span<const std::int64_t> counts,
                std::span<const std::int64_t> displs, const comm& c = world()) {
  (void)detail::typed_allgatherv<T>(detail::coll_form::blocking, send.data(), detail::elems(send.size()), recv, counts,
                                    displs, c);
}
template <coll_element T>
[[nodiscard]] request iallgatherv(in_place_t, std::span<T> recv, std::span<const std::int64_t> counts,
                                  std::span<const std::int64_t> displs, const comm& c = world()) {
  return detail::typed_allgatherv<T>(detail::coll_form::nonblocking, in_place, -1, recv, counts, displs, c);
}
template <coll_element T>
void allgatherv(in_place_t, std::span<T> recv, std::span<const std::int64_t> counts,
                std::span<const std::int64_t> displs, const comm& c = world()) {
  (void)detail::typed_allgatherv<T>(detail::coll_form::blocking, in_place, -1, recv, counts, displs, c);
}
template <coll_element T>
[[nodiscard]] request allgatherv_init(std::span<const T> send, std::span<T> recv, std::span<const std::int64_t> counts,
                                      std::span<const std::int64_t> displs, const comm& c = world()) {
  return detail::typed_allgatherv<T>(detail::coll_form::persistent, send.data(), detail::elems(send.size()), recv,
                                     counts, displs, c);
}

/// Typed alltoallv (three forms follow): as the untyped alltoallv, with counts and displacements in elements.
/// send.size() must be exactly the end of the furthest non-empty send block (max of send_displs[j] + send_counts[j]),
/// recv.size() that of the furthest non-empty receive block (where there is one: empty blocks need no elements).
template <coll_element T>
[[nodiscard]] request ialltoallv(std::span<const T> send, std::span<const std::int64_t> send_counts,
                                 std::span<const std::int64_t> send_displs, std::span<T> recv,
                                 std::span<const std::int64_t> recv_counts, std::span<const std::int64_t> recv_displs,
                                 const comm& c = world()) {
  return detail::typed_alltoallv<T>(detail::coll_form::nonblocking, send.data(), detail::elems(send.size()),
                                    send_counts, send_displs, recv, recv_counts, recv_displs, c);
}
template <coll_element T>
void alltoallv(std::span<const T> send, std::span<const std::int64_t> send_counts,
               std::span<const std::int64_t> send_displs, std::span<T> recv, std::span<const std::int64_t> recv_counts,
               std::span<const std::int64_t> recv_displs, const comm& c = world()) {
  (void)detail::typed_alltoallv<T>(detail::coll_form::blocking, send.data(), detail::elems(send.size()), send_counts,
                                   send_displs, recv, recv_counts, recv_displs, c);
}
template <coll_element T>
[[nodiscard]] request alltoallv_init(std::span<const T> send, std::span<const std::int64_t> send_counts,
                                     std::span<const std::int64_t> send_displs, std::span<T> recv,
                                     std::span<const std::int64_t> recv_counts,
                                     std::span<const std::int64_t> recv_displs, const comm& c = world()) {
  return detail::typed_alltoallv<T>(detail::coll_form::persistent, send.data(), detail::elems(send.size()),
                                    send_counts, send_displs, recv, recv_counts, recv_displs, c);
}
/// Typed in-place alltoallv (nonblocking, blocking): the input in recv with the receive layout (recv_counts
/// symmetric, as MPI requires), replaced by the output; recv.size() as for the alltoallv above.
template <coll_element T>
[[nodiscard]] request ialltoallv(in_place_t, std::span<T> recv, std::span<const std::int64_t> recv_counts,
                                 std::span<const std::int64_t> recv_displs, const comm& c = world()) {
  return detail::typed_alltoallv<T>(detail::coll_form::nonblocking, in_place, -1, {}, {}, recv, recv_counts,
                                    recv_displs, c);
}
template <coll_element T>
void alltoallv(in_place_t, std::span<T> recv, std::span<const std::int64_t> recv_counts,
               std::span<const std::int64_t> recv_displs, const comm& c = world()) {
  (void)detail::typed_alltoallv<T>(detail::coll_form::blocking, in_place, -1, {}, {}, recv, recv_counts, recv_displs,
                                   c);
}

}  // namespace sidecore
