// Buffer<T>: an owning, move-only array in one backend's memory (device memory for Cuda, aligned
// host memory for Cpu), or in pinned host memory (Buffer::pinned_host: page-locked by CUDA where
// it is available, for copies at full PCIe speed). Tables, pipeline and tests pass these instead
// of raw allocations, so every allocation goes through one place: its accounting (bytes held,
// peak) and a fault-injection budget.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/error.hpp>
#include <voxhash/types.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace voxhash {

/// What the library's Buffers hold in one backend's memory (CUDA's own context and the GL buffers
/// of the viewer are not Buffers). Counters are process-wide.
struct AllocationStats {
  std::size_t in_use      = 0;  // bytes held now
  std::size_t peak        = 0;  // most bytes held at once since the last reset_allocation_peak
  std::size_t allocations = 0;  // successful allocations
  std::size_t failures    = 0;  // allocations that threw OutOfMemory (budget refusals included)
  // Pinned host memory (Buffer::pinned_host, PinnedPool), part of the Cpu backend's figures above:
  std::size_t pinned_in_use      = 0;  // of in_use
  std::size_t pinned_allocations = 0;  // of allocations
  std::size_t pinned_peak        = 0;  // most pinned bytes held at once since the last reset
  std::size_t pageable_peak      = 0;  // most bytes held at once outside pinned memory, ditto
};
[[nodiscard]] AllocationStats allocation_stats(Backend backend);
/// Starts new peaks (all, pinned, pageable) at the bytes held now.
void reset_allocation_peak(Backend backend);

/// The peaks a run reports (bench, clash, the viewer), in bytes since reset_memory_peaks: the
/// device's (the Buffers of `backend` outside pinned memory: GPU memory on the Cuda backend, the
/// Cpu backend's host Buffers on the Cpu backend), pinned host memory's, and the host's (every Cpu
/// backend Buffer, pinned included).
struct MemoryPeaks {
  std::size_t device = 0, pinned = 0, host = 0;
};
[[nodiscard]] MemoryPeaks memory_peaks(Backend backend);
/// reset_allocation_peak for `backend` and for the host (Backend::Cpu).
void reset_memory_peaks(Backend backend);

/// Fault injection: an allocation that would take the bytes the backend's Buffers hold beyond
/// `budget` throws OutOfMemory as if the memory were full. free_memory() does not see the budget:
/// it stands for memory taken by someone else after a front end's up-front check, so tests can make
/// an allocation inside Pipeline::run_frame fail. std::nullopt (the default) leaves the budget to
/// the environment variable VOXHASH_ALLOC_BUDGET (bytes, or with a K, M or G suffix for 2^10,
/// 2^20, 2^30; the same budget for each backend), which is read at every allocation; a budget set
/// here takes precedence over it.
void set_allocation_budget(Backend backend, std::optional<std::size_t> budget);
/// The budget in force now (set_allocation_budget's, else VOXHASH_ALLOC_BUDGET's); throws
/// InvalidInput when VOXHASH_ALLOC_BUDGET is not a byte count.
[[nodiscard]] std::optional<std::size_t> allocation_budget(Backend backend);

namespace detail {
/// Allocates `bytes` in the backend's memory; throws OutOfMemory naming the size on failure, and
/// when the allocation budget would be exceeded.
void* allocate(Backend backend, std::size_t bytes);
/// Frees what allocate(backend, bytes) returned.
void deallocate(Backend backend, void* ptr, std::size_t bytes) noexcept;
/// Allocates `bytes` of pinned host memory (cudaHostAlloc when CUDA is available, else aligned
/// host memory), accounted and budgeted as the Cpu backend's; throws OutOfMemory as allocate().
void* allocate_pinned(std::size_t bytes);
/// Frees what allocate_pinned(bytes) returned.
void deallocate_pinned(void* ptr, std::size_t bytes) noexcept;
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

  /// An array of `size` elements in pinned host memory (backend() is Cpu).
  static Buffer pinned_host(std::size_t size) {
    Buffer b;
    b.m_pinned = true;
    b.resize(size);
    return b;
  }

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
  /// it is large enough, so per-frame resizes do not allocate. A first allocation is exact; a
  /// buffer that outgrows its allocation takes an eighth more than asked, so a size that creeps up
  /// frame by frame (a deforming model's voxels) reallocates once in a while, not every frame
  /// (each free waits for the device), and without that eighth when memory is short.
  void resize(std::size_t size) {
    if (size > m_capacity) {
      constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max() / sizeof(T);
      if (size > kMax) {
        throw OutOfMemory("cannot allocate " + std::to_string(size) + " elements of " +
                          std::to_string(sizeof(T)) + " bytes: the size overflows");
      }
      std::size_t roomy = m_capacity == 0 ? size : size + std::min(size / 8, kMax - size);
      release();
      try {
        m_data = allocate(roomy);
      } catch (const OutOfMemory&) {
        if (roomy == size) throw;
        m_data = allocate(size);
        roomy  = size;
      }
      m_capacity = roomy;
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
  [[nodiscard]] bool pinned() const noexcept { return m_pinned; }
  [[nodiscard]] std::span<T> span() noexcept { return {m_data, m_size}; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {m_data, m_size}; }

  void swap(Buffer& other) noexcept {
    std::swap(m_backend, other.m_backend);
    std::swap(m_data, other.m_data);
    std::swap(m_size, other.m_size);
    std::swap(m_capacity, other.m_capacity);
    std::swap(m_pinned, other.m_pinned);
  }

 private:
  T* allocate(std::size_t count) {
    return static_cast<T*>(m_pinned ? detail::allocate_pinned(count * sizeof(T))
                                    : detail::allocate(m_backend, count * sizeof(T)));
  }

  void release() noexcept {
    if (m_data && m_pinned) detail::deallocate_pinned(m_data, m_capacity * sizeof(T));
    if (m_data && !m_pinned) detail::deallocate(m_backend, m_data, m_capacity * sizeof(T));
    m_data     = nullptr;
    m_size     = 0;
    m_capacity = 0;
  }

  Backend m_backend      = Backend::Cpu;
  T* m_data              = nullptr;
  std::size_t m_size     = 0;
  std::size_t m_capacity = 0;
  bool m_pinned          = false;
};

}  // namespace voxhash
