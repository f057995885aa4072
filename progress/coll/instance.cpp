// A run of a plan (instance.hpp).
#include "instance.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include <sidecore/progress/tag.hpp>

#include "../src/copy.hpp"
#include "../src/wire.hpp"
#include "reduce.hpp"
#include "sentence.hpp"
#include "signature.hpp"

namespace sidecore::progress {
namespace {
// child_[i] of an operation whose child completed (a handle is never ~0: engine.hpp's handles have bit 63 clear).
constexpr std::uint64_t done_mark = ~std::uint64_t{0};
// The token of a notice's send (an operation's token is its index, below 2^32 - 1).
constexpr std::uint64_t notice_token = ~std::uint32_t{0};

// The sentences of a failed run (sentence.hpp): its own, each of which must travel whole in a notice (text_max),
// and those that put a peer's notice text after the rank and collective it came from (coll_reason_max).
constexpr char every_fmt[] =
    "%s; every rank must call the same collective with the same type, operator, root and count";
constexpr char truncated_fmt[] =
    "rank %d sent more than the %llu bytes this rank's %.*s expects in message %u: the counts, types or segment "
    "sizes (set_coll_segment) differ between ranks; every rank must pass the same count and segment size";
constexpr char sized_fmt[] =
    "rank %d sent %llu bytes where this rank's %.*s expects %llu in message %u: the counts, types or segment sizes "
    "(set_coll_segment) differ between ranks; every rank must pass the same count and segment size";
constexpr char no_slot_fmt[] = "no request slot left for a %s rank %d";
constexpr char transport_fmt[] = "the %.*s's %s rank %d failed in the transport: %s";
constexpr char died_fmt[] = "the %.*s's %s rank %d failed: that rank died (rank %d of sidecore::world())";
constexpr char gone_fmt[] =
    "the %.*s could not complete: rank %d of its communicator (rank %d of sidecore::world()) died";
constexpr char failed_at_fmt[] = "rank %d of the communicator could not go on with the %.*s: %.*s";
constexpr char abort_by_fmt[] = "rank %d found that the ranks' %.*s calls differ: %.*s";
// What a notice that came without a sentence (a header-only one, or an eager size too small for any) stands for.
constexpr char no_sentence[] = "(its notice came without its sentence)";

constexpr std::size_t coll_kind_chars = longest(coll::kind_names);
constexpr std::size_t dir_chars = std::string_view("receive from").size();  // or "send to"
static_assert(printed(every_fmt, explain_max - 1) <= mismatches::text_max &&
                  printed(truncated_fmt, int_chars + u64_chars + coll_kind_chars + u32_chars) <= mismatches::text_max &&
                  printed(sized_fmt, int_chars + 2 * u64_chars + coll_kind_chars + u32_chars) <= mismatches::text_max,
              "a rank's own sentence of a mismatch travels whole in its notices");
// A rank told by the engine that its message came after the other rank's run had ended passes its sentence on.
static_assert(printed(abort_by_fmt, int_chars + coll_kind_chars + sizeof run_ended_text - 1) <= mismatches::text_max,
              "a sentence passed on travels whole");
static_assert(printed(failed_at_fmt, int_chars + coll_kind_chars + mismatches::text_max) < coll_reason_max &&
                  printed(abort_by_fmt, int_chars + coll_kind_chars + mismatches::text_max) < coll_reason_max &&
                  printed(died_fmt, coll_kind_chars + dir_chars + 2 * int_chars) < coll_reason_max &&
                  printed(gone_fmt, coll_kind_chars + 2 * int_chars) < coll_reason_max,
              "a run's sentence with a peer's notice text in it is whole");
constexpr std::size_t no_slot_max = printed(no_slot_fmt, dir_chars + int_chars) + 1;

// Pointer and length of a kind's name for "%.*s".
int name_len(coll::kind k) noexcept { return static_cast<int>(coll::kind_name(k).size()); }
const char* name_of(coll::kind k) noexcept { return coll::kind_name(k).data(); }

// The sentence of a signature that is not this run's, from rank `peer`.
void explain_mismatch(char* out, std::size_t n, const coll_plan& p, std::uint64_t theirs, int peer) noexcept {
  char what[explain_max];
  explain_signature(what, sizeof what, p.sig, theirs, p.spec, peer);
  write_sentence(out, n, every_fmt, what);
}
}  // namespace

void coll_instance::prepare(const std::shared_ptr<coll_comm>& c, const std::shared_ptr<const coll_plan>& p,
                            const coll_buffers& b, bool persistent) {
  const std::uint32_t n = p->ops();
  remaining_.resize(n);
  ready_.resize(n);
  child_.resize(n);
  our_failed_.resize(static_cast<std::size_t>(c->size()));
  late_failed_.clear();
  late_failed_.reserve(p->sends);  // appended under the progress lock, never beyond: no allocation there
  their_failed_.clear();
  their_failed_.reserve(p->recvs);
  if (scratch_capacity_ < p->sched.tmp_bytes) {
    scratch_.reset();  // the old one first: the two need not fit in memory together
    scratch_capacity_ = 0;
    scratch_.reset(new std::byte[p->sched.tmp_bytes]);
    scratch_capacity_ = p->sched.tmp_bytes;
  }
  comm_ = c;
  plan_ = p;
  set_xfer_op(static_cast<std::uint8_t>(static_cast<int>(p->spec.k) + 1));  // the instrumentation's op kind
  persistent_ = persistent;
  send_ = static_cast<const std::byte*>(b.send);
  recv_ = static_cast<std::byte*>(b.recv);
  user_ = b.user;
  eng_ = nullptr;
}

void coll_instance::unbind(std::size_t keep_scratch) noexcept {
  comm_.reset();
  plan_.reset();
  if (scratch_capacity_ > keep_scratch) {
    scratch_.reset();
    scratch_capacity_ = 0;
  }
}

void coll_instance::reset(std::uint32_t instance, std::uint64_t seq, std::uint64_t run) noexcept {
  const coll_plan& p = *plan_;
  const std::uint32_t n = p.ops();
  for (std::uint32_t i = 0; i < n; ++i) remaining_[i] = p.sched.ops[i].dep_count;
  std::fill(child_.begin(), child_.end(), std::uint64_t{0});
  std::copy(p.roots.begin(), p.roots.end(), ready_.begin());
  head_ = 0;
  tail_ = static_cast<std::uint32_t>(p.roots.size());
  in_flight_ = 0;
  done_ = 0;
  base_tag_ = tag::make_coll(comm_->id(), instance, 0);
  instance_ = instance & tag::coll_instance_bits;
  seq_ = seq;
  run_ = run;
  failed_ = gave_up_ = ending_ = listed_ = false;
  queued_ = notice_kind::none;
  sent_abort_ = sent_failure_ = false;
  std::fill(our_failed_.begin(), our_failed_.end(), std::uint64_t{0});
  late_failed_.clear();
  their_failed_.clear();
  result_ = req_result::ok;
  text_[0] = '\0';
}

std::byte* coll_instance::base(coll::buffer b) const noexcept {
  switch (b) {
    case coll::buffer::send: return const_cast<std::byte*>(send_);  // only read (coll::op: nothing writes send)
    case coll::buffer::recv: return recv_;
    case coll::buffer::tmp: return scratch_.get();
  }
  return nullptr;
}

void coll_instance::op_done(std::uint32_t i) noexcept {
  ++done_;
  const coll_plan& p = *plan_;
  for (std::uint32_t k = p.dependents_first[i]; k < p.dependents_first[i + 1]; ++k) {
    const std::uint32_t d = p.dependents[k];
    if (--remaining_[d] == 0) ready_[tail_++] = d;
  }
}

void coll_instance::fail(req_result why) noexcept {
  // A transport failure or a dead peer ends the run, even after a mismatch.
  if (why == req_result::transport || why == req_result::peer_failed) {
    if (ended()) return;  // the first is the one reported
    result_ = why;
  }
  if (failed_) return;
  failed_ = true;
  result_ = why;
}

// This rank's transport failed a child (`sentence` says how): the run ends, if nothing ended it before, and the other
// ranks are told whatever else ended it (they may wait for messages this rank will now never send, and the receiver
// of a failed send for its data: the failure notice names the send).
void coll_instance::fail_here(const char* sentence) noexcept {
  if (!ended()) {
    write_sentence(text_, sizeof text_, "%s", sentence);
    fail(req_result::transport);
  }
  queue_notices(notice_kind::failure, sentence);
}

void coll_instance::mismatch() noexcept {
  fail(req_result::invalid);
  ending_ = true;
  queue_notices(notice_kind::abort, text_);
}

// The notices say this rank's own sentence as it is now (a notice from another rank may rewrite text_ before they
// go). Each kind goes once, from its own buffer (its text stays as it is until its notices completed); a failure
// notice replaces an abort notice not sent yet, never the other way round.
void coll_instance::queue_notices(notice_kind k, const char* sentence) noexcept {
  const bool failure = k == notice_kind::failure;
  if (failure ? (sent_failure_ || queued_ == notice_kind::failure)
              : (sent_abort_ || sent_failure_ || queued_ != notice_kind::none))
    return;
  queued_ = k;
  char* text = failure ? failure_text_ : abort_text_;
  std::size_t& len = failure ? failure_len_ : abort_len_;
  const std::size_t whole = std::strlen(sentence);
  std::memcpy(text, sentence, std::min(whole, mismatches::text_max));
  len = cut_to(text, whole, mismatches::text_max);
}

void coll_instance::mismatch_with(int src_rank, std::uint64_t theirs) noexcept {
  if (!failed_) explain_mismatch(text_, sizeof text_, *plan_, theirs, src_rank);
  mismatch();
  if (eng_) core_of(*eng_).ready.push(this);
}

void coll_instance::failed_at(int src_rank, std::uint64_t failed_send, const char* text, std::size_t len) noexcept {
  if (!ended()) {
    if (len == 0) {
      text = no_sentence;
      len = sizeof no_sentence - 1;
    }
    write_sentence(text_, sizeof text_, failed_at_fmt, src_rank, name_len(plan_->spec.k), name_of(plan_->spec.k),
                   static_cast<int>(std::min(len, mismatches::text_max)), text);
    fail(req_result::transport);
  }
  // Even after this run ended (given up already, by its own failure, say): the receive that waits for the failed
  // send's data is abandoned at the next advance.
  if (src_rank >= 0 && failed_send != 0) {
    const engine_core::failed_send f{comm_->world(src_rank), failed_send};
    const bool known = std::any_of(their_failed_.begin(), their_failed_.end(), [&](const engine_core::failed_send& k) {
      return k.peer == f.peer && k.handle == f.handle;
    });
    if (!known && their_failed_.size() < their_failed_.capacity()) {
      their_failed_.push_back(f);
      gave_up_ = false;
    }
  }
  if (eng_) core_of(*eng_).ready.push(this);
}

void coll_instance::abort_by(int src_rank, const char* text, std::size_t len, bool pass_on) noexcept {
  if (!failed_) {
    if (len == 0) {
      text = no_sentence;
      len = sizeof no_sentence - 1;
    }
    write_sentence(text_, sizeof text_, abort_by_fmt, src_rank, name_len(plan_->spec.k), name_of(plan_->spec.k),
                   static_cast<int>(std::min(len, mismatches::text_max)), text);
    fail(req_result::invalid);
  }
  ending_ = true;
  if (pass_on) queue_notices(notice_kind::abort, text_);
  if (eng_) core_of(*eng_).ready.push(this);
}

// Every other rank of the communicator gets the queued notice's sentence, best effort: a notice that finds no request
// slot is not sent. A notice goes as one eager message (a ready-to-send would wait for an answer no rank gives): a
// sentence larger than the engine's eager size (SIDECORE_EAGER_MAX, or the provider's inject size) is cut to it.
// The header carries the run's start number (where a signature goes: a notice of one start of a persistent
// collective is told from one of the next), and a failure notice the handle of this rank's failed send to that rank
// (cookie; 0: none), whose receive there waits for data that will never come.
void coll_instance::send_notices(engine_core& e) noexcept {
  const bool failure = queued_ == notice_kind::failure;
  queued_ = notice_kind::none;
  (failure ? sent_failure_ : sent_abort_) = true;
  char* text = failure ? failure_text_ : abort_text_;
  std::size_t& kept = failure ? failure_len_ : abort_len_;
  kept = cut_to(text, kept, e.eager_max());
  const std::size_t len = kept;
  const std::uint32_t msg = failure ? tag::coll_fail_msg : tag::coll_abort_msg;
  const int me = comm_->rank();
  for (int r = 0; r < comm_->size(); ++r)
    if (r != me) notice_to(e, r, text, len, msg, failure ? our_failed_[static_cast<std::size_t>(r)] : 0);
}

// One notice to rank `rank`: best effort, as a child of this run (its text stays until it completed).
void coll_instance::notice_to(engine_core& e, int rank, const char* text, std::size_t len, std::uint32_t msg,
                              std::uint64_t cookie) noexcept {
  ++in_flight_;
  if (e.start_child_send(*this, notice_token, text, len, comm_->world(rank), base_tag_ | msg, comm_->rank(),
                         run_ & sig_mask, cookie) == 0)
    --in_flight_;
}

// A failure notice of its own for each failed send the first notices did not name, to its receiver only (the same
// sentence, the send's handle as the cookie): the receive there that took its ready-to-send is abandoned.
void coll_instance::send_late_notices(engine_core& e) noexcept {
  failure_len_ = cut_to(failure_text_, failure_len_, e.eager_max());
  for (const auto& [rank, handle] : late_failed_)
    notice_to(e, rank, failure_text_, failure_len_, tag::coll_fail_msg, handle);
  late_failed_.clear();
}

schedule::step coll_instance::advance(engine_core& e) noexcept {
  eng_ = &e;
  if (!listed_) {
    listed_ = true;
    owner_.mismatches_->listed(*this);
  }
  if (ended() || ending_) return end_run(e);
  const coll_plan& p = *plan_;
  const int me = comm_->rank();
  while (head_ < tail_) {
    const std::uint32_t i = ready_[head_++];
    const coll::op& o = p.sched.ops[i];
    if (coll::is_local(o.type) && !e.caller_may_do(o.bytes)) return leave_rest(e);
    switch (o.type) {
      case coll::op_type::send: {
        ++in_flight_;  // first: the child may complete inside the call (an injected message)
        const std::uint64_t h = e.start_child_send(*this, i, base(o.src_buf) + o.src_off, o.bytes, p.peer_world[i],
                                                   base_tag_ | o.tag, me, p.sig);
        if (h == 0) {
          --in_flight_;
          char why[no_slot_max];
          std::snprintf(why, sizeof why, no_slot_fmt, "send to", o.peer);
          fail_here(why);
        } else if (child_[i] != done_mark) {
          child_[i] = h;
        }
        break;
      }
      case coll::op_type::recv: {
        ++in_flight_;
        const std::uint64_t h = e.start_child_recv(*this, i, base(o.dst_buf) + o.dst_off, o.bytes, p.peer_world[i],
                                                   base_tag_ | o.tag, 0);
        if (h == 0) {
          --in_flight_;
          char why[no_slot_max];
          std::snprintf(why, sizeof why, no_slot_fmt, "receive from", o.peer);
          fail_here(why);
        } else if (child_[i] != done_mark) {
          child_[i] = h;
        }
        break;
      }
      case coll::op_type::copy:
        copy_bytes(base(o.dst_buf) + o.dst_off, base(o.src_buf) + o.src_off, o.bytes);
        op_done(i);
        break;
      case coll::op_type::reduce:
        reduce_bytes(p.spec.type, p.spec.op, user_, base(o.src_buf) + o.src_off, base(o.dst_buf) + o.dst_off, o.bytes,
                     o.dst_first);
        op_done(i);
        break;
    }
    if (ended()) return end_run(e);
  }
  return done_ == p.ops() ? step::done : step::wait;
}

bool coll_instance::caller_may_start() const noexcept {
  return plan_->largest_root_step <= engine_core::caller_step_max;
}

// An application thread starting the run (start_while_asleep) came to a large local step: it and what follows are
// the progress thread's, from its next pass.
schedule::step coll_instance::leave_rest(engine_core& e) noexcept {
  --head_;
  e.leave_to_thread(*this);
  return step::wait;
}

schedule::step coll_instance::end_run(engine_core& e) noexcept {
  if (queued_ != notice_kind::none) send_notices(e);
  if (!late_failed_.empty()) send_late_notices(e);
  return give_up(e);
}

// A failed run: nothing starts any more; receives no message matched are cancelled, sends that wait for their
// receiver are detached, and a receive whose send failed at its sender (that rank's failure notice said so) is
// abandoned, so that the run completes once what is under way has (a peer that called another collective may never
// match them, and a failed send sends nothing). Every other receive of a rendezvous this rank answered completes:
// its sender's send, given up too, answers with an empty message at the latest.
schedule::step coll_instance::give_up(engine_core& e) noexcept {
  if (!gave_up_) {
    gave_up_ = true;
    for (std::size_t i = 0; i < child_.size(); ++i) {
      const std::uint64_t h = child_[i];
      if (h == 0 || h == done_mark) continue;
      if (e.cancel_child(*this, h, their_failed_, run_ & sig_mask) == engine_core::child_fate::detached) {
        child_[i] = done_mark;
        --in_flight_;
      }
    }
  }
  return in_flight_ == 0 ? step::done : step::wait;
}

void coll_instance::on_child_complete(const completion& c, std::uint64_t token) noexcept {
  --in_flight_;
  if (token == notice_token) return;
  const auto i = static_cast<std::uint32_t>(token);
  const std::uint64_t handle = child_[i];  // 0: it completed inside its start
  child_[i] = done_mark;
  const coll_plan& p = *plan_;
  const coll::op& o = p.sched.ops[i];
  const char* dir = o.type == coll::op_type::send ? "send to" : "receive from";
  if (c.result == req_result::transport) {
    std::string why;
    try {
      if (eng_) why = eng_->describe(c);
    } catch (const std::exception&) {
      why.clear();
    }
    // The provider's words have no bound: what does not fit is cut (the notices to the other ranks cut it shorter).
    char mine[sizeof text_];
    write_sentence(mine, sizeof mine, transport_fmt, name_len(p.spec.k), name_of(p.spec.k), dir, o.peer, why.c_str());
    if (o.type == coll::op_type::send && handle != 0) {
      std::uint64_t& named = our_failed_[static_cast<std::size_t>(o.peer)];
      if (named == 0 && !sent_failure_) named = handle;  // goes with the failure notice to that rank
      else if (named != handle && late_failed_.size() < late_failed_.capacity())
        late_failed_.emplace_back(o.peer, handle);
    }
    fail_here(mine);
    return;
  }
  if (ended()) return;
  if (c.result == req_result::peer_failed) {
    write_sentence(text_, sizeof text_, died_fmt, name_len(p.spec.k), name_of(p.spec.k), dir, o.peer, c.peer_index);
    fail(req_result::peer_failed);
    return;
  }
  if (o.type == coll::op_type::recv && !failed_) {  // the first mismatch is the one reported
    if (c.sig != 0 && c.sig != p.sig) {
      explain_mismatch(text_, sizeof text_, p, c.sig, o.peer);
      mismatch();
      return;
    }
    if (c.result == req_result::truncated || c.bytes != o.bytes) {
      if (c.result == req_result::truncated)
        write_sentence(text_, sizeof text_, truncated_fmt, o.peer, static_cast<unsigned long long>(o.bytes),
                       name_len(p.spec.k), name_of(p.spec.k), o.tag);
      else
        write_sentence(text_, sizeof text_, sized_fmt, o.peer, static_cast<unsigned long long>(c.bytes),
                       name_len(p.spec.k), name_of(p.spec.k), static_cast<unsigned long long>(o.bytes), o.tag);
      mismatch();
      return;
    }
  }
  op_done(i);
}

bool coll_instance::on_peer_failed(int address) noexcept {
  const coll_comm& c = *comm_;
  for (int r = 0; r < c.size(); ++r) {
    if (c.world(r) != address) continue;
    if (!ended()) {
      write_sentence(text_, sizeof text_, gone_fmt, name_len(plan_->spec.k), name_of(plan_->spec.k), r, address);
      fail(req_result::peer_failed);
    }
    return true;
  }
  return false;
}

void coll_instance::retire() noexcept {
  if (listed_) owner_.mismatches_->retired(*this);
  listed_ = false;
  owner_.retired(*this, failed_ ? text_ : nullptr, request_handle());
}

}  // namespace sidecore::progress
