// Checks of the `sidecore` command's option values that CLI11 itself does not make: an empty value (CLI11 reads
// "" into a number as 0: `--noise ""` would mean a noise band of 0) and an integer that is not plain decimal or
// does not fit 64 bits. CLI11 reads integers with strtoll/strtoull in base 0: "0x10" is 16, "010" is 8, "-1" given
// to an unsigned option wraps to 2^64 - 1, and 99999999999999999999999 saturates to 2^64 - 1 (2^63 - 1 signed)
// without a word, so the command would run with, or name in its error, a number the user never gave.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli_errors.hpp"

namespace sidecore::tools {

/// Refuses an empty value: "" is never what a user means by a number or a file.
inline CLI::Validator given_value() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        return v.empty() ? "an empty value is not accepted; accepted: the value, or leave the option out" : "";
      },
      "", "given");
}

/// For an integer option `o` (CLI11's type INT or UINT), run before its other checks: passes a plain decimal value
/// on without leading zeros (which base 0 would read as octal); refuses one beyond 64 bits, naming the option's
/// range (its own range check names it, when it has one); refuses what strtoll/strtoull would read but is not
/// decimal digits ("0x10", "+5", "-1" for an unsigned option). Text that is no number at all ("two", "1.5") is
/// left to CLI11's conversion, whose refusal names what the option accepts.
inline CLI::Validator decimal_integer(const CLI::Option* o) {
  return CLI::Validator(
      [o](std::string& v) -> std::string {
        const bool is_unsigned = o->get_type_name().rfind("UINT", 0) == 0;
        std::string_view digits = v;
        const bool negative = !digits.empty() && digits.front() == '-';
        if (negative) digits.remove_prefix(1);
        const std::string accepted = accepted_by(*o);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos ||
            (negative && is_unsigned)) {
          char* end = nullptr;
          if (is_unsigned) (void)std::strtoull(v.c_str(), &end, 0);
          else (void)std::strtoll(v.c_str(), &end, 0);
          const bool would_convert = !v.empty() && end == v.c_str() + v.size();
          return would_convert ? "'" + v + "' is not accepted; accepted: " + accepted + ", in decimal digits" : "";
        }
        digits.remove_prefix(std::min(digits.find_first_not_of('0'), digits.size() - 1));
        const std::string_view limit = is_unsigned ? "18446744073709551615"
                                       : negative  ? "9223372036854775808"
                                                   : "9223372036854775807";
        const bool fits = digits.size() < limit.size() || (digits.size() == limit.size() && digits <= limit);
        const bool has_range = accepted.find(" in [") != std::string::npos;
        if (!fits && !has_range)
          return "'" + v + "' is not accepted; accepted: " +
                 (is_unsigned ? "a whole number in [0 - 18446744073709551615]"
                              : "an integer in [-9223372036854775808 - 9223372036854775807]");
        v = (negative && digits != "0" ? "-" : "") + std::string(digits);
        return "";
      },
      "", "decimal integer");
}

/// given_value() on every named option of `app` that takes a value (flags take none; positionals are left alone: a
/// study's application may take an empty argument), and decimal_integer() on every integer option, first.
inline void check_option_values(CLI::App* app) {
  for (CLI::Option* o : app->get_options()) {
    if (o->get_expected_min() == 0 || o->get_positional()) continue;
    o->check(given_value());
    const std::string type = o->get_type_name();
    if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) o->transform(decimal_integer(o));
  }
}

}  // namespace sidecore::tools
