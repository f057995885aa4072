// `sidecore study` (study.hpp): the loop over the plan, the record kept after every run, the outputs.
#include "study.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/profile.hpp"
#include "study/compare.hpp"
#include "study/launcher.hpp"
#include "study/plan.hpp"
#include "study/record.hpp"
#include "study/report.hpp"
#include "write_file.hpp"

namespace sidecore::tools {
namespace {

namespace fs = std::filesystem;
using namespace study;

std::string this_program_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

// The study's folder, held for the study's life (flock on OUT/.lock): a second study into it would empty the run
// folders of the first while its jobs write there, and each would replace the other's record.
class folder_lock {
 public:
  explicit folder_lock(const std::string& dir)
      : fd_(::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
      throw input_error("--out", dir, std::string("cannot create its lock file .lock: ") + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = {};
      [[maybe_unused]] const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
      ::close(fd_);
      throw input_error::refused("--out", dir, fmt::format("a folder no other study is using (the study of process {} "
                                                           "holds it: wait for it to end, or give another --out)",
                                                           pid[0] != '\0' ? pid : "?"));
    }
    // The holder's process id, for the refusal of the next one (a failed write only leaves it unsaid).
    const std::string me = std::to_string(::getpid());
    if (::ftruncate(fd_, 0) == 0) {
      [[maybe_unused]] const ssize_t n = ::pwrite(fd_, me.data(), me.size(), 0);
    }
  }
  ~folder_lock() { ::close(fd_); }
  folder_lock(const folder_lock&) = delete;
  folder_lock& operator=(const folder_lock&) = delete;

 private:
  int fd_;
};

// Written beside and renamed over: an interrupted write never leaves half a record.
void save(const std::string& dir, const study_record& rec, const nlohmann::json* comparison) {
  const std::string path = dir + "/study.json";
  write_file(path + ".tmp", to_json_text(rec, comparison), "--out");
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
  if (ec) throw input_error("--out", path, "cannot be written: " + ec.message());
}

// Why the run's profile is not of the mode its kind asks for (empty when it is): a dedicated run whose progress
// core did not start (too few cores, a wrapper's mask) measured a run without progress, which compared with the
// prediction would be a judged error of a run that never happened.
std::string wrong_mode(const profile& job, run_kind kind) {
  const bool core = kind == run_kind::dedicated || kind == run_kind::alpha;
  const progress_mode want = core ? progress_mode::core : progress_mode::off;
  auto check = [&](const profile& p) -> std::string {
    if (p.mode == want) return {};
    return fmt::format("rank {}'s profile says mode \"{}\" where this run set SIDECORE_PROGRESS={}{}", p.rank,
                       progress_mode_name(p.mode), progress_mode_name(want),
                       core ? ": its progress core did not start (its stderr says why), so it measured no dedicated "
                              "run"
                            : "");
  };
  for (const profile& r : job.ranks)
    if (std::string why = check(r); !why.empty()) return why;
  return job.ranks.empty() ? check(job) : std::string{};
}

// Why the run's job profile is not of the ranks it launched (empty when it is): processes that did not form one
// MPI job each wrote rank 0's profile over the others', which would pass for a run of fewer ranks.
std::string wrong_rank_count(const profile& job, int ranks) {
  if (job.nranks == ranks) return {};
  return fmt::format("the job profile holds {} rank(s) where -n launched {}: the app's processes did not form one MPI "
                     "job (an app built with another MPI than the launcher of --mpiexec starts each process as a "
                     "job of its own)",
                     job.nranks, ranks);
}

// The run's job profile; without one (a rank writer that does not merge), the rank profiles merged.
profile read_run_profile(const std::string& dir, const std::string& run_dir, int ranks) {
  const std::string job = dir + "/" + run_dir + "/prof.job.json";
  if (fs::exists(job)) return read_profile_file(job);
  std::vector<profile> parts;
  for (int r = 0; r < ranks; ++r)
    parts.push_back(read_profile_file(fmt::format("{}/{}/prof.{}.json", dir, run_dir, r)));
  return make_job_profile(std::move(parts));
}

// The host's 1-minute load average (0 when /proc/loadavg cannot be read).
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  return in >> load ? load : 0.0;
}

int cores_known(const study_record& rec, int case_index) {
  if (rec.settings.cores_per_rank) return *rec.settings.cores_per_rank;
  for (const auto& r : rec.runs)
    if (r.ok && r.spec.case_index == case_index && r.spec.kind == run_kind::calibration) return r.n_core;
  return 0;
}

}  // namespace

std::vector<std::string> study_argv(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args.front() != "study") return args;
  static const char* const own[] = {"-n",      "--inputs",       "--reps",     "--alpha",   "--alpha-option",
                                    "--out",   "--resume",       "--mpiexec",  "--preload", "--pmpi-library",
                                    "--cores-per-rank", "--host-cores", "--run-timeout", "-h", "--help",
                                    "--"};
  auto is_own = [](const std::string& w) {
    for (const char* o : own)
      if (w == o || w.rfind(std::string(o) + "=", 0) == 0) return true;
    // -n with its value attached (-n4), as CLI11 takes it.
    return w.size() > 2 && w.rfind("-n", 0) == 0 &&
           std::all_of(w.begin() + 2, w.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (args[i] == "--inputs=") {  // the same empty case, given with '='
      out.push_back("--inputs= ");
      continue;
    }
    if (args[i] != "--inputs") {
      out.push_back(args[i]);
      continue;
    }
    const std::size_t before = out.size();
    // An empty value (the case without extra arguments) would read as "--inputs=" with no value, and CLI11 would
    // take the next word for it: one space, which splits into no arguments just the same.
    while (i + 1 < args.size() && !is_own(args[i + 1]))
      out.push_back("--inputs=" + (args[i + 1].empty() ? std::string(" ") : args[i + 1])), ++i;
    // No value (the next word is an option of the study's, or --): CLI11 would take that word for one; validate()
    // refuses the marker instead.
    if (out.size() == before) out.push_back("--inputs=" + std::string(missing_inputs_value));
  }
  return out;
}

CLI::App* add_study(CLI::App& app, study_args& a) {
  config& c = a.settings;
  CLI::App* s = app.add_subcommand(
      "study", "run the paper's protocol on an app through mpiexec (calibration, scaling, prediction, dedicated run, "
               "alpha points) and compare the prediction with the measured run");
  s->add_option("-n", c.ranks, fmt::format("MPI ranks, 1 .. {} (default 2)", max_study_ranks))
      ->check(CLI::Range(1, max_study_ranks));
  s->add_option("--inputs", c.inputs,
                "the study's cases: extra arguments appended to the app's, one quoted string each");
  a.reps = s->add_option("--reps", c.reps, "repetitions of every run; the median is compared (default 3; with "
                                           "--resume, the record's)");
  s->add_option("--alpha", a.alpha_lists, "alpha points of the app's own conversion knob, A1,A2,... in [0, 1]");
  s->add_option("--alpha-option", c.alpha_option, "the app's option that takes the alpha (apps/md: --alpha)");
  s->add_option("--out", c.out_dir, "folder of the record, the profiles and the report (default sidecore-study)");
  s->add_flag("--resume", c.resume, "read OUT/study.json and run only what is missing");
  s->add_option("--mpiexec", c.mpiexec, "the launcher and its options (default mpiexec)");
  s->add_flag("--preload", c.preload, "an unmodified MPI app: put libsidecore-pmpi.so in LD_PRELOAD");
  s->add_option("--pmpi-library", c.preload_library,
                "the PMPI library for --preload (default: ../lib beside sidecore)");
  s->add_option("--cores-per-rank", c.cores_per_rank,
                "cores of each rank (default: N_core of the calibration profile, from the rank's cpuset)");
  s->add_option("--host-cores", c.host_cores,
                "cores of the one host every rank ran on, to detect oversubscription (default: each rank's host and "
                "its cores from the profiles, as predict counts them)");
  s->add_option("--run-timeout", c.run_timeout_s,
                "seconds a run may take: one taking longer is stopped (its whole job) and fails the study, which "
                "--resume continues (default: no limit)");
  s->add_option("app", c.app, "the application and its arguments, after --")->required(false);
  s->positionals_at_end();
  return s;
}

int run_study(study_args& a) {
  config& c = a.settings;
  for (const auto& list : a.alpha_lists)
    for (double v : parse_alpha_list(list)) c.alphas.push_back(v);
  validate(c);
  check_launcher(c.mpiexec);
  if (c.preload) {
    if (c.preload_library.empty()) c.preload_library = this_program_dir() + "/../lib/libsidecore-pmpi.so";
    if (!fs::is_regular_file(c.preload_library))
      throw input_error("--preload", c.preload_library,
                        "the PMPI library is not there: build it (target sidecore_pmpi) or give --pmpi-library PATH");
    c.preload_library = fs::absolute(c.preload_library).string();
  }
  std::error_code ec;
  fs::create_directories(c.out_dir + "/runs", ec);
  if (ec) throw input_error("--out", c.out_dir, "cannot create the folder: " + ec.message());
  const folder_lock lock(c.out_dir);
  const std::string record_path = c.out_dir + "/study.json";
  study_record rec;
  if (c.resume) {
    if (!fs::exists(record_path))
      throw input_error("--resume", record_path, "no study record there: run the study without --resume first");
    study_record old = parse_record(read_input_file(record_path, max_record_bytes, "study record"), record_path);
    if (a.reps && a.reps->count() == 0) c.reps = old.settings.reps;
    check_same_study(old.settings, c, record_path);
    // Kept: the plan's runs, once each, whose profile reads and is of the study's ranks; the others run again.
    std::vector<std::string> dropped;
    const auto profile_problem = [&](const run_record& r) -> std::string {
      try {
        return wrong_rank_count(read_profile_file(c.out_dir + "/" + r.profile), c.ranks);
      } catch (const input_error& e) {
        return e.what();
      }
    };
    rec.runs = runs_to_resume(std::move(old.runs), make_plan(c), profile_problem, dropped);
    for (const std::string& d : dropped)
      std::cerr << "sidecore study: --resume: not kept from the record, run again: " << d << "\n";
  } else if (fs::exists(record_path)) {
    throw input_error("--out", c.out_dir,
                      "already holds a study (study.json): give --resume to continue it, or another --out");
  }
  rec.settings = c;
  const int host_cores = c.host_cores ? *c.host_cores : static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));

  install_interrupt_handlers();
  const auto plan = make_plan(c);
  int failed = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const run_spec& spec = plan[i];
    const std::string head = fmt::format("[{}/{}] {:<24}", i + 1, plan.size(), spec.id);
    if (rec.done(spec.id)) {
      std::cout << head << " done before (kept from the record)\n";
      continue;
    }
    const int cores = cores_known(rec, spec.case_index);
    if (spec.kind != run_kind::calibration && cores < 2) {
      std::cout << head
                << (cores == 0 ? " skipped: no calibration run of this case finished\n"
                               : " skipped: each rank has 1 core, so there is no N-1 and no core to dedicate\n");
      continue;
    }
    const std::string run_dir = "runs/" + spec.id;
    // Emptied first: what an earlier attempt of this run left (its profiles) must not pass for this one's.
    fs::remove_all(c.out_dir + "/" + run_dir, ec);
    if (!ec) fs::create_directories(c.out_dir + "/" + run_dir, ec);
    if (ec) throw input_error("--out", c.out_dir + "/" + run_dir, "cannot make the run's folder anew: " + ec.message());
    const launch l = make_launch(c, spec, cores, fs::absolute(c.out_dir + "/" + run_dir + "/prof.%r.json").string());
    run_record r;
    r.spec = spec;
    r.command = describe(l);
    r.load_before = load_average();
    std::cout << head << " " << std::flush;
    const std::string err_path = c.out_dir + "/" + run_dir + "/stderr.txt";
    const child_result res = run_child(l.argv, l.env, c.out_dir + "/" + run_dir + "/stdout.txt", err_path, spec.id,
                                       c.run_timeout_s.value_or(0.0));
    r.exit_status = res.exit_status;
    r.wall_s = res.wall_s;
    if (res.interrupted) {
      std::cout << "interrupted\n";
      save(c.out_dir, rec, nullptr);
      std::cerr << fmt::format(
          "sidecore study: interrupted by signal {} during {}: its job was stopped; the {} runs done are kept in {}; "
          "`sidecore study --resume` with the same arguments runs the rest\n",
          interrupt_signal(), spec.id, rec.runs.size(), record_path);
      return 128 + interrupt_signal();
    }
    if (res.timed_out) {
      r.error = fmt::format("stopped after {:g} s (--run-timeout {:g})", *c.run_timeout_s, *c.run_timeout_s);
    } else if (res.exit_status != 0) {
      r.error = fmt::format("exit status {}", res.exit_status);
    } else {
      try {
        const profile p = read_run_profile(c.out_dir, run_dir, c.ranks);
        r.profile = run_dir + "/prof.job.json";
        if (!fs::exists(c.out_dir + "/" + r.profile)) write_profile_file(c.out_dir + "/" + r.profile, p);
        r.t_total_s = p.t_total_s;
        r.t_comp_s = p.t_comp_s;
        r.n_core = p.ranks.empty() ? p.n_core : p.ranks.front().n_core;
        r.provider = p.provider;
        r.blocking_calls = p[category::blocking].count;
        r.error = wrong_rank_count(p, c.ranks);
        if (r.error.empty()) r.error = wrong_mode(p, spec.kind);
        r.ok = r.error.empty();
      } catch (const input_error& e) {
        r.error = std::string("no usable profile (is SIDECORE_PROFILE honoured? --preload for an unmodified MPI "
                              "app): ") + e.what();
      }
    }
    if (!r.ok) r.stderr_tail = file_tail(err_path);
    rec.runs.push_back(r);
    save(c.out_dir, rec, nullptr);
    if (r.ok) {
      std::cout << fmt::format("{:.3f} s (slowest rank {:.4g} s, computation {:.4g} s, N_core {})\n", r.wall_s,
                               r.t_total_s, r.t_comp_s, r.n_core);
      continue;
    }
    std::cout << "FAILED\n";
    std::cerr << fmt::format(
        "sidecore study: run {} failed: {}\n  command: {}\n  stdout and stderr: {}/{}/\n{}\n", spec.id, r.error,
        r.command, c.out_dir, run_dir,
        r.stderr_tail.empty() ? "  (stderr was empty)" : "  stderr, last lines:\n" + r.stderr_tail);
    ++failed;
    break;
  }

  const auto cases = compare(
      rec, [&](const run_record& r) { return read_profile_file(c.out_dir + "/" + r.profile); }, host_cores);
  const nlohmann::json comparison = to_json(cases);
  save(c.out_dir, rec, &comparison);
  write_file(c.out_dir + "/report.html", render_html(cases, rec), "--out");
  write_file(c.out_dir + "/comparison.svg", render_svg(cases), "--out");
  std::cout << "\n" << render_text(cases, rec);
  std::cout << fmt::format("\nwrote {0}/study.json, {0}/report.html, {0}/comparison.svg\n", c.out_dir);
  if (failed) {
    std::cerr << fmt::format("sidecore study: stopped at a failed run; fix it and continue with --resume\n");
    return 1;
  }
  return 0;
}

}  // namespace sidecore::tools
