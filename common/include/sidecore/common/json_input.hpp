// sidecore — parsing a JSON input document (profile, trace, LogGP parameters, study record) with errors that say
// where the text went wrong.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sidecore {

/// Parses `text` as one JSON document read from `source` (a file path, or a name such as "rank 3's profile").
/// Returns the document; validating its fields is the caller's work.
/// Bad text throws input_error, never nlohmann's exceptions:
///  - text that is not JSON: "<source>: malformed JSON (in <path>) at byte <N>: <what was expected>", where <path> is
///    the JSON path of the value being read ("ranks[0].categories"), left out at the top level;
///  - a number beyond a double's range (1e999), which nlohmann reports without a position:
///    "<source>: <path>: number <token> is not a finite number (beyond the range of a double); accepted: <accepted>",
///    `accepted` naming the numbers the caller takes ("finite numbers, times at most 1e+06 s");
///  - a key that an object names twice (nlohmann would keep the last value silently): "<source>: <path of the key>:
///    the key "<key>" appears twice in its object; accepted: each key once ...".
[[nodiscard]] nlohmann::json parse_json_input(std::string_view text, const std::string& source,
                                              std::string_view accepted = "finite numbers");

}  // namespace sidecore
