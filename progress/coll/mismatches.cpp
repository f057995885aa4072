// Collective calls that differ between ranks (mismatches.hpp).
#include "mismatches.hpp"

#include <algorithm>
#include <cstring>

#include <sidecore/progress/tag.hpp>

#include "instance.hpp"
#include "sentence.hpp"
#include "../src/wire.hpp"

namespace sidecore::progress {

mismatches::mismatches() : freed_(std::make_unique<std::atomic<std::uint32_t>[]>(tag::max_comms)) {}

std::uint32_t mismatches::epoch(int comm) const noexcept {
  return comm >= 0 && comm < tag::max_comms ? freed_[static_cast<std::size_t>(comm)].load(std::memory_order_acquire)
                                            : 0;
}

void mismatches::comm_freed(int comm) noexcept {
  if (comm >= 0 && comm < tag::max_comms)
    freed_[static_cast<std::size_t>(comm)].fetch_add(1, std::memory_order_acq_rel);
}

bool mismatches::listed_in(const std::array<ended, 64>& runs, int comm, std::uint32_t instance) const noexcept {
  const std::uint32_t now = epoch(comm);
  return std::any_of(runs.begin(), runs.end(), [&](const ended& e) {
    return e.comm == comm && e.instance == instance && e.epoch == now;
  });
}

coll_instance* mismatches::running(int comm, std::uint32_t instance) const noexcept {
  for (coll_instance* i = running_; i; i = i->watch_next_)
    if (i->comm().id() == comm && i->instance() == instance) return i;
  return nullptr;
}

// A persistent collective's instance number is the same for every start: what comes for it when it does not run is
// for its next start, never dropped.
bool mismatches::has_ended(int comm, std::uint32_t instance) const noexcept {
  if (instance & tag::coll_persistent) return false;
  return listed_in(ended_, comm, instance);
}

// Only runs that are not persistent are listed (what comes for a persistent one is for its next start).
bool mismatches::ended_early(int comm, std::uint32_t instance) const noexcept {
  return early_next_ != 0 && listed_in(early_, comm, instance);
}

int mismatches::rank_of(const coll_instance& i, std::uint32_t src_index) noexcept {
  for (int r = 0; r < i.comm().size(); ++r)
    if (static_cast<std::uint32_t>(i.comm().world(r)) == src_index) return r;
  return -1;
}

// Run numbers compared modulo 2^48 (what a header carries), as distances: runs far apart are never both alive.
mismatches::which_run mismatches::run_of(const coll_instance& i, const notice& n) noexcept {
  const std::uint64_t ahead = (n.run - i.run()) & sig_mask;
  if (ahead == 0) return which_run::this_one;
  return ahead < (sig_mask >> 1) ? which_run::later : which_run::earlier;
}

// A peer's text as this rank keeps it (`to`: text_max bytes): a rank sends no more, and more is cut visibly.
std::size_t mismatches::keep(char* to, const char* text, std::size_t len) noexcept {
  if (len != 0) std::memcpy(to, text, std::min(len, text_max));
  return cut_to(to, len, text_max);
}

void mismatches::deliver(coll_instance& i, const notice& n, const char* text, std::size_t len) noexcept {
  char kept[text_max];
  if (len > text_max) {
    len = keep(kept, text, len);
    text = kept;
  }
  const int src_rank = rank_of(i, n.src_index);
  if (n.failure) i.failed_at(src_rank, n.failed_send, text, len);
  else i.abort_by(src_rank, text, len, n.failed_send == notice_pass_on);
}

void mismatches::listed(coll_instance& i) noexcept {
  i.watch_next_ = running_;
  running_ = &i;
  const int comm = i.comm().id();
  if (early_next_ != 0 && !(i.instance() & tag::coll_persistent)) {
    // Instance numbers wrap (19 bits): a run that ended early half the number space ago is forgotten before its
    // number comes round again, whose messages may come before this rank starts it.
    for (ended& e : early_) {
      if (e.comm != comm) continue;
      const std::uint32_t since = (i.instance() - e.instance) & tag::coll_seq_bits;
      if (since == 0 || since > (tag::coll_seq_bits >> 1)) e.comm = -1;
    }
  }
  if (sigs_count_ != 0) {
    for (early_sig& s : sigs_) {
      if (s.comm != comm || s.instance != i.instance()) continue;
      s.comm = -1;
      --sigs_count_;
      if (s.sig != 0 && s.sig != i.plan().sig) i.mismatch_with(rank_of(i, s.src_index), s.sig);
    }
  }
  if (notices_count_ != 0) {
    for (early_notice& e : notices_) {
      if (e.comm != comm || e.instance != i.instance()) continue;
      const which_run w = run_of(i, e.n);
      if (w == which_run::later) continue;  // a persistent collective's next start
      e.comm = -1;
      --notices_count_;
      if (w == which_run::this_one) deliver(i, e.n, e.text, e.len);
    }
  }
}

void mismatches::retired(coll_instance& i) noexcept {
  for (coll_instance** p = &running_; *p; p = &(*p)->watch_next_) {
    if (*p != &i) continue;
    *p = i.watch_next_;
    i.watch_next_ = nullptr;
    const int comm = i.comm().id();
    ended_[ended_next_++ % ended_.size()] = {comm, i.instance(), epoch(comm)};
    if (i.failed_ && !i.persistent_ && i.eng_) {
      early_[early_next_++ % early_.size()] = {comm, i.instance(), epoch(comm)};
      core_of(*i.eng_).refuse_unexpected(i.base_tag_, tag::coll_msg_bits);
    } else if (!i.persistent_ && i.eng_ && !core_of(*i.eng_).failed()) {
      // A run that ended as planned took every message its schedule has: one of its instance still held here (it
      // came before the run started, or while it ran, and no receive took it) means its sender's call differs
      // (alltoallv's signature has no counts). Refused and its sender told, as one that comes later (on_unexpected):
      // left held, a rendezvous sender waited for its clear-to-send, and a rank waiting for this rank's part, for ever.
      // Not after the engine failed: a run it stopped did not take all its messages, and nothing is sent any more.
      core_of(*i.eng_).refuse_unexpected(i.base_tag_, tag::coll_msg_bits, true);
    }
    return;
  }
}

void mismatches::on_notice(void* ctx, const wire_hdr& h, const char* text) noexcept {
  auto& self = *static_cast<mismatches*>(ctx);
  const int comm = tag::comm_of(h.tag);
  const std::uint32_t instance = tag::coll_instance_of(h.tag);
  const notice n{h.src_index, (h.tag & tag::coll_msg_bits) == tag::coll_fail_msg, h.cookie, sig_of(h)};
  if (coll_instance* i = self.running(comm, instance)) {
    const which_run w = run_of(*i, n);
    if (w == which_run::this_one) deliver(*i, n, text, h.size);
    if (w != which_run::later) return;  // an earlier run of a persistent collective ended here already
  } else if (self.has_ended(comm, instance)) {
    return;
  }
  early_notice& e = self.notices_[self.notices_next_++ % self.notices_.size()];
  if (e.comm < 0) ++self.notices_count_;
  e.comm = comm;
  e.instance = instance;
  e.n = n;
  e.len = keep(e.text, text, h.size);
}

held_verdict mismatches::on_unexpected(void* ctx, std::uint64_t tag, std::uint32_t src_index,
                                       std::uint64_t sig) noexcept {
  auto& self = *static_cast<mismatches*>(ctx);
  const int comm = tag::comm_of(tag);
  const std::uint32_t instance = tag::coll_instance_of(tag);
  if (coll_instance* i = self.running(comm, instance)) {
    if (sig != 0 && sig != i->plan().sig) i->mismatch_with(rank_of(*i, src_index), sig);
    return held_verdict::hold;
  }
  if (self.ended_early(comm, instance)) return held_verdict::refuse;
  // A run that ended as planned took every message its schedule has: one more means the sender's call differs (a
  // count of 0 here runs nothing, and the other rank waits for this rank's part). A persistent collective's next
  // start uses the same instance, so its messages may come before it starts here: held.
  // A notice is never answered with one (two ranks whose runs both ended would tell each other for ever).
  if (self.has_ended(comm, instance))
    return (instance & tag::coll_persistent) || tag::is_coll_notice(tag) ? held_verdict::hold
                                                                         : held_verdict::refuse_and_tell;
  // One entry per instance, signature and sender is enough: a peer ahead of this rank sends many.
  for (const early_sig& s : self.sigs_)
    if (s.comm == comm && s.instance == instance && s.sig == sig && s.src_index == src_index) return held_verdict::hold;
  early_sig& s = self.sigs_[self.sigs_next_++ % self.sigs_.size()];
  if (s.comm < 0) ++self.sigs_count_;
  s = {comm, instance, src_index, sig};
  return held_verdict::hold;
}

}  // namespace sidecore::progress
