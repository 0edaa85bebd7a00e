// CpuExec: how the shared algorithm templates run on the CPU backend. for_each runs a per-element
// function over [0, n) on the thread pool; scans and sorts are the standard library's.
#pragma once

#include "cpu/thread_pool.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

namespace voxhash {

class CpuExec {
 public:
  static constexpr Backend kBackend = Backend::Cpu;

  explicit CpuExec(Stream = nullptr) {}
  void set_stream(Stream) {}

  template <class F>
  void for_each(std::size_t n, F f, int /*block_size*/ = 0) {
    cpu::parallel_for(n, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        f(static_cast<std::uint32_t>(i));
    });
  }

  /// out[i] = in[0] + ... + in[i-1]; in and out may alias.
  void exclusive_sum(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
    std::exclusive_scan(in, in + n, out, std::uint32_t{0});
  }

  /// data[i] = max(data[0..i]), in place.
  void inclusive_max(std::uint32_t* data, std::size_t n) {
    std::inclusive_scan(
        data, data + n, data, [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); });
  }

  /// Stable sort of (keys, values) pairs by the key bits [0, end_bit): keys_out/values_out receive
  /// the result; the inputs may be overwritten.
  template <class V>
  void sort_pairs(std::uint32_t* keys_in,
                  std::uint32_t* keys_out,
                  V* values_in,
                  V* values_out,
                  std::size_t n,
                  int /*end_bit*/) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return keys_in[a] < keys_in[b];
    });
    for (std::size_t i = 0; i < n; ++i) {
      keys_out[i]   = keys_in[order[i]];
      values_out[i] = values_in[order[i]];
    }
  }

  /// Copies the keys of in[0..n) that differ from `drop` to out, in order; returns how many.
  std::size_t select_not_equal(const std::uint32_t* in,
                               std::uint32_t* out,
                               std::size_t n,
                               std::uint32_t drop) {
    return static_cast<std::size_t>(
        std::copy_if(in, in + n, out, [=](std::uint32_t k) { return k != drop; }) - out);
  }

  /// Writes the indices i with flags[i] != 0 to out, ascending; returns how many.
  std::size_t select_flagged_indices(const std::uint8_t* flags, std::uint32_t* out, std::size_t n) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (flags[i]) out[count++] = static_cast<std::uint32_t>(i);
    }
    return count;
  }

  /// Timestamps for per-stage timings: mark(i) records now, elapsed_ms(a, b) the time between.
  void mark(int i) { m_marks[i] = std::chrono::steady_clock::now(); }
  double elapsed_ms(int a, int b) {
    return std::chrono::duration<double, std::milli>(m_marks[b] - m_marks[a]).count();
  }
  static constexpr int kMarks = 16;

  template <class T>
  void fill(T* data, std::size_t n, T value) {
    for_each(n, [=](std::uint32_t i) { data[i] = value; });
  }

  template <class T>
  T read(const T* src) {
    return *src;
  }
  template <class T>
  void write(T* dst, const T& value) {
    *dst = value;
  }

  void synchronize() {}

 private:
  std::array<std::chrono::steady_clock::time_point, kMarks> m_marks{};
};

}  // namespace voxhash
