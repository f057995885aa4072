// Collective calls that differ between ranks (docs/collectives.md, "Signatures and mismatches"). Ranks whose calls
// of one collective differ (kind, type, operator, root, count) may build schedules of different shapes: another
// algorithm, other segments, other message numbers. A message then meets no receive of the same number, or one of
// another size, and each rank would wait for messages the other never sends. So:
//  - a message of a collective that this rank holds as unexpected (no posted receive took it) is compared with the
//    instance it belongs to: another signature is a mismatch, seen at once if the instance runs here, else when it
//    starts (the signature is kept until then);
//  - the first rank that sees a mismatch (here, or in a receive: coll_instance) ends its run and sends every other
//    rank of the communicator an abort notice (an eager message with the instance's tag and the reserved message
//    number tag::coll_abort_msg, carrying its sentence); a rank that gets one ends its run of that instance the
//    same way, with errc::invalid_argument naming the rank that saw the mismatch and what it saw.
// The failure notices of runs that failed in the transport (coll_instance, tag::coll_fail_msg) travel the same way
// and are kept the same way: a rank that gets one ends its run with errc::transport and the failed rank's sentence.
// A notice or a message can come before this rank started the instance (kept, and looked at when it starts) or
// after its run ended (dropped: the last runs that ended are remembered). A message of a run that ended early here
// (a mismatch, a failure) would be held for ever: the engine refuses it instead (engine_core::refuse_message: eager
// data dropped, a ready-to-send answered with an empty clear-to-send, so that its sender's send completes), both
// those held when the run retires and those that come after (the last runs that ended early are remembered; a
// freed communicator's are forgotten, so that a new communicator given its id never has its messages refused).
// A persistent collective's instance is the same for every start: a notice carries its start number
// (coll_instance::run), so that one of a run that ended here is dropped and one of a run not started yet is kept for
// it. Everything here runs under the progress lock (messages arrive in the progress pass, and instances are listed
// and retired there), but comm_freed.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace sidecore::progress {

class coll_instance;
struct wire_hdr;
enum class held_verdict : std::uint8_t;

class mismatches {
 public:
  mismatches();
  /// The room for a notice's text (the sentence of the rank that saw the mismatch or failed), no terminator: the
  /// longest sentence a rank makes of its own, or passes on (instance.cpp checks them against it). A rank sends no
  /// more; it may send less, cut to its eager size (coll_instance::send_notices).
  static constexpr std::size_t text_max = 576;

  /// `i` runs (its first advance): what came for it before is looked at now.
  void listed(coll_instance& i) noexcept;
  /// `i`'s run ended: nothing goes to it any more. One that ended early (failed) has the engine refuse the messages
  /// of its instance held here, now and as they come.
  void retired(coll_instance& i) noexcept;
  /// Communicator `comm` was freed (an application thread, any time): what is remembered of its runs no longer
  /// applies to the communicator that gets its id next.
  void comm_freed(int comm) noexcept;
  /// The engine's hooks (engine_core::coll_msgs): an abort or failure notice (tag::is_coll_notice), its header and
  /// its text (h.size bytes); a collective message about to be held as unexpected, with its signature: whether to
  /// hold it, refuse it (its run ended early here), or refuse it and tell its sender (its run ended as planned).
  static void on_notice(void* ctx, const wire_hdr& h, const char* text) noexcept;
  static held_verdict on_unexpected(void* ctx, std::uint64_t tag, std::uint32_t src_index, std::uint64_t sig) noexcept;

 private:
  struct notice {  // what a notice says (text: its sender's sentence, len bytes)
    std::uint32_t src_index = 0;
    bool failure = false;          // a failure notice (else an abort notice)
    std::uint64_t failed_send = 0;  // a failure notice: the handle of the sender's failed send to this rank, or 0
    std::uint64_t run = 0;          // the run's start number (coll_instance::run), its low 48 bits
  };
  struct early_notice {  // a notice for an instance that has not started here yet
    int comm = -1;
    std::uint32_t instance = 0;
    notice n;
    std::size_t len = 0;
    char text[text_max] = {};
  };
  enum class which_run { this_one, earlier, later };
  struct early_sig {  // the signature of a message for an instance that has not started here yet
    int comm = -1;
    std::uint32_t instance = 0;
    std::uint32_t src_index = 0;
    std::uint64_t sig = 0;
  };
  struct ended {  // a run that ended here, while its communicator had freed_[comm] == epoch
    int comm = -1;
    std::uint32_t instance = 0;
    std::uint32_t epoch = 0;
  };
  [[nodiscard]] coll_instance* running(int comm, std::uint32_t instance) const noexcept;
  [[nodiscard]] bool has_ended(int comm, std::uint32_t instance) const noexcept;
  [[nodiscard]] bool ended_early(int comm, std::uint32_t instance) const noexcept;
  [[nodiscard]] bool listed_in(const std::array<ended, 64>& runs, int comm, std::uint32_t instance) const noexcept;
  [[nodiscard]] std::uint32_t epoch(int comm) const noexcept;
  static int rank_of(const coll_instance& i, std::uint32_t src_index) noexcept;
  static which_run run_of(const coll_instance& i, const notice& n) noexcept;
  static std::size_t keep(char* to, const char* text, std::size_t len) noexcept;
  static void deliver(coll_instance& i, const notice& n, const char* text, std::size_t len) noexcept;

  coll_instance* running_ = nullptr;  // intrusive list through coll_instance::watch_next_
  std::array<early_notice, 8> notices_{};
  std::size_t notices_next_ = 0, notices_count_ = 0;
  std::array<early_sig, 64> sigs_{};
  std::size_t sigs_next_ = 0, sigs_count_ = 0;
  std::array<ended, 64> ended_{};
  std::size_t ended_next_ = 0;
  std::array<ended, 64> early_{};  // runs that ended early (failed)
  std::size_t early_next_ = 0;
  // Per communicator id: how many times it was freed (written by application threads, read under the lock).
  std::unique_ptr<std::atomic<std::uint32_t>[]> freed_;
};

}  // namespace sidecore::progress
