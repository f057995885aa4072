// The collectives of collectives.hpp: one entry (coll_call) checks a call's arguments, turns them into a schedule
// spec (common/include/sidecore/common/schedule.hpp), gets its plan from the communicator's cache and hands it to the
// executor (progress/include/sidecore/progress/collective.hpp) as a nonblocking, blocking or persistent call.
#include <array>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "call_scope.hpp"
#include "state.hpp"

namespace sidecore {

namespace {

using detail::coll_args;
using detail::coll_form;
using detail::coll_op_kind;

// The public names: "sidecore::iallreduce", "sidecore::allreduce", "sidecore::allreduce_init".
struct call_names {
  std::array<std::array<std::string, 3>, coll::kind_count> names;
  call_names() {
    for (int k = 0; k < coll::kind_count; ++k) {
      const std::string base(coll::kind_name(static_cast<coll::kind>(k)));
      names[static_cast<std::size_t>(k)] = {"sidecore::i" + base, "sidecore::" + base, "sidecore::" + base + "_init"};
    }
  }
};
const call_names& names() {
  static const call_names n;
  return n;
}

using detail::call_scope;

[[noreturn, gnu::cold]] void bad(const char* call, const std::string& what) {
  throw error(errc::invalid_argument, std::string(call) + ": " + what);
}

bool reduces(coll::kind k) noexcept {
  return k == coll::kind::reduce || k == coll::kind::allreduce || k == coll::kind::reduce_scatter_block;
}
bool rooted(coll::kind k) noexcept {
  return k == coll::kind::bcast || k == coll::kind::reduce || k == coll::kind::gather || k == coll::kind::scatter;
}

const void* const in_place_ptr = static_cast<const void*>(in_place);

// A v-variant array: one non-negative entry per rank, scaled to the schedule's elements.
std::vector<std::uint64_t> v_array(const char* call, const char* name, std::span<const std::int64_t> a, int size,
                                   std::uint64_t scale) {
  if (a.size() != static_cast<std::size_t>(size))
    bad(call, std::string(name) + " has " + std::to_string(a.size()) + " entries; accepted: one per rank of the "
              "communicator (" + std::to_string(size) + ")");
  std::vector<std::uint64_t> out(a.size());
  // No entry's bytes may pass 2^63 (16 bytes, a value_index<double> pair, is the largest element): a larger one
  // would wrap, and be taken for a few elements.
  const std::uint64_t most = (std::uint64_t{1} << 59) / scale;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] < 0 || static_cast<std::uint64_t>(a[i]) > most)
      bad(call, std::string(name) + "[" + std::to_string(i) + "] is " + std::to_string(a[i]) + "; accepted: 0 .. " +
                    std::to_string(most) + " elements");
    out[i] = static_cast<std::uint64_t>(a[i]) * scale;
  }
  return out;
}

// The call as the schedule library sees it. Throws errc::invalid_argument for what this rank can tell is wrong.
coll::spec make_spec(const char* call, const coll_args& a, const detail::comm_entry& e, std::uint64_t segment) {
  if (static_cast<unsigned>(a.kind) >= static_cast<unsigned>(coll::kind_count))
    bad(call, "unknown collective kind " + std::to_string(static_cast<int>(a.kind)));
  coll::spec s;
  s.k = static_cast<coll::kind>(a.kind);
  s.segment_bytes = segment;
  if (s.k == coll::kind::barrier) return s;
  if (static_cast<unsigned>(a.type) >= static_cast<unsigned>(coll::dtype_count))
    bad(call, "type: unknown dtype " + std::to_string(static_cast<int>(a.type)) +
                  "; accepted: byte, int32, int64, uint64, float32, float64");
  s.type = static_cast<coll::dtype>(a.type);
  std::uint64_t scale = 1;  // elements of the schedule per element of the call
  if (reduces(s.k)) {
    if (!a.red) bad(call, "no reduction given");
    if (a.red->user()) {
      if (!a.red->function()) bad(call, "reduction: the user function is null; pass a function or a built-in op");
      s.op = coll::reduce_op::user;
      s.commutative = a.red->commutative();
    } else {
      const auto o = static_cast<unsigned>(a.red->builtin());
      if (o > static_cast<unsigned>(op::maxloc))
        bad(call, "op: unknown operator " + std::to_string(o) +
                      "; accepted: sum, prod, min, max, land, lor, band, bor, bxor, minloc, maxloc");
      s.op = static_cast<coll::reduce_op>(o + 1);  // coll::reduce_op starts with none
    }
    const bool pair_op = s.op == coll::reduce_op::minloc || s.op == coll::reduce_op::maxloc;
    if (a.typed && a.typed_pair != pair_op)
      bad(call, a.typed_pair ? "op: value_index elements take only minloc and maxloc, not " +
                                   std::string(coll::reduce_op_name(s.op))
                             : "op: " + std::string(coll::reduce_op_name(s.op)) +
                                   " takes value_index<T> elements; pass a span of value_index pairs");
  } else if (a.typed && a.typed_pair) {
    // Pairs that are only moved travel as bytes; the ranks' sentences about the count still speak of pairs.
    scale = coll::element_size(s.type, coll::reduce_op::minloc);
    s.moved_pairs = s.type;
    s.type = coll::dtype::byte;
  }
  const std::uint64_t most = (std::uint64_t{1} << 59) / scale;  // as v_array's entries
  if (a.count < 0 || static_cast<std::uint64_t>(a.count) > most)
    bad(call, "count is " + std::to_string(a.count) + "; accepted: 0 .. " + std::to_string(most) + " elements");
  s.count = static_cast<std::uint64_t>(a.count) * scale;
  if (rooted(s.k)) {
    if (static_cast<unsigned>(a.root) >= static_cast<unsigned>(e.size))
      bad(call, "root is " + std::to_string(a.root) + "; accepted: 0 .. " + std::to_string(e.size - 1) +
                    " (the communicator's size is " + std::to_string(e.size) + ")");
    s.root = a.root;
  }
  // in place: the marker where MPI accepts MPI_IN_PLACE for this kind and rank
  const bool send_marked = a.send == in_place_ptr, recv_marked = a.recv == in_place_ptr;
  const bool at_root = e.rank == s.root;
  if (recv_marked && !(s.k == coll::kind::scatter && at_root))
    bad(call, "recv is in_place; accepted only as scatter's recv at the root");
  if (send_marked) {
    if (s.k == coll::kind::bcast || s.k == coll::kind::scatter)
      bad(call, "send is in_place; " + std::string(coll::kind_name(s.k)) + " takes in_place only " +
                    (s.k == coll::kind::scatter ? "as recv, at the root" : "nowhere"));
    if ((s.k == coll::kind::reduce || s.k == coll::kind::gather) && !at_root)
      bad(call, "send is in_place on rank " + std::to_string(e.rank) + ", which is not the root (" +
                    std::to_string(s.root) + "); accepted only at the root");
  }
  s.in_place = send_marked || recv_marked;
  if (s.k == coll::kind::allgatherv) {
    s.recv_counts = v_array(call, "recv_counts", a.recv_counts, e.size, scale);
    s.recv_displs = v_array(call, "recv_displs", a.recv_displs, e.size, scale);
    if (!s.in_place && a.send_count != a.recv_counts[static_cast<std::size_t>(e.rank)])
      bad(call, "send_count is " + std::to_string(a.send_count) + " but recv_counts[" + std::to_string(e.rank) +
                    "] (this rank's block) is " + std::to_string(a.recv_counts[static_cast<std::size_t>(e.rank)]) +
                    "; they must be equal");
  } else if (s.k == coll::kind::alltoallv) {
    if (!s.in_place) {
      s.send_counts = v_array(call, "send_counts", a.send_counts, e.size, scale);
      s.send_displs = v_array(call, "send_displs", a.send_displs, e.size, scale);
    }
    s.recv_counts = v_array(call, "recv_counts", a.recv_counts, e.size, scale);
    s.recv_displs = v_array(call, "recv_displs", a.recv_displs, e.size, scale);
  }
  return s;
}

// Whether this rank's part of a collective reads its send buffer (send = true) or writes its receive buffer, for
// any count: a typed span the part uses must hold exactly what the count asks, 0 included, while a span the part
// ignores (a reduce's recv off the root) may have any size. The v-variants' extents follow their counts instead.
bool role_uses(coll::kind k, bool send, bool at_root) {
  switch (k) {
    case coll::kind::reduce:
    case coll::kind::gather: return send || at_root;
    case coll::kind::scatter: return !send || at_root;
    case coll::kind::bcast: return !send;
    case coll::kind::barrier:
    case coll::kind::allgatherv:
    case coll::kind::alltoallv: return false;
    default: return true;
  }
}

// What the caller counts in: its element (a value of the dtype, or a {value; int32 index} pair) and that element's
// size. The buffers are measured in bytes, the counts in these; a message about both says both. "dtype float64"
// is the C API's SIDECORE_DOUBLE in its messages (c_api.cpp's in_c_terms).
struct call_unit {
  std::size_t bytes = 1;
  std::string one;   // "element", "{value; int32 index} pair"
  std::string type;  // "dtype float64"
  [[nodiscard]] std::string of(std::uint64_t n) const {
    return std::to_string(n) + " " + one + (n == 1 ? "" : "s") + " of " + type;
  }
};
call_unit unit_of(const coll_args& a, const coll::spec& spec) {
  const bool pairs = (a.typed && a.typed_pair) || spec.op == coll::reduce_op::minloc ||
                     spec.op == coll::reduce_op::maxloc;
  // Pairs that are only moved travel as bytes (make_spec): their value's type is the call's.
  const coll::dtype value = spec.moved_pairs.value_or(spec.type);
  return {coll::element_size(value, pairs ? coll::reduce_op::minloc : coll::reduce_op::none),
          pairs ? "{value; int32 index} pair" : "element", "dtype " + std::string(coll::dtype_name(value))};
}
// `bytes` in the caller's unit too: "800 bytes (100 elements of dtype float64)".
std::string bytes_and_elements(std::uint64_t bytes, const call_unit& u) {
  std::string out = std::to_string(bytes) + " bytes (" + u.of(bytes / u.bytes);
  if (bytes % u.bytes != 0) out += " and " + std::to_string(bytes % u.bytes) + " bytes more";
  return out + ")";
}

// The input that sizes the send or the receive buffer of a collective of kind `k`, as the caller named it.
const char* sizing_input(coll::kind k, bool send) {
  if (k == coll::kind::allgatherv) return send ? "send_count" : "recv_counts and recv_displs";
  if (k == coll::kind::alltoallv) return send ? "send_counts and send_displs" : "recv_counts and recv_displs";
  return "count";
}

// A buffer the plan needs: not null when it must hold bytes; a typed span of exactly the size needed where the
// rank's part uses it (`used`: also when that size is 0, so that an empty span making the count 0 does not leave
// the other span's data silently unsent or unreceived); no larger than the buffer where its size is known
// (capacity >= 0: a language binding's, whose caller counts elements and sees its variable, not bytes: the refusal
// names the count, the buffer in both units, and the counts accepted).
void check_buffer(const char* call, const char* name, const void* p, std::uint64_t need, bool used,
                  std::int64_t elems, std::size_t elem_bytes, std::int64_t capacity, const coll_args& a,
                  const coll::spec& spec) {
  if (p == in_place_ptr) return;
  const bool send = name[0] == 's';
  if (capacity >= 0 && need > static_cast<std::uint64_t>(capacity)) {
    const call_unit u = unit_of(a, spec);
    const auto cap = static_cast<std::uint64_t>(capacity);
    const std::string input = sizing_input(spec.k, send);
    const bool v_blocks = spec.k == coll::kind::alltoallv || (spec.k == coll::kind::allgatherv && !send);
    std::string m = input;
    if (v_blocks)
      m += " reach";
    else
      m += " is " + std::to_string(spec.k == coll::kind::allgatherv ? a.send_count : a.count) + ", which reaches";
    m += std::string(" beyond ") + name + ": this rank's " + name + " must hold " + bytes_and_elements(need, u) +
         " and holds " + bytes_and_elements(cap, u) + "; accepted: ";
    if (v_blocks) {
      m += input + " whose blocks end within " + name + " (" + u.of(cap / u.bytes) + ")";
    } else if (spec.k == coll::kind::allgatherv) {
      m += "send_count 0 .. " + std::to_string(cap / u.bytes);
    } else {
      // Every other kind's buffer holds count elements, or count for each rank of the communicator: need is a
      // multiple of count (count > 0, as need > capacity >= 0).
      const std::uint64_t per_count = need / static_cast<std::uint64_t>(a.count);
      m += "count 0 .. " + std::to_string(cap / per_count);
      if (per_count != u.bytes)
        m += " (" + std::string(name) + " holds a block of count " + u.one + "s for each of the communicator's " +
             std::to_string(per_count / u.bytes) + " ranks)";
    }
    bad(call, m);
  }
  if (need > 0 && p == nullptr)
    bad(call, std::string(name) + " is null but must hold " + bytes_and_elements(need, unit_of(a, spec)) +
                  " on this rank, given its " + sizing_input(spec.k, send));
  if (elems >= 0 && (need > 0 || used) && static_cast<std::uint64_t>(elems) * elem_bytes != need)
    bad(call, std::string(name) + " has " + std::to_string(elems) + " elements; this rank needs " +
                  std::to_string(need / elem_bytes));
}

// MPI forbids a send buffer that overlaps the receive buffer outside MPI_IN_PLACE, and so do the algorithms here:
// they read send after they have written received data into recv (wrong results, no error). The v-variants are
// left out: their displacements may interleave send and receive blocks in one array without touching each other.
void check_disjoint(const char* call, coll::kind k, const void* send, std::uint64_t send_bytes, const void* recv,
                    std::uint64_t recv_bytes) {
  if (k == coll::kind::alltoallv || k == coll::kind::allgatherv) return;
  if (!send || !recv || send == in_place_ptr || recv == in_place_ptr || send_bytes == 0 || recv_bytes == 0) return;
  const auto s = reinterpret_cast<std::uintptr_t>(send), r = reinterpret_cast<std::uintptr_t>(recv);
  if (s < r + recv_bytes && r < s + send_bytes)
    bad(call, fmt::format("send and recv overlap (send {} bytes at {}, recv {} bytes at {}); a collective reads send "
                          "while it writes recv: give separate buffers, or sidecore::in_place where "
                          "the in-place form is meant",
                          send_bytes, send, recv_bytes, recv));
}

[[noreturn]] void throw_failed(const char* call, const status& st) {
  throw error(st.error, std::string(call) + " failed: " + detail::last_transport_error());
}

}  // namespace

const char* detail::coll_call_name(coll_op_kind k, coll_form f) noexcept {
  return names().names[static_cast<std::size_t>(k)][static_cast<std::size_t>(f)].c_str();
}

std::int64_t detail::per_rank(std::size_t n, const comm& c, coll_op_kind k) {
  const char* call = static_cast<unsigned>(k) < static_cast<unsigned>(coll::kind_count)
                         ? coll_call_name(k, coll_form::blocking)
                         : "sidecore::collective";
  const auto size = static_cast<std::size_t>(comm_or_throw(c, call + 10).size);  // without "sidecore::"
  if (n % size != 0)
    bad(call, "a span of " + std::to_string(n) + " elements is to hold one block per rank of the communicator's " +
                  std::to_string(size) + " ranks; accepted: a multiple of " + std::to_string(size));
  return static_cast<std::int64_t>(n / size);
}

request detail::coll_call(const coll_args& a, const comm& c) {
  const char* call = static_cast<unsigned>(a.kind) < static_cast<unsigned>(coll::kind_count) &&
                             static_cast<unsigned>(a.form) <= static_cast<unsigned>(coll_form::persistent)
                         ? coll_call_name(a.kind, a.form)
                         : "sidecore::collective";
  const call_scope scope(a.form == coll_form::blocking ? category::blocking : category::init, call);
  comm_entry& e = comm_or_throw(c, call + 10);  // without "sidecore::"
  runtime_state& s = *g_state;
  const coll::spec spec = make_spec(call, a, e, s.coll_segment.load(std::memory_order_relaxed));
  const auto alg = static_cast<coll::algorithm>(
      s.coll_algorithm[static_cast<std::size_t>(spec.k)].load(std::memory_order_relaxed));
  std::shared_ptr<const progress::coll_plan> plan;
  try {
    plan = e.coll->plan(spec, alg);
  } catch (const std::invalid_argument& x) {
    bad(call, x.what());
  }
  const progress::coll_plan_info info = progress::plan_info(*plan);
  const std::size_t elem = a.typed && a.typed_pair
                               ? coll::element_size(spec.moved_pairs.value_or(spec.type), coll::reduce_op::minloc)
                               : coll::element_size(spec.type, coll::reduce_op::none);
  const bool at_root = e.rank == spec.root;
  check_buffer(call, "send", a.send, info.send_bytes, role_uses(spec.k, true, at_root), a.send_elems, elem,
               a.send_capacity, a, spec);
  // bcast's one buffer, its recv here, is buf to its caller.
  check_buffer(call, spec.k == coll::kind::bcast ? "buf" : "recv", a.recv, info.recv_bytes,
               role_uses(spec.k, false, at_root), a.recv_elems, elem, a.recv_capacity, a, spec);
  check_disjoint(call, spec.k, a.send, info.send_bytes, a.recv, info.recv_bytes);
  progress::coll_buffers b;
  b.send = a.send == in_place_ptr ? nullptr : a.send;
  b.recv = a.recv == in_place_ptr ? nullptr : a.recv;
  if (spec.op == coll::reduce_op::user) b.user = {a.red->function(), a.red->context()};
  switch (a.form) {
    case coll_form::nonblocking:
      return request_access::make(
          detail::start_request(call, [&] { return s.coll->start(e.coll, plan, b, instrument::current_thread_id()); }));
    case coll_form::blocking: {
      request r = request_access::make(
          detail::start_request(call, [&] { return s.coll->start(e.coll, plan, b, instrument::current_thread_id()); }));
      const status st = wait(r);
      if (st.error != errc::success) throw_failed(call, st);
      return {};
    }
    case coll_form::persistent: {
      auto op = std::make_unique<persistent_op>();
      op->w = persistent_op::what::coll;
      try {
        op->coll = s.coll->create(e.coll, plan, b);
      } catch (const progress::too_many_persistent& ex) {
        bad(call, ex.what());
      }
      progress::coll_persistent* pc = op->coll;
      try {
        return request_access::make(s.persistent.add(std::move(op)));
      } catch (...) {
        s.coll->destroy(pc);
        throw;
      }
    }
  }
  bad(call, "unknown call form " + std::to_string(static_cast<int>(a.form)));
}

namespace {

coll::kind kind_or_throw(const char* call, std::string_view kind) {
  const std::optional<coll::kind> k = coll::parse_kind(kind);
  if (!k) {
    std::string accepted;
    for (int i = 0; i < coll::kind_count; ++i)
      accepted += (i ? ", " : "") + std::string(coll::kind_name(static_cast<coll::kind>(i)));
    bad(call, "kind \"" + std::string(kind) + "\" is not a collective; accepted: " + accepted);
  }
  return *k;
}

}  // namespace

void set_coll_algorithm(std::string_view kind, std::string_view algorithm) {
  constexpr const char* call = "sidecore::set_coll_algorithm";
  detail::runtime_state& s = detail::state_or_throw("set_coll_algorithm");
  const coll::kind k = kind_or_throw(call, kind);
  const std::optional<coll::algorithm> a = coll::parse_algorithm(algorithm);
  if (!a || !coll::supports(k, *a)) {
    std::string accepted = "auto";
    for (coll::algorithm x : coll::algorithms_for(k)) accepted += ", " + std::string(coll::algorithm_name(x));
    bad(call, "algorithm \"" + std::string(algorithm) + "\" does not implement " + std::string(kind) +
                  "; accepted: " + accepted);
  }
  s.coll_algorithm[static_cast<std::size_t>(k)].store(static_cast<std::uint8_t>(*a), std::memory_order_relaxed);
}

std::vector<std::string> coll_algorithms(std::string_view kind) {
  std::vector<std::string> out;
  for (coll::algorithm a : coll::algorithms_for(kind_or_throw("sidecore::coll_algorithms", kind)))
    out.emplace_back(coll::algorithm_name(a));
  return out;
}

void set_coll_segment(std::int64_t bytes) {
  detail::runtime_state& s = detail::state_or_throw("set_coll_segment");
  if (bytes < 1024 || bytes > (std::int64_t{1} << 26))
    bad("sidecore::set_coll_segment", "bytes is " + std::to_string(bytes) + "; accepted: 1024 .. 67108864");
  s.coll_segment.store(static_cast<std::uint64_t>(bytes), std::memory_order_relaxed);
}

}  // namespace sidecore
