// CpuExec: how the shared algorithm templates run on the CPU backend. for_each runs a per-element
// function over [0, n) with oneTBB (parallel_for over a blocked_range), for_each_tile the same with
// each element's tile the calling thread alone; scans, sorts and run-length encoding are the
// standard library's or plain loops; Event is a steady-clock timestamp. Streams do not exist:
// everything runs on the caller's thread in order, so waits are no-ops and an OwnedStream is the
// null stream.
#pragma once

#include "exec/host_parallel.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/detail/tile.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

namespace voxhash {

class CpuExec {
 public:
  static constexpr Backend kBackend = Backend::Cpu;

  /// Loops shorter than this run on the calling thread; longer ones are split into chunks of at
  /// least this many elements.
  static constexpr std::size_t kGrain = 4096;

  explicit CpuExec(Stream = nullptr, Buffer<std::byte>* = nullptr) {}
  void set_stream(Stream) {}
  [[nodiscard]] Stream stream() const { return nullptr; }

  template <class F>
  void for_each(std::size_t n, F f, int /*block_size*/ = 0) {
    parallel_chunks(n, kGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        f(static_cast<std::uint32_t>(i));
    });
  }

  /// f(i) for i < *count, a word earlier work wrote (at most max_n): on the CPU that work is done,
  /// so the count is read here.
  template <class F>
  void for_each_counted(std::size_t max_n, const std::uint32_t* count, F f) {
    for_each(std::min<std::size_t>(*count, max_n), f);
  }

  /// The tile of bucketed tables' per-element functions: on the CPU one thread holds a bucket,
  /// whatever the lanes a GPU tile would have.
  template <int Lanes>
  using Tile = detail::SerialTile;

  /// f(tile, i) for i in [0, n), each on a tile of its own.
  template <int Lanes, class F>
  void for_each_tile(std::size_t n, F f) {
    for_each(n, [&](std::uint32_t i) { f(detail::SerialTile{}, i); });
  }

  /// out[i] = in[0] + ... + in[i-1]; in and out may alias.
  void exclusive_sum(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
    std::exclusive_scan(in, in + n, out, std::uint32_t{0});
  }

  /// The same into 64-bit sums, which cannot overflow (a join's output offsets).
  void exclusive_sum(const std::uint32_t* in, std::uint64_t* out, std::size_t n) {
    std::exclusive_scan(in, in + n, out, std::uint64_t{0});
  }

  /// data[i] = max(data[0..i]), in place.
  void inclusive_max(std::uint32_t* data, std::size_t n) {
    std::inclusive_scan(
        data, data + n, data, [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); });
  }

  /// bins[v] = how many of samples[0..n) equal v, for v < bin_count (other values uncounted).
  template <class T>
  void histogram(const T* samples, std::uint32_t* bins, int bin_count, std::size_t n) {
    std::fill(bins, bins + bin_count, 0u);
    for (std::size_t i = 0; i < n; ++i) {
      if (samples[i] < static_cast<T>(bin_count)) ++bins[samples[i]];
    }
  }

  /// Scratch bytes sort_pairs needs (none on the CPU).
  template <class V, class N>
  std::size_t sort_pairs_scratch_bytes(N, int) {
    return 0;
  }

  /// Stable sort of (keys, values) pairs by the key bits [0, end_bit): keys_out/values_out receive
  /// the result; the inputs may be overwritten.
  template <class KeyT, class V>
  void sort_pairs(KeyT* keys_in,
                  KeyT* keys_out,
                  V* values_in,
                  V* values_out,
                  std::size_t n,
                  int end_bit,
                  void* /*scratch*/             = nullptr,
                  std::size_t /*scratch_bytes*/ = 0) {
    (void)end_bit;
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

  /// Sorts the keys of keys_in[0..n) into keys_out (end_bit: the CUDA sort's bit range; a CPU
  /// sort compares whole keys, which orders keys within that range the same).
  template <class KeyT>
  void sort_keys(const KeyT* keys_in,
                 KeyT* keys_out,
                 std::size_t n,
                 int end_bit = static_cast<int>(8 * sizeof(KeyT))) {
    (void)end_bit;
    std::copy(keys_in, keys_in + n, keys_out);
    std::sort(keys_out, keys_out + n);
  }

  /// Copies the first key of every run of equal keys of in[0..n) to out; returns how many.
  template <class KeyT>
  std::size_t unique(const KeyT* in, KeyT* out, std::size_t n) {
    return static_cast<std::size_t>(std::unique_copy(in, in + n, out) - out);
  }
  /// The same, their number into *count.
  template <class KeyT>
  void unique_async(const KeyT* in, KeyT* out, std::size_t n, std::uint32_t* count) {
    *count = static_cast<std::uint32_t>(unique(in, out, n));
  }

  /// Copies the keys of in[0..n) that differ from `drop` to out, in order; returns how many.
  template <class KeyT>
  std::size_t select_not_equal(const KeyT* in, KeyT* out, std::size_t n, KeyT drop) {
    return static_cast<std::size_t>(
        std::copy_if(in, in + n, out, [=](KeyT k) { return k != drop; }) - out);
  }

  /// Run-length encodes in[0..n): each run of equal keys becomes its key in unique_out and its
  /// length in counts_out, in order; returns the number of runs.
  template <class KeyT>
  std::size_t run_length_encode(const KeyT* in,
                                KeyT* unique_out,
                                std::uint32_t* counts_out,
                                std::size_t n) {
    std::size_t runs = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || in[i] != in[i - 1]) {
        unique_out[runs] = in[i];
        counts_out[runs] = 0;
        ++runs;
      }
      ++counts_out[runs - 1];
    }
    return runs;
  }

  /// Writes the indices i with flags[i] != 0 to out, ascending; returns how many.
  std::size_t select_flagged_indices(const std::uint8_t* flags, std::uint32_t* out, std::size_t n) {
    std::uint32_t count = 0;
    select_indices_async(
        n, [=](std::uint32_t i) { return flags[i] != 0; }, out, &count);
    return count;
  }

  /// Copies the values in[i] (i < n) with pred(in[i]) to out, in order; *count = how many.
  template <class Pred>
  void select_if_async(
      const std::uint32_t* in, std::uint32_t* out, std::size_t n, Pred pred, std::uint32_t* count) {
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (pred(in[i])) out[c++] = in[i];
    }
    *count = static_cast<std::uint32_t>(c);
  }

  /// Writes the indices i < n with pred(i) to out, ascending; *count = how many.
  template <class Pred>
  void select_indices_async(std::size_t n, Pred pred, std::uint32_t* out, std::uint32_t* count) {
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (pred(static_cast<std::uint32_t>(i))) out[c++] = static_cast<std::uint32_t>(i);
    }
    *count = static_cast<std::uint32_t>(c);
  }

  /// Copies `bytes` between two buffers of this backend, in parallel blocks of 4 KiB.
  void copy_async(void* dst, const void* src, std::size_t bytes) {
    constexpr std::size_t kBlock = 4096;
    auto* d                      = static_cast<std::byte*>(dst);
    const auto* s                = static_cast<const std::byte*>(src);
    for_each((bytes + kBlock - 1) / kBlock, [=](std::uint32_t b) {
      const std::size_t begin = std::size_t{b} * kBlock;
      std::memcpy(d + begin, s + begin, std::min(kBlock, bytes - begin));
    });
  }

  /// Copies `bytes` between any two memories (host, pinned host): the same as copy_async here.
  void transfer_async(void* dst, const void* src, std::size_t bytes) {
    copy_async(dst, src, bytes);
  }

  /// A timestamp: record() takes the time now, elapsed_ms() the time between two.
  class Event {
   public:
    explicit Event(bool /*timed*/ = true) {}
    void record(const CpuExec&) { m_time = std::chrono::steady_clock::now(); }
    [[nodiscard]] double elapsed_ms(const Event& to) const {
      return std::chrono::duration<double, std::milli>(to.m_time - m_time).count();
    }
    void synchronize() const {}

   private:
    std::chrono::steady_clock::time_point m_time{};
  };

  /// Work after this waits for `event` (everything before it has run already).
  void wait(const Event&) {}

  /// A stream of one's own: the null stream, which the CPU ignores.
  class OwnedStream {
   public:
    [[nodiscard]] Stream get() const { return nullptr; }
  };

  template <class T>
  void fill(T* data, std::size_t n, T value) {
    for_each(n, [=](std::uint32_t i) { data[i] = value; });
  }

  template <class T>
  T read(const T* src) {
    return *src;
  }
  /// dst[0..n) = src[0..n): into host memory (n may be 0, with null pointers: an empty list).
  template <class T>
  void copy_to_host(T* dst, const T* src, std::size_t n) {
    if (n != 0) std::memcpy(dst, src, n * sizeof(T));
  }
  template <class T>
  void write_async(T* dst, const T& value) {
    *dst = value;
  }

  void synchronize() {}
};

}  // namespace voxhash
