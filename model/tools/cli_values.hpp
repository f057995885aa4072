// Checks of the `sidecore` command's option values that CLI11 itself does not make: an empty value (CLI11 reads
// "" into a number as 0: `--noise ""` would mean a noise band of 0) and a negative value given to an unsigned
// option (strtoull wraps "-1" to 2^64 - 1, and an error would name that number instead of the user's).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace sidecore::tools {

/// Refuses an empty value: "" is never what a user means by a number or a file.
inline CLI::Validator given_value() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        return v.empty() ? "an empty value is not accepted; accepted: the value, or leave the option out" : "";
      },
      "", "given");
}

/// Refuses anything but decimal digits (a sign, a fraction, an exponent) for a whole number that cannot be negative.
inline CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) return "";
        return "'" + v + "' is not accepted; accepted: a whole number >= 0 (decimal digits)";
      },
      "", "whole number");
}

/// given_value() on every named option of `app` that takes a value (flags take none; positionals are left alone: a
/// study's application may take an empty argument).
inline void refuse_empty_values(CLI::App* app) {
  for (CLI::Option* o : app->get_options())
    if (o->get_expected_min() > 0 && !o->get_positional()) o->check(given_value());
}

}  // namespace sidecore::tools
