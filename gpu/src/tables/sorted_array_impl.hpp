// SortedArrayImpl<Exec>: the sorted-array baseline written once over the executors, as the
// tables are: staging copies the pairs, the build is the executor's pair sort (a set build: key
// sort, then unique), a lookup is a lower-bound binary search per query (one thread each).
#pragma once

#include "core/search.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/sorted_array.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>

namespace voxhash::tables {

/// Staging: keys_in[i] = keys[i], values_in[i] = i.
template <class Exec>
void stage_pairs(Exec& exec, const Key* keys, std::size_t n, Key* keys_in, Value* values_in) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    keys_in[i]   = keys[i];
    values_in[i] = i;
  });
}

/// Lookup: out[i] = values[p] where keys[p] == queries[i] (lower bound by binary search); p
/// itself where values is null (a set's rank).
template <class Exec>
void sorted_find(Exec& exec,
                 const Key* keys,
                 const Value* values,
                 std::uint32_t size,
                 const Key* queries,
                 std::size_t n,
                 Value* out) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key          = queries[i];
    const std::uint32_t lo = core::lower_bound(keys, 0, size, key);
    out[i]                 = lo < size && keys[lo] == key ? (values ? values[lo] : lo) : kNotFound;
  });
}

template <class Exec>
class SortedArrayImpl final : public SortedArray {
 public:
  [[nodiscard]] Backend backend() const override { return Exec::kBackend; }

  void stage_async(const Key* keys, std::size_t n, Stream stream) override {
    m_exec.set_stream(stream);
    m_keys_in.resize(n);
    m_values_in.resize(n);
    m_keys.resize(n);
    m_values.resize(n);
    stage_pairs(m_exec, keys, n, m_keys_in.data(), m_values_in.data());
  }
  void build_async(Stream stream) override {
    m_exec.set_stream(stream);
    m_exec.sort_pairs(
        m_keys_in.data(), m_keys.data(), m_values_in.data(), m_values.data(), m_keys.size(), 32);
  }
  std::size_t build_set(const Key* keys, std::size_t n, Stream stream) override {
    m_exec.set_stream(stream);
    m_keys_in.resize(n);
    m_keys.resize(n);
    m_values.resize(0);
    m_exec.sort_keys(keys, m_keys_in.data(), n);
    m_set_size = m_exec.unique(m_keys_in.data(), m_keys.data(), n);
    return m_set_size;
  }
  void find_async(const Key* queries, std::size_t n, Value* out, Stream stream) const override {
    Exec exec(stream);
    const bool set = m_values.size() == 0;
    sorted_find(exec,
                m_keys.data(),
                set ? nullptr : m_values.data(),
                static_cast<std::uint32_t>(set ? m_set_size : m_keys.size()),
                queries,
                n,
                out);
  }
  [[nodiscard]] std::size_t bytes() const override {
    // The sort's scratch is about one more copy of the pairs.
    return m_keys_in.bytes() + m_values_in.bytes() + 2 * (m_keys.bytes() + m_values.bytes());
  }

 private:
  Exec m_exec;
  Buffer<Key> m_keys_in{Exec::kBackend, 0}, m_keys{Exec::kBackend, 0};
  Buffer<Value> m_values_in{Exec::kBackend, 0}, m_values{Exec::kBackend, 0};
  std::size_t m_set_size = 0;  // distinct keys of the last build_set
};

}  // namespace voxhash::tables
