// Catching the std::ios_base::failure a stream call throws, to check its message and code.
#pragma once

#include <ios>
#include <string>
#include <system_error>

namespace mapout::test {

// The what() of the failure `call` throws, with its code() in `code`; "" when it throws none.
template <class Call>
std::string failure_of(Call&& call, std::error_code& code) {
  try {
    call();
  } catch (const std::ios_base::failure& e) {
    code = e.code();
    return e.what();
  }
  return "";
}

}  // namespace mapout::test
