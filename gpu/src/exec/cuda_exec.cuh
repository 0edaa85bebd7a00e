// CudaExec: how the shared algorithm templates run on the CUDA backend. for_each launches a thin
// kernel (one thread per element) calling the per-element function, for_each_tile one with a tile
// of lanes per element (exec/cuda_tile.cuh); scans, sorts and run-length encoding are CUB's; Event
// is a CUDA event recorded on the stream; wait() orders the stream after an event, and an
// OwnedStream is a non-blocking stream of one's own. Everything is asynchronous on the executor's
// stream except read(), copy_to_host(), the selects that return a count, unique and
// run_length_encode, which wait for it; for_each_counted launches on a bound and reads its count on
// the device.
#pragma once

#include "exec/cuda_check.cuh"
#include "exec/cuda_tile.cuh"

#include <voxhash/buffer.hpp>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace voxhash {
namespace cuda {

/// Thread i calls f(i) for i < n.
template <class F>
__global__ void for_each_kernel(std::uint32_t n, F f) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

/// Thread i calls f(i) for i < *count (a device word earlier work wrote).
template <class F>
__global__ void for_each_counted_kernel(const std::uint32_t* count, F f) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < *count) f(i);
}

/// Tile t (Lanes consecutive threads) calls f(tile, t) for t < n.
template <int Lanes, class F>
__global__ void for_each_tile_kernel(std::uint32_t n, F f) {
  const CudaTile<Lanes> tile{cg::tiled_partition<Lanes>(cg::this_thread_block())};
  const auto t =
      static_cast<std::uint32_t>((std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / Lanes);
  if (t < n) f(tile, t);
}

template <class T>
struct NotEqual {
  T drop;
  __device__ bool operator()(T k) const { return k != drop; }
};

struct Flagged {
  const std::uint8_t* flags;
  __device__ bool operator()(std::uint32_t i) const { return flags[i] != 0; }
};

struct Plus64 {
  __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a + b; }
};

struct Max {
  __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    return a > b ? a : b;
  }
};

/// A small block of pinned host memory per host thread, for reads of a few device words: a copy
/// into it comes back sooner than one into pageable memory, which the driver stages through a
/// buffer of its own first. Null where it could not be had.
class PinnedMailbox {
 public:
  static constexpr std::size_t kBytes = 256;
  static void* get() {
    thread_local PinnedMailbox box;
    return box.m_data;
  }
  PinnedMailbox(const PinnedMailbox&)            = delete;
  PinnedMailbox& operator=(const PinnedMailbox&) = delete;
  ~PinnedMailbox() {
    if (m_data != nullptr) cudaFreeHost(m_data);
  }

 private:
  PinnedMailbox() {
    if (cudaMallocHost(&m_data, kBytes) != cudaSuccess) {
      (void)cudaGetLastError();
      m_data = nullptr;
    }
  }
  void* m_data = nullptr;
};

}  // namespace cuda

class CudaExec {
 public:
  static constexpr Backend kBackend = Backend::Cuda;

  /// Work goes to `stream`. CUB's temporary storage is `temp` when given (scratch that outlives
  /// the executor), else the executor's own.
  explicit CudaExec(Stream stream = nullptr, Buffer<std::byte>* temp = nullptr)
      : m_stream(reinterpret_cast<cudaStream_t>(stream)), m_temp(temp ? temp : &m_own_temp) {}
  CudaExec(const CudaExec&)            = delete;
  CudaExec& operator=(const CudaExec&) = delete;
  void set_stream(Stream stream) { m_stream = reinterpret_cast<cudaStream_t>(stream); }
  [[nodiscard]] Stream stream() const { return reinterpret_cast<Stream>(m_stream); }

  template <class F>
  void for_each(std::size_t n, F f, int block_size = 256) {
    if (n == 0) return;
    const auto blocks = static_cast<unsigned>((n + block_size - 1) / block_size);
    cuda::for_each_kernel<<<blocks, block_size, 0, m_stream>>>(static_cast<std::uint32_t>(n), f);
    VOXHASH_CUDA_CHECK_LAUNCH();
  }

  /// f(i) for i < *count, a device word earlier work on the stream wrote (at most max_n), with no
  /// wait: max_n threads are launched, those past the count return at once.
  template <class F>
  void for_each_counted(std::size_t max_n, const std::uint32_t* count, F f) {
    if (max_n == 0) return;
    constexpr unsigned kBlock = 256;
    const auto blocks         = static_cast<unsigned>((max_n + kBlock - 1) / kBlock);
    cuda::for_each_counted_kernel<<<blocks, kBlock, 0, m_stream>>>(count, f);
    VOXHASH_CUDA_CHECK_LAUNCH();
  }

  template <int Lanes>
  using Tile = cuda::CudaTile<Lanes>;

  /// f(tile, t) for t in [0, n), each on a tile of Lanes lanes (blocks of 128 threads).
  template <int Lanes, class F>
  void for_each_tile(std::size_t n, F f) {
    if (n == 0) return;
    constexpr unsigned kBlock = 128;
    static_assert(kBlock % Lanes == 0, "a tile never spans two blocks");
    const auto blocks = static_cast<unsigned>((n * Lanes + kBlock - 1) / kBlock);
    cuda::for_each_tile_kernel<Lanes>
        <<<blocks, kBlock, 0, m_stream>>>(static_cast<std::uint32_t>(n), f);
    VOXHASH_CUDA_CHECK_LAUNCH();
  }

  void exclusive_sum(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
    if (n == 0) return;
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, m_stream));
    VOXHASH_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp(bytes), bytes, in, out, n, m_stream));
  }

  /// The same into 64-bit sums, which cannot overflow (a join's output offsets): CUB's scan with a
  /// 64-bit initial value accumulates in 64 bits.
  void exclusive_sum(const std::uint32_t* in, std::uint64_t* out, std::size_t n) {
    if (n == 0) return;
    std::size_t bytes = 0;
    const cuda::Plus64 plus;
    const std::uint64_t zero = 0;
    VOXHASH_CUDA_TRY(
        cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, plus, zero, n, m_stream));
    VOXHASH_CUDA_TRY(
        cub::DeviceScan::ExclusiveScan(temp(bytes), bytes, in, out, plus, zero, n, m_stream));
  }

  /// data[i] = max(data[0..i]), in place.
  void inclusive_max(std::uint32_t* data, std::size_t n) {
    if (n == 0) return;
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(
        cub::DeviceScan::InclusiveScan(nullptr, bytes, data, data, cuda::Max{}, n, m_stream));
    VOXHASH_CUDA_TRY(
        cub::DeviceScan::InclusiveScan(temp(bytes), bytes, data, data, cuda::Max{}, n, m_stream));
  }

  /// bins[v] = how many of samples[0..n) equal v, for v < bin_count (other values uncounted):
  /// CUB's histogram (per-block privatized counters, so a few bins cost no same-address atomics).
  template <class T>
  void histogram(const T* samples, std::uint32_t* bins, int bin_count, std::size_t n) {
    if (n == 0) {
      fill(bins, static_cast<std::size_t>(bin_count), 0u);
      return;
    }
    using Level       = std::conditional_t<(sizeof(T) < sizeof(int)), int, T>;
    std::size_t bytes = 0;
    const auto count  = static_cast<std::int64_t>(n);
    VOXHASH_CUDA_TRY(cub::DeviceHistogram::HistogramEven(
        nullptr, bytes, samples, bins, bin_count + 1, Level{0}, Level(bin_count), count, m_stream));
    VOXHASH_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp(bytes),
                                                         bytes,
                                                         samples,
                                                         bins,
                                                         bin_count + 1,
                                                         Level{0},
                                                         Level(bin_count),
                                                         count,
                                                         m_stream));
  }

  /// Scratch bytes sort_pairs needs for n pairs (CUB's first call). N is the count's type, which
  /// selects CUB's offset width (a 32-bit count sorts with 32-bit offsets).
  template <class V, class N>
  std::size_t sort_pairs_scratch_bytes(N n, int end_bit) {
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr,
                                                     bytes,
                                                     static_cast<std::uint32_t*>(nullptr),
                                                     static_cast<std::uint32_t*>(nullptr),
                                                     static_cast<V*>(nullptr),
                                                     static_cast<V*>(nullptr),
                                                     n,
                                                     0,
                                                     end_bit,
                                                     m_stream));
    return bytes;
  }

  /// Sorts (keys, values) pairs by the key bits [0, end_bit) with CUB's radix sort (stable); keys
  /// of 32 or 64 bits.
  template <class KeyT, class V>
  void sort_pairs(
      KeyT* keys_in, KeyT* keys_out, V* values_in, V* values_out, std::size_t n, int end_bit) {
    if (n == 0) return;
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, keys_in, keys_out, values_in, values_out, n, 0, end_bit, m_stream));
    sort_pairs(keys_in, keys_out, values_in, values_out, n, end_bit, temp(bytes), bytes);
  }

  /// The same with caller-provided scratch of sort_pairs_scratch_bytes<V, N>() bytes (CUB's
  /// second call only).
  template <class KeyT, class V, class N>
  void sort_pairs(KeyT* keys_in,
                  KeyT* keys_out,
                  V* values_in,
                  V* values_out,
                  N n,
                  int end_bit,
                  void* scratch,
                  std::size_t scratch_bytes) {
    if (n == 0) return;
    VOXHASH_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
        scratch, scratch_bytes, keys_in, keys_out, values_in, values_out, n, 0, end_bit, m_stream));
  }

  /// Sorts the keys of keys_in[0..n) into keys_out with CUB's radix sort, by the key bits
  /// [0, end_bit) (default: all of them).
  template <class KeyT>
  void sort_keys(const KeyT* keys_in,
                 KeyT* keys_out,
                 std::size_t n,
                 int end_bit = static_cast<int>(8 * sizeof(KeyT))) {
    if (n == 0) return;
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(
        cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys_in, keys_out, n, 0, end_bit, m_stream));
    VOXHASH_CUDA_TRY(cub::DeviceRadixSort::SortKeys(
        temp(bytes), bytes, keys_in, keys_out, n, 0, end_bit, m_stream));
  }

  /// Copies the first key of every run of equal keys of in[0..n) to out with CUB; returns how
  /// many (synchronizes).
  template <class KeyT>
  std::size_t unique(const KeyT* in, KeyT* out, std::size_t n) {
    if (n == 0) return 0;
    unique_async(in, out, n, count_slot());
    return read(count_slot());
  }

  /// The same, their number into the device word *count; no wait.
  template <class KeyT>
  void unique_async(const KeyT* in, KeyT* out, std::size_t n, std::uint32_t* count) {
    if (n == 0) {
      VOXHASH_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof(std::uint32_t), m_stream));
      return;
    }
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(cub::DeviceSelect::Unique(nullptr, bytes, in, out, count, n, m_stream));
    VOXHASH_CUDA_TRY(cub::DeviceSelect::Unique(temp(bytes), bytes, in, out, count, n, m_stream));
  }

  /// Copies the keys of in[0..n) that differ from `drop` to out, in order; returns how many
  /// (synchronizes).
  template <class KeyT>
  std::size_t select_not_equal(const KeyT* in, KeyT* out, std::size_t n, KeyT drop) {
    if (n == 0) return 0;
    std::size_t bytes = 0;
    const cuda::NotEqual<KeyT> pred{drop};
    VOXHASH_CUDA_TRY(
        cub::DeviceSelect::If(nullptr, bytes, in, out, count_slot(), n, pred, m_stream));
    VOXHASH_CUDA_TRY(
        cub::DeviceSelect::If(temp(bytes), bytes, in, out, count_slot(), n, pred, m_stream));
    return read(count_slot());
  }

  /// Run-length encodes in[0..n) with CUB: each run of equal keys becomes its key in unique_out
  /// and its length in counts_out, in order; returns the number of runs (synchronizes).
  template <class KeyT>
  std::size_t run_length_encode(const KeyT* in,
                                KeyT* unique_out,
                                std::uint32_t* counts_out,
                                std::size_t n) {
    if (n == 0) return 0;
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(
        nullptr, bytes, in, unique_out, counts_out, count_slot(), n, m_stream));
    VOXHASH_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(
        temp(bytes), bytes, in, unique_out, counts_out, count_slot(), n, m_stream));
    return read(count_slot());
  }

  /// Writes the indices i with flags[i] != 0 to out, ascending; returns how many (synchronizes).
  std::size_t select_flagged_indices(const std::uint8_t* flags, std::uint32_t* out, std::size_t n) {
    if (n == 0) return 0;
    select_indices_async(n, cuda::Flagged{flags}, out, count_slot());
    return read(count_slot());
  }

  /// Copies the values in[i] (i < n) with pred(in[i]) to out, in order, and their number to the
  /// device word *count, with CUB; no wait (read the count later, with others).
  template <class Pred>
  void select_if_async(
      const std::uint32_t* in, std::uint32_t* out, std::size_t n, Pred pred, std::uint32_t* count) {
    select_if_async_from(in, out, n, pred, count);
  }

  /// Writes the indices i < n with pred(i) to out, ascending, and their number to the device word
  /// *count; no wait.
  template <class Pred>
  void select_indices_async(std::size_t n, Pred pred, std::uint32_t* out, std::uint32_t* count) {
    select_if_async_from(thrust::counting_iterator<std::uint32_t>(0), out, n, pred, count);
  }

  /// Copies `bytes` between two device buffers on the stream.
  void copy_async(void* dst, const void* src, std::size_t bytes) {
    VOXHASH_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, m_stream));
  }

  /// Copies `bytes` between any two memories the device can reach (device, pinned host) on the
  /// stream (cudaMemcpyDefault: the direction comes from the pointers).
  void transfer_async(void* dst, const void* src, std::size_t bytes) {
    VOXHASH_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, m_stream));
  }

  /// A CUDA event: record() records it on the executor's stream, elapsed_ms() waits for `to` and
  /// returns the GPU time between the two; synchronize() waits for it on the host.
  class Event {
   public:
    /// timed = false: an event that only orders streams (recording it costs the host a fraction
    /// of what recording a timed one does); elapsed_ms() needs timed ones.
    explicit Event(bool timed = true) {
      VOXHASH_CUDA_TRY(cudaEventCreateWithFlags(&m_event, timed ? 0u : cudaEventDisableTiming));
    }
    Event(const Event&)            = delete;
    Event& operator=(const Event&) = delete;
    ~Event() { cudaEventDestroy(m_event); }
    void record(const CudaExec& exec) { VOXHASH_CUDA_TRY(cudaEventRecord(m_event, exec.m_stream)); }
    [[nodiscard]] double elapsed_ms(const Event& to) const {
      VOXHASH_CUDA_TRY(cudaEventSynchronize(to.m_event));
      float ms = 0;
      VOXHASH_CUDA_TRY(cudaEventElapsedTime(&ms, m_event, to.m_event));
      return ms;
    }
    void synchronize() const { VOXHASH_CUDA_TRY(cudaEventSynchronize(m_event)); }

   private:
    friend class CudaExec;
    cudaEvent_t m_event = nullptr;
  };

  /// Work queued on the stream after this waits for `event` (no host wait).
  void wait(const Event& event) {
    VOXHASH_CUDA_TRY(cudaStreamWaitEvent(m_stream, event.m_event, 0));
  }

  /// A non-blocking stream of one's own, destroyed with the object.
  class OwnedStream {
   public:
    OwnedStream() { VOXHASH_CUDA_TRY(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking)); }
    OwnedStream(const OwnedStream&)            = delete;
    OwnedStream& operator=(const OwnedStream&) = delete;
    ~OwnedStream() { cudaStreamDestroy(m_stream); }
    [[nodiscard]] Stream get() const { return reinterpret_cast<Stream>(m_stream); }

   private:
    cudaStream_t m_stream = nullptr;
  };

  /// data[0..n) = value; a memset where value's bytes are all zero (it costs the host less than a
  /// kernel launch).
  template <class T>
  void fill(T* data, std::size_t n, T value) {
    if (n == 0) return;
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    bool zero = true;
    for (const unsigned char b : bytes)
      zero = zero && b == 0;
    if (zero) {
      VOXHASH_CUDA_TRY(cudaMemsetAsync(data, 0, n * sizeof(T), m_stream));
      return;
    }
    for_each(n, [=] __device__(std::uint32_t i) { data[i] = value; });
  }

  template <class T>
  T read(const T* src) {
    T value;
    copy_to_host(&value, src, 1);
    return value;
  }
  /// dst[0..n) = src[0..n) into host memory, after the work queued so far (waits for it). A few
  /// words come through the thread's pinned mailbox.
  template <class T>
  void copy_to_host(T* dst, const T* src, std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    void* box = n * sizeof(T) <= cuda::PinnedMailbox::kBytes ? cuda::PinnedMailbox::get() : nullptr;
    VOXHASH_CUDA_TRY(
        cudaMemcpyAsync(box ? box : dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, m_stream));
    VOXHASH_CUDA_TRY(cudaStreamSynchronize(m_stream));
    if (box) std::memcpy(static_cast<void*>(dst), box, n * sizeof(T));
  }
  /// *dst = value on the stream, without waiting: a copy from pageable memory is staged before
  /// cudaMemcpyAsync returns, so `value` may go out of scope at once.
  template <class T>
  void write_async(T* dst, const T& value) {
    VOXHASH_CUDA_TRY(cudaMemcpyAsync(dst, &value, sizeof(T), cudaMemcpyHostToDevice, m_stream));
  }

  void synchronize() { VOXHASH_CUDA_TRY(cudaStreamSynchronize(m_stream)); }

 private:
  void* temp(std::size_t bytes) {
    m_temp->resize(bytes);
    return m_temp->data();
  }

  template <class In, class Pred>
  void select_if_async_from(
      In in, std::uint32_t* out, std::size_t n, Pred pred, std::uint32_t* count) {
    if (n == 0) {
      VOXHASH_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof(std::uint32_t), m_stream));
      return;
    }
    std::size_t bytes = 0;
    VOXHASH_CUDA_TRY(cub::DeviceSelect::If(nullptr, bytes, in, out, count, n, pred, m_stream));
    VOXHASH_CUDA_TRY(cub::DeviceSelect::If(temp(bytes), bytes, in, out, count, n, pred, m_stream));
  }

  std::uint32_t* count_slot() {
    if (m_count.empty()) m_count.resize(1);
    return m_count.data();
  }

  cudaStream_t m_stream;
  Buffer<std::byte> m_own_temp{Backend::Cuda, 0};
  Buffer<std::byte>* m_temp;
  Buffer<std::uint32_t> m_count{Backend::Cuda, 0};
};

}  // namespace voxhash
