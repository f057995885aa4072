// The simulator's schedule: flat per-rank DAG (schedule.hpp).
#include "sidecore/model/sim/schedule.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"

namespace sidecore::model::sim {

namespace {

std::string op_text(const op& o) {
  auto who = [](std::uint32_t r) { return r == any_source ? std::string("-1") : std::to_string(r); };
  auto tag = [](std::uint32_t t) { return t == any_tag ? std::string("-1") : std::to_string(t); };
  switch (o.kind) {
    case op_kind::send: return fmt::format("send {}b to {} tag {}", o.size, who(o.peer), tag(o.tag));
    case op_kind::recv: return fmt::format("recv {}b from {} tag {}", o.size, who(o.peer), tag(o.tag));
    case op_kind::calc: return fmt::format("calc {}", o.size);
  }
  return "?";
}

}  // namespace

std::string_view schedule::label(op_id id) const {
  if (label_begin_.empty()) return {};
  return std::string_view(label_chars_).substr(label_begin_[id], label_begin_[id + 1] - label_begin_[id]);
}

std::string schedule::describe(op_id id) const {
  const std::uint32_t r = rank_of(id);
  const std::string_view l = label(id);
  const std::uint32_t ln = line(id);
  if (!l.empty())
    return ln ? fmt::format("{} (rank {}, line {}: {})", l, r, ln, op_text(at(id)))
              : fmt::format("{} (rank {}: {})", l, r, op_text(at(id)));
  return ln ? fmt::format("operation {} of rank {} (line {}: {})", id - rank_begin(r), r, ln, op_text(at(id)))
            : fmt::format("operation {} of rank {} ({})", id - rank_begin(r), r, op_text(at(id)));
}

schedule_builder::schedule_builder(std::uint32_t num_ranks, std::string source)
    : num_ranks_(num_ranks), source_(std::move(source)) {
  if (num_ranks == 0) throw std::invalid_argument(source_ + ": a schedule needs at least 1 rank, got 0");
}

void schedule_builder::reserve(std::size_t ops, std::size_t dependencies) {
  ops_.reserve(ops);
  rank_.reserve(ops);
  edges_.reserve(dependencies);
}

op_id schedule_builder::add(std::uint32_t rank, const op& o) {
  if (rank >= num_ranks_)
    throw std::invalid_argument(fmt::format("{}: rank {} is not a rank of this {}-rank schedule", source_, rank,
                                            num_ranks_));
  if (ops_.size() >= std::numeric_limits<op_id>::max() - 1)
    throw std::invalid_argument(fmt::format("{}: more than 2^32 - 2 operations", source_));
  max_cpu_ = std::max<unsigned>(max_cpu_, o.cpu);
  max_nic_ = std::max<unsigned>(max_nic_, o.nic);
  ops_.push_back(o);
  rank_.push_back(rank);
  return static_cast<op_id>(ops_.size() - 1);
}

namespace {
std::uint8_t unit_index(unsigned v, const std::string& source, const char* what) {
  if (v > 255) throw std::invalid_argument(fmt::format("{}: {} {} is not accepted; accepted: 0..255", source, what, v));
  return static_cast<std::uint8_t>(v);
}
}  // namespace

op_id schedule_builder::send(std::uint32_t rank, std::uint32_t to, std::uint64_t bytes, std::uint32_t tag, unsigned cpu,
                             unsigned nic) {
  if (to >= num_ranks_)
    throw std::invalid_argument(fmt::format("{}: rank {} sends to {}, which is not a rank of this {}-rank schedule",
                                            source_, rank, to, num_ranks_));
  return add(rank, op{bytes, to, tag, op_kind::send, unit_index(cpu, source_, "cpu"), unit_index(nic, source_, "nic")});
}

op_id schedule_builder::recv(std::uint32_t rank, std::uint32_t from, std::uint64_t bytes, std::uint32_t tag,
                             unsigned cpu, unsigned nic) {
  if (from >= num_ranks_ && from != any_source)
    throw std::invalid_argument(fmt::format(
        "{}: rank {} receives from {}, which is not a rank of this {}-rank schedule (nor -1, any source)", source_,
        rank, from, num_ranks_));
  return add(rank,
             op{bytes, from, tag, op_kind::recv, unit_index(cpu, source_, "cpu"), unit_index(nic, source_, "nic")});
}

op_id schedule_builder::calc(std::uint32_t rank, std::uint64_t ns, unsigned cpu) {
  return add(rank, op{ns, 0, 0, op_kind::calc, unit_index(cpu, source_, "cpu"), 0});
}

void schedule_builder::check_same_rank(op_id a, op_id b, const char* what) const {
  if (a >= ops_.size() || b >= ops_.size())
    throw std::invalid_argument(fmt::format("{}: {}: operation handle out of range", source_, what));
  if (rank_[a] != rank_[b])
    throw std::invalid_argument(fmt::format("{}: {}: an operation of rank {} cannot depend on one of rank {} "
                                            "(dependencies are local to a rank; messages link ranks)",
                                            source_, what, rank_[a], rank_[b]));
}

void schedule_builder::depend(op_id a, op_id b) {
  check_same_rank(a, b, "requires");
  edges_.push_back({b, a, false});
}

void schedule_builder::depend_on_start(op_id a, op_id b) {
  check_same_rank(a, b, "irequires");
  edges_.push_back({b, a, true});
}

void schedule_builder::label(op_id id, std::string_view text, std::uint32_t line) {
  if (id >= ops_.size()) throw std::invalid_argument(fmt::format("{}: label: operation handle out of range", source_));
  labels_.push_back(
      {id, line, static_cast<std::uint32_t>(label_chars_.size()), static_cast<std::uint32_t>(text.size())});
  label_chars_.append(text);
}

schedule schedule_builder::build() {
  const std::uint64_t clocks = std::uint64_t{num_ranks_} * (max_cpu_ + 1 + max_nic_ + 1);
  if (clocks > max_clocks)
    throw input_error(source_, "",
                      fmt::format("{} ranks x ({} CPUs + {} NICs): {} clocks, too many (the simulator keeps one for "
                                  "every CPU and NIC of every rank); accepted: at most {} (fewer ranks, or smaller cpu "
                                  "and nic indices)",
                                  num_ranks_, max_cpu_ + 1, max_nic_ + 1, clocks, max_clocks));
  schedule s;
  s.source_ = std::move(source_);
  s.num_cpus_ = max_cpu_ + 1;
  s.num_nics_ = max_nic_ + 1;
  const std::size_t n = ops_.size();

  // Number rank by rank, stable within a rank (a counting sort).
  s.rank_begin_.assign(num_ranks_ + 1, 0);
  for (std::uint32_t r : rank_) ++s.rank_begin_[r + 1];
  for (std::uint32_t r = 0; r < num_ranks_; ++r) s.rank_begin_[r + 1] += s.rank_begin_[r];
  std::vector<op_id> new_id(n);
  {
    std::vector<op_id> next(s.rank_begin_.begin(), s.rank_begin_.end() - 1);
    for (std::size_t i = 0; i < n; ++i) new_id[i] = next[rank_[i]]++;
  }
  s.ops_.resize(n);
  s.rank_of_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.ops_[new_id[i]] = ops_[i];
    s.rank_of_[new_id[i]] = rank_[i];
  }

  // Adjacency lists in the order the dependencies were declared (the order dependents become ready).
  s.done_begin_.assign(n + 1, 0);
  s.start_begin_.assign(n + 1, 0);
  s.dep_count_.assign(n, 0);
  for (const edge& e : edges_) {
    ++(e.on_start ? s.start_begin_ : s.done_begin_)[new_id[e.from] + 1];
    ++s.dep_count_[new_id[e.to]];
  }
  for (std::size_t i = 0; i < n; ++i) {
    s.done_begin_[i + 1] += s.done_begin_[i];
    s.start_begin_[i + 1] += s.start_begin_[i];
  }
  s.done_adj_.resize(s.done_begin_[n]);
  s.start_adj_.resize(s.start_begin_[n]);
  {
    std::vector<std::uint32_t> dfill(s.done_begin_.begin(), s.done_begin_.end() - 1);
    std::vector<std::uint32_t> sfill(s.start_begin_.begin(), s.start_begin_.end() - 1);
    for (const edge& e : edges_) {
      const op_id from = new_id[e.from];
      if (e.on_start) s.start_adj_[sfill[from]++] = new_id[e.to];
      else s.done_adj_[dfill[from]++] = new_id[e.to];
    }
  }

  if (!labels_.empty()) {
    s.lines_.assign(n, 0);
    std::vector<std::uint32_t> len(n + 1, 0), where(n, 0);
    for (const label_ref& l : labels_) {  // a later label of the same operation replaces the earlier
      len[new_id[l.op] + 1] = l.length;
      where[new_id[l.op]] = l.begin;
      s.lines_[new_id[l.op]] = l.line;
    }
    for (std::size_t i = 0; i < n; ++i) len[i + 1] += len[i];
    s.label_begin_ = len;
    s.label_chars_.resize(len[n]);
    for (std::size_t i = 0; i < n; ++i)
      std::copy_n(label_chars_.data() + where[i], len[i + 1] - len[i], s.label_chars_.data() + len[i]);
  }

  // Cycle check (Kahn): every operation must become ready once all others before it have run.
  {
    std::vector<std::uint32_t> left = s.dep_count_;
    std::vector<op_id> ready;
    ready.reserve(n);
    for (op_id i = 0; i < n; ++i)
      if (left[i] == 0) ready.push_back(i);
    std::size_t seen = 0;
    while (seen < ready.size()) {
      const op_id id = ready[seen++];
      for (op_id d : s.done_dependents(id))
        if (--left[d] == 0) ready.push_back(d);
      for (op_id d : s.start_dependents(id))
        if (--left[d] == 0) ready.push_back(d);
    }
    if (seen < n) {
      // Walk backwards from a blocked operation along unfinished dependencies until one repeats.
      std::vector<std::vector<op_id>> preds;  // only on this error path
      preds.resize(n);
      for (op_id i = 0; i < n; ++i) {
        for (op_id d : s.done_dependents(i)) preds[d].push_back(i);
        for (op_id d : s.start_dependents(i)) preds[d].push_back(i);
      }
      op_id cur = 0;
      while (left[cur] == 0) ++cur;
      std::vector<std::uint32_t> pos(n, std::numeric_limits<std::uint32_t>::max());
      std::vector<op_id> path;
      while (pos[cur] == std::numeric_limits<std::uint32_t>::max()) {
        pos[cur] = static_cast<std::uint32_t>(path.size());
        path.push_back(cur);
        for (op_id p : preds[cur])
          if (left[p] != 0) {
            cur = p;
            break;
          }
      }
      std::string chain = s.describe(cur);
      for (std::size_t i = path.size(); i-- > pos[cur];) chain += " -> " + s.describe(path[i]);
      throw input_error(s.source_, "", fmt::format("dependency cycle in rank {} (each operation waits for the one "
                                                   "before it; {} operations of the schedule can never start): {}",
                                                   s.rank_of(cur), n - seen, chain));
    }
  }

  *this = schedule_builder(num_ranks_, {});
  return s;
}

}  // namespace sidecore::model::sim
