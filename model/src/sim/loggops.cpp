// Discrete-event LogGOPS simulation (loggops.hpp). The rules are LogGOPSim's (spcl/LogGOPSim,
// src/LogGOPSim/LogGOPSim.cpp), reproduced so that the finish times agree to the nanosecond; each
// rule is stated where it is applied, and docs/simulate.md collects them.
//
// Data layout for speed (2^20-rank schedules): the event queue (event_queue.hpp) is a FIFO for
// events at the current time and a 4-ary heap of 24-byte events for the rest; per-rank CPU and NIC
// clocks and dependency counters are flat arrays; the matching queues (match_queues.hpp) take their
// entries from one pool with a free list. Nothing is allocated per event once the vectors have grown.
#include "sidecore/model/sim/loggops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "event_queue.hpp"
#include "match_queues.hpp"
#include "sidecore/common/input_error.hpp"

namespace sidecore::model::sim {

void validate(const loggops_params& p) {
  const std::pair<const char*, double> all[] = {{"-L", p.L}, {"-o", p.o}, {"-g", p.g}, {"-G", p.G}, {"-O", p.O}};
  for (const auto& [name, v] : all)
    if (!std::isfinite(v) || v < 0 || v > max_param_ns)
      throw input_error::refused(name, fmt::format("{}", v), fmt::format("a number of nanoseconds in [0, {:g}]",
                                                                         max_param_ns));
}

namespace {
// (s - 1) as LogGOPSim's unsigned products wrap it: -1 for a 0-byte message.
double bytes_after_first(std::uint64_t size) { return size > 0 ? static_cast<double>(size - 1) : -1.0; }
}  // namespace

double send_cpu_ns(const loggops_params& p, std::uint64_t size) { return p.o + bytes_after_first(size) * p.O; }

// LogGOPSim charges the reception max((s-1)O, (s-1)G) in unsigned 64-bit arithmetic. For s >= 1 that is
// (s-1) max(O, G); for s = 0 both products are "minus" O and G, and the unsigned maximum picks the smaller
// nonzero one (or 0 when both are 0).
double recv_cpu_ns(const loggops_params& p, std::uint64_t size) {
  if (size > 0) return p.o + static_cast<double>(size - 1) * std::max(p.O, p.G);
  if (p.O == 0 && p.G == 0) return p.o;
  if (p.O == 0) return p.o - p.G;
  if (p.G == 0) return p.o - p.O;
  return p.o - std::min(p.O, p.G);
}

double sim_result::makespan_ns() const {
  return finish_ns.empty() ? 0.0 : *std::max_element(finish_ns.begin(), finish_ns.end());
}

std::string sim_result::failure_summary() const {
  std::vector<std::string> parts;
  if (unfinished) parts.push_back(fmt::format("{} operation(s) never completed", unfinished));
  if (unreceived) parts.push_back(fmt::format("{} message(s) arrived that no receive matched", unreceived));
  if (eager_matched_as_rendezvous)
    parts.push_back(fmt::format("{} eager send(s) matched by a receive larger than S", eager_matched_as_rendezvous));
  // An operation left undone waits forever; with none left the schedule ran to its end, and calling it a
  // deadlock would send the reader looking for a cycle that is not there.
  const char* lead = unfinished ? "the schedule cannot finish (a deadlock): " : "every operation completed, but ";
  return fmt::format("{}{}", lead, fmt::join(parts, ", "));
}

namespace {

using detail::nil;
constexpr std::uint8_t kind_msg = 4;  // LogGOPSim's OP_MSG: a message arriving at its destination

using detail::event;
using detail::match_queues;

class simulator {
 public:
  simulator(const schedule& s, const loggops_params& p, sim_observer* obs)
      : s_(s), p_(p), obs_(obs), ncpu_(s.num_cpus()), nnic_(s.num_nics()),
        left_(s.num_ops()), state_(s.num_ops(), 0),
        next_o_(std::size_t{s.num_ranks()} * ncpu_, 0.0),
        next_gr_(std::size_t{s.num_ranks()} * nnic_, 0.0),
        next_gs_(std::size_t{s.num_ranks()} * nnic_, 0.0),
        rq_(s.num_ranks()), uq_(s.num_ranks()) {
    for (op_id i = 0; i < s.num_ops(); ++i) left_[i] = s.num_dependencies(i);
    if (obs_) send_start_.assign(s.num_ops(), 0.0);
    if (p_.causal) {
      ready_at_.assign(s.num_ops(), 0.0);
      taken_in_.assign(s.num_ops(), 0.0);
    }
    queue_.reserve(std::min<std::size_t>(s.num_ops(), std::size_t{1} << 24));
  }

  sim_result run() {
    // Every rank's operations without dependencies start at time 0, rank by rank.
    for (std::uint32_t r = 0; r < s_.num_ranks(); ++r) {
      for (op_id i = s_.rank_begin(r); i < s_.rank_end(r); ++i)
        if (left_[i] == 0) ready_.push_back(i);
      enqueue_ready_of(r, /*initial=*/true);
      ready_.clear();
    }
    while (!queue_.empty()) {
      const event e = queue_.pop();
      now_ = e.time;
      ++result_.events;
      touched_n_ = 0;
      switch (e.kind) {
        case static_cast<std::uint8_t>(op_kind::calc): run_calc(e); break;
        case static_cast<std::uint8_t>(op_kind::send): run_send(e); break;
        case static_cast<std::uint8_t>(op_kind::recv): run_recv(e); break;
        default: run_message(e); break;
      }
      if (!ready_.empty()) enqueue_ready();
    }
    finish();
    return std::move(result_);
  }

 private:
  double& cpu(std::uint32_t rank, unsigned c) { return next_o_[std::size_t{rank} * ncpu_ + c]; }
  double& nic_r(std::uint32_t rank, unsigned n) { return next_gr_[std::size_t{rank} * nnic_ + n]; }
  double& nic_s(std::uint32_t rank, unsigned n) { return next_gs_[std::size_t{rank} * nnic_ + n]; }

  void push(double time, op_id id, std::uint8_t kind) {
    queue_.push({time, next_ts_++, id, kind}, now_);
    ++result_.insertions;
  }
  void repush(event e, double time) {  // a delayed operation keeps its insertion stamp
    e.time = time;
    queue_.push(e, now_);
  }

  void touch(std::uint32_t rank) {
    for (unsigned i = 0; i < touched_n_; ++i)
      if (touched_[i] == rank) return;
    touched_[touched_n_++] = rank;
  }
  // `t`: when it started or ended, for params.causal.
  void mark_started(op_id id, double t) {
    if (state_[id] == 0) state_[id] = started;
    for (op_id d : s_.start_dependents(id)) {
      if (p_.causal) ready_at_[d] = std::max(ready_at_[d], t);
      if (--left_[d] == 0) ready_.push_back(d);
    }
    touch(s_.rank_of(id));
  }
  void mark_done(op_id id, double t) {
    state_[id] = done;
    for (op_id d : s_.done_dependents(id)) {
      if (p_.causal) ready_at_[d] = std::max(ready_at_[d], t);
      if (--left_[d] == 0) ready_.push_back(d);
    }
    touch(s_.rank_of(id));
  }

  // A resource busy from t for `cost`. Only a 0-byte message's negative byte term can make t + cost
  // negative, where LogGOPSim's unsigned clock wraps to ~2^64 (a rank that never finishes); the
  // clock stays at 0 instead.
  static double busy_until(double t, double cost) { return std::max(0.0, t + cost); }

  void run_calc(const event& e) {
    const op& o = s_.at(e.id);
    const std::uint32_t h = s_.rank_of(e.id);
    double& c = cpu(h, o.cpu);
    if (c > e.time) return repush(e, c);
    c = e.time + static_cast<double>(o.size);
    if (obs_) obs_->cpu_busy(h, o.cpu, cpu_work::calc, e.id, e.time, c);
    mark_started(e.id, e.time);
    mark_done(e.id, c);
  }

  void run_send(const event& e) {
    const op& o = s_.at(e.id);
    const std::uint32_t h = s_.rank_of(e.id);
    double& c = cpu(h, o.cpu);
    double& gs = nic_s(h, o.nic);
    const double avail = std::max(c, gs);
    if (avail > e.time) return repush(e, avail);
    mark_started(e.id, e.time);
    const double extra = bytes_after_first(o.size);
    c = busy_until(e.time, send_cpu_ns(p_, o.size));
    gs = busy_until(e.time, p_.g + extra * p_.G);
    if (obs_) {
      obs_->cpu_busy(h, o.cpu, cpu_work::send, e.id, e.time, c);
      send_start_[e.id] = e.time;
    }
    // The first byte reaches the destination o + L after the send starts; G is charged there.
    push(e.time + p_.o + p_.L, e.id, kind_msg);
    ++result_.messages;
    // Eager (size <= S): the send is done once its o is under way. Rendezvous: done when matched.
    if (o.size <= p_.S) mark_done(e.id, c);
  }

  // Rendezvous completion at the sender, when the receiver matched: the send is done, and the
  // sender's CPU and NIC (indices of the operation that matched, as LogGOPSim takes them) are not
  // free before the match. No latency for the clear-to-send: LogGOPSim charges none.
  void complete_rendezvous(op_id send, double t, unsigned c, unsigned n) {
    const std::uint32_t sh = s_.rank_of(send);
    mark_done(send, t);
    double& co = cpu(sh, c);
    double& gs = nic_s(sh, n);
    if (co < t) co = t;
    if (gs < t) gs = t;
  }

  void run_recv(const event& e) {
    const op& o = s_.at(e.id);
    const std::uint32_t h = s_.rank_of(e.id);
    mark_started(e.id, e.time);  // a posted receive satisfies irequires at once, whatever its CPU does
    const op_id send = uq_.take(h, o.peer, o.tag);
    if (send == nil) {
      rq_.push(h, o.peer, o.tag, e.id);
      return;
    }
    // The message arrived earlier (its o and G were charged then). LogGOPSim decides the protocol
    // here by the receive's size. An eager send was done when it started: completing it again would
    // release its dependents a second time (their counters wrap and they start early), so that case
    // is reported instead, as LogGOPSim's result for it means nothing.
    const std::uint64_t sent = s_.at(send).size;
    if (sent != o.size) ++result_.size_mismatches;
    if (o.size > p_.S) {
      if (sent > p_.S) complete_rendezvous(send, e.time, o.cpu, o.nic);
      else eager_as_rendezvous_.push_back({send, e.id});
    }
    mark_done(e.id, p_.causal ? std::max(e.time, taken_in_[send]) : e.time);
  }

  void run_message(const event& e) {
    const op& snd = s_.at(e.id);
    const std::uint32_t h = snd.peer;  // the destination
    const std::uint32_t from = s_.rank_of(e.id);
    // The destination uses the CPU and NIC indices of the send (LogGOPSim's rule).
    double& c = cpu(h, snd.cpu);
    double& gr = nic_r(h, snd.nic);
    const double avail = std::max(c, gr);
    if (avail > e.time) return repush(e, avail);
    c = busy_until(e.time, recv_cpu_ns(p_, snd.size));
    gr = busy_until(e.time, p_.g + bytes_after_first(snd.size) * p_.G);
    if (obs_) {
      obs_->cpu_busy(h, snd.cpu, cpu_work::reception, e.id, e.time, c);
      obs_->message(e.id, h, send_start_[e.id] + p_.o, e.time);
    }
    if (p_.causal) taken_in_[e.id] = c;
    const op_id recv = rq_.take(h, from, snd.tag);
    if (recv == nil) {
      uq_.push(h, from, snd.tag, e.id);
      return;
    }
    if (s_.at(recv).size != snd.size) ++result_.size_mismatches;
    if (snd.size > p_.S) complete_rendezvous(e.id, e.time, snd.cpu, snd.nic);
    mark_done(recv, c);
  }

  // Queues the operations that became ready, rank by rank (ascending), each rank's in the order
  // they became ready, then sorted by kind with std::sort as LogGOPSim does (std::sort is not
  // stable: equal kinds keep LogGOPSim's order only because the same algorithm sees the same
  // sequence). Sends start when both the CPU and the NIC are free, receives and calcs when the CPU is.
  void enqueue_ready() {
    std::sort(touched_.begin(), touched_.begin() + touched_n_);
    for (unsigned i = 0; i < touched_n_; ++i) enqueue_ready_of(touched_[i], false);
    ready_.clear();
  }

  void enqueue_ready_of(std::uint32_t rank, bool initial) {
    batch_.clear();
    for (op_id id : ready_)
      if (s_.rank_of(id) == rank) batch_.push_back({s_.at(id).kind, id});
    std::sort(batch_.begin(), batch_.end(), [](const ready_op& a, const ready_op& b) { return a.kind < b.kind; });
    for (const ready_op& r : batch_) {
      const op& o = s_.at(r.id);
      double t = 0;
      if (!initial) {
        t = cpu(rank, o.cpu);
        if (o.kind == op_kind::send) t = std::max(t, nic_s(rank, o.nic));
        if (p_.causal) t = std::max(t, ready_at_[r.id]);
      }
      push(t, r.id, static_cast<std::uint8_t>(o.kind));
    }
  }

  void finish() {
    const std::uint32_t p = s_.num_ranks();
    result_.finish_ns.resize(p);
    for (std::uint32_t r = 0; r < p; ++r) {
      double m = 0;
      for (unsigned c = 0; c < ncpu_; ++c) m = std::max(m, cpu(r, c));
      result_.finish_ns[r] = m;
    }
    report_unfinished();
  }

  void report_unfinished() {
    constexpr std::size_t max_lines = 20;
    std::vector<std::string>& out = result_.problems;
    std::uint64_t more = 0;
    auto add = [&](std::string line) {
      if (out.size() < max_lines) out.push_back(std::move(line));
      else ++more;
    };
    result_.eager_matched_as_rendezvous = eager_as_rendezvous_.size();
    for (const auto& [send, recv] : eager_as_rendezvous_)
      add(fmt::format("rank {}: receive {} matched eager send {} from the unexpected queue: LogGOPSim decides the "
                      "protocol there by the receive's size, rendezvous above S = {} bytes, and would complete the "
                      "send, done when it started, a second time",
                      s_.rank_of(recv), s_.describe(recv), s_.describe(send), p_.S));
    for (std::uint32_t r = 0; r < s_.num_ranks(); ++r) {
      rq_.for_each(r, [&](op_id id) {
        add(fmt::format("rank {}: receive {} was posted but no matching message arrived", r, s_.describe(id)));
      });
      uq_.for_each(r, [&](op_id id) {
        ++result_.unreceived;
        add(fmt::format("rank {}: the message of {} arrived but no receive matched it", r, s_.describe(id)));
      });
    }
    // For an operation that never started, one dependency it still waits for.
    std::vector<op_id> waits_for(s_.num_ops(), nil);
    for (op_id j = 0; j < s_.num_ops(); ++j) {
      if (state_[j] != done)
        for (op_id d : s_.done_dependents(j))
          if (waits_for[d] == nil) waits_for[d] = j;
      if (state_[j] == 0)
        for (op_id d : s_.start_dependents(j))
          if (waits_for[d] == nil) waits_for[d] = j;
    }
    for (op_id i = 0; i < s_.num_ops(); ++i) {
      if (state_[i] == done) continue;
      ++result_.unfinished;
      const op& o = s_.at(i);
      if (state_[i] == 0) {
        add(fmt::format("rank {}: {} never started: it waits for {}{}", s_.rank_of(i), s_.describe(i),
                        s_.describe(waits_for[i]),
                        left_[i] > 1 ? fmt::format(" and {} more", left_[i] - 1) : std::string()));
      } else if (o.kind == op_kind::send && o.size > p_.S && !uq_contains(o.peer, i)) {
        add(fmt::format("rank {}: rendezvous send {} was received but never completed: its receive matched it from "
                        "the unexpected queue and was not larger than S = {} bytes (LogGOPSim decides the protocol "
                        "there by the receive's size)",
                        s_.rank_of(i), s_.describe(i), p_.S));
      }
    }
    if (more) out.push_back(fmt::format("... and {} more", more));
    result_.complete = out.empty() && result_.unfinished == 0;
  }

  bool uq_contains(std::uint32_t rank, op_id id) const {
    bool found = false;
    uq_.for_each(rank, [&](op_id x) { found = found || x == id; });
    return found;
  }

  struct ready_op {
    op_kind kind;
    op_id id;
  };

  const schedule& s_;
  const loggops_params p_;
  sim_observer* obs_;
  const unsigned ncpu_, nnic_;
  std::vector<std::uint32_t> left_;
  enum : std::uint8_t { started = 1, done = 2 };
  std::vector<std::uint8_t> state_;  // 0, started or done
  std::vector<double> next_o_, next_gr_, next_gs_;
  std::vector<double> send_start_;
  std::vector<double> ready_at_, taken_in_;  // params.causal: when an operation may start; when a message was taken in
  match_queues rq_, uq_;
  detail::event_queue queue_;
  double now_ = 0;
  std::uint64_t next_ts_ = 0;
  std::vector<op_id> ready_;
  std::vector<std::pair<op_id, op_id>> eager_as_rendezvous_;  // (send, receive), reported by report_unfinished
  std::vector<ready_op> batch_;
  std::array<std::uint32_t, 4> touched_{};
  unsigned touched_n_ = 0;
  sim_result result_;
};

}  // namespace

sim_result simulate(const schedule& s, const loggops_params& p, sim_observer* observer) {
  validate(p);
  simulator sim(s, p, observer);
  return sim.run();
}

}  // namespace sidecore::model::sim
