// How the `sidecore` command reports what CLI11 refuses while parsing (an unknown option, a missing value, a value
// that is not a number): in the form of every other error of the command, "sidecore SUBCOMMAND: error: ...", and a
// value CLI11 cannot convert, or that is outside an option's range, names what the option accepts ("--cores: 'x' is
// not accepted; accepted: an integer") instead of "Could not convert: --cores = x".
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace sidecore::tools {

/// For CLI::App::failure_message: `app` is the top-level app (its parsed subcommand names the command), `e` what
/// CLI11 threw. Returns the lines to print on stderr, ending with a newline.
[[nodiscard]] std::string cli_failure_message(const CLI::App* app, const CLI::Error& e);

/// What option `o` accepts, in words, from its type and its range: "an integer in [1 - 4096]", "a number".
[[nodiscard]] std::string accepted_by(const CLI::Option& o);

}  // namespace sidecore::tools
