// Strict number parsing: the one parser for every number a user types (YAML values, --set
// overrides, command-line options, CSV cells, `.strd` run options). The whole text must be the
// number: no leading or trailing blanks or junk, no sign on an unsigned, no overflow, no nan/inf.
// Unsigned and signed integers are decimal or 0x-hexadecimal. Errors are std::invalid_argument
// with the text `<what>: expected <kind>, got '<text>'`, so a caller only needs to say what the
// number is (`--jobs`, `arch.l2.capacity_bytes`).
#pragma once

#include <cstdint>
#include <string>

namespace strider {

// Parse the whole of `text`; throw std::invalid_argument("<what>: expected <kind>, got '<text>'")
// on empty text, leading/trailing junk, a sign on an unsigned, overflow, nan/inf.
uint64_t parse_u64(const std::string& text, const std::string& what);
int64_t parse_i64(const std::string& text, const std::string& what);
double parse_double(const std::string& text, const std::string& what);

}  // namespace strider
