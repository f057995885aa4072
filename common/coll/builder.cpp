// The schedule builder (builder.hpp): segmentation, tags and dependencies.
#include "builder.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sidecore::coll::detail {
namespace {

// Whether cutting messages into segments can pipeline anything. An algorithm that forwards or reduces what it
// receives moves segment i on while segment i+1 arrives. One that only delivers (alltoall pairwise and linear,
// the linear algorithms), or any algorithm on two ranks that reduces nothing (one exchange), gains nothing from
// segments and pays a message (a rendezvous, above the eager size) for each: a 1 MiB alltoall on 2 ranks took
// 1.1-2.1x as long in 128 KiB segments as in one message (docs/collectives.md).
bool pipelines(const spec& s, algorithm a, int size) {
  if (s.op != reduce_op::none) return true;
  if (size <= 2) return false;
  return a != algorithm::linear && a != algorithm::pairwise;
}

std::uint64_t segment_size(const spec& s, algorithm a, int size, std::uint64_t esize) {
  constexpr std::uint64_t whole = std::uint64_t{1} << 62;  // larger than any message: one segment each
  const std::uint64_t want = !pipelines(s, a, size) ? whole
                             : s.segment_bytes != 0 ? s.segment_bytes
                                                    : default_segment_bytes;
  return std::max(esize, want - want % esize);
}

}  // namespace

builder::builder(const spec& spec_, algorithm a, int rank_, int size_)
    : s(spec_),
      rank(rank_),
      size(size_),
      esize(element_size(spec_.type, spec_.op)),
      seg(segment_size(spec_, a, size_, element_size(spec_.type, spec_.op))) {
  sched_.k = s.k;
  sched_.alg = a;
  sched_.type = s.type;
  sched_.rop = s.op;
  // Room for a small collective's schedule up front: most builds are a handful of ops, and growing from empty
  // would allocate several times over.
  sched_.ops.reserve(8);
  sched_.deps.reserve(16);
  pending_deps_.reserve(8);
}

void builder::largest_message(std::uint64_t b) { stride_ = std::max<std::uint64_t>(1, segments(b)); }

std::uint32_t builder::tag(std::uint32_t msg, std::uint64_t segment) {
  if (stride_ == 0) throw std::logic_error("sidecore::coll: largest_message() not called before a data message");
  const std::uint64_t t = msg * stride_ + segment;
  if (t >= 0xffffffffu) {
    throw std::invalid_argument("segment_bytes: segments of " + std::to_string(seg) +
                                " bytes give this collective more than 2^32 message tags; give a larger "
                                "segment_bytes");
  }
  tags_ = std::max(tags_, t + 1);
  return static_cast<std::uint32_t>(t);
}

std::uint32_t builder::emit(const op& o, std::initializer_list<access> accesses,
                            std::initializer_list<std::uint32_t> after) {
  const auto id = mark();
  if (sched_.ops.size() >= max_ops_) [[unlikely]]
    throw too_many_ops("the schedule holds more than " + std::to_string(max_ops_) + " operations");
  pending_deps_.assign(gate_.begin(), gate_.end());
  for (std::uint32_t d : after)
    if (d != no_op) pending_deps_.push_back(d);
  for (const access& a : accesses) {
    hazards_.access(a.r.buf, a.r.off, a.r.off + a.r.bytes, a.write, id, pending_deps_);
    if (a.r.buf == buffer::tmp) sched_.tmp_bytes = std::max(sched_.tmp_bytes, a.r.off + a.r.bytes);
  }
  std::sort(pending_deps_.begin(), pending_deps_.end());
  pending_deps_.erase(std::unique(pending_deps_.begin(), pending_deps_.end()), pending_deps_.end());
  op out = o;
  out.dep_first = static_cast<std::uint32_t>(sched_.deps.size());
  out.dep_count = static_cast<std::uint32_t>(pending_deps_.size());
  sched_.deps.insert(sched_.deps.end(), pending_deps_.begin(), pending_deps_.end());
  sched_.ops.push_back(out);
  return id;
}

void builder::message_segment(op_type t, int peer, std::uint32_t msg, region r, std::uint64_t i) {
  const std::uint64_t off = i * seg;
  if (off >= r.bytes) return;
  const region part = r.sub(off, std::min(seg, r.bytes - off));
  op o;
  o.type = t;
  o.peer = peer;
  o.tag = tag(msg, i);
  o.bytes = part.bytes;
  if (t == op_type::send) {
    o.src_buf = part.buf;
    o.src_off = part.off;
    emit(o, {{part, false}}, {});
  } else {
    o.dst_buf = part.buf;
    o.dst_off = part.off;
    emit(o, {{part, true}}, {});
  }
}

void builder::send_segment(int peer, std::uint32_t msg, region src, std::uint64_t i) {
  message_segment(op_type::send, peer, msg, src, i);
}

void builder::recv_segment(int peer, std::uint32_t msg, region dst, std::uint64_t i) {
  message_segment(op_type::recv, peer, msg, dst, i);
}

void builder::send(int peer, std::uint32_t msg, region src) {
  for (std::uint64_t i = 0, n = segments(src.bytes); i < n; ++i) send_segment(peer, msg, src, i);
}

void builder::recv(int peer, std::uint32_t msg, region dst) {
  for (std::uint64_t i = 0, n = segments(dst.bytes); i < n; ++i) recv_segment(peer, msg, dst, i);
}

void builder::local(op_type t, region src, region dst, bool dst_first) {
  for (std::uint64_t off = 0; off < dst.bytes; off += seg) {
    const std::uint64_t len = std::min(seg, dst.bytes - off);
    op o;
    o.type = t;
    o.src_buf = src.buf;
    o.src_off = src.off + off;
    o.dst_buf = dst.buf;
    o.dst_off = dst.off + off;
    o.bytes = len;
    o.dst_first = dst_first;
    emit(o, {{src.sub(off, len), false}, {dst.sub(off, len), true}}, {});
  }
}

void builder::reduce(region src, region dst, operands order) {
  local(op_type::reduce, src, dst, order == operands::dst_left);
}

void builder::copy(region src, region dst) { local(op_type::copy, src, dst, false); }

std::uint32_t builder::signal(op_type t, int peer, std::uint32_t number, std::initializer_list<std::uint32_t> after) {
  op o;
  o.type = t;
  o.peer = peer;
  o.tag = number;
  tags_ = std::max<std::uint64_t>(tags_, std::uint64_t{number} + 1);
  return emit(o, {}, after);
}

std::uint32_t builder::signal_send(int peer, std::uint32_t number, std::initializer_list<std::uint32_t> after) {
  return signal(op_type::send, peer, number, after);
}

std::uint32_t builder::signal_recv(int peer, std::uint32_t number, std::initializer_list<std::uint32_t> after) {
  return signal(op_type::recv, peer, number, after);
}

void builder::gate(std::uint32_t from, std::uint32_t to) {
  if (from == to) return;
  gate_.clear();
  for (std::uint32_t i = from; i < to; ++i) gate_.push_back(i);
}

schedule builder::finish() && {
  sched_.tags = static_cast<std::uint32_t>(tags_);
  return std::move(sched_);
}

}  // namespace sidecore::coll::detail
