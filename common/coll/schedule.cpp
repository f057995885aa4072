// The schedule library's entry points (schedule.hpp): names, element sizes, which algorithm implements which kind,
// choose(), validation, buffer sizes and build(), which dispatches to one builder per (kind, algorithm).
#include "sidecore/common/schedule.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>

#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll {
namespace {

using detail::build_fn;

// Every (kind, algorithm) pair that exists, each kind's in the order `sidecore info` lists them.
struct implementation {
  kind k;
  algorithm a;
  build_fn fn;
};
constexpr implementation implementations[] = {
    {kind::barrier, algorithm::dissemination, detail::build_barrier_dissemination},
    {kind::barrier, algorithm::recursive_doubling, detail::build_barrier_recursive_doubling},
    {kind::bcast, algorithm::binomial, detail::build_bcast_binomial},
    {kind::bcast, algorithm::scatter_allgather, detail::build_bcast_scatter_allgather},
    {kind::bcast, algorithm::linear, detail::build_bcast_linear},
    {kind::reduce, algorithm::binomial, detail::build_reduce_binomial},
    {kind::reduce, algorithm::rabenseifner, detail::build_reduce_rabenseifner},
    {kind::reduce, algorithm::linear, detail::build_reduce_linear},
    {kind::allreduce, algorithm::recursive_doubling, detail::build_allreduce_recursive_doubling},
    {kind::allreduce, algorithm::rabenseifner, detail::build_allreduce_rabenseifner},
    {kind::allreduce, algorithm::ring, detail::build_allreduce_ring},
    {kind::gather, algorithm::binomial, detail::build_gather_binomial},
    {kind::gather, algorithm::linear, detail::build_gather_linear},
    {kind::scatter, algorithm::binomial, detail::build_scatter_binomial},
    {kind::scatter, algorithm::linear, detail::build_scatter_linear},
    {kind::allgather, algorithm::recursive_doubling, detail::build_allgather_recursive_doubling},
    {kind::allgather, algorithm::bruck, detail::build_allgather_bruck},
    {kind::allgather, algorithm::ring, detail::build_allgather_ring},
    {kind::allgather, algorithm::linear, detail::build_allgather_linear},
    {kind::alltoall, algorithm::bruck, detail::build_alltoall_bruck},
    {kind::alltoall, algorithm::linear, detail::build_alltoall_linear},
    {kind::alltoall, algorithm::pairwise, detail::build_alltoall_pairwise},
    {kind::reduce_scatter_block, algorithm::recursive_halving, detail::build_reduce_scatter_block_recursive_halving},
    {kind::reduce_scatter_block, algorithm::pairwise, detail::build_reduce_scatter_block_pairwise},
    {kind::allgatherv, algorithm::linear, detail::build_allgather_linear},
    {kind::allgatherv, algorithm::ring, detail::build_allgather_ring},
    {kind::alltoallv, algorithm::linear, detail::build_alltoall_linear},
    {kind::alltoallv, algorithm::pairwise, detail::build_alltoall_pairwise},
};

build_fn find(kind k, algorithm a) noexcept {
  for (const implementation& i : implementations)
    if (i.k == k && i.a == a) return i.fn;
  return nullptr;
}

template <class Enum, std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, Enum e) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : std::string_view{};
}

template <class Enum, std::size_t N>
std::optional<Enum> parse(const std::array<std::string_view, N>& names, std::string_view name) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

bool reduces(kind k) noexcept {
  return k == kind::reduce || k == kind::allreduce || k == kind::reduce_scatter_block;
}

bool rooted(kind k) noexcept {
  return k == kind::bcast || k == kind::reduce || k == kind::gather || k == kind::scatter;
}

bool commutative(const spec& s) noexcept { return s.op != reduce_op::user || s.commutative; }

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<std::uint64_t>::max() : out;
}

// Every buffer must stay below 2^63 bytes (so offsets and sums of them cannot overflow).
constexpr std::uint64_t max_bytes = std::uint64_t{1} << 63;

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

// "a, b or c"
std::string either(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

std::string list_algorithms(kind k, bool rank_order_only) {
  std::vector<std::string_view> names{algorithm_name(algorithm::automatic)};
  for (algorithm a : algorithms_for(k))
    if (!rank_order_only || keeps_rank_order(k, a)) names.push_back(algorithm_name(a));
  return either(names);
}

// The ops a type takes (MPI's rules: logical and bitwise operators on integers, bitwise on bytes, arithmetic and
// min/max(loc) on numbers).
bool op_fits(reduce_op op, dtype t) noexcept {
  switch (op) {
    case reduce_op::user:
      return true;
    case reduce_op::band:
    case reduce_op::bor:
    case reduce_op::bxor:
      return t != dtype::float32 && t != dtype::float64;
    case reduce_op::land:
    case reduce_op::lor:
      return t == dtype::int32 || t == dtype::int64 || t == dtype::uint64;
    case reduce_op::sum:
    case reduce_op::prod:
    case reduce_op::min:
    case reduce_op::max:
    case reduce_op::minloc:
    case reduce_op::maxloc:
      return t != dtype::byte;
    case reduce_op::none:
      return false;
  }
  return false;
}

std::string ops_for(dtype t) {
  std::vector<std::string_view> names;
  for (int i = 1; i < reduce_op_count; ++i)
    if (op_fits(static_cast<reduce_op>(i), t)) names.push_back(reduce_op_name(static_cast<reduce_op>(i)));
  return either(names);
}

// The bytes spanned by blocks (displs[i], counts[i]) in elements of `es` bytes: the end of the furthest non-empty
// one. Throws when one reaches 2^63 bytes or two overlap (where `overlap_checked`).
std::uint64_t check_blocks(const std::vector<std::uint64_t>& counts, const std::vector<std::uint64_t>& displs,
                           std::uint64_t es, const char* counts_name, const char* displs_name, bool overlap_checked) {
  std::vector<std::pair<std::uint64_t, std::size_t>> order;  // (first byte, block)
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const std::uint64_t lo = saturating_mul(displs[i], es);
    const std::uint64_t len = saturating_mul(counts[i], es);
    if (lo >= max_bytes || len >= max_bytes || lo + len >= max_bytes) {
      bad(std::string(counts_name) + "[" + std::to_string(i) + "] = " + std::to_string(counts[i]) + " at " +
          displs_name + "[" + std::to_string(i) + "] = " + std::to_string(displs[i]) +
          " reaches 2^63 bytes; give blocks that fit in a buffer");
    }
    end = std::max(end, lo + len);
    order.emplace_back(lo, i);
  }
  if (overlap_checked) {
    std::sort(order.begin(), order.end());
    for (std::size_t j = 1; j < order.size(); ++j) {
      const std::size_t a = order[j - 1].second;
      const std::size_t b = order[j].second;
      if (order[j - 1].first + counts[a] * es > order[j].first) {
        bad(std::string(displs_name) + ": blocks " + std::to_string(a) + " (" + std::to_string(displs[a]) + " + " +
            std::to_string(counts[a]) + ") and " + std::to_string(b) + " (" + std::to_string(displs[b]) + " + " +
            std::to_string(counts[b]) + ") overlap; give receive blocks that do not overlap");
      }
    }
  }
  return end;
}

void check_length(const std::vector<std::uint64_t>& v, const char* name, kind k, int size) {
  if (v.size() != static_cast<std::size_t>(size)) {
    bad(std::string(name) + ": " + std::to_string(v.size()) + " entries for " + std::string(kind_name(k)) + " on " +
        std::to_string(size) + " ranks; give one per rank (" + std::to_string(size) + ")");
  }
}

}  // namespace

std::size_t element_size(dtype t, reduce_op op) noexcept {
  std::size_t value = 0;
  switch (t) {
    case dtype::byte: value = 1; break;
    case dtype::int32:
    case dtype::float32: value = 4; break;
    case dtype::int64:
    case dtype::uint64:
    case dtype::float64: value = 8; break;
  }
  if (value == 0 || (op != reduce_op::minloc && op != reduce_op::maxloc)) return value;
  // struct { T value; std::int32_t index; }: aligned to the larger of the two, padded to its alignment
  const std::size_t align = std::max<std::size_t>(value, 4);
  return (value + 4 + align - 1) / align * align;
}

std::uint64_t caller_unit(const spec& s) noexcept {
  return s.moved_pairs ? element_size(*s.moved_pairs, reduce_op::minloc) : 1;
}

std::string_view kind_name(kind k) noexcept { return name_of(kind_names, k); }
std::string_view dtype_name(dtype t) noexcept { return name_of(dtype_names, t); }
std::string_view reduce_op_name(reduce_op op) noexcept { return name_of(reduce_op_names, op); }
std::string_view algorithm_name(algorithm a) noexcept { return name_of(algorithm_names, a); }
std::optional<kind> parse_kind(std::string_view name) noexcept { return parse<kind>(kind_names, name); }
std::optional<dtype> parse_dtype(std::string_view name) noexcept { return parse<dtype>(dtype_names, name); }
std::optional<reduce_op> parse_reduce_op(std::string_view name) noexcept {
  return parse<reduce_op>(reduce_op_names, name);
}
std::optional<algorithm> parse_algorithm(std::string_view name) noexcept {
  return parse<algorithm>(algorithm_names, name);
}

bool supports(kind k, algorithm a) noexcept { return a == algorithm::automatic || find(k, a) != nullptr; }

bool keeps_rank_order(kind k, algorithm a) noexcept {
  return !((k == kind::allreduce && a == algorithm::ring) ||
           (k == kind::reduce_scatter_block && a == algorithm::pairwise));
}

std::vector<algorithm> algorithms_for(kind k) {
  std::vector<algorithm> out;
  for (const implementation& i : implementations)
    if (i.k == k) out.push_back(i.a);
  return out;
}

// Thresholds are MPICH 4.0's defaults where MPICH has the choice (the CVARs named in each algorithm's file), and
// ours where it has not; docs/collectives.md gives the reasoning. Every input is the same on every rank (count,
// type, op, size, v-variant receive counts), so every rank picks the same algorithm.
algorithm choose(const spec& s, int size) noexcept {
  const std::uint64_t p = size > 0 ? static_cast<std::uint64_t>(size) : 1;
  const auto pof2 = static_cast<std::uint64_t>(detail::pof2_floor(static_cast<int>(p)));
  const std::uint64_t bytes = saturating_mul(s.count, element_size(s.type, s.op));
  const std::uint64_t total = saturating_mul(bytes, p);
  switch (s.k) {
    case kind::barrier:
      return algorithm::dissemination;
    case kind::bcast:
      return bytes < 12288 || p < 8 ? algorithm::binomial : algorithm::scatter_allgather;
    case kind::reduce:
      return bytes > 2048 && s.count >= pof2 ? algorithm::rabenseifner : algorithm::binomial;
    case kind::allreduce:
      if (bytes <= 2048 || s.count < pof2) return algorithm::recursive_doubling;
      if (p == 2 && bytes <= 128 * 1024) return algorithm::recursive_doubling;  // docs/collectives.md
      if (commutative(s) && (p != pof2 || p == 2) && bytes >= 512 * 1024)
        return algorithm::ring;  // docs/collectives.md
      return algorithm::rabenseifner;
    case kind::gather:
    case kind::scatter:
      return bytes < 32 * 1024 ? algorithm::binomial : algorithm::linear;
    case kind::allgather:
      if (total < 512 * 1024 && p == pof2) return algorithm::recursive_doubling;
      return total < 80 * 1024 ? algorithm::bruck : algorithm::ring;
    case kind::alltoall:
      if (bytes <= 256 && p >= 8) return algorithm::bruck;
      return bytes <= 32 * 1024 ? algorithm::linear : algorithm::pairwise;
    case kind::reduce_scatter_block:
      return !commutative(s) || total < 512 * 1024 ? algorithm::recursive_halving : algorithm::pairwise;
    case kind::allgatherv: {
      std::uint64_t sum = 0;  // saturating at 2^63
      for (std::uint64_t c : s.recv_counts)
        sum = std::min(max_bytes, sum + std::min(max_bytes, saturating_mul(c, element_size(s.type, s.op))));
      return sum < 80 * 1024 ? algorithm::linear : algorithm::ring;
    }
    case kind::alltoallv:
      return p <= 32 ? algorithm::linear : algorithm::pairwise;
  }
  return algorithm::linear;
}

void validate(const spec& s, algorithm a, int rank, int size) {
  if (size < 1) bad("size: communicator size " + std::to_string(size) + "; give at least 1");
  if (rank < 0 || rank >= size) {
    bad("rank: " + std::to_string(rank) + " is outside [0, " + std::to_string(size) +
        "); give a rank of the communicator");
  }
  if (static_cast<int>(s.k) >= kind_count) {
    bad("kind: value " + std::to_string(static_cast<int>(s.k)) + " is not a collective kind; give one of 0 .. " +
        std::to_string(kind_count - 1));
  }
  if (static_cast<int>(s.type) >= dtype_count) {
    bad("type: value " + std::to_string(static_cast<int>(s.type)) + " is not a type; give one of 0 .. " +
        std::to_string(dtype_count - 1));
  }
  if (static_cast<int>(s.op) >= reduce_op_count) {
    bad("op: value " + std::to_string(static_cast<int>(s.op)) + " is not a reduction operator; give one of 0 .. " +
        std::to_string(reduce_op_count - 1));
  }
  if (static_cast<int>(a) >= algorithm_count) {
    bad("algorithm: value " + std::to_string(static_cast<int>(a)) + " is not an algorithm; give one of 0 .. " +
        std::to_string(algorithm_count - 1));
  }
  const std::string k(kind_name(s.k));
  if (rooted(s.k) && (s.root < 0 || s.root >= size)) {
    bad("root: " + std::to_string(s.root) + " is outside [0, " + std::to_string(size) + ") for " + k +
        "; give a rank of the communicator");
  }
  if (reduces(s.k)) {
    if (s.op == reduce_op::none) bad("op: none for " + k + ", which reduces; give " + ops_for(s.type));
    if (!op_fits(s.op, s.type)) {
      bad("op: " + std::string(reduce_op_name(s.op)) + " does not apply to " + std::string(dtype_name(s.type)) +
          "; give " + ops_for(s.type));
    }
  } else if (s.op != reduce_op::none) {
    bad("op: " + std::string(reduce_op_name(s.op)) + " for " + k + ", which does not reduce; give none");
  }
  if (s.in_place && (s.k == kind::barrier || s.k == kind::bcast)) {
    bad("in_place: " + k + " has no separate send and receive buffers; give in_place = false");
  }
  const std::uint64_t es = element_size(s.type, s.op);
  const std::uint64_t per_rank = saturating_mul(s.count, es);
  if (saturating_mul(per_rank, static_cast<std::uint64_t>(size)) >= max_bytes) {
    bad("count: " + std::to_string(s.count) + " elements of " + std::to_string(es) + " bytes on " +
        std::to_string(size) + " ranks reach 2^63 bytes; give a smaller count");
  }
  if (s.k == kind::allgatherv) {
    check_length(s.recv_counts, "recv_counts", s.k, size);
    check_length(s.recv_displs, "recv_displs", s.k, size);
    check_blocks(s.recv_counts, s.recv_displs, es, "recv_counts", "recv_displs", true);
  }
  if (s.k == kind::alltoallv) {
    check_length(s.recv_counts, "recv_counts", s.k, size);
    check_length(s.recv_displs, "recv_displs", s.k, size);
    check_blocks(s.recv_counts, s.recv_displs, es, "recv_counts", "recv_displs", true);
    if (!s.in_place) {
      check_length(s.send_counts, "send_counts", s.k, size);
      check_length(s.send_displs, "send_displs", s.k, size);
      check_blocks(s.send_counts, s.send_displs, es, "send_counts", "send_displs", false);
      const auto me = static_cast<std::size_t>(rank);
      if (s.send_counts[me] != s.recv_counts[me]) {
        bad("send_counts[" + std::to_string(rank) + "] = " + std::to_string(s.send_counts[me]) + " but recv_counts[" +
            std::to_string(rank) + "] = " + std::to_string(s.recv_counts[me]) +
            ": the block a rank sends itself must be the size it receives; give equal counts");
      }
    }
  }
  if (a != algorithm::automatic && !supports(s.k, a)) {
    bad("algorithm: " + std::string(algorithm_name(a)) + " does not implement " + k + "; give " +
        list_algorithms(s.k, false));
  }
  if (reduces(s.k) && !commutative(s) && !keeps_rank_order(s.k, a)) {
    bad("algorithm: " + std::string(algorithm_name(a)) + " " + k +
        " combines operands out of rank order, which a non-commutative user op (commutative = false) needs; give " +
        list_algorithms(s.k, true));
  }
}

buffer_sizes buffer_bytes(const spec& s, int rank, int size) {
  validate(s, algorithm::automatic, rank, size);
  const std::uint64_t es = element_size(s.type, s.op);
  const std::uint64_t n = s.count * es;
  const std::uint64_t all = n * static_cast<std::uint64_t>(size);
  const bool root = rank == s.root;
  switch (s.k) {
    case kind::barrier:
      return {0, 0};
    case kind::bcast:
      return {0, n};
    case kind::reduce:
      return {s.in_place && root ? 0 : n, root ? n : 0};
    case kind::allreduce:
      return {s.in_place ? 0 : n, n};
    case kind::gather:
      return {s.in_place && root ? 0 : n, root ? all : 0};
    case kind::scatter:
      return {root ? all : 0, s.in_place && root ? 0 : n};
    case kind::allgather:
      return {s.in_place ? 0 : n, all};
    case kind::alltoall:
      return {s.in_place ? 0 : all, all};
    case kind::reduce_scatter_block:
      return {s.in_place ? 0 : all, s.in_place ? all : n};
    case kind::allgatherv: {
      const std::uint64_t recv = check_blocks(s.recv_counts, s.recv_displs, es, "recv_counts", "recv_displs", false);
      return {s.in_place ? 0 : s.recv_counts[static_cast<std::size_t>(rank)] * es, recv};
    }
    case kind::alltoallv: {
      const std::uint64_t recv = check_blocks(s.recv_counts, s.recv_displs, es, "recv_counts", "recv_displs", false);
      if (s.in_place) return {0, recv};
      return {check_blocks(s.send_counts, s.send_displs, es, "send_counts", "send_displs", false), recv};
    }
  }
  return {0, 0};
}

schedule build(const spec& s, algorithm a, int rank, int size) { return build(s, a, rank, size, ~std::uint64_t{0}); }

schedule build(const spec& s, algorithm a, int rank, int size, std::uint64_t max_ops) {
  validate(s, a, rank, size);
  const algorithm chosen = a == algorithm::automatic ? choose(s, size) : a;
  detail::builder b(s, chosen, rank, size);
  b.limit_ops(max_ops);
  find(s.k, chosen)(b);
  return std::move(b).finish();
}

}  // namespace sidecore::coll
