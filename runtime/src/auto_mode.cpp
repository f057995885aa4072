// SIDECORE_PROGRESS=auto: the window, the collective verdict, the switch (auto_mode.hpp; docs/runtime.md).
#include "auto_mode.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <sidecore/common/dedicated_core.hpp>
#include <sidecore/sidecore.hpp>

#include "auto_verdict.hpp"
#include "mode_switch.hpp"
#include "state.hpp"
#include "watched_wait.hpp"

namespace sidecore::detail {

std::atomic<bool> g_auto_watch{false};

namespace {

// The communicating thread: the one that called init. Calls of other threads are not measured (the model reads
// one communicating thread: its calls and its computation on one timeline).
thread_local bool t_owner = false;

// Below this share of its window in computation, a rank's prediction says nothing (docs/model.md, no-computation).
constexpr double min_comp_share = 0.01;

// Completes an agreement's request while progressing (complete_unless_peer_died); false when a rank was found dead
// meanwhile. Every rank takes part in the agreement, so every peer is watched while waiting for it (no request of
// the engine involves the rank that never joins).
[[nodiscard]] bool complete_progressing(runtime_state& s, MPI_Request& r) {
  const bool watching = s.eng->watching_all_peers();
  s.eng->watch_all_peers(true);
  const bool live = complete_unless_peer_died(*s.eng, r);
  if (!watching) s.eng->watch_all_peers(false);
  return live;
}

}  // namespace

void auto_call_enter_slow(category c) noexcept {
  if (t_owner && g_state && g_state->autom) g_state->autom->call_enter(c);
}

void auto_call_exit_slow(category) noexcept {
  if (t_owner && g_state && g_state->autom) g_state->autom->call_exit();
}

auto_controller::auto_controller(runtime_state& s, MPI_Comm world, int rank) : s_(s), rank_(rank) {
  init_ns_ = now_ns();
  t_owner = true;
  if (MPI_Comm_dup(world, &comm_) != MPI_SUCCESS) throw error(errc::mpi, "MPI_Comm_dup (auto mode) failed");
  // Ranks of this node whose cpusets hold more cores than the node has share cores: a window measured so is
  // oversubscribed, and a progress thread would take a core another rank computes on.
  int mine = s.topo->cores(), node_sum = 0, node_ranks = 0;
  MPI_Allreduce(&mine, &node_sum, 1, MPI_INT, MPI_SUM, s.node);
  MPI_Comm_size(s.node, &node_ranks);
  if (s.reserved_core < 0) {
    veto_local_.why = auto_veto::no_core;
    veto_local_.cores = mine;
  } else if (node_sum > s.topo->machine_cores()) {
    veto_local_.why = auto_veto::oversubscribed;
    veto_local_.node_ranks = node_ranks;
    veto_local_.node_cores = node_sum;
    veto_local_.machine_cores = s.topo->machine_cores();
  } else if (s.cfg.n_core == 1) {
    veto_local_.why = auto_veto::one_core;
  }
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level == MPI_THREAD_MULTIPLE && s.cfg.auto_recheck_every.per != auto_recheck::unit::none) {
    // Back to mode off would stop the progress thread under another application thread waiting in mode core.
    if (rank == 0)
      std::fprintf(stderr, "sidecore: warning: SIDECORE_AUTO_RECHECK is ignored with MPI_THREAD_MULTIPLE: going back "
                           "to mode off is safe only when one thread at a time calls sidecore\n");
    s.cfg.auto_recheck_every = {};
  }
  if (s.cfg.auto_steps == 0) open_window();  // a time window from init; a step window opens at the first step()
}

auto_controller::~auto_controller() {
  g_auto_watch.store(false, std::memory_order_relaxed);
  t_owner = false;
  // An agreement a dead rank never joined stays pending, and freeing a nonblocking collective's request is erroneous
  // in MPI: it is left to the end of the process with the communicator, as finalize leaves MPI's objects then.
  if (abandoned_) return;
  if (req_ != MPI_REQUEST_NULL) MPI_Request_free(&req_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

double auto_controller::since_init(std::uint64_t t) const noexcept {
  return static_cast<double>(t - init_ns_) * 1e-9;
}

void auto_controller::open_window() {
  cats_ = {};
  steps_ = 0;
  window_start_ns_ = now_ns();
  phase_ = phase::window;
  g_auto_watch.store(true, std::memory_order_relaxed);
}

void auto_controller::call_enter(category c) noexcept {
  if (++depth_ != 1 || phase_ != phase::window) return;
  call_cat_ = c;
  call_start_ns_ = now_ns();
}

void auto_controller::call_exit() noexcept {
  if (depth_ == 0 || --depth_ != 0) return;
  if (phase_ == phase::window && call_start_ns_ != 0) {
    const double t = static_cast<double>(now_ns() - call_start_ns_) * 1e-9;
    category_totals& c = cats_[static_cast<std::size_t>(call_cat_)];
    c.min_s = c.count == 0 ? t : std::min(c.min_s, t);
    c.time_s += t;
    ++c.count;
  }
  call_start_ns_ = 0;
  try {
    poll();
  } catch (const std::exception& e) {
    // Nothing a call's exit can report to the caller: say it once and leave the mode as it is.
    std::fprintf(stderr, "sidecore: warning: rank %d: auto mode stops deciding: %s\n", rank_, e.what());
    phase_ = phase::done;
    g_auto_watch.store(false, std::memory_order_relaxed);
  }
}

// At the outermost exit of a call of the communicating thread, outside parallel regions (the switch re-fences
// OpenMP for the next region): the time window's end, a pending agreement, a time re-check.
void auto_controller::poll() {
  if (omp_in_parallel()) return;
  const std::uint64_t now = now_ns();
  const auto& every = s_.cfg.auto_recheck_every;
  switch (phase_) {
    case phase::window:
      if (s_.cfg.auto_steps == 0 && static_cast<double>(now - window_start_ns_) * 1e-9 >= window_length_s())
        close_window("time");
      break;
    case phase::agreeing:
      if (test_agreement()) decide(true);
      break;
    case phase::armed:
      if (every.per == auto_recheck::unit::seconds && static_cast<double>(now - decided_ns_) * 1e-9 >= every.every)
        recheck();
      break;
    case phase::idle:
    case phase::done: break;
  }
}

double auto_controller::window_length_s() const noexcept { return s_.cfg.auto_window_s; }

void auto_controller::step() {
  if (!t_owner)
    throw error(errc::invalid_argument, "sidecore::step: called by a thread other than the one that called init; "
                                        "accepted: the thread that called init, between iterations");
  if (omp_in_parallel())
    throw error(errc::invalid_argument, "sidecore::step: called inside an OpenMP parallel region; accepted: between "
                                        "iterations, outside parallel regions");
  ++steps_;
  stepped_ = true;
  const auto& every = s_.cfg.auto_recheck_every;
  if (s_.cfg.auto_steps > 0) {
    // Step windows: every rank opens, closes and re-checks at the same step() call, so the agreement may block.
    if (phase_ == phase::idle) {
      open_window();
    } else if (phase_ == phase::window && steps_ >= s_.cfg.auto_steps) {
      close_window("steps");
      MPI_Request r = req_;
      req_ = MPI_REQUEST_NULL;
      if (!complete_progressing(s_, r)) {  // a rank died: no verdict can be agreed any more
        phase_ = phase::done;
        abandoned_ = true;
        return;
      }
      decide(true);
    } else if (phase_ == phase::armed && every.per == auto_recheck::unit::steps &&
               static_cast<double>(steps_) >= every.every) {
      recheck();
    }
    return;
  }
  if (phase_ == phase::armed && every.per == auto_recheck::unit::steps && static_cast<double>(steps_) >= every.every)
    recheck();
  else
    poll();
}

void auto_controller::recheck() {
  if (s_.core_active) leave_core_mode(s_);
  open_window();
}

void auto_controller::close_window(const char* trigger) {
  const std::uint64_t now = now_ns();
  const double t_nop = static_cast<double>(now - window_start_ns_) * 1e-9;
  double t_mpi = 0;
  for (const category_totals& c : cats_) t_mpi += c.time_s;
  const int n_core = s_.cfg.n_core > 0 ? s_.cfg.n_core : s_.topo->cores();
  dedicated::inputs in;
  in.t_noprogress_s = t_nop;
  in.t_comp_s = std::max(0.0, t_nop - t_mpi);
  in.categories = cats_;
  in.newcomp_ratio = dedicated::linear_ratio(n_core);
  const dedicated::terms t = dedicated::predict(in);

  pending_ = auto_decision{};
  pending_.trigger = trigger;
  pending_.steps = steps_;
  pending_.start_s = since_init(window_start_ns_);
  pending_.window_s = t_nop;
  pending_.t_comp_s = in.t_comp_s;
  pending_.t_mpi_s = std::min(t_mpi, t_nop);
  // With one core the formula has no N_core - 1 cores to run the computation on: nothing is predicted (vetoed).
  const double t_dedicated = n_core < 2 ? t_nop : t.t_dedicated_s;
  pending_.t_dedicated_s = t_dedicated;
  pending_.n_core = std::max(1, n_core);

  rank_veto v = veto_local_;
  if (v.why == auto_veto::none && in.t_comp_s < min_comp_share * t_nop)
    v = {.why = auto_veto::no_computation, .comp_share = t_nop > 0 ? in.t_comp_s / t_nop : 0.0};
  const auto f = static_cast<int>(s_.cfg.auto_forced == auto_force::core  ? auto_forced_vote::core
                                  : s_.cfg.auto_forced == auto_force::off ? auto_forced_vote::off
                                                                          : auto_forced_vote::none);
  vote mine = neutral_vote();
  mine[at_t_noprogress].value = t_nop;
  mine[at_t_dedicated].value = t_dedicated;
  mine[at_veto].value = pack_veto(v);
  mine[at_force].value = static_cast<double>(f);
  post(mine);
  phase_ = phase::agreeing;
}

auto_controller::vote auto_controller::neutral_vote() const noexcept {
  vote v;
  v.fill(vote_pair{0.0, rank_});
  return v;
}

void auto_controller::post(vote v) {
  v[at_not_final].value = finalizing_ ? 0.0 : 1.0;
  v[at_final].value = finalizing_ ? 1.0 : 0.0;
  v[at_no_step].value = finalizing_ && s_.cfg.auto_steps > 0 && !stepped_ ? 1.0 : 0.0;
  mine_ = v;
  if (MPI_Iallreduce(mine_.data(), agreed_.data(), vote_size, MPI_DOUBLE_INT, MPI_MAXLOC, comm_, &req_) != MPI_SUCCESS)
    throw error(errc::mpi, "MPI_Iallreduce (auto mode agreement) failed");
}

bool auto_controller::test_agreement() {
  int done = 0;
  MPI_Test(&req_, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

void auto_controller::decide(bool apply) {
  auto_decision& d = pending_;
  job_vote jv;
  jv.t_noprogress_s = agreed_[at_t_noprogress].value;
  jv.slowest_rank_off = agreed_[at_t_noprogress].rank;
  jv.t_dedicated_s = agreed_[at_t_dedicated].value;
  jv.slowest_rank_core = agreed_[at_t_dedicated].rank;
  jv.veto = unpack_veto(agreed_[at_veto].value);
  jv.veto_rank = agreed_[at_veto].rank;
  jv.force = static_cast<auto_forced_vote>(static_cast<int>(agreed_[at_force].value));
  const job_verdict jd = judge(jv);
  d.job_t_noprogress_s = jv.t_noprogress_s;
  d.slowest_rank_off = jv.slowest_rank_off;
  d.job_t_dedicated_s = jv.t_dedicated_s;
  d.slowest_rank_core = jv.slowest_rank_core;
  d.speedup = jd.speedup;
  d.forced = jd.forced;
  d.reason = jd.reason;
  // A rank in finalize voted its last window's figures or none: said, since it will not apply the verdict.
  if (!finalizing_ && agreed_[at_final].value != 0)
    d.reason += "; rank " + std::to_string(agreed_[at_final].rank) + " had reached finalize";
  const bool core = jd.core;
  const bool was_core = !record_.decisions.empty() && record_.decisions.back().verdict == "core";
  d.verdict = core ? "core" : "off";
  if (!apply) {
    d.reason += " (reached at finalize: not applied)";
  } else if (core && !s_.core_active) {
    enter_core_mode(s_);
    d.switch_s = since_init(now_ns());
  } else if (!core && was_core) {
    d.reason += "; the core no longer pays: staying off";
  }
  record_.decisions.push_back(d);
  if (s_.cfg.verbose >= 2 || (s_.cfg.verbose == 1 && rank_ == 0))
    std::fprintf(stderr, "sidecore: rank %d: auto: window of %s%.4g s: predicted %.4g s off, %.4g s with a dedicated "
                         "core, gain %.4g s: %s -> %s\n",
                 rank_, d.trigger == "steps" ? (std::to_string(d.steps) + " steps, ").c_str() : "",
                 d.window_s, d.job_t_noprogress_s, d.job_t_dedicated_s,
                 d.job_t_noprogress_s - d.job_t_dedicated_s, d.reason.c_str(),
                 !apply ? (s_.core_active ? "stays core" : "stays off") : core ? "core" : "off");
  decided_ns_ = now_ns();
  steps_ = 0;
  if (apply && s_.cfg.auto_recheck_every.per != auto_recheck::unit::none) {
    phase_ = phase::armed;
    g_auto_watch.store(s_.cfg.auto_recheck_every.per == auto_recheck::unit::seconds, std::memory_order_relaxed);
  } else {
    phase_ = phase::done;
    g_auto_watch.store(false, std::memory_order_relaxed);
  }
}

void auto_controller::finish() {
  g_auto_watch.store(false, std::memory_order_relaxed);
  finalizing_ = true;
  if (phase_ == phase::window) close_window("finalize");
  // A dead rank never joins: every rank is watched from here, and a death found ends the agreements.
  s_.eng->watch_all_peers();
  bool live = true, all_final = false;
  if (phase_ == phase::agreeing) {
    live = complete_progressing(s_, req_);
    if (live) {
      decide(false);
      all_final = agreed_[at_not_final].value == 0;
    }
  }
  while (live && !all_final) {
    post(neutral_vote());
    live = complete_progressing(s_, req_);
    all_final = live && agreed_[at_not_final].value == 0;
  }
  abandoned_ = !live;
  phase_ = phase::done;
  // Said whatever SIDECORE_VERBOSE is: the setting asked for a window that the program never opened.
  if (all_final && rank_ == 0 && agreed_[at_no_step].value != 0)
    std::fprintf(stderr, "sidecore: warning: rank 0: auto: no window: rank %d never called sidecore::step() "
                         "(SIDECORE_AUTO_STEPS=%llu measures the iterations after the first step()), and stayed in "
                         "mode off; call step() once per iteration on every rank, or give SIDECORE_AUTO_WINDOW "
                         "instead\n",
                 agreed_[at_no_step].rank, static_cast<unsigned long long>(s_.cfg.auto_steps));
}

}  // namespace sidecore::detail

namespace sidecore {

void step() {
  detail::runtime_state& s = detail::state_or_throw("step");
  if (s.autom) s.autom->step();
}

}  // namespace sidecore
