// Buffer<T>: an owning, move-only array in one backend's memory (device memory for Cuda, aligned
// host memory for Cpu). Tables, pipeline and tests pass these instead of raw allocations.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace voxhash {
namespace detail {
/// Allocates `bytes` in the backend's memory; throws OutOfMemory naming the size on failure.
void* allocate(Backend backend, std::size_t bytes);
void deallocate(Backend backend, void* ptr) noexcept;
/// Sets every byte to `byte`; asynchronous on `stream` for Cuda.
void fill_bytes_async(Backend backend, void* ptr, int byte, std::size_t bytes, Stream stream);
}  // namespace detail

/// Synchronous copy between any two backends' memories (host memory is the Cpu backend's): on
/// return the bytes are at `dst`. Work queued on other streams is not waited for.
void copy_bytes(
    void* dst, Backend dst_backend, const void* src, Backend src_backend, std::size_t bytes);

template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "Buffer holds trivially copyable elements");

 public:
  Buffer() = default;
  Buffer(Backend backend, std::size_t size) : m_backend(backend) { resize(size); }
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    Buffer(std::move(other)).swap(*this);
    return *this;
  }
  Buffer(const Buffer&)            = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { release(); }

  static Buffer from_host(Backend backend, std::span<const T> host) {
    Buffer b(backend, host.size());
    copy_bytes(b.data(), backend, host.data(), Backend::Cpu, host.size_bytes());
    return b;
  }

  /// Copies the contents to a host vector (synchronous).
  [[nodiscard]] std::vector<T> to_host() const {
    std::vector<T> host(m_size);
    copy_bytes(host.data(), Backend::Cpu, m_data, m_backend, m_size * sizeof(T));
    return host;
  }

  /// Makes room for `size` elements; contents are unspecified afterwards. Keeps the allocation when
  /// it is large enough, so per-frame resizes do not allocate.
  void resize(std::size_t size) {
    if (size > m_capacity) {
      release();
      m_data     = static_cast<T*>(detail::allocate(m_backend, size * sizeof(T)));
      m_capacity = size;
    }
    m_size = size;
  }

  void fill_bytes_async(int byte, Stream stream = nullptr) {
    detail::fill_bytes_async(m_backend, m_data, byte, m_size * sizeof(T), stream);
  }

  [[nodiscard]] T* data() noexcept { return m_data; }
  [[nodiscard]] const T* data() const noexcept { return m_data; }
  [[nodiscard]] std::size_t size() const noexcept { return m_size; }
  [[nodiscard]] std::size_t bytes() const noexcept { return m_capacity * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return m_size == 0; }
  [[nodiscard]] Backend backend() const noexcept { return m_backend; }
  [[nodiscard]] std::span<T> span() noexcept { return {m_data, m_size}; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {m_data, m_size}; }

  void swap(Buffer& other) noexcept {
    std::swap(m_backend, other.m_backend);
    std::swap(m_data, other.m_data);
    std::swap(m_size, other.m_size);
    std::swap(m_capacity, other.m_capacity);
  }

 private:
  void release() noexcept {
    if (m_data) detail::deallocate(m_backend, m_data);
    m_data     = nullptr;
    m_size     = 0;
    m_capacity = 0;
  }

  Backend m_backend      = Backend::Cpu;
  T* m_data              = nullptr;
  std::size_t m_size     = 0;
  std::size_t m_capacity = 0;
};

}  // namespace voxhash
