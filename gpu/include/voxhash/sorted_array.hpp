// SortedArray: the baseline the hash tables are measured against (the cuckoo chapter compares
// with it): the keys and their values sorted as pairs (CUB radix sort on CUDA, the CPU backend's
// stable pair sort), looked up by binary search; or, as a set, the keys sorted and de-duplicated.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <memory>

namespace voxhash {

class SortedArray {
 public:
  virtual ~SortedArray() = default;

  [[nodiscard]] virtual Backend backend() const = 0;

  /// Copies keys[0..n) into the unsorted input with the values 0..n-1 (the input indices), on
  /// `stream` (asynchronous): the part of a build that is not the sort.
  virtual void stage_async(const Key* keys, std::size_t n, Stream stream = nullptr) = 0;
  /// Sorts the staged pairs by key (all 32 bits) on `stream`. Asynchronous.
  virtual void build_async(Stream stream = nullptr) = 0;
  /// The sort + unique baseline a hash set's build (the frame's tables) is measured against:
  /// keys[0..n) radix-sorted alone and de-duplicated (CUB on CUDA) on `stream`; returns the number
  /// of distinct keys (synchronizes). find_async then answers each key's rank among them (the
  /// dense id a set build gives), until the next stage_async.
  virtual std::size_t build_set(const Key* keys, std::size_t n, Stream stream = nullptr) = 0;
  /// out[i] = the value of queries[i] (after build_set: its rank), or kNotFound, on `stream`.
  /// Asynchronous.
  virtual void find_async(const Key* queries,
                          std::size_t n,
                          Value* out,
                          Stream stream = nullptr) const = 0;

  /// Memory held (inputs, sorted arrays; the sort's scratch is counted as one more copy).
  [[nodiscard]] virtual std::size_t bytes() const = 0;
};

[[nodiscard]] std::unique_ptr<SortedArray> make_sorted_array(Backend backend);

/// Peak memory of a sorted array of n keys (what bytes() reports once built).
[[nodiscard]] std::size_t estimate_sorted_array_bytes(std::size_t n);

}  // namespace voxhash
