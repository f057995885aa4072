// Test-side reduction kernels (reduction.hpp).
#include "reduction.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace sctest {
namespace {

using sidecore::coll::dtype;
using sidecore::coll::reduce_op;

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Arithmetic in the unsigned type for integers: wraps instead of overflowing (the tests keep values small anyway).
template <class T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <class T>
T mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// a op b for one element of a numeric type
template <class T>
T combine(reduce_op op, T a, T b) {
  switch (op) {
    case reduce_op::sum: return add(a, b);
    case reduce_op::prod: return mul(a, b);
    case reduce_op::min: return b < a ? b : a;
    case reduce_op::max: return a < b ? b : a;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case reduce_op::land: return static_cast<T>(a != 0 && b != 0);
      case reduce_op::lor: return static_cast<T>(a != 0 || b != 0);
      case reduce_op::band: return static_cast<T>(a & b);
      case reduce_op::bor: return static_cast<T>(a | b);
      case reduce_op::bxor: return static_cast<T>(a ^ b);
      default: break;
    }
  }
  throw std::logic_error("reduce_bytes: operator does not apply");
}

// minloc/maxloc on { T value; int32 index; } (MPI: the smaller index on ties)
template <class T>
void combine_loc(reduce_op op, const std::byte* a, const std::byte* b, std::byte* out) {
  const T av = load<T>(a);
  const T bv = load<T>(b);
  const auto ai = load<std::int32_t>(a + sizeof(T));
  const auto bi = load<std::int32_t>(b + sizeof(T));
  const bool a_wins = op == reduce_op::minloc ? av < bv : bv < av;
  const bool tie = !(av < bv) && !(bv < av);
  const T v = a_wins || tie ? av : bv;
  const std::int32_t i = tie ? (ai < bi ? ai : bi) : (a_wins ? ai : bi);
  store(out, v);
  store(out + sizeof(T), i);
}

// (a1, b1) o (a2, b2) = (a1 a2, a1 b2 + b1) modulo 2^half, the element's low half holding a, the high half b.
std::uint64_t compose(std::uint64_t x, std::uint64_t y, unsigned bits) {
  const unsigned half = bits / 2;
  const std::uint64_t mask = (std::uint64_t{1} << half) - 1;
  const std::uint64_t a1 = x & mask, b1 = (x >> half) & mask;
  const std::uint64_t a2 = y & mask, b2 = (y >> half) & mask;
  return ((a1 * a2) & mask) | (((a1 * b2 + b1) & mask) << half);
}

template <class T>
void apply_typed(reduce_op op, const std::byte* left, const std::byte* right, std::byte* out) {
  store(out, combine<T>(op, load<T>(left), load<T>(right)));
}

void apply(dtype t, reduce_op op, user_op user, const std::byte* left, const std::byte* right, std::byte* out,
           std::size_t es) {
  if (op == reduce_op::user) {
    if (user == user_op::commutative_xor) {
      for (std::size_t i = 0; i < es; ++i) out[i] = left[i] ^ right[i];
      return;
    }
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, left, es);
    std::memcpy(&y, right, es);
    const std::uint64_t z = compose(x, y, static_cast<unsigned>(es * 8));
    std::memcpy(out, &z, es);
    return;
  }
  if (op == reduce_op::minloc || op == reduce_op::maxloc) {
    switch (t) {
      case dtype::int32: return combine_loc<std::int32_t>(op, left, right, out);
      case dtype::int64: return combine_loc<std::int64_t>(op, left, right, out);
      case dtype::uint64: return combine_loc<std::uint64_t>(op, left, right, out);
      case dtype::float32: return combine_loc<float>(op, left, right, out);
      case dtype::float64: return combine_loc<double>(op, left, right, out);
      case dtype::byte: break;
    }
    throw std::logic_error("reduce_bytes: minloc/maxloc on bytes");
  }
  switch (t) {
    case dtype::byte: return apply_typed<std::uint8_t>(op, left, right, out);
    case dtype::int32: return apply_typed<std::int32_t>(op, left, right, out);
    case dtype::int64: return apply_typed<std::int64_t>(op, left, right, out);
    case dtype::uint64: return apply_typed<std::uint64_t>(op, left, right, out);
    case dtype::float32: return apply_typed<float>(op, left, right, out);
    case dtype::float64: return apply_typed<double>(op, left, right, out);
  }
}

}  // namespace

void reduce_bytes(dtype t, reduce_op op, user_op user, const std::byte* src, std::byte* dst, std::uint64_t bytes,
                  bool dst_first) {
  const std::size_t es = sidecore::coll::element_size(t, op);
  std::byte tmp[16] = {};  // minloc/maxloc padding stays zero
  for (std::uint64_t off = 0; off < bytes; off += es) {
    const std::byte* left = dst_first ? dst + off : src + off;
    const std::byte* right = dst_first ? src + off : dst + off;
    apply(t, op, user, left, right, tmp, es);
    std::memcpy(dst + off, tmp, es);
  }
}

}  // namespace sctest
