// What the benchmarks need from a backend besides the tables: keys generated in its memory, a
// stopwatch for its work (CUDA events on the default stream, or the steady clock), its free memory,
// and the sorted-array baseline (radix sort of key-value pairs, binary-search lookups). Plain C++;
// the CUDA side lives in bench_device_cuda.cu.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace voxhash::bench {

/// Which keys generate_keys() draws. Key j of a universe is murmur_mix(j, universe) (a bijection,
/// so distinct j give distinct keys; the one j that would give kEmptyKey is remapped). Hits come
/// from j in [0, distinct), misses from j in [2^31, 2^31 + distinct), so no miss is ever a hit.
struct KeySpec {
  std::uint32_t universe = 1;  // seed of the key universe
  std::uint32_t order    = 1;  // seed of the draw order and of the hit/miss choice
  std::size_t distinct   = 0;  // number of different keys drawn from (< 2^31)
  double miss_fraction   = 0;  // fraction of draws taken from the miss range instead
};

/// out[0..n) = n draws per `spec`: a random permutation of [0, n) taken modulo `distinct`, so each
/// key comes n / distinct times (rounded up or down) in random order. `out` is in the backend's
/// memory; asynchronous on the default stream for Cuda.
void generate_keys(Backend backend, Key* out, std::size_t n, const KeySpec& spec);

/// Times work on the backend's default stream (CUDA events), or on the host (steady clock).
class Stopwatch {
 public:
  virtual ~Stopwatch() = default;
  virtual void start() = 0;
  /// Marks the end, waits for the work between start and here, returns the seconds it took.
  virtual double stop_seconds() = 0;
};
[[nodiscard]] std::unique_ptr<Stopwatch> make_stopwatch(Backend backend);

/// The baseline the hash tables are compared with: the keys and their input indices sorted as
/// pairs (CUB radix sort on CUDA, the CPU backend's pair sort), looked up by binary search.
class SortedArray {
 public:
  virtual ~SortedArray() = default;
  /// Copies keys[0..n) and the values 0..n-1 into the unsorted input (the untimed part).
  virtual void stage(const Key* keys, std::size_t n) = 0;
  /// Sorts the staged pairs by key (all 32 bits). Asynchronous on the default stream.
  virtual void build_async() = 0;
  /// out[i] = the value of queries[i], or kNotFound. Asynchronous on the default stream.
  virtual void find_async(const Key* queries, std::size_t n, Value* out) const = 0;
  /// Memory held (inputs, sorted arrays, sort scratch).
  [[nodiscard]] virtual std::size_t bytes() const = 0;
};
[[nodiscard]] std::unique_ptr<SortedArray> make_sorted_array(Backend backend);

/// Bytes that can still be allocated (cudaMemGetInfo, or the host's available memory).
[[nodiscard]] std::size_t free_memory(Backend backend);

/// "CUDA driver 13.0, runtime 13.0", or "none (CPU backend)".
[[nodiscard]] std::string driver_version(Backend backend);

/// Waits for all work queued on the backend.
void synchronize(Backend backend);

}  // namespace voxhash::bench
