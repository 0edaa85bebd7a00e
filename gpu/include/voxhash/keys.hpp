// Generated keys for benchmarks and tests, in a backend's memory: draws from a universe of
// distinct keys with a chosen multiplicity and fraction of misses, in random order, reproducible
// from two seeds (the axes of the cuckoo chapter's and HashGraph's figures).
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>

namespace voxhash {

/// Which keys generate_keys() draws. Key j of a universe is murmur_mix(j, universe) (a bijection,
/// so distinct j give distinct keys; the one j that would give kEmptyKey is remapped). Hits come
/// from j in [0, distinct), misses from j in [2^31, 2^31 + distinct), so no miss is ever a hit.
struct KeySpec {
  std::uint32_t universe = 1;  // seed of the key universe
  std::uint32_t order    = 1;  // seed of the draw order and of the hit/miss choice
  std::size_t distinct   = 0;  // number of different keys drawn from (< 2^31 - 1)
  double miss_fraction   = 0;  // fraction of draws taken from the miss range instead
};

/// out[0..n) = n draws per `spec`: a random permutation of [0, n) taken modulo `distinct`, so each
/// key comes n / distinct times (rounded up or down) in random order. `out` is in the backend's
/// memory; asynchronous on `stream`. Throws InvalidInput unless 0 < distinct < 2^31 - 1 and
/// n < 2^31.
void generate_keys(
    Backend backend, Key* out, std::size_t n, const KeySpec& spec, Stream stream = nullptr);

}  // namespace voxhash
