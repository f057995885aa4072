// Collective schedules into simulator schedules (collective.hpp).
#include "sidecore/model/sim/collective.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/sim/generators.hpp"

namespace sidecore::model::sim {

namespace coll = sidecore::coll;

namespace {

// Appends rank r's part of a collective to `b`; `id` is scratch (the simulator's id of each of its operations).
void append_rank(schedule_builder& b, std::uint32_t r, const coll::schedule& s, const local_costs& costs,
                 const std::string& source, std::vector<op_id>& id) {
  const std::uint32_t p = b.num_ranks();
  id.assign(s.ops.size(), 0);
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const coll::op& o = s.ops[i];
    auto where = [&] { return fmt::format("{}: rank {}, operation {}", source, r, i); };
    const bool message = o.type == coll::op_type::send || o.type == coll::op_type::recv;
    if (message && (o.peer < 0 || static_cast<std::uint32_t>(o.peer) >= p))
      throw std::invalid_argument(fmt::format("{}: peer {} is not a rank of {}", where(), o.peer, p));
    switch (o.type) {
      case coll::op_type::send:
        id[i] = b.send(r, static_cast<std::uint32_t>(o.peer), o.bytes, o.tag);
        break;
      case coll::op_type::recv:
        id[i] = b.recv(r, static_cast<std::uint32_t>(o.peer), o.bytes, o.tag);
        break;
      case coll::op_type::reduce:
      case coll::op_type::copy: {
        const bool reduce = o.type == coll::op_type::reduce;
        const double per_byte = reduce ? costs.reduce_ns_per_byte : costs.copy_ns_per_byte;
        const double ns = static_cast<double>(o.bytes) * per_byte;
        // std::llround is undefined from 2^63 on (glibc gives -2^63, a calc of 2^63 ns whatever the product).
        if (!(ns < 0x1p63))
          throw input_error::refused(reduce ? "--reduce-ns-per-byte" : "--copy-ns-per-byte",
                                     fmt::format("{:g}", per_byte),
                                     fmt::format("a cost that keeps each {} below 2^63 ns ({} B of this collective's "
                                                 "take {:g} ns)", reduce ? "reduction" : "copy", o.bytes, ns));
        id[i] = b.calc(r, static_cast<std::uint64_t>(std::llround(ns)));
        break;
      }
    }
    if (std::size_t{o.dep_first} + o.dep_count > s.deps.size())
      throw std::invalid_argument(fmt::format("{}: dependencies [{}, {}) lie outside the {} of the schedule", where(),
                                              o.dep_first, o.dep_first + o.dep_count, s.deps.size()));
    for (std::uint32_t k = o.dep_first; k < o.dep_first + o.dep_count; ++k) {
      if (s.deps[k] >= i)
        throw std::invalid_argument(fmt::format("{}: depends on operation {}, which is not an earlier one "
                                                "(the schedule must be in topological order)", where(), s.deps[k]));
      b.depend(id[i], id[s.deps[k]]);
    }
  }
}

// "a, b, c"
std::string names(const std::vector<std::string_view>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

std::string kind_names() {
  std::vector<std::string_view> v;
  for (int k = 0; k < coll::kind_count; ++k) v.push_back(coll::kind_name(static_cast<coll::kind>(k)));
  return names(v);
}

std::string algorithm_names(coll::kind k) {
  std::vector<std::string_view> v{coll::algorithm_name(coll::algorithm::automatic)};
  for (coll::algorithm a : coll::algorithms_for(k)) v.push_back(coll::algorithm_name(a));
  return names(v);
}

// Whether `kind`'s bytes are each rank's block (so a rank's buffers hold ranks x bytes), not the whole buffer.
bool per_rank_blocks(coll::kind k) noexcept {
  return k != coll::kind::barrier && k != coll::kind::bcast && k != coll::kind::reduce && k != coll::kind::allreduce;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? UINT64_MAX : out;
}

std::string call_name(const collective_call& c) {
  return fmt::format("{} ({}) of {} B over {} ranks", coll::kind_name(c.kind), coll::algorithm_name(c.algorithm),
                     c.bytes, c.ranks);
}

// The checks of build_collective() on what the command's options give (coll::validate() would name the spec's
// fields instead: count, size).
void check_ranks(const collective_call& c) {
  if (c.ranks < 1 || c.ranks > INT_MAX)
    throw input_error::refused("--ranks", std::to_string(c.ranks), fmt::format("an integer in [1 - {}]", INT_MAX));
}

void check_call(const collective_call& c, std::uint64_t max_ops) {
  check_ranks(c);
  // Every rank but one sends or receives at least once, and the other end is an operation too: a bound known before
  // anything is built (alltoallv's per-rank counts over 2^31 ranks take 8.9 GB, alltoall's first rank 2^32
  // operations, before the estimate below would refuse them).
  if (const std::uint64_t least = 2 * (static_cast<std::uint64_t>(c.ranks) - 1); least > max_ops)
    throw input_error("", "--ranks", fmt::format("{} ranks make at least {} operations; accepted: at most {}", c.ranks,
                                                 least, max_ops));
  if (has_root(c.kind) && (c.root < 0 || c.root >= c.ranks))
    throw input_error::refused("--root", std::to_string(c.root),
                               fmt::format("a rank of the {} ranks, an integer in [0 - {}]", c.ranks, c.ranks - 1));
  if (c.segment_bytes != 0 && (c.segment_bytes < 1024 || c.segment_bytes > (std::uint64_t{1} << 26)))
    throw input_error::refused("--segment", std::to_string(c.segment_bytes),
                               "a size in bytes in [1024 - 67108864] (the range of SIDECORE_COLL_SEGMENT)");
  if (c.kind == coll::kind::barrier) return;
  const coll::spec s = collective_spec(c);
  const std::uint64_t es = coll::element_size(s.type, s.op);
  if (c.bytes % es != 0)
    throw input_error::refused("--bytes", std::to_string(c.bytes),
                               fmt::format("a multiple of {} ({} sums {} elements)", es, coll::kind_name(c.kind),
                                           coll::dtype_name(s.type)));
  const auto p = static_cast<std::uint64_t>(c.ranks);
  if (saturating_mul(c.bytes, p) >= (std::uint64_t{1} << 63))
    throw input_error("", "--bytes", fmt::format("{} B on {} ranks reach 2^63 bytes; accepted: bytes x ranks below "
                                                 "2^63", c.bytes, c.ranks));
  // Bounds one rank's build before it starts: every segment of its buffers is at least one operation.
  const std::uint64_t volume = per_rank_blocks(c.kind) ? c.bytes * p : c.bytes;
  const std::uint64_t seg = c.segment_bytes != 0 ? c.segment_bytes : coll::default_segment_bytes;
  if (volume / seg > max_ops)
    throw input_error("", "--bytes", fmt::format("{} B in segments of {} B make {} segments per rank; accepted: at "
                                                 "most {} (fewer bytes or a larger --segment)", c.bytes, seg,
                                                 (volume + seg - 1) / seg, max_ops));
}

}  // namespace

schedule from_collective(const std::vector<coll::schedule>& per_rank, const local_costs& costs, std::string source) {
  if (per_rank.empty()) throw std::invalid_argument(source + ": no ranks");
  schedule_builder b(static_cast<std::uint32_t>(per_rank.size()), source);
  std::vector<op_id> id;
  for (std::uint32_t r = 0; r < per_rank.size(); ++r) append_rank(b, r, per_rank[r], costs, source, id);
  return b.build();
}

bool has_root(coll::kind k) noexcept {
  return k == coll::kind::bcast || k == coll::kind::reduce || k == coll::kind::gather || k == coll::kind::scatter;
}

bool reduces(coll::kind k) noexcept {
  return k == coll::kind::reduce || k == coll::kind::allreduce || k == coll::kind::reduce_scatter_block;
}

collective_call parse_collective_pattern(std::string_view text) {
  collective_call c;
  if (text == "binomial-bcast") {
    c.kind = coll::kind::bcast;
    c.algorithm = coll::algorithm::binomial;
    return c;
  }
  const std::size_t colon = text.find(':');
  const std::string_view kind_text = text.substr(0, colon);
  const std::optional<coll::kind> k = coll::parse_kind(kind_text);
  if (!k)
    throw input_error("", "--pattern",
                      fmt::format("\"{}\": \"{}\" is not a collective kind; accepted: KIND[:ALGORITHM] "
                                  "with KIND one of {} (or binomial-bcast)",
                                  text, kind_text, kind_names()));
  c.kind = *k;
  if (colon == std::string_view::npos) return c;
  const std::string_view alg_text = text.substr(colon + 1);
  const std::optional<coll::algorithm> a = coll::parse_algorithm(alg_text);
  if (!a || !coll::supports(*k, *a))
    throw input_error("", "--pattern", fmt::format("\"{}\": \"{}\" is not an algorithm of {}; accepted: {}", text,
                                                   alg_text, kind_text, algorithm_names(*k)));
  c.algorithm = *a;
  return c;
}

coll::spec collective_spec(const collective_call& c) {
  check_ranks(c);
  coll::spec s;
  s.k = c.kind;
  s.segment_bytes = c.segment_bytes;
  if (reduces(c.kind)) {
    s.type = coll::dtype::float64;
    s.op = coll::reduce_op::sum;
  }
  if (has_root(c.kind)) s.root = static_cast<int>(c.root);
  const auto p = static_cast<std::size_t>(c.ranks);
  if (c.kind == coll::kind::barrier) return s;
  s.count = c.bytes / coll::element_size(s.type, s.op);
  if (c.kind == coll::kind::allgatherv || c.kind == coll::kind::alltoallv) {
    s.recv_counts.assign(p, s.count);
    s.recv_displs.resize(p);
    for (std::size_t i = 0; i < p; ++i) s.recv_displs[i] = i * s.count;
    if (c.kind == coll::kind::alltoallv) {
      s.send_counts = s.recv_counts;
      s.send_displs = s.recv_displs;
    }
  }
  return s;
}

schedule build_collective(const collective_call& c, const local_costs& costs, std::uint64_t max_ops) {
  check_call(c, max_ops);
  const coll::spec s = collective_spec(c);
  const int p = static_cast<int>(c.ranks);
  const auto ranks = static_cast<std::uint32_t>(c.ranks);
  const coll::algorithm a = c.algorithm == coll::algorithm::automatic ? coll::choose(s, p) : c.algorithm;
  const std::uint64_t seg = c.segment_bytes != 0 ? c.segment_bytes : coll::default_segment_bytes;
  // The 2^20-rank binomial broadcast must simulate within 5 s (docs/simulate.md). Through coll::build it would
  // first make a builder, its hazard map and a schedule's vectors for each of the 2^20 ranks, then copy them;
  // binomial_broadcast() writes the same operations in the same order (receive from the parent, then the
  // children largest subtree first, each send after the receive; tag 0 is the builder's tag of a one-segment
  // message) straight into the simulator's arrays. tests/model/test_sim_collective.cpp checks that both give the
  // same times. Segmented and empty broadcasts (the generator does not cut messages, and sends 0-byte ones) are
  // built.
  if (c.kind == coll::kind::bcast && a == coll::algorithm::binomial && c.bytes > 0 && c.bytes <= seg) {
    return binomial_broadcast(ranks, c.bytes, static_cast<std::uint32_t>(c.root));
  }
  const collective_call named{c.kind, a, c.ranks, c.bytes, c.root, c.segment_bytes};
  const std::string source = call_name(named);
  auto too_many = [&](const std::string& how_many) {
    return input_error("", "--ranks", fmt::format("{}: {}; accepted: at most {} operations (fewer ranks or bytes, or "
                                                  "a larger --segment)", source, how_many, max_ops));
  };
  // Rank r's schedule, its build stopped once it passes `budget` operations (std::nullopt then): a call far beyond
  // max_ops is found without building it whole (a 1 TiB ring allreduce took 5 GB and a minute to refuse).
  auto build_rank = [&](std::uint32_t r, std::uint64_t budget) -> std::optional<coll::schedule> {
    try {
      return coll::build(s, a, static_cast<int>(r), p, budget);
    } catch (const coll::too_many_ops&) {
      return std::nullopt;
    } catch (const std::invalid_argument& e) {
      throw input_error("", "--pattern", fmt::format("{}: {}", source, e.what()));
    }
  };
  // A schedule far beyond max_ops is refused before it is built: the first and the last rank (one of them is not
  // the root, and the one with fewer operations) stand for every rank; each is built only up to its share.
  if (ranks >= 2) {
    const std::uint64_t share = max_ops / ranks;
    const std::optional<coll::schedule> first = build_rank(0, share), last = build_rank(ranks - 1, share);
    if (!first && !last)
      throw too_many(fmt::format("more than {} operations ({} ranks x more than {}, the first and the last rank's)",
                                 saturating_mul(share, ranks), ranks, share));
  }
  schedule_builder b(ranks, source);
  std::vector<op_id> id;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    std::optional<coll::schedule> mine = build_rank(r, max_ops - std::min(max_ops, b.num_ops()));
    if (!mine) throw too_many(fmt::format("more than {} operations by rank {}", max_ops, r));
    append_rank(b, r, *mine, costs, source, id);
    if (b.num_ops() > max_ops) throw too_many(fmt::format("more than {} operations by rank {}", max_ops, r));
  }
  return b.build();
}

}  // namespace sidecore::model::sim
