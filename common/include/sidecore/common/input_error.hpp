// sidecore — the one exception type for bad input to the profile reader and the model (files, fields, options).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace sidecore {

/// Thrown for every input the model cannot go on from: an unreadable or malformed file, a schema
/// version it does not know, a negative time, N_core <= 1, alpha outside [0, 1], a bad option.
/// what() reads "<source>: <field>: <message>" (parts left out when empty), where source is the
/// file path or the option name ("--alpha") and field the JSON path ("ranks[2].categories.wait.min_s")
/// or the table column; the message names the bad value and what is accepted.
class input_error : public std::runtime_error {
 public:
  input_error(std::string source, std::string field, const std::string& message)
      : std::runtime_error(compose(source, field, message)),
        source_(std::move(source)),
        field_(std::move(field)) {}

  /// An option's value refused, in the one form every sidecore command uses:
  /// "<option>: '<value>' is not accepted; accepted: <accepted>" (the command line's parser says the same).
  [[nodiscard]] static input_error refused(std::string option, const std::string& value, const std::string& accepted) {
    return {std::move(option), "", "'" + value + "' is not accepted; accepted: " + accepted};
  }

  /// The file path or option the error is about (may be empty).
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  /// The field inside the source (JSON path, column, line), may be empty.
  [[nodiscard]] const std::string& field() const noexcept { return field_; }

 private:
  static std::string compose(const std::string& source, const std::string& field, const std::string& message) {
    std::string s;
    if (!source.empty()) s += source + ": ";
    if (!field.empty()) s += field + ": ";
    return s + message;
  }
  std::string source_;
  std::string field_;
};

}  // namespace sidecore
