// Collective test cases: data, expected results, and running them (cases.hpp).
#include "cases.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace sctest {
namespace {

namespace coll = sidecore::coll;
using coll::buffer;
using coll::dtype;
using coll::kind;
using coll::reduce_op;

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
void put(std::byte* out, T v) {
  std::memcpy(out, &v, sizeof v);
}

void put_number(std::byte* out, dtype t, std::int64_t v) {
  switch (t) {
    case dtype::byte: put(out, static_cast<std::uint8_t>(v)); break;
    case dtype::int32: put(out, static_cast<std::int32_t>(v)); break;
    case dtype::int64: put(out, v); break;
    case dtype::uint64: put(out, static_cast<std::uint64_t>(v)); break;
    case dtype::float32: put(out, static_cast<float>(v)); break;
    case dtype::float64: put(out, static_cast<double>(v)); break;
  }
}

std::size_t base_size(dtype t) { return coll::element_size(t, reduce_op::none); }

// `count` elements whose combination under `op` is exact and order-free wherever the op is commutative.
void fill(std::byte* out, std::uint64_t count, const collective_case& c, std::uint64_t stream) {
  const std::size_t es = coll::element_size(c.type, c.op);
  const bool is_unsigned = c.type == dtype::uint64 || c.type == dtype::byte;
  for (std::uint64_t e = 0; e < count; ++e) {
    const std::uint64_t h = mix(stream * 0x100000001b3ull + e);
    std::byte* at = out + e * es;
    const auto in = [&](std::int64_t lo, std::int64_t hi) {
      return lo + static_cast<std::int64_t>(h % static_cast<std::uint64_t>(hi - lo + 1));
    };
    switch (c.op) {
      case reduce_op::sum: put_number(at, c.type, is_unsigned ? in(0, 16) : in(-8, 8)); break;
      case reduce_op::prod:
        put_number(at, c.type, h % 23 == 0 ? 2 : (is_unsigned || h % 2 == 0 ? 1 : -1));
        break;
      case reduce_op::min:
      case reduce_op::max: put_number(at, c.type, is_unsigned ? in(0, 2000) : in(-1000, 1000)); break;
      case reduce_op::land: put_number(at, c.type, h % 50 == 0 ? 0 : in(1, 2)); break;
      case reduce_op::lor: put_number(at, c.type, h % 50 == 0 ? in(1, 2) : 0); break;
      case reduce_op::minloc:
      case reduce_op::maxloc:
        std::memset(at, 0, es);  // padding too
        put_number(at, c.type, in(0, 3));
        put(at + base_size(c.type), static_cast<std::int32_t>((h >> 32) % 1000));
        break;
      default:  // bitwise, user, and plain data
        for (std::size_t i = 0; i < es; ++i) at[i] = static_cast<std::byte>(mix(h + i));
        break;
    }
  }
}

void garbage(std::vector<std::byte>& v, std::uint64_t seed) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::byte>(mix(seed + i) | 0x80);
}

// v-variant block sizes (elements): allgatherv block of rank i; alltoallv block from rank `from` to rank `to`,
// symmetric in place (MPI requires it there: the block to j lies where j's block arrives).
std::uint64_t vcount(const collective_case& c, int i) {
  if (c.count == 0 || i % 3 == 1) return 0;
  return c.count + static_cast<std::uint64_t>(i % 4);
}
std::uint64_t pair_count(const collective_case& c, int from, int to) {
  if (c.count == 0) return 0;
  if (c.in_place) return (from + to) % 5 == 0 ? 0 : c.count + static_cast<std::uint64_t>((from + to) % 3);
  return (from + 2 * to) % 5 == 0 ? 0 : c.count + static_cast<std::uint64_t>((from * 3 + to) % 3 + from % 2);
}

// Displacements: blocks in reverse rank order with a one-element gap after each (an arbitrary layout).
std::vector<std::uint64_t> reversed_with_gaps(const std::vector<std::uint64_t>& counts) {
  std::vector<std::uint64_t> displs(counts.size());
  std::uint64_t at = 0;
  for (std::size_t i = counts.size(); i-- > 0;) {
    displs[i] = at;
    at += counts[i] + 1;
  }
  return displs;
}
std::vector<std::uint64_t> in_order_with_gaps(const std::vector<std::uint64_t>& counts) {
  std::vector<std::uint64_t> displs(counts.size());
  std::uint64_t at = 1;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    displs[i] = at;
    at += counts[i] + (i % 2);
  }
  return displs;
}


// left fold x_0 op x_1 op ... op x_{p-1} of `bytes` bytes at offset `off` of each input
std::vector<std::byte> fold(const collective_case& c, const std::vector<std::vector<std::byte>>& inputs,
                            std::uint64_t off, std::uint64_t bytes) {
  std::vector<std::byte> acc(inputs[0].begin() + static_cast<std::ptrdiff_t>(off),
                             inputs[0].begin() + static_cast<std::ptrdiff_t>(off + bytes));
  for (std::size_t r = 1; r < inputs.size(); ++r)
    reduce_bytes(c.type, c.op, c.user, inputs[r].data() + off, acc.data(), bytes, true);
  return acc;
}

void place(std::vector<std::byte>& dst, std::uint64_t at, const std::byte* src, std::uint64_t bytes) {
  std::copy(src, src + bytes, dst.begin() + static_cast<std::ptrdiff_t>(at));
}

}  // namespace

std::string collective_case::describe() const {
  std::ostringstream out;
  out << coll::kind_name(k) << " p=" << size << " count=" << count << " " << coll::dtype_name(type);
  if (op != reduce_op::none) {
    out << " " << coll::reduce_op_name(op);
    if (op == reduce_op::user) out << (user == user_op::affine_composition ? "(non-commutative)" : "(commutative)");
  }
  out << " root=" << root << (in_place ? " in_place" : "") << " segment=" << segment_bytes << " seed=" << seed;
  return out.str();
}

coll::spec make_spec(kind k, std::uint64_t count, dtype type, reduce_op op) {
  coll::spec s;
  s.k = k;
  s.count = count;
  s.type = type;
  s.op = op;
  return s;
}

coll::spec spec_for(const collective_case& c, int rank) {
  coll::spec s;
  s.k = c.k;
  s.type = c.type;
  s.op = c.op;
  s.root = c.root;
  s.count = c.count;
  s.in_place = c.in_place;
  s.segment_bytes = c.segment_bytes;
  s.commutative = c.user == user_op::commutative_xor;
  const int p = c.size;
  if (c.k == kind::allgatherv) {
    for (int i = 0; i < p; ++i) s.recv_counts.push_back(vcount(c, i));
    s.recv_displs = reversed_with_gaps(s.recv_counts);
  }
  if (c.k == kind::alltoallv) {
    for (int j = 0; j < p; ++j) {
      s.send_counts.push_back(pair_count(c, rank, j));
      s.recv_counts.push_back(pair_count(c, j, rank));
    }
    s.send_displs = in_order_with_gaps(s.send_counts);
    s.recv_displs = reversed_with_gaps(s.recv_counts);
  }
  return s;
}

std::string run_case(const collective_case& c, coll::algorithm a, run_stats* stats) {
  const int p = c.size;
  const auto P = static_cast<std::size_t>(p);
  const std::size_t es = coll::element_size(c.type, c.op);
  const std::uint64_t n = c.count * es;
  std::vector<coll::spec> specs;
  std::vector<coll::schedule> scheds;
  std::vector<rank_buffers> bufs(P);
  for (int r = 0; r < p; ++r) {
    specs.push_back(spec_for(c, r));
    scheds.push_back(coll::build(specs.back(), a, r, p));
  }
  // Inputs, in each rank's natural layout: the send buffer's, or (in place) the receive buffer's.
  std::vector<std::vector<std::byte>> inputs(P);
  for (int r = 0; r < p; ++r) {
    const coll::spec& s = specs[static_cast<std::size_t>(r)];
    const coll::buffer_sizes sizes = coll::buffer_bytes(s, r, p);
    auto& b = bufs[static_cast<std::size_t>(r)];
    b.data[0].resize(sizes.send);
    b.data[1].resize(sizes.recv);
    b.defined[0].assign(sizes.send, 1);
    b.defined[1].assign(sizes.recv, 0);
    garbage(b.data[1], c.seed * 7919 + static_cast<std::uint64_t>(r));
    std::uint64_t in_bytes = 0;
    switch (c.k) {
      case kind::barrier: break;
      case kind::bcast:
      case kind::reduce:
      case kind::allreduce:
      case kind::gather:
      case kind::allgather: in_bytes = n; break;
      case kind::scatter:
      case kind::alltoall:
      case kind::reduce_scatter_block: in_bytes = n * P; break;
      case kind::allgatherv: in_bytes = s.recv_counts[static_cast<std::size_t>(r)] * es; break;
      case kind::alltoallv: in_bytes = c.in_place ? sizes.recv : sizes.send; break;
    }
    auto& in = inputs[static_cast<std::size_t>(r)];
    in.resize(in_bytes);
    fill(in.data(), in_bytes / es, c, c.seed * 1000003 + static_cast<std::uint64_t>(r));
    const bool root = r == c.root;
    const bool input_in_recv = c.k == kind::bcast ? root : c.in_place && c.k != kind::scatter &&
                                                               (root || (c.k != kind::reduce && c.k != kind::gather));
    if (!input_in_recv) {
      if (!b.data[0].empty()) place(b.data[0], 0, in.data(), in.size());
      continue;
    }
    auto mark = [&](std::uint64_t at, std::uint64_t bytes) {
      place(b.data[1], at, in.data() + (c.k == kind::alltoallv ? at : 0), bytes);
      std::fill_n(b.defined[1].begin() + static_cast<std::ptrdiff_t>(at), bytes, std::uint8_t{1});
    };
    switch (c.k) {
      case kind::gather:
      case kind::allgather: mark(static_cast<std::uint64_t>(r) * n, n); break;
      case kind::allgatherv: mark(s.recv_displs[static_cast<std::size_t>(r)] * es, in.size()); break;
      case kind::alltoallv:
        for (int j = 0; j < p; ++j)
          mark(s.recv_displs[static_cast<std::size_t>(j)] * es, s.recv_counts[static_cast<std::size_t>(j)] * es);
        break;
      default: mark(0, in.size()); break;
    }
  }
  std::vector<std::vector<std::byte>> expected(P);
  for (std::size_t r = 0; r < P; ++r) expected[r] = bufs[r].data[1];
  const std::vector<std::vector<std::byte>> sent = [&] {
    std::vector<std::vector<std::byte>> v(P);
    for (std::size_t r = 0; r < P; ++r) v[r] = bufs[r].data[0];
    return v;
  }();
  const auto R = static_cast<std::size_t>(c.root);
  switch (c.k) {
    case kind::barrier: break;
    case kind::bcast:
      for (auto& e : expected) e = inputs[R];
      break;
    case kind::reduce:
      expected[R] = fold(c, inputs, 0, n);
      break;
    case kind::allreduce:
      for (auto& e : expected) e = fold(c, inputs, 0, n);
      break;
    case kind::gather:
      for (std::size_t i = 0; i < P; ++i) place(expected[R], i * n, inputs[i].data(), n);
      break;
    case kind::scatter:
      for (std::size_t i = 0; i < P; ++i)
        if (!(c.in_place && i == R)) place(expected[i], 0, inputs[R].data() + i * n, n);
      break;
    case kind::allgather:
      for (auto& e : expected)
        for (std::size_t i = 0; i < P; ++i) place(e, i * n, inputs[i].data(), n);
      break;
    case kind::alltoall:
      for (std::size_t j = 0; j < P; ++j)
        for (std::size_t i = 0; i < P; ++i) place(expected[j], i * n, inputs[i].data() + j * n, n);
      break;
    case kind::reduce_scatter_block:
      for (std::size_t i = 0; i < P; ++i) {
        const auto block = fold(c, inputs, i * n, n);
        place(expected[i], 0, block.data(), n);
      }
      break;
    case kind::allgatherv:
      for (auto& e : expected)
        for (std::size_t i = 0; i < P; ++i) place(e, specs[0].recv_displs[i] * es, inputs[i].data(), inputs[i].size());
      break;
    case kind::alltoallv:
      for (std::size_t j = 0; j < P; ++j)
        for (std::size_t i = 0; i < P; ++i) {
          const coll::spec& from = specs[i];
          const std::uint64_t at = (c.in_place ? from.recv_displs[j] : from.send_displs[j]) * es;
          place(expected[j], specs[j].recv_displs[i] * es, inputs[i].data() + at, specs[j].recv_counts[i] * es);
        }
      break;
  }
  run_stats local;
  run_stats& st = stats != nullptr ? *stats : local;
  std::string err = execute(scheds, bufs, c.user, c.seed, &st);
  if (!err.empty()) return err;
  for (std::size_t r = 0; r < P; ++r) {
    if (bufs[r].data[0] != sent[r]) return "rank " + std::to_string(r) + ": send buffer changed";
    const auto& got = bufs[r].data[1];
    if (got != expected[r]) {
      std::size_t at = 0;
      while (got[at] == expected[r][at]) ++at;
      return "rank " + std::to_string(r) + ": recv byte " + std::to_string(at) + " of " + std::to_string(got.size()) +
             " is " + std::to_string(static_cast<int>(got[at])) + ", expected " +
             std::to_string(static_cast<int>(expected[r][at]));
    }
  }
  if (c.k == kind::barrier)
    for (std::size_t r = 0; r < P; ++r)
      if (!st.heard_from_all[r])
        return "rank " + std::to_string(r) + " completes the barrier before every rank arrived";
  return {};
}

}  // namespace sctest
