// The one helper the tests use to read a refusal: the text of the std::runtime_error a call
// throws, or "no error" when it returns.
#pragma once

#include <stdexcept>
#include <string>

namespace strider {

template <class F>
std::string error_text(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace strider
