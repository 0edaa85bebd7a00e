// The NCCL communicator: one process driving G CUDA devices (ncclCommInitAll, one communicator and
// one non-blocking stream per device), counts all-gathered and data exchanged all-to-all by
// grouped ncclSend / ncclRecv; a rank's run for itself is a device copy. NVLink multicast (NVLS)
// is switched off before init. Built only when CMake finds nccl.h and libnccl.
#include "exec/cuda_check.cuh"

#include <voxhash/communicator.hpp>
#include <voxhash/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <nccl.h>
#include <numeric>
#include <string>
#include <vector>

namespace voxhash {
namespace {

void nccl_try(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) {
    throw Error(std::string("NCCL: ") + ncclGetErrorString(status) + " (" + call + ")");
  }
}

#define VOXHASH_NCCL_TRY(call) nccl_try((call), #call)

std::string version_text() {
  int version = 0;
  ncclGetVersion(&version);
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

class NcclCommunicator final : public Communicator {
 public:
  explicit NcclCommunicator(std::span<const int> devices)
      : m_devices(devices.begin(), devices.end()), m_ranks(devices.size()) {
    std::iota(m_ranks.begin(), m_ranks.end(), 0);
    const int count = static_cast<int>(devices.size());
    // NVLink SHARP / multicast off: the lent multi-GPU machines must not use it.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    m_comms.resize(devices.size());
    VOXHASH_NCCL_TRY(ncclCommInitAll(m_comms.data(), count, m_devices.data()));
    const std::size_t matrix = devices.size() * devices.size();
    for (std::size_t i = 0; i < devices.size(); ++i) {
      VOXHASH_CUDA_TRY(cudaSetDevice(m_devices[i]));
      cudaStream_t stream = nullptr;
      VOXHASH_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      m_streams.push_back(stream);
      void* counts = nullptr;
      VOXHASH_CUDA_TRY(cudaMalloc(&counts, (devices.size() + matrix) * sizeof(std::uint64_t)));
      m_counts.push_back(static_cast<std::uint64_t*>(counts));
    }
  }

  ~NcclCommunicator() override {
    for (std::size_t i = 0; i < m_comms.size(); ++i) {
      cudaSetDevice(m_devices[i]);
      if (i < m_counts.size()) cudaFree(m_counts[i]);
      if (i < m_streams.size()) cudaStreamDestroy(m_streams[i]);
      if (m_comms[i]) ncclCommDestroy(m_comms[i]);
    }
  }

  NcclCommunicator(const NcclCommunicator&)            = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  [[nodiscard]] int size() const override { return static_cast<int>(m_devices.size()); }
  [[nodiscard]] Backend backend() const override { return Backend::Cuda; }
  [[nodiscard]] std::span<const int> local_ranks() const override { return m_ranks; }
  void activate(int rank) const override { VOXHASH_CUDA_TRY(cudaSetDevice(m_devices.at(rank))); }
  [[nodiscard]] Stream stream(int rank) const override {
    return reinterpret_cast<Stream>(m_streams.at(rank));
  }
  void synchronize(int rank) const override {
    VOXHASH_CUDA_TRY(cudaStreamSynchronize(m_streams.at(rank)));
  }

  /// Each rank's row is copied to its device and all-gathered (ncclAllGather of size() 64-bit
  /// counts), then read back on every rank; the first local rank's copy is the answer.
  CountMatrix exchange_counts(std::span<const std::vector<std::size_t>> local) override {
    const auto g = static_cast<std::size_t>(size());
    std::vector<std::uint64_t> rows(g * g);
    for (std::size_t i = 0; i < g; ++i) {
      std::copy(
          local[i].begin(), local[i].end(), rows.begin() + static_cast<std::ptrdiff_t>(i * g));
      activate(static_cast<int>(i));
      VOXHASH_CUDA_TRY(cudaMemcpyAsync(m_counts[i],
                                       rows.data() + i * g,
                                       g * sizeof(std::uint64_t),
                                       cudaMemcpyHostToDevice,
                                       m_streams[i]));
    }
    VOXHASH_NCCL_TRY(ncclGroupStart());
    for (std::size_t i = 0; i < g; ++i) {
      VOXHASH_NCCL_TRY(
          ncclAllGather(m_counts[i], m_counts[i] + g, g, ncclUint64, m_comms[i], m_streams[i]));
    }
    VOXHASH_NCCL_TRY(ncclGroupEnd());
    std::vector<std::uint64_t> gathered(g * g);
    for (std::size_t i = 0; i < g; ++i) {
      activate(static_cast<int>(i));
      if (i == 0) {
        VOXHASH_CUDA_TRY(cudaMemcpyAsync(gathered.data(),
                                         m_counts[i] + g,
                                         g * g * sizeof(std::uint64_t),
                                         cudaMemcpyDeviceToHost,
                                         m_streams[i]));
      }
      synchronize(static_cast<int>(i));
    }
    CountMatrix counts(size());
    for (int from = 0; from < size(); ++from) {
      for (int to = 0; to < size(); ++to)
        counts.at(from, to) =
            gathered[static_cast<std::size_t>(from) * g + static_cast<std::size_t>(to)];
    }
    return counts;
  }

  /// One NCCL group: every local rank's sends to and receives from each other rank (bytes, as
  /// ncclUint8), the runs for itself copied on its stream.
  void all_to_all_async(const CountMatrix& counts,
                        std::span<const AllToAllBuffers> buffers,
                        std::size_t element_bytes) override {
    VOXHASH_NCCL_TRY(ncclGroupStart());
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
      const int r     = m_ranks[i];
      const auto* src = static_cast<const std::byte*>(buffers[i].send);
      auto* dst       = static_cast<std::byte*>(buffers[i].receive);
      for (int peer = 0; peer < size(); ++peer) {
        if (peer == r) continue;
        const std::size_t out = counts.at(r, peer) * element_bytes;
        const std::size_t in  = counts.at(peer, r) * element_bytes;
        if (out) {
          VOXHASH_NCCL_TRY(ncclSend(src + counts.send_offset(r, peer) * element_bytes,
                                    out,
                                    ncclUint8,
                                    peer,
                                    m_comms[i],
                                    m_streams[i]));
        }
        if (in) {
          VOXHASH_NCCL_TRY(ncclRecv(dst + counts.receive_offset(r, peer) * element_bytes,
                                    in,
                                    ncclUint8,
                                    peer,
                                    m_comms[i],
                                    m_streams[i]));
        }
      }
    }
    VOXHASH_NCCL_TRY(ncclGroupEnd());
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
      const int r             = m_ranks[i];
      const std::size_t bytes = counts.at(r, r) * element_bytes;
      if (bytes == 0) continue;
      activate(r);
      VOXHASH_CUDA_TRY(cudaMemcpyAsync(
          static_cast<std::byte*>(buffers[i].receive) + counts.receive_offset(r, r) * element_bytes,
          static_cast<const std::byte*>(buffers[i].send) + counts.send_offset(r, r) * element_bytes,
          bytes,
          cudaMemcpyDeviceToDevice,
          m_streams[i]));
    }
  }

  [[nodiscard]] std::string describe() const override {
    std::string text = "NCCL " + version_text() + " over " + std::to_string(size()) + " GPUs (";
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
      cudaDeviceProp prop{};
      cudaGetDeviceProperties(&prop, m_devices[i]);
      text += (i ? ", " : "") + std::to_string(m_devices[i]) + ": " + prop.name;
    }
    return text + ")";
  }

 private:
  std::vector<int> m_devices;
  std::vector<int> m_ranks;
  std::vector<ncclComm_t> m_comms;
  std::vector<cudaStream_t> m_streams;
  std::vector<std::uint64_t*> m_counts;  // per rank: its row, then the gathered matrix
};

}  // namespace

bool nccl_available() {
  return true;
}

std::string nccl_unavailable_reason() {
  return {};
}

std::unique_ptr<Communicator> make_nccl_communicator(std::span<const int> devices) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
  if (devices.empty()) throw InvalidInput("an NCCL communicator needs at least one device");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= count) {
      throw InvalidInput("CUDA device " + std::to_string(devices[i]) + " does not exist (" +
                         std::to_string(count) + " present)");
    }
    if (std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(i), devices[i]) !=
        devices.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InvalidInput("CUDA device " + std::to_string(devices[i]) + " given twice");
    }
  }
  return std::make_unique<NcclCommunicator>(devices);
}

}  // namespace voxhash
