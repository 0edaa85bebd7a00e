// REQUIRE_CUDA(), the first statement of every test of the gpu label that needs the CUDA backend:
// where no CUDA device can be used the test is skipped, saying why, so the label runs (and
// passes, skipped) on machines without a GPU as well.
#pragma once

#include <voxhash/backend.hpp>

#include <gtest/gtest.h>

#define REQUIRE_CUDA()                                                     \
  do {                                                                     \
    if (!::voxhash::cuda_available())                                      \
      GTEST_SKIP() << "skipped: " << ::voxhash::cuda_unavailable_reason(); \
  } while (0)
