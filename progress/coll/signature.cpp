// Collective signatures (signature.hpp).
#include "signature.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "sentence.hpp"

namespace sidecore::progress {
namespace {

constexpr std::uint64_t field(std::uint64_t sig, int shift, int bits) noexcept {
  return (sig >> shift) & ((std::uint64_t{1} << bits) - 1);
}
constexpr int kind_shift = 0, type_shift = 4, op_shift = 7, alg_shift = 11, root_shift = 15, count_shift = 27;
constexpr int kind_width = 4, type_width = 3, op_width = 4, alg_width = 4, root_width = 12, count_width = 21;
// The operator field of moved value_index pairs (coll::spec::moved_pairs), whose type field holds the pairs' value
// type: they travel as bytes, which would not tell pairs of double from twice as many pairs of float, nor pairs from
// plain values. Only kinds that reduce nothing move pairs, so their operator is always none and the field is free.
constexpr std::uint64_t moved_pairs_op = (std::uint64_t{1} << op_width) - 1;
static_assert(coll::reduce_op_count <= static_cast<int>(moved_pairs_op), "moved_pairs_op is no operator");

std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// explain_signature's formats, and the longest sentence they make (explain_max must hold it).
constexpr char kind_fmt[] = "rank %d called %.*s where this rank called %.*s";
constexpr char with_fmt[] = "rank %d called %.*s with ";
constexpr char type_fmt[] = "%stype %.*s where this rank has %.*s";
// Either side moves value_index pairs: pairs_of before its type (an empty string on a side that does not).
constexpr char pair_type_fmt[] = "%stype %s%.*s where this rank has %s%.*s";
constexpr std::string_view pairs_of = "{value; int32 index} pairs of ";
constexpr char op_fmt[] = "%soperator %.*s where this rank has %.*s";
constexpr char alg_fmt[] =
    "%salgorithm %.*s where this rank runs %.*s (the SIDECORE_COLL_* settings or set_coll_algorithm differ)";
constexpr char root_fmt[] = "%sanother root (this rank has root %d)";
constexpr char counts_fmt[] = "%sother receive counts";
constexpr char count_fmt[] = "%sanother count (this rank has count %llu)";
// value_index pairs that travel as bytes (coll::spec::moved_pairs): their caller counts pairs.
constexpr char pairs_fmt[] = "%sanother count (this rank has count %llu, in {value; int32 index} pairs of dtype %.*s)";
constexpr std::size_t sep_chars = 2;  // ", "
constexpr std::size_t kind_chars = longest(coll::kind_names), dtype_chars = longest(coll::dtype_names),
                      op_chars = longest(coll::reduce_op_names), alg_chars = longest(coll::algorithm_names);
constexpr std::size_t count_chars = std::max(printed(counts_fmt, sep_chars), printed(count_fmt, sep_chars + u64_chars));
// With pairs on either side there is no operator, and the count follows a type said without pairs_fmt.
constexpr std::size_t longest_explanation =
    std::max(printed(kind_fmt, int_chars + std::string_view("point-to-point").size() + kind_chars + kind_chars),
             printed(with_fmt, int_chars + kind_chars) + printed(alg_fmt, sep_chars + 2 * alg_chars) +
                 printed(root_fmt, sep_chars + int_chars) +
                 std::max(printed(pair_type_fmt, sep_chars + 2 * (pairs_of.size() + dtype_chars)) + count_chars,
                          printed(type_fmt, sep_chars + 2 * dtype_chars) + printed(op_fmt, sep_chars + 2 * op_chars) +
                              std::max(count_chars, printed(pairs_fmt, sep_chars + u64_chars + dtype_chars))));
static_assert(longest_explanation < explain_max, "explain_max holds every explanation, terminator included");

// A name from a field, or "?" for a value that is none of ours.
template <class E, class F>
std::string_view name_or(std::uint64_t v, int count, F name) noexcept {
  return v < static_cast<std::uint64_t>(count) ? name(static_cast<E>(v)) : std::string_view("?");
}

}  // namespace

std::uint64_t coll_signature(const coll::spec& s, coll::algorithm chosen) noexcept {
  // Counts in the caller's elements, so that 4 pairs of float against 4 doubles (the same bytes) differ in type
  // only, as the sentence then says.
  const std::uint64_t unit = coll::caller_unit(s);
  std::uint64_t h = mix(0, s.count / unit);
  if (s.k == coll::kind::allgatherv)
    for (std::uint64_t c : s.recv_counts) h = mix(h, c / unit);
  const bool rooted = s.k == coll::kind::bcast || s.k == coll::kind::reduce || s.k == coll::kind::gather ||
                      s.k == coll::kind::scatter;
  const auto root = rooted ? static_cast<std::uint64_t>(s.root) : 0;
  const auto type = static_cast<std::uint64_t>(s.moved_pairs.value_or(s.type));
  const std::uint64_t op = s.moved_pairs ? moved_pairs_op : static_cast<std::uint64_t>(s.op);
  return (static_cast<std::uint64_t>(s.k) + 1) << kind_shift | type << type_shift | op << op_shift |
         static_cast<std::uint64_t>(chosen) << alg_shift | field(root, 0, root_width) << root_shift |
         (h >> (64 - count_width)) << count_shift;
}

void explain_signature(char* out, std::size_t n, std::uint64_t mine, std::uint64_t theirs, const coll::spec& s,
                       int peer) noexcept {
  if (n == 0) return;
  out[0] = '\0';
  if (mine == theirs) return;
  std::size_t used = 0;
  const auto say = [&](auto... args) {
    if (used >= n) return;
    const int w = std::snprintf(out + used, n - used, args...);
    if (w > 0) used += static_cast<std::size_t>(w);
  };
  const auto differs = [&](int shift, int width) { return field(mine, shift, width) != field(theirs, shift, width); };
  const auto both = [&](int shift, int width, std::uint64_t& a, std::uint64_t& b) {
    a = field(theirs, shift, width);
    b = field(mine, shift, width);
  };
  std::uint64_t a = 0, b = 0;
  if (differs(kind_shift, kind_width)) {
    both(kind_shift, kind_width, a, b);
    const auto k = [](coll::kind x) { return coll::kind_name(x); };
    const std::string_view ta =
        a == 0 ? std::string_view("point-to-point") : name_or<coll::kind>(a - 1, coll::kind_count, k);
    const std::string_view tb = name_or<coll::kind>(b - 1, coll::kind_count, k);
    say(kind_fmt, peer, static_cast<int>(ta.size()), ta.data(), static_cast<int>(tb.size()), tb.data());
    return;  // the other fields mean nothing across kinds
  }
  const char* sep = "";
  say(with_fmt, peer, static_cast<int>(coll::kind_name(s.k).size()), coll::kind_name(s.k).data());
  const auto t = [](coll::dtype x) { return coll::dtype_name(x); };
  const bool pairs_a = field(theirs, op_shift, op_width) == moved_pairs_op,
             pairs_b = field(mine, op_shift, op_width) == moved_pairs_op;
  bool type_said = false;
  if (pairs_a || pairs_b) {  // the operator field says only that: no operator to compare
    if (pairs_a != pairs_b || differs(type_shift, type_width)) {
      both(type_shift, type_width, a, b);
      const std::string_view ta = name_or<coll::dtype>(a, coll::dtype_count, t),
                             tb = name_or<coll::dtype>(b, coll::dtype_count, t);
      const char* pa = pairs_a ? pairs_of.data() : "";
      const char* pb = pairs_b ? pairs_of.data() : "";
      say(pair_type_fmt, sep, pa, static_cast<int>(ta.size()), ta.data(), pb, static_cast<int>(tb.size()),
          tb.data());
      sep = ", ";
      type_said = true;
    }
  } else if (differs(type_shift, type_width)) {
    both(type_shift, type_width, a, b);
    const std::string_view ta = name_or<coll::dtype>(a, coll::dtype_count, t),
                           tb = name_or<coll::dtype>(b, coll::dtype_count, t);
    say(type_fmt, sep, static_cast<int>(ta.size()), ta.data(), static_cast<int>(tb.size()), tb.data());
    sep = ", ";
  }
  if (!pairs_a && !pairs_b && differs(op_shift, op_width)) {
    both(op_shift, op_width, a, b);
    const auto o = [](coll::reduce_op x) { return coll::reduce_op_name(x); };
    const std::string_view ta = name_or<coll::reduce_op>(a, coll::reduce_op_count, o),
                           tb = name_or<coll::reduce_op>(b, coll::reduce_op_count, o);
    say(op_fmt, sep, static_cast<int>(ta.size()), ta.data(), static_cast<int>(tb.size()), tb.data());
    sep = ", ";
  }
  if (differs(alg_shift, alg_width)) {
    both(alg_shift, alg_width, a, b);
    const auto g = [](coll::algorithm x) { return coll::algorithm_name(x); };
    const std::string_view ta = name_or<coll::algorithm>(a, coll::algorithm_count, g),
                           tb = name_or<coll::algorithm>(b, coll::algorithm_count, g);
    say(alg_fmt, sep, static_cast<int>(ta.size()), ta.data(), static_cast<int>(tb.size()), tb.data());
    sep = ", ";
  }
  if (differs(root_shift, root_width)) {
    say(root_fmt, sep, s.root);
    sep = ", ";
  }
  if (differs(count_shift, count_width)) {
    if (s.k == coll::kind::allgatherv) {
      say(counts_fmt, sep);
    } else if (s.moved_pairs && !type_said) {
      const std::string_view v = coll::dtype_name(*s.moved_pairs);
      say(pairs_fmt, sep, static_cast<unsigned long long>(s.count / coll::caller_unit(s)), static_cast<int>(v.size()),
          v.data());
    } else {  // plain values, or pairs that the type said has named
      say(count_fmt, sep, static_cast<unsigned long long>(s.count / coll::caller_unit(s)));
    }
  }
}

}  // namespace sidecore::progress
