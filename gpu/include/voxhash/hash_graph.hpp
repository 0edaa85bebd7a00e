// HashGraph: Green's static hash table as CSR, behind the HashTable interface. V1 builds it with
// per-vertex atomic counters, a prefix sum and an atomic scatter (the paper's Alg. 1); V2 bins the
// edges by vertex first (here with CUB's radix sort, binning carried to the end: of the keys'
// hashes with 32-bit keys) and reads the bucket records off the sorted edges. Probing is
// "standard" (walk the query's bucket list) or "intersect" (the paper's new probe: a HashGraph of
// the queries, bucket lists intersected), whose query graph lives in an explicit ProbeScratch.
// HashGraph takes 32-bit keys, HashGraph64 64-bit.
#pragma once

#include <voxhash/buffer.hpp>
#include <voxhash/hash_graph_ref.hpp>
#include <voxhash/hash_table.hpp>

#include <memory>

namespace voxhash {

enum class ProbeMethod { Standard, Intersect };

/// All matches of a batch of queries: query i's values are values[offsets[i] .. offsets[i+1]).
struct MatchList {
  Buffer<std::uint32_t> offsets;  // queries + 1
  Buffer<Value> values;
};

/// Working memory of the intersect probe: the queries' own HashGraph and its sort's scratch, in
/// one backend's memory. A lookup builds it on the lookup's stream; it keeps its capacity, so
/// repeated lookups do not allocate. One lookup at a time per scratch, and it must outlive the
/// lookup's work on the stream.
class ProbeScratch {
 public:
  explicit ProbeScratch(Backend backend);
  ~ProbeScratch();
  ProbeScratch(ProbeScratch&&) noexcept;
  ProbeScratch& operator=(ProbeScratch&&) noexcept;

  [[nodiscard]] Backend backend() const noexcept { return m_backend; }

  /// The arrays themselves, for the table implementations (an incomplete type elsewhere).
  struct State;
  [[nodiscard]] State& state() noexcept { return *m_state; }

 private:
  Backend m_backend;
  std::unique_ptr<State> m_state;
};

template <class K>
class BasicHashGraph : public BasicHashTable<K> {
 public:
  /// Selects how find/contains/count/find_id probe; both methods give the same answers.
  virtual void set_probe_method(ProbeMethod method)      = 0;
  [[nodiscard]] virtual ProbeMethod probe_method() const = 0;

  // The HashTable lookups, with the intersect probe's scratch given (`scratch` must be in the
  // table's backend; the standard probe does not touch it). The overloads without it allocate a
  // scratch for an intersect lookup and free it afterwards, which waits for the device.
  using BasicHashTable<K>::contains_async;
  using BasicHashTable<K>::count_async;
  using BasicHashTable<K>::find_async;
  using BasicHashTable<K>::find_id_async;
  virtual void find_async(const K* queries,
                          std::size_t n,
                          Value* out,
                          ProbeScratch& scratch,
                          Stream stream = nullptr) const     = 0;
  virtual void contains_async(const K* queries,
                              std::size_t n,
                              std::uint8_t* out,
                              ProbeScratch& scratch,
                              Stream stream = nullptr) const = 0;
  virtual void count_async(const K* queries,
                           std::size_t n,
                           std::uint32_t* out,
                           ProbeScratch& scratch,
                           Stream stream = nullptr) const    = 0;
  virtual void find_id_async(const K* queries,
                             std::size_t n,
                             std::uint32_t* out,
                             ProbeScratch& scratch,
                             Stream stream = nullptr) const  = 0;

  /// Every match of every query (synchronizes the stream: the output size is read back).
  [[nodiscard]] virtual MatchList find_all(const K* queries,
                                           std::size_t n,
                                           Stream stream = nullptr) const = 0;

  /// The CSR as device code (or CPU loops) see it. Valid until the next build.
  [[nodiscard]] virtual BasicHashGraphRef<K> ref() const = 0;
};

using HashGraph   = BasicHashGraph<Key>;
using HashGraph64 = BasicHashGraph<Key64>;

}  // namespace voxhash
