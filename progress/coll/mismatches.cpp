// Collective calls that differ between ranks (mismatches.hpp).
#include "mismatches.hpp"

#include <algorithm>
#include <cstring>

#include <sidecore/progress/tag.hpp>

#include "instance.hpp"

namespace sidecore::progress {

coll_instance* mismatches::running(int comm, std::uint32_t instance) const noexcept {
  for (coll_instance* i = running_; i; i = i->watch_next_)
    if (i->comm().id() == comm && i->instance() == instance) return i;
  return nullptr;
}

// A persistent collective's instance number is the same for every start: what comes for it when it does not run is
// for its next start, never dropped.
bool mismatches::has_ended(int comm, std::uint32_t instance) const noexcept {
  if (instance & tag::coll_persistent) return false;
  return std::any_of(ended_.begin(), ended_.end(),
                     [&](const ended& e) { return e.comm == comm && e.instance == instance; });
}

int mismatches::rank_of(const coll_instance& i, std::uint32_t src_index) noexcept {
  for (int r = 0; r < i.comm().size(); ++r)
    if (static_cast<std::uint32_t>(i.comm().world(r)) == src_index) return r;
  return -1;
}

void mismatches::deliver(coll_instance& i, bool failure, int src_rank, const char* text, std::size_t len) noexcept {
  if (failure) i.failed_at(src_rank, text, len);
  else i.abort_by(src_rank, text, len);
}

void mismatches::listed(coll_instance& i) noexcept {
  i.watch_next_ = running_;
  running_ = &i;
  const int comm = i.comm().id();
  if (sigs_count_ != 0) {
    for (early_sig& s : sigs_) {
      if (s.comm != comm || s.instance != i.instance()) continue;
      s.comm = -1;
      --sigs_count_;
      if (s.sig != 0 && s.sig != i.plan().sig) i.mismatch_with(rank_of(i, s.src_index), s.sig);
    }
  }
  if (notices_count_ != 0) {
    for (early_notice& n : notices_) {
      if (n.comm != comm || n.instance != i.instance()) continue;
      n.comm = -1;
      --notices_count_;
      deliver(i, n.failure, rank_of(i, n.src_index), n.text, n.len);
    }
  }
}

void mismatches::retired(coll_instance& i) noexcept {
  for (coll_instance** p = &running_; *p; p = &(*p)->watch_next_) {
    if (*p != &i) continue;
    *p = i.watch_next_;
    i.watch_next_ = nullptr;
    ended_[ended_next_++ % ended_.size()] = {i.comm().id(), i.instance()};
    return;
  }
}

void mismatches::on_notice(void* ctx, std::uint64_t tag, std::uint32_t src_index, const char* text,
                           std::size_t len) noexcept {
  auto& self = *static_cast<mismatches*>(ctx);
  const int comm = tag::comm_of(tag);
  const std::uint32_t instance = tag::coll_instance_of(tag);
  const bool failure = (tag & tag::coll_msg_bits) == tag::coll_fail_msg;
  if (coll_instance* i = self.running(comm, instance)) {
    deliver(*i, failure, rank_of(*i, src_index), text, len);
    return;
  }
  if (self.has_ended(comm, instance)) return;
  early_notice& n = self.notices_[self.notices_next_++ % self.notices_.size()];
  if (n.comm < 0) ++self.notices_count_;
  n.comm = comm;
  n.instance = instance;
  n.src_index = src_index;
  n.failure = failure;
  n.len = std::min(len, text_max);
  if (n.len) std::memcpy(n.text, text, n.len);
}

void mismatches::on_unexpected(void* ctx, std::uint64_t tag, std::uint32_t src_index, std::uint64_t sig) noexcept {
  auto& self = *static_cast<mismatches*>(ctx);
  const int comm = tag::comm_of(tag);
  const std::uint32_t instance = tag::coll_instance_of(tag);
  if (coll_instance* i = self.running(comm, instance)) {
    if (sig != 0 && sig != i->plan().sig) i->mismatch_with(rank_of(*i, src_index), sig);
    return;
  }
  if (self.has_ended(comm, instance)) return;
  // One entry per instance, signature and sender is enough: a peer ahead of this rank sends many.
  for (const early_sig& s : self.sigs_)
    if (s.comm == comm && s.instance == instance && s.sig == sig && s.src_index == src_index) return;
  early_sig& s = self.sigs_[self.sigs_next_++ % self.sigs_.size()];
  if (s.comm < 0) ++self.sigs_count_;
  s = {comm, instance, src_index, sig};
}

}  // namespace sidecore::progress
