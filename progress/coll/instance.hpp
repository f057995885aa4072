// One run of a plan: the schedule (progress/src/schedule.hpp) that the engine advances. Each send and receive of
// the plan becomes a child request of the engine (progressed by the progress thread in mode core); copies and
// reductions run inside advance(), in the progress pass; an operation starts once its dependencies completed, in
// the plan's order as far as they allow. The state of a run (dependencies left per operation, the ready queue, the
// children in flight) lives in vectors sized when the instance is prepared: advancing allocates nothing.
//
// Failures. A receive whose message is not what this rank's schedule expects (another signature, another size) fails
// the run with req_result::invalid and ends it, after telling every other rank of the communicator (mismatches.hpp:
// their schedules may have another shape and wait for messages this one never sends); a rank told so ends its run the
// same way. A child that fails in the transport ends the run too, with req_result::transport, after telling every
// other rank of the communicator in a failure notice (they may wait for messages this rank will never send); a rank
// told so ends its run with req_result::transport and the failed rank's sentence, and abandons the receive that
// waits for the data of the failed send the notice names (docs/collectives.md, "When a run fails"). Ending a run: no
// operation starts any more, receives that no message matched are cancelled, sends that wait for a clear-to-send are
// detached (engine_core::cancel_child), and the run completes
// once its other children have (a truncated receive wrote no more than the schedule's size; every operation stays
// inside this rank's buffers). A dead peer needs no notice: every rank finds it (liveness.cpp). The sentence for
// engine users comes from coll_executor::describe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <sidecore/progress/collective.hpp>

#include "mismatches.hpp"
#include "engine_core.hpp"
#include "plan.hpp"

namespace sidecore::progress {

class coll_instance final : public schedule {
 public:
  explicit coll_instance(coll_executor& owner) : owner_(owner) {}

  /// Binds the instance to plan `p` of `c` with buffers `b`: per-operation state and scratch sized for it. An
  /// application thread, while the instance does not run. Throws std::bad_alloc.
  void prepare(const std::shared_ptr<coll_comm>& c, const std::shared_ptr<const coll_plan>& p, const coll_buffers& b,
               bool persistent);
  /// Resets the run state for a start as instance `instance` (the wire tag's) and monitoring number `seq`; `run`
  /// counts the starts of a persistent collective (0 for the others), alike on every rank.
  void reset(std::uint32_t instance, std::uint64_t seq, std::uint64_t run = 0) noexcept;

  step advance(engine_core& e) noexcept override;
  [[nodiscard]] bool caller_may_start() const noexcept override;  // no first-round copy above caller_step_max
  void on_child_complete(const completion& c, std::uint64_t token) noexcept override;
  [[nodiscard]] req_result result() const noexcept override { return result_; }
  bool on_peer_failed(int address) noexcept override;
  void retire() noexcept override;

  [[nodiscard]] const coll_plan& plan() const noexcept { return *plan_; }
  [[nodiscard]] coll_comm& comm() const noexcept { return *comm_; }
  [[nodiscard]] std::uint64_t seq() const noexcept { return seq_; }
  /// The start of a persistent collective this run is (0, 1, 2, ...; 0 for the others): what tells one run's
  /// notices from another's, whatever order the ranks start their persistent collectives in.
  [[nodiscard]] std::uint64_t run() const noexcept { return run_; }
  /// The wire tag's instance number of this run.
  [[nodiscard]] std::uint32_t instance() const noexcept { return instance_; }
  /// Rank `src_rank` of the communicator (-1: not known) found that the ranks' calls differ and said `text`: this run
  /// ends with req_result::invalid (under the progress lock; the instance is advanced next).
  /// pass_on: the notice came from a rank whose run had ended (wire.hpp, notice_pass_on): this rank tells the others.
  void abort_by(int src_rank, const char* text, std::size_t len, bool pass_on) noexcept;
  /// Rank `src_rank` of the communicator (-1: not known) ended its run of this instance after a transport failure it
  /// described in `text`; `failed_send` (0: none) is the handle there of its failed send to this rank. This run ends
  /// with req_result::transport, and abandons the receive that waits for that send's data (under the progress lock;
  /// advanced next).
  void failed_at(int src_rank, std::uint64_t failed_send, const char* text, std::size_t len) noexcept;
  /// A message from rank `src_rank` (-1: not known) carries signature `theirs`, not this run's: this rank saw the
  /// mismatch; the run ends with req_result::invalid and tells the other ranks (under the progress lock).
  void mismatch_with(int src_rank, std::uint64_t theirs) noexcept;
  /// Drops the plan, the communicator and the scratch above `keep_scratch` bytes (a pooled instance).
  void unbind(std::size_t keep_scratch) noexcept;

  /// A persistent instance's owner and its run: running while started and not retired; released: its owner let go
  /// of it meanwhile, so retire() deletes it.
  enum class life : int { idle, running, released };
  std::atomic<life> state{life::idle};

 private:
  friend class mismatches;
  void op_done(std::uint32_t i) noexcept;
  void mismatch() noexcept;   // this rank saw it: end the run, tell the others
  void fail_here(const char* sentence) noexcept;  // a transport failure of this rank: end the run, tell the others
  enum class notice_kind : std::uint8_t { none, abort, failure };
  void queue_notices(notice_kind k, const char* sentence) noexcept;
  void send_notices(engine_core& e) noexcept;
  void send_late_notices(engine_core& e) noexcept;
  void notice_to(engine_core& e, int rank, const char* text, std::size_t len, std::uint32_t msg,
                 std::uint64_t cookie) noexcept;
  step leave_rest(engine_core& e) noexcept;  // a large local step met by a starting caller: the thread does it
  step end_run(engine_core& e) noexcept;  // the notices owed, then give_up
  step give_up(engine_core& e) noexcept;
  void fail(req_result why) noexcept;
  // The run cannot go on: a transport failure, or a dead peer (the run gives up, whatever else it found).
  [[nodiscard]] bool ended() const noexcept {
    return result_ == req_result::transport || result_ == req_result::peer_failed;
  }
  [[nodiscard]] std::byte* base(coll::buffer b) const noexcept;

  coll_executor& owner_;
  std::shared_ptr<coll_comm> comm_;
  std::shared_ptr<const coll_plan> plan_;
  bool persistent_ = false;
  const std::byte* send_ = nullptr;
  std::byte* recv_ = nullptr;
  coll_user_op user_;
  std::unique_ptr<std::byte[]> scratch_;
  std::size_t scratch_capacity_ = 0;
  // run state
  std::vector<std::uint32_t> remaining_;  // dependencies not yet complete, per operation
  std::vector<std::uint32_t> ready_;      // operations whose dependencies completed, in that order
  std::uint32_t head_ = 0, tail_ = 0;     // ready_[head_ .. tail_) wait to start
  std::vector<std::uint64_t> child_;  // per operation: its child's handle while in flight, 0 before, done_mark after
  std::uint32_t in_flight_ = 0;           // children started and not complete
  std::uint32_t done_ = 0;                // operations complete
  std::uint64_t base_tag_ = 0;            // the wire tag of message 0 of this run
  std::uint64_t seq_ = 0;
  std::uint64_t run_ = 0;
  std::uint32_t instance_ = 0;
  bool failed_ = false, gave_up_ = false;
  bool ending_ = false;          // a mismatch (ours or a peer's): the run ends (give_up)
  // Ours: the kind queued and not sent yet, and those sent (each kind once, each with its own text, alive until its
  // notices completed; a queued failure notice is never replaced by an abort notice).
  notice_kind queued_ = notice_kind::none;
  bool sent_abort_ = false, sent_failure_ = false;
  std::size_t abort_len_ = 0, failure_len_ = 0;
  char abort_text_[mismatches::text_max] = {};
  char failure_text_[mismatches::text_max] = {};
  // Per rank: the handle of this run's first failed send to it, or 0 (named by the failure notice to that rank).
  std::vector<std::uint64_t> our_failed_;
  // Failed sends that notice could not name (a second one to the same rank, or one that failed after it went):
  // each goes in a failure notice of its own to its receiver, from the next advance (rank, handle).
  std::vector<std::pair<int, std::uint64_t>> late_failed_;
  // The other ranks' failed sends to this rank that their notices named: the receives of those wait for data that
  // will never come (at most one per receive of the plan).
  std::vector<engine_core::failed_send> their_failed_;
  bool listed_ = false;          // in the executor's mismatches (from the first advance to retire)
  coll_instance* watch_next_ = nullptr;
  req_result result_ = req_result::ok;
  engine* eng_ = nullptr;                 // for describing a child's transport failure
  char text_[coll_reason_max] = {};       // why it failed
};

}  // namespace sidecore::progress
