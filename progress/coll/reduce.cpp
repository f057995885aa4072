// Reduction kernels (reduce.hpp). Each built-in operator is one loop over aligned typed pointers that GCC vectorises
// (this file is compiled with -ftree-vectorize and the dynamic cost model: GCC 12's -O2 vectorises only loops whose
// trip count it knows), with a memcpy-based loop for buffers that are not aligned to their element type.
#include "reduce.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../src/copy.hpp"

namespace sidecore::progress {
namespace {

using coll::dtype;
using coll::reduce_op;

// Integer arithmetic in the unsigned type: wraps instead of overflowing (what MPI implementations do in practice).
template <class T>
T add(T a, T b) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
T mul(T a, T b) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// d[i] = f(s[i], d[i]) for n elements.
template <class T, class F>
void apply(const std::byte* src, std::byte* dst, std::size_t n, F f) noexcept {
  const auto s_addr = reinterpret_cast<std::uintptr_t>(src);
  const auto d_addr = reinterpret_cast<std::uintptr_t>(dst);
  if (((s_addr | d_addr) & (alignof(T) - 1)) == 0) {
    const T* __restrict s = reinterpret_cast<const T*>(src);
    T* __restrict d = reinterpret_cast<T*>(dst);
    for (std::size_t i = 0; i < n; ++i) d[i] = f(s[i], d[i]);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, src + i * sizeof(T), sizeof(T));
    std::memcpy(&b, dst + i * sizeof(T), sizeof(T));
    b = f(a, b);
    std::memcpy(dst + i * sizeof(T), &b, sizeof(T));
  }
}

template <class T>
void arithmetic(reduce_op op, const std::byte* src, std::byte* dst, std::size_t n) noexcept {
  switch (op) {
    case reduce_op::sum: apply<T>(src, dst, n, [](T a, T b) { return add(a, b); }); return;
    case reduce_op::prod: apply<T>(src, dst, n, [](T a, T b) { return mul(a, b); }); return;
    case reduce_op::min: apply<T>(src, dst, n, [](T a, T b) { return b < a ? b : a; }); return;
    case reduce_op::max: apply<T>(src, dst, n, [](T a, T b) { return a < b ? b : a; }); return;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case reduce_op::land: apply<T>(src, dst, n, [](T a, T b) { return static_cast<T>(a != 0 && b != 0); }); return;
      case reduce_op::lor: apply<T>(src, dst, n, [](T a, T b) { return static_cast<T>(a != 0 || b != 0); }); return;
      case reduce_op::band: apply<T>(src, dst, n, [](T a, T b) { return static_cast<T>(a & b); }); return;
      case reduce_op::bor: apply<T>(src, dst, n, [](T a, T b) { return static_cast<T>(a | b); }); return;
      case reduce_op::bxor: apply<T>(src, dst, n, [](T a, T b) { return static_cast<T>(a ^ b); }); return;
      default: break;
    }
  }
}

// minloc/maxloc on { T value; std::int32_t index; } pairs of `es` bytes: the better value, the smaller index on a
// tie (MPI's definition).
template <class T>
void value_index(reduce_op op, const std::byte* src, std::byte* dst, std::size_t bytes, std::size_t es) noexcept {
  const bool min = op == reduce_op::minloc;
  for (std::size_t off = 0; off < bytes; off += es) {
    T a, b;
    std::int32_t ai, bi;
    std::memcpy(&a, src + off, sizeof(T));
    std::memcpy(&ai, src + off + sizeof(T), sizeof ai);
    std::memcpy(&b, dst + off, sizeof(T));
    std::memcpy(&bi, dst + off + sizeof(T), sizeof bi);
    if (min ? a < b : b < a) {
      std::memcpy(dst + off, &a, sizeof(T));
      std::memcpy(dst + off + sizeof(T), &ai, sizeof ai);
    } else if (!(a < b) && !(b < a) && ai < bi) {
      std::memcpy(dst + off + sizeof(T), &ai, sizeof ai);
    }
  }
}

// A user callback computes inout = in (op) inout. dst = src (op) dst is one call; dst = dst (op) src needs the
// result in dst with dst as the left operand: each chunk of src is copied aside, reduced into with dst as `in`,
// and copied back.
void user_reduce(const coll_user_op& user, const std::byte* src, std::byte* dst, std::size_t bytes, std::size_t es,
                 bool dst_first) noexcept {
  if (!dst_first) {
    user.fn(src, dst, bytes / es, user.ctx);
    return;
  }
  alignas(64) std::byte aside[4096];
  const std::size_t chunk = sizeof aside / es * es;
  for (std::size_t off = 0; off < bytes; off += chunk) {
    const std::size_t n = bytes - off < chunk ? bytes - off : chunk;
    copy_bytes(aside, src + off, n);
    user.fn(dst + off, aside, n / es, user.ctx);
    copy_bytes(dst + off, aside, n);
  }
}

}  // namespace

void reduce_bytes(dtype t, reduce_op op, const coll_user_op& user, const std::byte* src, std::byte* dst,
                  std::size_t bytes, bool dst_first) noexcept {
  const std::size_t es = coll::element_size(t, op);
  if (op == reduce_op::user) return user_reduce(user, src, dst, bytes, es, dst_first);
  if (op == reduce_op::minloc || op == reduce_op::maxloc) {
    switch (t) {
      case dtype::int32: return value_index<std::int32_t>(op, src, dst, bytes, es);
      case dtype::int64: return value_index<std::int64_t>(op, src, dst, bytes, es);
      case dtype::uint64: return value_index<std::uint64_t>(op, src, dst, bytes, es);
      case dtype::float32: return value_index<float>(op, src, dst, bytes, es);
      case dtype::float64: return value_index<double>(op, src, dst, bytes, es);
      case dtype::byte: return;  // refused by coll::validate
    }
    return;
  }
  const std::size_t n = bytes / es;
  switch (t) {
    case dtype::byte: return arithmetic<std::uint8_t>(op, src, dst, n);
    case dtype::int32: return arithmetic<std::int32_t>(op, src, dst, n);
    case dtype::int64: return arithmetic<std::int64_t>(op, src, dst, n);
    case dtype::uint64: return arithmetic<std::uint64_t>(op, src, dst, n);
    case dtype::float32: return arithmetic<float>(op, src, dst, n);
    case dtype::float64: return arithmetic<double>(op, src, dst, n);
  }
}

}  // namespace sidecore::progress
