// sidecore simulator — a per-rank DAG of send, recv and calc operations: the input of the LogGOPS
// simulator (docs/simulate.md). GOAL files (goal.hpp), the generators (generators.hpp), traces and
// sidecore's collective schedules are all turned into this one structure.
//
// Storage is flat: the operations of all ranks in one array, rank by rank, and the two kinds of
// dependency as compressed adjacency lists (per operation, the operations that wait for it), so
// that a 2^20-rank schedule is a handful of arrays and the simulator allocates nothing per event.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace sidecore::model::sim {

/// Operation kinds. The values are LogGOPSim's (OP_SEND 1, OP_RECV 2, OP_LOCOP 3): operations that
/// become ready together are ordered by kind, and the order decides ties for the CPU and the NIC.
enum class op_kind : std::uint8_t { send = 1, recv = 2, calc = 3 };

/// A receive from any source, or a message tag that matches any tag (GOAL's "-1").
inline constexpr std::uint32_t any_source = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint32_t any_tag = std::numeric_limits<std::uint32_t>::max();

using op_id = std::uint32_t;

/// One operation. For send and recv, `size` is in bytes and `peer` is the destination (send) or
/// the source (recv, possibly any_source); for calc, `size` is the computation time in ns and
/// `peer` and `tag` are 0. `cpu` and `nic` name the rank's CPU and NIC that execute it.
struct op {
  std::uint64_t size = 0;
  std::uint32_t peer = 0;
  std::uint32_t tag = 0;
  op_kind kind = op_kind::calc;
  std::uint8_t cpu = 0;
  std::uint8_t nic = 0;
};

/// An immutable schedule: num_ranks() ranks, each with its operations and dependencies.
/// Built by schedule_builder; operations are numbered 0..num_ops()-1, rank by rank, in the order
/// they were added for their rank.
class schedule {
 public:
  schedule() = default;

  [[nodiscard]] std::uint32_t num_ranks() const noexcept { return static_cast<std::uint32_t>(rank_begin_.size() - 1); }
  [[nodiscard]] std::uint32_t num_ops() const noexcept { return static_cast<std::uint32_t>(ops_.size()); }
  /// Number of CPUs and NICs per rank: one more than the largest index any operation names
  /// (LogGOPSim gives every rank the same count).
  [[nodiscard]] unsigned num_cpus() const noexcept { return num_cpus_; }
  [[nodiscard]] unsigned num_nics() const noexcept { return num_nics_; }

  /// The operations of rank r are [rank_begin(r), rank_end(r)).
  [[nodiscard]] op_id rank_begin(std::uint32_t r) const { return rank_begin_[r]; }
  [[nodiscard]] op_id rank_end(std::uint32_t r) const { return rank_begin_[r + 1]; }
  [[nodiscard]] std::uint32_t rank_of(op_id id) const { return rank_of_[id]; }
  [[nodiscard]] const op& at(op_id id) const { return ops_[id]; }
  [[nodiscard]] std::span<const op> ops() const noexcept { return ops_; }

  /// Operations that `require` id: they may start only once id is done.
  [[nodiscard]] std::span<const op_id> done_dependents(op_id id) const {
    return {done_adj_.data() + done_begin_[id], done_adj_.data() + done_begin_[id + 1]};
  }
  /// Operations that `irequire` id: they may start once id has started.
  [[nodiscard]] std::span<const op_id> start_dependents(op_id id) const {
    return {start_adj_.data() + start_begin_[id], start_adj_.data() + start_begin_[id + 1]};
  }
  /// How many dependencies (requires + irequires) op id waits for before it may start.
  [[nodiscard]] std::uint32_t num_dependencies(op_id id) const { return dep_count_[id]; }

  /// The operation's label in its source ("l3"), empty if it has none.
  [[nodiscard]] std::string_view label(op_id id) const;
  /// The line of its source it was read from, 0 if none.
  [[nodiscard]] std::uint32_t line(op_id id) const { return lines_.empty() ? 0 : lines_[id]; }
  /// Where the schedule came from (a file path, "binomial broadcast generator").
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  /// A name for messages: "l3 (rank 1, line 12: recv 8b from 0 tag 5)", or without a label
  /// "operation 3 of rank 1 (recv 8b from 0 tag 5)".
  [[nodiscard]] std::string describe(op_id id) const;

 private:
  friend class schedule_builder;
  std::vector<op> ops_;
  std::vector<std::uint32_t> rank_of_;
  std::vector<op_id> rank_begin_{0};
  std::vector<std::uint32_t> done_begin_, start_begin_;
  std::vector<op_id> done_adj_, start_adj_;
  std::vector<std::uint32_t> dep_count_;
  std::string label_chars_;
  std::vector<std::uint32_t> label_begin_;  // empty when no operation has a label
  std::vector<std::uint32_t> lines_;        // empty when no operation has a line
  std::string source_;
  unsigned num_cpus_ = 1, num_nics_ = 1;
};

/// Builds a schedule. Operations may be added for the ranks in any order; build() numbers them rank
/// by rank, keeping for each rank the order they were added in (which is the order they become
/// ready in when several are ready at once, as in a GOAL file). The handles returned by send(),
/// recv() and calc() are only for depend() and label(), and only until build().
class schedule_builder {
 public:
  /// `source` names the schedule in every error message (a file path, a generator's name).
  /// Throws std::invalid_argument when num_ranks is 0.
  schedule_builder(std::uint32_t num_ranks, std::string source);

  /// Throw std::invalid_argument naming the bad value when rank or peer is not a rank of the
  /// schedule (recv also accepts any_source), or cpu/nic does not fit in 0..255.
  op_id send(std::uint32_t rank, std::uint32_t to, std::uint64_t bytes, std::uint32_t tag = 0, unsigned cpu = 0,
             unsigned nic = 0);
  op_id recv(std::uint32_t rank, std::uint32_t from, std::uint64_t bytes, std::uint32_t tag = 0, unsigned cpu = 0,
             unsigned nic = 0);
  /// Local computation of `ns` nanoseconds on the rank's CPU `cpu`.
  op_id calc(std::uint32_t rank, std::uint64_t ns, unsigned cpu = 0);

  /// GOAL "a requires b": a may start only after b is done. Both must belong to one rank
  /// (std::invalid_argument otherwise).
  void depend(op_id a, op_id b);
  /// GOAL "a irequires b": a may start once b has started.
  void depend_on_start(op_id a, op_id b);
  /// Records the operation's label and source line for messages.
  void label(op_id id, std::string_view label, std::uint32_t line);

  [[nodiscard]] std::uint32_t num_ranks() const noexcept { return num_ranks_; }
  [[nodiscard]] std::uint64_t num_ops() const noexcept { return ops_.size(); }
  /// Reserves room for this many operations and dependencies (optional).
  void reserve(std::size_t ops, std::size_t dependencies);

  /// The most CPU and NIC clocks a schedule may ask the simulator for: ranks x (CPUs + NICs), every rank
  /// having as many of each as the largest index used asks for (1 GiB of clocks at most).
  static constexpr std::uint64_t max_clocks = std::uint64_t{1} << 26;

  /// Numbers the operations rank by rank and checks that no rank's dependencies form a cycle.
  /// Throws sidecore::input_error (source: the builder's source) naming the operations of a
  /// cycle, or the counts when the schedule asks for more than max_clocks clocks. The builder is
  /// empty afterwards.
  [[nodiscard]] schedule build();

 private:
  op_id add(std::uint32_t rank, const op& o);
  void check_same_rank(op_id a, op_id b, const char* what) const;
  struct edge {
    op_id from, to;  // `to` waits for `from`
    bool on_start;
  };
  std::uint32_t num_ranks_;
  std::string source_;
  std::vector<op> ops_;
  std::vector<std::uint32_t> rank_;
  std::vector<edge> edges_;
  struct label_ref {
    op_id op;
    std::uint32_t line, begin, length;  // the text is label_chars_[begin, begin + length)
  };
  std::vector<label_ref> labels_;
  std::string label_chars_;
  unsigned max_cpu_ = 0, max_nic_ = 0;
};

}  // namespace sidecore::model::sim
