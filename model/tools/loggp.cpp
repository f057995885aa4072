// `sidecore loggp` (loggp.hpp, docs/loggp.md).
#include "loggp.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/loggp/files.hpp"
#include "study/config.hpp"
#include "write_file.hpp"

namespace sidecore::tools {

namespace lg = sidecore::model::loggp;

CLI::App* add_loggp(CLI::App& app, loggp_args& a) {
  CLI::App* c = app.add_subcommand(
      "loggp", "LogGP parameters per protocol range from PRTT(n, d, s) measurements (Hoefler et al.), with the "
               "protocol changes found automatically");
  c->add_option("measurement", a.measurement,
                "PRTT measurement file (JSON, schema sidecore-prtt) written by sidecore-loggp-probe; with --measure, "
                "the file the probe writes");
  c->add_flag("--measure", a.measure,
              "first run the probe: mpiexec -n 2 <dir of this program>/sidecore-loggp-probe --output MEASUREMENT "
              "(with -bind-to core in mode off, unless MPIEXEC names the launcher)");
  c->add_option("--probe-args", a.probe_args, "extra arguments for the probe (e.g. \"--max-bytes 1048576 --reps 5\")");
  c->add_option("-o,--output", a.output, "write the parameter file (JSON, schema sidecore-loggp)");
  c->add_option("--svg", a.svg, "write measured vs fitted PRTT and G_all per range as SVG");
  c->add_option("--xfer-table", a.xfer_table,
                "write the overlap bounds' a-priori transfer-time table (for SIDECORE_XFER_TABLE)");
  c->add_option("--xfer-series", a.xfer_series, "transport of the series the table is made from (default: the first)");
  c->add_option("--pfact", a.fit.pfact, "protocol-change sensitivity (Hoefler et al.'s pfact, default 2.0)");
  c->add_option("--lookahead", a.fit.lookahead, "points of look-ahead (Hoefler et al.'s x, default 3)");
  c->add_option("--overhead-weight", a.fit.overhead_weight,
                "weight of o_s(s) and o_r(s) against the PRTT series in the fit of a range (default 0.01; "
                "docs/loggp.md)");
  c->add_option("--tolerance", a.fit.tolerance,
                "split a range whose fit misses PRTT by more than this fraction, where a cut pays for its "
                "parameters (default 0.05; 0: no splits; docs/loggp.md)");
  return c;
}

namespace {

std::filesystem::path self_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(".") : exe.parent_path();
}

// Runs the probe under mpiexec with 2 ranks; the probe writes the measurement file.
void measure(const loggp_args& a) {
  const std::filesystem::path probe = self_dir() / "sidecore-loggp-probe";
  if (!std::filesystem::exists(probe))
    throw input_error("--measure", probe.string(),
                      "the probe program is not there (it is built with the runtime: a build with "
                      "-DSIDECORE_PARTS=model has none)");
  const char* mpiexec_env = std::getenv("MPIEXEC");
  const bool own_launcher = !(mpiexec_env && *mpiexec_env);
  const std::string mpiexec = own_launcher ? "mpiexec" : mpiexec_env;
  // Each rank on a core of its own (MPICH's hydra spells it -bind-to core), where no progress thread needs a core
  // of its own: measured on 2 cores, unbound ranks that slept through the large sizes' waits came out 2x slower in
  // the small sizes' round trips than bound ones (docs/loggp.md). A given MPIEXEC is used as it is.
  const char* mode = std::getenv("SIDECORE_PROGRESS");
  const bool bind = own_launcher && (!mode || !*mode || std::string_view(mode) == "off");
  // Run without a shell: --probe-args and MPIEXEC are words split at white space, never shell syntax (a `;` in
  // them ran a command of its own).
  std::vector<std::string> argv = study::split_words(mpiexec);
  if (argv.empty()) throw input_error("MPIEXEC", mpiexec, "names no launcher; accepted: e.g. mpiexec");
  if (bind) argv.insert(argv.end(), {"-bind-to", "core"});
  argv.insert(argv.end(), {"-n", "2", probe.string(), "--output", a.measurement});
  for (std::string& w : study::split_words(a.probe_args)) argv.push_back(std::move(w));
  const std::string cmd = fmt::format("{}", fmt::join(argv, " "));
  std::cerr << "sidecore loggp: " << cmd << "\n";
  std::vector<char*> args;
  for (std::string& w : argv) args.push_back(w.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw input_error("--measure", cmd, std::string("cannot start the probe: ") + std::strerror(errno));
  if (pid == 0) {
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "sidecore loggp: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  throw input_error("--measure", cmd,
                    WIFEXITED(status) ? fmt::format("the probe failed with exit status {} (its message is above)",
                                                    WEXITSTATUS(status))
                                      : fmt::format("the probe was killed by signal {}", WTERMSIG(status)));
}

}  // namespace

int run_loggp(const loggp_args& a) {
  if (a.measurement.empty()) throw input_error("MEASUREMENT", "", "no input: give a PRTT measurement file");
  if (!a.measure && !a.probe_args.empty())
    throw input_error::refused("--probe-args", a.probe_args,
                               "--probe-args together with --measure (the probe it passes them to)");
  if (a.fit.lookahead < 1 || a.fit.lookahead > 20)
    throw input_error::refused("--lookahead", std::to_string(a.fit.lookahead), "an integer in [1 - 20]");
  if (!(a.fit.pfact > 1.0) || !std::isfinite(a.fit.pfact))
    throw input_error::refused("--pfact", fmt::format("{}", a.fit.pfact), "a number > 1");
  if (!(a.fit.overhead_weight > 0) || !std::isfinite(a.fit.overhead_weight))
    throw input_error::refused("--overhead-weight", fmt::format("{}", a.fit.overhead_weight), "a number > 0");
  if (!(a.fit.tolerance >= 0) || !std::isfinite(a.fit.tolerance))
    throw input_error::refused("--tolerance", fmt::format("{}", a.fit.tolerance), "a number >= 0 (0: no splits)");
  // With --measure the measurement is an output too: checked before the probe's minute, not after it.
  std::vector<named_path> inputs, outputs;
  (a.measure ? outputs : inputs).push_back({"MEASUREMENT", a.measurement});
  outputs.insert(outputs.end(), {{"--output", a.output}, {"--svg", a.svg}, {"--xfer-table", a.xfer_table}});
  check_outputs(inputs, outputs);
  if (a.measure) measure(a);
  const lg::measurement m = lg::read_measurement(a.measurement);
  std::vector<lg::series_fit> fits;
  for (const lg::prtt_series& s : m.series) {
    try {
      fits.push_back(lg::fit(s, a.fit));
    } catch (const std::invalid_argument& e) {
      throw input_error(a.measurement, s.transport, e.what());
    }
  }
  // The series of the transfer table is checked before anything is written: a refused command writes nothing.
  const lg::series_fit* chosen = &fits.front();
  if (!a.xfer_series.empty()) {
    chosen = nullptr;
    std::string have;
    for (const lg::series_fit& f : fits) {
      if (f.series.transport == a.xfer_series) chosen = &f;
      have += (have.empty() ? "" : ", ") + f.series.transport;
    }
    if (!chosen)
      throw input_error("--xfer-series", a.xfer_series,
                        "no series of that transport in the measurement; accepted: " + have);
  }
  std::cout << lg::params_table(fits, a.fit);
  if (!a.output.empty()) write_file(a.output, lg::params_json(m, fits, a.fit).dump(2) + "\n", "--output");
  if (!a.svg.empty()) write_file(a.svg, lg::params_svg(fits), "--svg");
  if (!a.xfer_table.empty()) write_file(a.xfer_table, lg::xfer_table_json(*chosen).dump(2) + "\n", "--xfer-table");
  return 0;
}

}  // namespace sidecore::tools
