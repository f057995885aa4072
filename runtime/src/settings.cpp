#include "settings.hpp"

#include <cmath>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>

#include <sidecore/instrument/env.hpp>
#include <sidecore/sidecore.hpp>

extern char** environ;

namespace sidecore::detail {

namespace {

[[noreturn]] void reject(std::string_view var, const std::string& value, std::string_view accepted) {
  throw error(errc::bad_setting, std::string(var) + "='" + value + "' is not accepted; accepted: " +
                                     std::string(accepted));
}

// The instrumentation's settings are parsed by instrument::env, which libsidecore-pmpi.so shares: one parser per
// value, its rejection turned into the runtime's error.
template <typename F>
auto shared_parser(F&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const instrument::env::bad_value& e) {
    throw error(errc::bad_setting, e.what());
  }
}

// An output file setting: "off" is none (""), anything else but blanks a path.
std::string output_path(std::string_view var, const std::string& raw) {
  const std::string v = trim(raw);
  if (v.empty()) reject(var, raw, "off, or a non-empty file path");
  return v == "off" ? std::string() : v;
}

template <typename E>
E parse_enum(std::string_view var, const std::string& raw, std::initializer_list<std::pair<const char*, E>> choices,
             std::string_view accepted) {
  const std::string v = trim(raw);
  for (const auto& [name, value] : choices)
    if (v == name) return value;
  reject(var, raw, accepted);
}

std::string fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

const char* idle_name(progress::idle_policy p) {
  switch (p) {
    case progress::idle_policy::spin: return "spin";
    case progress::idle_policy::block: return "block";
    case progress::idle_policy::hybrid: return "hybrid";
  }
  return "?";
}

// A number of seconds in [lo, hi], the whole string (no unit). `accepted`: what a refusal says is accepted, where
// the setting accepts less than [lo, hi] (its own check follows); empty: the range.
double parse_seconds(std::string_view var, const std::string& raw, double lo, double hi,
                     const std::string& accepted_text = {}) {
  const std::string v = trim(raw);
  const std::string accepted =
      accepted_text.empty() ? "a number of seconds " + fmt_seconds(lo) + ".." + fmt_seconds(hi) : accepted_text;
  if (v.empty() || v[0] == '-' || v.find_first_not_of("0123456789.eE+-") != std::string::npos)
    reject(var, raw, accepted);
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || !std::isfinite(d) || d < lo || d > hi) reject(var, raw, accepted);
  return d;
}

auto_recheck parse_recheck(const std::string& raw) {
  constexpr const char* var = "SIDECORE_AUTO_RECHECK";
  constexpr const char* accepted =
      "off, or a count with a unit: 30s (seconds, 0.001..1000000) or 100steps (1..1000000)";
  const std::string v = trim(raw);
  if (v == "off") return {};
  const auto unit_at = v.find_first_not_of("0123456789.eE+-");
  if (unit_at == std::string::npos || unit_at == 0) reject(var, raw, accepted);
  const std::string number = trim(v.substr(0, unit_at)), unit = trim(v.substr(unit_at));
  try {
    if (unit == "s") return {auto_recheck::unit::seconds, parse_seconds(var, number, 0.001, 1e6)};
    if (unit == "steps" || unit == "step")
      return {auto_recheck::unit::steps, static_cast<double>(parse_unsigned(var, number, 1, 1000000))};
  } catch (const error&) {
  }
  reject(var, raw, accepted);
}

// SIDECORE_COLL_<KIND>: one per collective kind, made from the schedule library's names, so the accepted values are
// the algorithms that exist. The texts live as long as the table (setting_def holds C strings).
void add_coll_algorithm_settings(std::vector<setting_def>& t) {
  static std::deque<std::string> texts;
  for (int k = 0; k < coll::kind_count; ++k) {
    const auto kind = static_cast<coll::kind>(k);
    std::string upper(coll::kind_name(kind));
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string accepted = "auto";
    for (coll::algorithm a : coll::algorithms_for(kind)) accepted += ", " + std::string(coll::algorithm_name(a));
    const std::string& name = texts.emplace_back("SIDECORE_COLL_" + upper);
    const std::string& acc = texts.emplace_back(accepted);
    const std::string& help = texts.emplace_back(
        "Algorithm of every " + std::string(coll::kind_name(kind)) +
        " (and i" + std::string(coll::kind_name(kind)) + ", " + std::string(coll::kind_name(kind)) +
        "_init). auto: chosen per call by message size and communicator size (docs/collectives.md); or force one "
        "of " + accepted.substr(6) + ". A forced algorithm that cannot run a call (one that reorders operands, for "
        "a non-commutative user operator) gives way to auto for that call. Every rank must have the same value "
        "(init checks).");
    t.push_back({name.c_str(), "auto", acc.c_str(), help.c_str(),
                 [kind, var = name.c_str(), acc = acc.c_str()](settings& s, const std::string& raw) {
                   const std::string v = trim(raw);
                   const std::optional<coll::algorithm> a = coll::parse_algorithm(v);
                   if (!a || !coll::supports(kind, *a)) reject(var, raw, acc);
                   s.coll_algorithm[static_cast<std::size_t>(kind)] = *a;
                 },
                 [kind](const settings& s) {
                   return std::string(coll::algorithm_name(s.coll_algorithm[static_cast<std::size_t>(kind)]));
                 }});
  }
}

std::vector<setting_def> make_table() {
  std::vector<setting_def> t;
  t.push_back({"SIDECORE_PROGRESS", "off", "off, core, auto",
               "Progress mode. off: the engine advances only inside sidecore calls (what plain MPI does; the model's "
               "calibration run). core: a progress thread pinned to a reserved core moves data in the background, and "
               "OpenMP is fenced off that core. auto: starts as off, profiles a window (SIDECORE_AUTO_STEPS iterations "
               "marked with sidecore::step(), or SIDECORE_AUTO_WINDOW seconds), applies the dedicated-core model on "
               "every rank, and switches every rank to core when the job's slowest rank is predicted faster with it "
               "(auto must be every rank's or none's: init checks). The SIDECORE_AUTO_* settings apply in mode auto "
               "only: in another mode they are still checked (a malformed one is refused), and rank 0 warns at init "
               "that they are ignored.",
               [](settings& s, const std::string& v) {
                 s.mode = parse_enum<progress_mode>(
                     "SIDECORE_PROGRESS", v,
                     {{"off", progress_mode::off}, {"core", progress_mode::core}, {"auto", progress_mode::automatic}},
                     "off, core, auto");
               },
               [](const settings& s) { return std::string(mode_name(s.mode)); }});
  t.push_back({"SIDECORE_PROGRESS_CORE", "last", core_choice_accepted,
               "Core reserved for the progress thread in core mode, counted among the cores this process may run on "
               "(hwloc logical order).",
               [](settings& s, const std::string& raw) {
                 const auto c = parse_core_choice(raw);
                 if (!c) reject("SIDECORE_PROGRESS_CORE", raw, core_choice_accepted);
                 s.progress_core = *c;
               },
               [](const settings& s) { return core_choice_text(s.progress_core); }});
  t.push_back({"SIDECORE_IDLE", "hybrid", "spin, block, hybrid",
               "What a progress thread (core mode) or a waiting thread (off mode) does when there is nothing to "
               "progress. spin: poll without pause (lowest latency, a full core). block: sleep until a submission or a "
               "rank of the same node wakes it, or SIDECORE_BLOCK_US passes; a waiting application thread in core "
               "mode sleeps until its request completes. hybrid: spin SIDECORE_SPIN_US, then block.",
               [](settings& s, const std::string& v) {
                 s.idle = parse_enum<progress::idle_policy>("SIDECORE_IDLE", v,
                                                            {{"spin", progress::idle_policy::spin},
                                                             {"block", progress::idle_policy::block},
                                                             {"hybrid", progress::idle_policy::hybrid}},
                                                            "spin, block, hybrid");
               },
               [](const settings& s) { return std::string(idle_name(s.idle)); }});
  t.push_back({"SIDECORE_SPIN_US", "5000", "an integer 0..10000000 (microseconds)",
               "hybrid idle policy: how long to spin with nothing to do before blocking (an application thread "
               "waiting on a request spins as long). A blocked progress thread costs a wake-up (tens of "
               "microseconds on a virtual machine) when the application next communicates: measured on 2 cores, "
               "200 here left 1 MiB receiver-side overlap at 63-90 % with 0.5-1 ms of computation, 5000 at 95-98 %.",
               [](settings& s, const std::string& v) {
                 s.spin_us = static_cast<std::uint32_t>(parse_unsigned("SIDECORE_SPIN_US", v, 0, 10000000));
               },
               [](const settings& s) { return std::to_string(s.spin_us); }});
  t.push_back({"SIDECORE_YIELD_US", "2", "an integer 0..10000000 (microseconds)",
               "hybrid idle policy: once a progress thread has had nothing to do for this long (or a thread waiting in "
               "mode off has waited this long), the spinning thread yields its core (sched_yield), so a thread that "
               "shares the core (another rank, an oversubscribed application thread) runs at once instead of after "
               "the scheduler's time slice. On a core of its own the yield returns at once. 0: from the first idle "
               "pass; SIDECORE_SPIN_US or more: never.",
               [](settings& s, const std::string& v) {
                 s.yield_us = static_cast<std::uint32_t>(parse_unsigned("SIDECORE_YIELD_US", v, 0, 10000000));
               },
               [](const settings& s) { return std::to_string(s.yield_us); }});
  t.push_back({"SIDECORE_BLOCK_US", "1000", "an integer 10..1000000 (microseconds)",
               "block and hybrid idle policies: the longest single sleep. A submission from an application thread or "
               "a message from a rank of the same node wakes the sleeper at once (a doorbell in shared memory); a "
               "message from another node is seen within this time (libfabric cannot wake a sleeper itself).",
               [](settings& s, const std::string& v) {
                 s.block_us = static_cast<std::uint32_t>(parse_unsigned("SIDECORE_BLOCK_US", v, 10, 1000000));
               },
               [](const settings& s) { return std::to_string(s.block_us); }});
  t.push_back({"SIDECORE_PEER_TIMEOUT", "0", "0 (off), or a number of seconds 0.1..1000000",
               "a rank on another node from which nothing arrived for half this time, while a request of this rank "
               "waits on it, is asked whether it lives; if it still says nothing by the full time, it is declared "
               "dead and every request involving it completes with errc::peer_failed (docs/failures.md). A live "
               "rank answers when it progresses: its progress thread in mode core, its next sidecore call in mode "
               "off, so set it above the longest time a rank computes without calling sidecore. 0: never by time; "
               "a rank on another node is then found dead only by the provider's errors (a reset connection). "
               "Ranks on this node are found dead within about 20 ms of waiting on them, whatever this says. "
               "Set, it also bounds init's connection of the endpoints: init fails naming a rank it cannot reach "
               "(a rank that dies inside init's MPI collectives is MPI's to report: docs/failures.md, \"Not "
               "covered\"). Below 0.1 s a rank descheduled for a moment would be declared dead.",
               [](settings& s, const std::string& v) {
                 const std::string accepted = "0 (off), or a number of seconds 0.1..1000000";
                 const double secs = parse_seconds("SIDECORE_PEER_TIMEOUT", v, 0, 1e6, accepted);
                 if (secs != 0 && secs < 0.1) reject("SIDECORE_PEER_TIMEOUT", v, accepted);
                 s.peer_timeout_s = secs;
               },
               [](const settings& s) { return fmt_seconds(s.peer_timeout_s); }});
  t.push_back({"SIDECORE_CALLER_PROGRESS", "on", "on, off",
               "core mode: on: an application thread that posts or waits for an eager-sized operation (at most "
               "SIDECORE_EAGER_MAX bytes) while no other application thread progresses does the work itself "
               "(posts, polls, matches), and the progress thread steps aside until the application has made no "
               "call for 1 us; small messages sent back to back (a ping-pong) then cost what they cost in mode off. "
               "Rendezvous transfers stay with the progress thread, which moves them while the application "
               "computes. A collective started while the progress thread sleeps is started by the calling thread "
               "(its first round posted), and the thread is left for the peers' replies to wake. off: every "
               "operation goes through the progress thread (two crossings between cores per message).",
               [](settings& s, const std::string& v) {
                 s.caller_progress = parse_enum<bool>("SIDECORE_CALLER_PROGRESS", v, {{"on", true}, {"off", false}},
                                                      "on, off");
               },
               [](const settings& s) { return std::string(s.caller_progress ? "on" : "off"); }});
  t.push_back({"SIDECORE_SELF_PATH", "on", "on, off",
               "on: a message a rank sends to itself is matched by sidecore and copied once, without the provider "
               "(a large one is copied when its receive is posted, on the progress thread in core mode). off: it "
               "goes through the provider like a message to another rank (bench/run-instructions.sh uses this to "
               "count the provider's path on one rank).",
               [](settings& s, const std::string& v) {
                 s.self_path = parse_enum<bool>("SIDECORE_SELF_PATH", v, {{"on", true}, {"off", false}}, "on, off");
               },
               [](const settings& s) { return std::string(s.self_path ? "on" : "off"); }});
  t.push_back(
      {"SIDECORE_SHM_FASTPATH", "on", "on, off",
       "on: eager and control messages between the ranks of one node go through rings in memory they share "
       "(one per ordered pair of ranks, read by the same progress pass), not through the provider; "
       "rendezvous data still goes through the provider. Ranks on other nodes always use the provider. "
       "off: every message goes through the provider.",
       [](settings& s, const std::string& v) {
         s.shm_fastpath = parse_enum<bool>("SIDECORE_SHM_FASTPATH", v, {{"on", true}, {"off", false}}, "on, off");
       },
       [](const settings& s) { return std::string(s.shm_fastpath ? "on" : "off"); }});
  t.push_back({"SIDECORE_PROVIDER", "(auto)", "a libfabric provider name as `fi_info -l` lists it, e.g. shm, "
                                              "tcp;ofi_rxm, verbs;ofi_rxm, efa, cxi, psm2",
               "libfabric provider. Automatic: shm when every rank is on one host, tcp;ofi_rxm otherwise. The same on "
               "every rank (init refuses a difference).",
               [](settings& s, const std::string& raw) {
                 const std::string v = trim(raw);
                 if (v.empty() || v.find_first_of(" \t,") != std::string::npos)
                   reject("SIDECORE_PROVIDER", raw,
                          "one provider name as `fi_info -l` lists it, e.g. shm or tcp;ofi_rxm");
                 s.provider = v;
               },
               [](const settings& s) { return s.provider.empty() ? std::string("(auto)") : s.provider; }});
  t.push_back({"SIDECORE_SUBMIT_QUEUE", "4096", "a power of two 2..1048576",
               "Entries in the submission queue from application threads to the progress engine. When it is full, "
               "submitters wait for the engine to drain it (and a warning is printed once).",
               [](settings& s, const std::string& v) {
                 s.submit_queue = shared_parser(
                     [&] { return instrument::env::parse_power_of_two("SIDECORE_SUBMIT_QUEUE", v, 2, 1U << 20); });
               },
               [](const settings& s) { return std::to_string(s.submit_queue); }});
  t.push_back({"SIDECORE_CQ_BATCH", "16", "an integer 1..64",
               "Completions read from the completion queue per poll.",
               [](settings& s, const std::string& v) { s.cq_batch = parse_unsigned("SIDECORE_CQ_BATCH", v, 1, 64); },
               [](const settings& s) { return std::to_string(s.cq_batch); }});
  t.push_back(
      {"SIDECORE_EAGER_MAX", "8192", "an integer 0..65536 (bytes)",
       "Largest message sent eagerly: header and data in one message, copied out of a receive buffer at the "
       "receiver. Larger messages go by rendezvous (ready-to-send, clear-to-send, then the data straight "
       "into the posted buffer): one more round trip, no copy. 0: every message with data by rendezvous. Every "
       "rank must have the same value (init checks).",
       [](settings& s, const std::string& v) { s.eager_max = parse_unsigned("SIDECORE_EAGER_MAX", v, 0, 65536); },
       [](const settings& s) { return std::to_string(s.eager_max); }});
  t.push_back({"SIDECORE_RECV_BUFFERS", "64", "an integer 2..4096",
               "Receive buffers (of SIDECORE_EAGER_MAX + 40 bytes each) the engine keeps posted for eager and "
               "control messages. Messages that find none wait in the provider until one is given back. Below the "
               "provider's receive queue, which rendezvous data receives share (shm: 1024, tcp;ofi_rxm: 2048; init "
               "refuses more and names the limit).",
               [](settings& s, const std::string& v) {
                 s.recv_buffers = parse_unsigned("SIDECORE_RECV_BUFFERS", v, 2, 4096);
               },
               [](const settings& s) { return std::to_string(s.recv_buffers); }});
  t.push_back(
      {"SIDECORE_SEND_CREDITS", "64", "an integer 2..65536 (messages per peer)",
       "Flow control: eager messages and ready-to-sends a sender may have sent to one peer that the peer has "
       "not read out of its receive buffers yet; more wait at the sender until the peer's progress gives "
       "credits back. Bounds what a provider holds for a flood (tcp;ofi_rxm: a 16 KiB buffer each). The same on "
       "every rank (init refuses a difference).",
       [](settings& s, const std::string& v) { s.send_credits = parse_unsigned("SIDECORE_SEND_CREDITS", v, 2, 65536); },
       [](const settings& s) { return std::to_string(s.send_credits); }});
  t.push_back(
      {"SIDECORE_EAGER_CREDITS", "16", "an integer 0..65536 (messages per peer)",
       "Flow control: eager messages a peer may hold unexpected (received, no receive posted yet, data "
       "copied) from one sender; beyond them the sender sends eager-sized messages by rendezvous (a "
       "header only; the data stays in its buffer until matched). 0: no eager message at all. The same on every "
       "rank (init refuses a difference).",
       [](settings& s, const std::string& v) {
         s.eager_credits = parse_unsigned("SIDECORE_EAGER_CREDITS", v, 0, 65536);
       },
       [](const settings& s) { return std::to_string(s.eager_credits); }});
  t.push_back({"SIDECORE_MAX_REQUESTS", "4194304", "a multiple of 1024 in 1024..4194304",
               "Requests a rank may have in flight at once (started, not yet completed by wait or test, or freed); "
               "a start beyond them fails with invalid_argument. Their slots (320 bytes each, taken 1024 at a "
               "time as needed) are kept until finalize, so this bounds that memory.",
               [](settings& s, const std::string& v) {
                 constexpr const char* accepted = "a multiple of 1024 in 1024..4194304";
                 const auto n = parse_unsigned("SIDECORE_MAX_REQUESTS", v, 1024, 4194304, accepted);
                 if (n % 1024 != 0) reject("SIDECORE_MAX_REQUESTS", v, accepted);
                 s.max_requests = n;
               },
               [](const settings& s) { return std::to_string(s.max_requests); }});
  t.push_back({"SIDECORE_MEMORY_BUDGET", "1024", "an integer 1..1048576 (MiB)",
               "What the engine's size settings may let it hold at most (receive buffers, submission queue, and per "
               "peer the unexpected eager data and the provider's buffers that the credits allow); init warns once "
               "when the settings exceed it (docs/runtime.md, \"Memory budget\").",
               [](settings& s, const std::string& v) {
                 s.memory_budget_mib = parse_unsigned("SIDECORE_MEMORY_BUDGET", v, 1, 1U << 20);
               },
               [](const settings& s) { return std::to_string(s.memory_budget_mib); }});
  t.push_back({"SIDECORE_VERBOSE", "0", "0, 1, 2",
               "1: print the configuration chosen at init on rank 0 (mode, provider, reserved core, OpenMP threads). "
               "2: on every rank.",
               [](settings& s, const std::string& v) {
                 s.verbose = static_cast<int>(parse_unsigned("SIDECORE_VERBOSE", v, 0, 2));
               },
               [](const settings& s) { return std::to_string(s.verbose); }});
  t.push_back(
      {"SIDECORE_AUTO_STEPS", "(time window)", "an integer 1..1000000 (iterations)",
       "SIDECORE_PROGRESS=auto: profile the K iterations between the first sidecore::step() (sidecore_step) and the "
       "(K+1)-th, then decide at that step(), on every rank at once (step() must mark the same iteration on "
       "every rank; init refuses a K that differs). Unset: a time window (SIDECORE_AUTO_WINDOW) decided "
       "without blocking.",
       [](settings& s, const std::string& v) {
         s.auto_steps = static_cast<std::uint32_t>(parse_unsigned("SIDECORE_AUTO_STEPS", v, 1, 1000000));
       },
       [](const settings& s) {
         return s.auto_steps == 0 ? std::string("(time window)") : std::to_string(s.auto_steps);
       }});
  t.push_back({"SIDECORE_AUTO_WINDOW", "10", "a number of seconds 0.001..1000000",
               "SIDECORE_PROGRESS=auto without SIDECORE_AUTO_STEPS: profile this long from init, then agree with the "
               "other ranks without blocking (an MPI_Iallreduce tested at each later sidecore call) and switch when "
               "the agreement completes. For applications that never call sidecore::step().",
               [](settings& s, const std::string& v) {
                 s.auto_window_s = parse_seconds("SIDECORE_AUTO_WINDOW", v, 0.001, 1e6);
               },
               [](const settings& s) { return fmt_seconds(s.auto_window_s); }});
  t.push_back({"SIDECORE_AUTO_RECHECK", "off", "off, or a count with a unit: 30s (seconds, 0.001..1000000) or 100steps "
                                                "(1..1000000)",
               "SIDECORE_PROGRESS=auto: decide again this long after each decision: back to mode off for a new window "
               "(the model needs a run without progress), then the model again; a core that no longer pays stays off "
               "(and says so at SIDECORE_VERBOSE=1). With SIDECORE_AUTO_STEPS the period must be in steps, so that "
               "every rank re-checks at the same iteration.",
               [](settings& s, const std::string& raw) { s.auto_recheck_every = parse_recheck(raw); },
               [](const settings& s) {
                 switch (s.auto_recheck_every.per) {
                   case auto_recheck::unit::none: return std::string("off");
                   case auto_recheck::unit::seconds: return fmt_seconds(s.auto_recheck_every.every) + "s";
                   case auto_recheck::unit::steps:
                     return std::to_string(static_cast<std::uint64_t>(s.auto_recheck_every.every)) + "steps";
                 }
                 return std::string("?");
               }});
  t.push_back({"SIDECORE_AUTO_FORCE", "(model)", "core, off",
               "For testing SIDECORE_PROGRESS=auto: every decision takes this verdict instead of the model's (the "
               "model's prediction is still computed, printed and recorded). core still needs 2 cores per rank.",
               [](settings& s, const std::string& v) {
                 s.auto_forced = parse_enum<auto_force>(
                     "SIDECORE_AUTO_FORCE", v, {{"core", auto_force::core}, {"off", auto_force::off}}, "core, off");
               },
               [](const settings& s) {
                 return std::string(s.auto_forced == auto_force::none ? "(model)"
                                    : s.auto_forced == auto_force::core ? "core" : "off");
               }});
  t.push_back(
      {"SIDECORE_PROFILE", "(off)",
       "off, or a file path (a relative one from where init runs); %r is "
       "replaced by the rank",
       "Write an overlap and call-category profile (JSON, docs/profile-schema.md) per rank at finalize; rank 0 "
       "also writes the merged job profile (%r -> job). Input of `sidecore predict` and `sidecore report`. Set on "
       "every rank or none (init refuses a difference).",
       [](settings& s, const std::string& v) { s.profile_path = output_path("SIDECORE_PROFILE", v); },
       [](const settings& s) { return s.profile_path.empty() ? std::string("(off)") : s.profile_path; }});
  t.push_back(
      {"SIDECORE_TRACE", "(off)",
       "off, or a file path (a relative one from where init runs); %r is "
       "replaced by the rank",
       "Write a timeline in Chrome trace-event JSON per rank (open it in https://ui.perfetto.dev): calls and "
       "computation per thread, transfers as async spans, the progress thread on its own track. Set on every rank or "
       "none (init refuses a difference).",
       [](settings& s, const std::string& v) { s.trace_path = output_path("SIDECORE_TRACE", v); },
       [](const settings& s) { return s.trace_path.empty() ? std::string("(off)") : s.trace_path; }});
  t.push_back({"SIDECORE_TRACE_MAX_EVENTS", "1000000", "an integer 1..1000000000",
               "Stop recording the trace (with one warning) past this many events, so a long run cannot fill the disk.",
               [](settings& s, const std::string& v) {
                 s.trace_max_events = shared_parser([&] { return instrument::env::parse_trace_max_events(v); });
               },
               [](const settings& s) { return std::to_string(s.trace_max_events); }});
  t.push_back({"SIDECORE_SIZE_BINS", "(powers of four)", "strictly increasing byte sizes separated by commas, e.g. "
                                                       "0,1024,65536,1048576 (at most 4096 of them)",
               "Lower edges of the message-size bins of the overlap profile.",
               [](settings& s, const std::string& v) {
                 s.size_bins = shared_parser([&] { return instrument::env::parse_size_bins(v); });
               },
               [](const settings& s) {
                 if (s.size_bins.empty()) return std::string("(powers of four)");
                 std::string out;
                 for (std::size_t e : s.size_bins) out += (out.empty() ? "" : ",") + std::to_string(e);
                 return out;
               }});
  t.push_back(
      {"SIDECORE_XFER_TABLE", "(calibrate)", "a path to a sidecore-xfer-table JSON file",
       "A-priori transfer time per message size for the overlap bounds (Shet et al.). Unset: a short built-in "
       "ping-pong at init measures it when profiling is on; the profile says which was used. Set on every rank or "
       "none (init refuses a difference).",
       [](settings& s, const std::string& v) {
         if (trim(v).empty()) reject("SIDECORE_XFER_TABLE", v, "a path to a sidecore-xfer-table JSON file");
         s.xfer_table = trim(v);
       },
       [](const settings& s) { return s.xfer_table.empty() ? std::string("(calibrate)") : s.xfer_table; }});
  t.push_back({"SIDECORE_RING_EVENTS", "1024", "a power of two 16..16777216",
               "Per-thread event ring capacity (records of 48 bytes) of the instrumentation; folded incrementally, so "
               "it bounds memory, not the run length. A ring never holds more than 512 records between folds: values "
               "above 1024 are capped at 1024 with a warning (the instrumentation's memory budget: 48 KiB per "
               "recording thread).",
               [](settings& s, const std::string& v) {
                 s.ring_events = shared_parser([&] { return instrument::env::parse_ring_events(v); });
               },
               [](const settings& s) { return std::to_string(s.ring_events); }});
  t.push_back({"SIDECORE_COLL_SAMPLES", "1024", "a power of two 16..65536",
               "Collective instances per communicator that every rank keeps for the cross-rank figures of the "
               "profile's collectives section (arrival and departure waits, arrival order): the instances whose "
               "sequence number's hash has its low log2(stride) bits zero, the stride doubled whenever the sample is "
               "full, so every member keeps the same ones; the same value on every rank (init refuses values that "
               "differ while profiling or tracing). 32 bytes each; the samples of all communicators stay within "
               "8 MiB per rank, and rank 0 holds every rank's at the end.",
               [](settings& s, const std::string& v) {
                 s.coll_samples = shared_parser([&] { return instrument::env::parse_coll_samples(v); });
               },
               [](const settings& s) { return std::to_string(s.coll_samples); }});
  t.push_back({"SIDECORE_NCORE", "(cpuset)", "an integer 1..1048576 (cores)",
               "Cores per node available to this rank, written to the profile as n_core: the model's N_core (its "
               "prediction for a dedicated core runs the computation on N_core - 1 cores). Default: the cores of the "
               "process's cpuset. Set it when the cpuset does not say how many cores a rank really has, e.g. ranks "
               "that share a node's cores without binding. It changes the profile and mode auto's prediction (1: "
               "nothing predicted, auto stays off), not which core is reserved nor how many OpenMP threads run. "
               "libsidecore-pmpi.so reads it too.",
               [](settings& s, const std::string& v) {
                 s.n_core = shared_parser([&] { return instrument::env::parse_ncore(v); });
               },
               [](const settings& s) { return s.n_core == 0 ? std::string("(cpuset)") : std::to_string(s.n_core); }});
  add_coll_algorithm_settings(t);
  t.push_back({"SIDECORE_COLL_SEGMENT", "131072", "an integer 1024..67108864 (bytes)",
               "Largest piece a collective moves at once: every message, copy and reduction larger than this is cut "
               "into segments that travel one after another, so that a large collective pipelines (segment i is "
               "forwarded or reduced while segment i+1 arrives) and the progress thread interleaves them with other "
               "work. Smaller segments pipeline more but cost a message each. Algorithms with nothing to pipeline "
               "send whole messages: pairwise and linear ones, and on 2 ranks every one that reduces nothing. "
               "Every rank must have the same value (init checks).",
               [](settings& s, const std::string& v) {
                 s.coll_segment = parse_unsigned("SIDECORE_COLL_SEGMENT", v, 1024, std::uint64_t{1} << 26);
               },
               [](const settings& s) { return std::to_string(s.coll_segment); }});
  t.push_back(
      {"SIDECORE_COLL_CACHE", "16", "an integer 0..4096 (schedules per communicator)",
       "Built collective schedules kept per communicator, so that a collective called again with the same "
       "arguments (count, type, operator, root) does not build its schedule again (a small one costs about "
       "4000 instructions to build). 0: build every call. Persistent collectives (allreduce_init, ...) keep "
       "their own whatever this says.",
       [](settings& s, const std::string& v) { s.coll_cache = parse_unsigned("SIDECORE_COLL_CACHE", v, 0, 4096); },
       [](const settings& s) { return std::to_string(s.coll_cache); }});
  return t;
}

}  // namespace

const char* mode_name(progress_mode m) noexcept {
  switch (m) {
    case progress_mode::off: return "off";
    case progress_mode::core: return "core";
    case progress_mode::automatic: return "auto";
  }
  return "?";
}

std::uint64_t parse_unsigned(std::string_view var, const std::string& value, std::uint64_t lo, std::uint64_t hi,
                             std::string_view accepted) {
  return shared_parser([&] { return instrument::env::parse_unsigned(var, value, lo, hi, accepted); });
}

const std::vector<setting_def>& setting_table() {
  static const std::vector<setting_def> table = make_table();
  return table;
}

void parse_setting(settings& s, std::string_view name, const std::string& value) {
  for (const auto& d : setting_table())
    if (name == d.name) {
      d.parse(s, value);
      return;
    }
  throw error(errc::bad_setting, "unknown setting " + std::string(name));
}

void check_auto_settings(const settings& s) {
  if (s.auto_steps > 0 && std::getenv("SIDECORE_AUTO_WINDOW"))
    throw error(errc::bad_setting,
                "SIDECORE_AUTO_STEPS=" + std::to_string(s.auto_steps) + " and SIDECORE_AUTO_WINDOW='" +
                    std::string(std::getenv("SIDECORE_AUTO_WINDOW")) +
                    "' are both set; accepted: one of them (a window of iterations marked with step(), or a time "
                    "window)");
  if (s.auto_steps > 0 && s.auto_recheck_every.per == auto_recheck::unit::seconds)
    throw error(errc::bad_setting, "SIDECORE_AUTO_RECHECK='" + fmt_seconds(s.auto_recheck_every.every) +
                                       "s' with SIDECORE_AUTO_STEPS: accepted: a period in steps (e.g. 100steps), so "
                                       "that every rank re-checks at the same iteration");
}

std::string ignored_auto_settings_warning(const settings& s) {
  if (s.mode == progress_mode::automatic) return {};
  constexpr std::string_view prefix = "SIDECORE_AUTO_";
  std::vector<std::string> named;
  std::string mode = "SIDECORE_PROGRESS is not set (mode off)";
  for (const auto& [name, value] : s.set_by_user) {
    if (name.compare(0, prefix.size(), prefix) == 0) named.push_back(name + "='" + value + "'");
    if (name == "SIDECORE_PROGRESS") mode = "SIDECORE_PROGRESS='" + value + "'";
  }
  if (named.empty()) return {};
  std::string list;
  for (std::size_t i = 0; i < named.size(); ++i)
    list += (i == 0 ? "" : i + 1 == named.size() ? " and " : ", ") + named[i];
  const bool one = named.size() == 1;
  return "sidecore: warning: " + list + (one ? " only applies" : " only apply") + " with SIDECORE_PROGRESS=auto, and " +
         mode + ": " + (one ? "it is" : "they are") + " ignored; accepted: SIDECORE_PROGRESS=auto to use " +
         (one ? "it" : "them") + ", or leave " + (one ? "it" : "them") + " unset\n";
}

settings read_settings() {
  settings s;
  for (const auto& d : setting_table()) {
    if (const char* v = std::getenv(d.name)) {
      d.parse(s, v);
      s.set_by_user.emplace_back(d.name, v);
    }
  }
  // Unknown SIDECORE_* variables: most likely a typo; say so rather than ignore it.
  for (const std::string& name : unknown_variables())
    std::fprintf(stderr, "sidecore: warning: unknown variable %s is ignored (`sidecore info` lists the known ones)\n",
                 name.c_str());
  check_auto_settings(s);
  return s;
}

std::vector<std::string> unknown_variables() {
  std::vector<std::string> unknown;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "SIDECORE_", 9) != 0) continue;
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    // SIDECORE_PMPI_FENCE is no setting: libsidecore-pmpi.so hands a narrowed CPU mask down with it
    // (instrument/pmpi/core_setup.cpp).
    bool known = name == "SIDECORE_PMPI_FENCE" || name == pmpi_progress_var;
    for (const auto& d : setting_table()) known |= name == d.name;
    if (!known) unknown.push_back(name);
  }
  return unknown;
}


memory_estimate estimate_memory(const settings& s, std::uint64_t peers, std::uint64_t provider_buffer) {
  memory_estimate m;
  m.recv_buffers = static_cast<std::uint64_t>(s.recv_buffers) * (s.eager_max + 40);
  m.submit_queue = static_cast<std::uint64_t>(s.submit_queue) * 64;  // one cache line per entry (mpmc_queue.hpp)
  m.unexpected_eager = peers * s.eager_credits * s.eager_max;
  m.provider = peers * s.send_credits * provider_buffer;
  return m;
}

std::uint64_t provider_buffer_bytes(const std::string& provider, const settings& s) {
  if (provider.find("ofi_rxm") == std::string::npos) return s.eager_max + 40;
  const char* v = std::getenv("FI_OFI_RXM_BUFFER_SIZE");
  char* end = nullptr;
  const unsigned long long n = v && *v ? std::strtoull(v, &end, 10) : 0;
  return n && end && *end == 0 ? n : 16384;
}

std::string memory_budget_warning(const settings& s, std::uint64_t peers, const std::string& provider) {
  const memory_estimate m = estimate_memory(s, peers, provider_buffer_bytes(provider, s));
  const std::uint64_t budget = static_cast<std::uint64_t>(s.memory_budget_mib) << 20;
  if (m.total() <= budget) return {};
  const auto mib = [](std::uint64_t b) {
    char out[32];
    std::snprintf(out, sizeof out, "%.1f", static_cast<double>(b) / (1 << 20));
    return std::string(out);
  };
  return "sidecore: warning: the engine's settings let it hold up to " + mib(m.total()) +
         " MiB per process, more than SIDECORE_MEMORY_BUDGET=" + std::to_string(s.memory_budget_mib) +
         " MiB: receive buffers " + mib(m.recv_buffers) + " MiB (SIDECORE_RECV_BUFFERS=" +
         std::to_string(s.recv_buffers) + " x SIDECORE_EAGER_MAX=" + std::to_string(s.eager_max) +
         " + 40 B), submission queue " + mib(m.submit_queue) + " MiB (SIDECORE_SUBMIT_QUEUE=" +
         std::to_string(s.submit_queue) + "), unexpected eager data " + mib(m.unexpected_eager) + " MiB (" +
         std::to_string(peers) + " peers x SIDECORE_EAGER_CREDITS=" + std::to_string(s.eager_credits) +
         " x SIDECORE_EAGER_MAX), provider buffers " + mib(m.provider) + " MiB (" + std::to_string(peers) +
         " peers x SIDECORE_SEND_CREDITS=" + std::to_string(s.send_credits) + " x " +
         std::to_string(provider_buffer_bytes(provider, s)) + " B on " + provider +
         "); lower those settings or raise the budget (docs/runtime.md, \"Memory budget\")\n";
}

std::string trim(const std::string& v) {
  const auto b = v.find_first_not_of(" \t");
  const auto e = v.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
}

}  // namespace sidecore::detail
