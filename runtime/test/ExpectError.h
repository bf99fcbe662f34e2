// expect_error(f, {parts...}): f() must throw dxrt::Error whose message
// contains every one of `parts` (messages name the file and what is wrong).
#pragma once

#include "common/Check.h"

#include <gtest/gtest.h>
#include <initializer_list>
#include <string>

namespace dxtest {

template <typename F> void expect_error(F &&f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const dxrt::Error &e) {
    for (const std::string &p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "message: " << e.what() << "\nmissing: " << p;
  }
}

} // namespace dxtest
