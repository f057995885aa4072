// Communicators: world(), dup, split and free, each with a sidecore id agreed by its members (the id is part of
// every message's tag, so that traffic on different communicators never matches).
#include <algorithm>
#include <array>
#include <mutex>
#include <string>
#include <vector>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "call_scope.hpp"
#include "state.hpp"
#include "watched_wait.hpp"

namespace sidecore {

using detail::g_state;
using detail::mpi_check;
namespace tag = progress::tag;

[[noreturn, gnu::cold, gnu::noinline]] void detail::throw_bad_comm(const comm& c, const char* what) {
  if (c.id() == comm().id())
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": the communicator is null (default-"
                                        "constructed, freed, or split with color -1); pass world() or a live one");
  // Called after state_or_throw: the state is there. An entry under the id is another communicator's.
  const auto id = static_cast<unsigned>(c.id());
  if (id < static_cast<unsigned>(tag::max_comms) && g_state->comms[id].load(std::memory_order_acquire) != nullptr)
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": communicator id " +
                                            std::to_string(c.id()) + " is a copy of a communicator that was freed, "
                                            "and the id now serves another one (made since by dup or split); pass "
                                            "world() or a live one, not a copy kept past its free()");
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": communicator id " +
                                          std::to_string(c.id()) + " is not a live communicator (freed, or never "
                                          "made by dup or split); pass world() or a live one");
}

detail::comm_entry* detail::make_comm_entry(MPI_Comm mpi, MPI_Comm world, int id, std::size_t coll_cache) {
  // Not reset by finalize: a handle kept from an earlier init..finalize is refused as well. world() has serial 0,
  // which its handles carry whether made before or after init.
  static std::atomic<std::uint64_t> serials{0};
  auto* e = new detail::comm_entry;
  e->serial = id == 0 ? 0 : ++serials;
  e->mpi = mpi;
  MPI_Comm_rank(mpi, &e->rank);
  MPI_Comm_size(mpi, &e->size);
  MPI_Group g_comm, g_world;
  MPI_Comm_group(mpi, &g_comm);
  MPI_Comm_group(world, &g_world);
  std::vector<int> ranks(static_cast<std::size_t>(e->size));
  for (int i = 0; i < e->size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  e->to_world.resize(ranks.size());
  MPI_Group_translate_ranks(g_comm, e->size, ranks.data(), g_world, e->to_world.data());
  MPI_Group_free(&g_comm);
  MPI_Group_free(&g_world);
  e->coll = std::make_shared<progress::coll_comm>(id, e->rank, e->to_world, coll_cache);
  return e;
}

namespace {

using detail::call_scope;

// A communicator's creation and free are MPI collectives over its parent's ranks, which a dead rank never joins:
// MPICH's wait would last for ever. `call` names the sidecore call, `then` what it means for the caller.
[[noreturn, gnu::cold]] void throw_dead_member(const detail::runtime_state& s, const detail::comm_entry& c,
                                               int world_rank, const char* call, const char* then) {
  const auto at = std::find(c.to_world.begin(), c.to_world.end(), world_rank);
  progress::completion why{};
  why.result = progress::req_result::peer_failed;
  why.peer_index = world_rank;
  throw error(errc::peer_failed, std::string("sidecore::") + call + ": rank " +
                                     std::to_string(at - c.to_world.begin()) + " of the communicator (rank " +
                                     std::to_string(world_rank) + " of sidecore::world()) is dead: " +
                                     s.eng->describe(why) + "; " + then);
}

constexpr const char* make_needs_all =
    "dup and split need every rank of the communicator alive: the survivors can still dup or split a communicator "
    "made before the death without the dead rank";

// Completes r, the runtime's own MPI collective over c, watching c's ranks: throws errc::peer_failed (`call`,
// `then`: throw_dead_member) once one is found dead, r then left to the end of the process.
void complete_watched(const detail::runtime_state& s, const detail::comm_entry& c, MPI_Request& r, const char* call,
                      const char* then) {
  if (const int dead = detail::complete_unless_member_died(*s.eng, r, c.to_world); dead >= 0)
    throw_dead_member(s, c, dead, call, then);
}

// Collective over the parent: an id that no member uses. Ids are handed out in increasing order first (a rank's
// next_comm_id is above every id it ever held, so the largest over the members is free at all of them), which
// keeps a freed id unused for as long as possible: a message left unreceived on a freed communicator meets no newer
// one meanwhile. (A stale copy of a freed comm's handle is refused either way: its serial is not the new entry's.)
// Once the id space is used up, the lowest id free at every member is reused (one more allreduce, of the members'
// in-use bitmaps); only the communicators alive at once are limited. A dead rank of the parent makes it throw
// errc::peer_failed (`call`), found before or while agreeing: MPI's own collective that follows (MPI_Comm_dup,
// MPI_Comm_split) would wait for that rank for ever.
int agree_comm_id(detail::runtime_state& s, const detail::comm_entry& parent, const char* call) {
  if (const int dead = detail::dead_member(*s.eng, parent.to_world); dead >= 0)
    throw_dead_member(s, parent, dead, call, make_needs_all);
  int mine = s.next_comm_id, id = 0;
  MPI_Request r;
  mpi_check(MPI_Iallreduce(&mine, &id, 1, MPI_INT, MPI_MAX, parent.mpi, &r), "MPI_Iallreduce (communicator id)");
  complete_watched(s, parent, r, call, make_needs_all);
  if (id < tag::max_comms) {
    s.next_comm_id = id + 1;
    return id;
  }
  constexpr int words = (tag::max_comms + 63) / 64;
  std::array<std::uint64_t, words> used{}, any{};
  for (int i = 0; i < tag::max_comms; ++i)
    if (s.comms[static_cast<std::size_t>(i)].load(std::memory_order_relaxed))
      used[static_cast<std::size_t>(i / 64)] |= std::uint64_t{1} << (i % 64);
  mpi_check(MPI_Iallreduce(used.data(), any.data(), words, MPI_UINT64_T, MPI_BOR, parent.mpi, &r),
            "MPI_Iallreduce (communicator ids in use)");
  complete_watched(s, parent, r, call, make_needs_all);
  for (int i = 1; i < tag::max_comms; ++i)
    if ((any[static_cast<std::size_t>(i / 64)] >> (i % 64) & 1) == 0) return i;
  throw error(errc::invalid_argument, "too many communicators alive at once: sidecore supports " +
                                          std::to_string(tag::max_comms - 1) +
                                          " besides world() (free the ones you no longer use)");
}

}  // namespace

int comm::rank() const { return detail::comm_or_throw(*this, "comm::rank").rank; }
int comm::size() const { return detail::comm_or_throw(*this, "comm::size").size; }
MPI_Comm comm::mpi() const { return detail::comm_or_throw(*this, "comm::mpi").mpi; }

comm comm::dup() const {
  const call_scope scope(category::other, "sidecore::comm::dup");
  detail::comm_entry& parent = detail::comm_or_throw(*this, "comm::dup");
  detail::runtime_state& s = *g_state;
  std::lock_guard<std::mutex> lock(s.comm_mutex);
  const int id = agree_comm_id(s, parent, "comm::dup");
  // Nonblocking and watched as the agreement: a rank that dies after agreeing never joins the duplication either.
  MPI_Comm m;
  MPI_Request r;
  mpi_check(MPI_Comm_idup(parent.mpi, &m, &r), "MPI_Comm_idup");
  complete_watched(s, parent, r, "comm::dup", make_needs_all);
  detail::comm_entry* e = detail::make_comm_entry(m, s.comms[0].load()->mpi, id, s.cfg.coll_cache);
  s.comms[static_cast<std::size_t>(id)].store(e, std::memory_order_release);
  return comm_access::make(id, e->serial);
}

comm comm::split(int color, int key) const {
  const call_scope scope(category::other, "sidecore::comm::split");
  detail::comm_entry& parent = detail::comm_or_throw(*this, "comm::split");
  if (color < -1)
    throw error(errc::invalid_argument, "sidecore::comm::split: color=" + std::to_string(color) +
                                            " is not accepted; accepted: 0 or more, or -1 to take no part");
  detail::runtime_state& s = *g_state;
  std::lock_guard<std::mutex> lock(s.comm_mutex);
  const int id = agree_comm_id(s, parent, "comm::split");
  MPI_Comm m;
  mpi_check(MPI_Comm_split(parent.mpi, color < 0 ? MPI_UNDEFINED : color, key, &m), "MPI_Comm_split");
  if (m == MPI_COMM_NULL) return comm();
  detail::comm_entry* e = detail::make_comm_entry(m, s.comms[0].load()->mpi, id, s.cfg.coll_cache);
  s.comms[static_cast<std::size_t>(id)].store(e, std::memory_order_release);
  return comm_access::make(id, e->serial);
}

void comm::free() {
  const call_scope scope(category::other, "sidecore::comm::free");
  detail::comm_entry& e = detail::comm_or_throw(*this, "comm::free");
  if (id_ == 0) throw error(errc::invalid_argument, "sidecore::comm::free: world() cannot be freed");
  detail::runtime_state& s = *g_state;
  std::lock_guard<std::mutex> lock(s.comm_mutex);
  // Every member has stopped using the id before any can agree on it for a new communicator. A dead member never
  // reaches the barrier: the communicator then stays (its point-to-point with the live members still works).
  constexpr const char* stays = "free waits for every rank of the communicator, so it stays allocated (point-to-point "
                                "with its live ranks still works) until the process ends";
  if (const int dead = detail::dead_member(*s.eng, e.to_world); dead >= 0)
    throw_dead_member(s, e, dead, "comm::free", stays);
  MPI_Request barrier;
  mpi_check(MPI_Ibarrier(e.mpi, &barrier), "MPI_Ibarrier (comm::free)");
  complete_watched(s, e, barrier, "comm::free", stays);
  detail::comm_entry* owned = s.comms[static_cast<std::size_t>(id_)].exchange(nullptr);
  if (s.coll) s.coll->comm_freed(id_);  // before any member can agree on this id for a new communicator
  MPI_Comm_free(&owned->mpi);
  delete owned;
  *this = comm();
}

}  // namespace sidecore
