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
// after its run ended (dropped: the last runs that ended are remembered). A persistent collective's instance is the
// same for every start: a notice carries its start number (coll_instance::run), so that one of a run that ended
// here is dropped and one of a run not started yet is kept for it. Everything here runs under the progress lock:
// messages arrive in the progress pass, and instances are listed and retired there.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace sidecore::progress {

class coll_instance;
struct wire_hdr;

class mismatches {
 public:
  /// The room for a notice's text (the sentence of the rank that saw the mismatch).
  static constexpr std::size_t text_max = 240;

  /// `i` runs (its first advance): what came for it before is looked at now.
  void listed(coll_instance& i) noexcept;
  /// `i`'s run ended: nothing goes to it any more.
  void retired(coll_instance& i) noexcept;
  /// The engine's hooks (engine_core::coll_msgs): an abort or failure notice (tag::is_coll_notice), its header and
  /// its text (h.size bytes); a collective message held as unexpected, with its signature.
  static void on_notice(void* ctx, const wire_hdr& h, const char* text) noexcept;
  static void on_unexpected(void* ctx, std::uint64_t tag, std::uint32_t src_index, std::uint64_t sig) noexcept;

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
  struct ended {  // a run that ended here
    int comm = -1;
    std::uint32_t instance = 0;
  };
  [[nodiscard]] coll_instance* running(int comm, std::uint32_t instance) const noexcept;
  [[nodiscard]] bool has_ended(int comm, std::uint32_t instance) const noexcept;
  static int rank_of(const coll_instance& i, std::uint32_t src_index) noexcept;
  static which_run run_of(const coll_instance& i, const notice& n) noexcept;
  static void deliver(coll_instance& i, const notice& n, const char* text, std::size_t len) noexcept;

  coll_instance* running_ = nullptr;  // intrusive list through coll_instance::watch_next_
  std::array<early_notice, 8> notices_{};
  std::size_t notices_next_ = 0, notices_count_ = 0;
  std::array<early_sig, 64> sigs_{};
  std::size_t sigs_next_ = 0, sigs_count_ = 0;
  std::array<ended, 64> ended_{};
  std::size_t ended_next_ = 0;
};

}  // namespace sidecore::progress
