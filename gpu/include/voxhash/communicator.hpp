// The communicator: what a table or join partitioned over G ranks (GPUs) exchanges through. Two
// implementations behind one interface, so the partitioned code never knows which it runs on:
// NCCL (grouped ncclSend / ncclRecv over G devices driven by this process) and an emulated one
// for the CPU backend (G partitions in host memory, the all-to-all done as copies). The
// communicator owns ranks, devices and streams; a process drives its local_ranks(), which are all
// of them today and would be one per process with a communicator bootstrapped by MPI.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace voxhash {

/// counts(from, to): elements rank `from` sends to rank `to` in one all-to-all (size() x size()).
class CountMatrix {
 public:
  CountMatrix() = default;
  explicit CountMatrix(int size)
      : m_size(size), m_counts(static_cast<std::size_t>(size) * static_cast<std::size_t>(size)) {}

  [[nodiscard]] int size() const { return m_size; }
  [[nodiscard]] std::size_t& at(int from, int to) { return m_counts[index(from, to)]; }
  [[nodiscard]] std::size_t at(int from, int to) const { return m_counts[index(from, to)]; }
  /// Row `from`, the counts in rank order (what one rank sends to each).
  [[nodiscard]] std::span<std::size_t> row(int from) {
    return std::span(m_counts).subspan(index(from, 0), static_cast<std::size_t>(m_size));
  }

  /// Elements `from` sends in all, and `to` receives in all.
  [[nodiscard]] std::size_t sent_by(int from) const;
  [[nodiscard]] std::size_t received_by(int to) const;
  /// Where the elements for `to` start in `from`'s send buffer (grouped by destination rank).
  [[nodiscard]] std::size_t send_offset(int from, int to) const;
  /// Where the elements from `from` start in `to`'s receive buffer (grouped by source rank).
  [[nodiscard]] std::size_t receive_offset(int to, int from) const;
  /// Elements that cross between two different ranks.
  [[nodiscard]] std::size_t crossing() const;
  /// The matrix of the way back (counts(to, from)): answers returned to the askers.
  [[nodiscard]] CountMatrix transposed() const;

 private:
  [[nodiscard]] std::size_t index(int from, int to) const {
    return static_cast<std::size_t>(from) * static_cast<std::size_t>(m_size) +
           static_cast<std::size_t>(to);
  }
  int m_size = 0;
  std::vector<std::size_t> m_counts;
};

/// One local rank's side of an all-to-all: its send buffer grouped by destination rank and its
/// receive buffer grouped by source rank, in that rank's memory, sized by the CountMatrix.
struct AllToAllBuffers {
  const void* send = nullptr;
  void* receive    = nullptr;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  /// Ranks (partitions) in all, over every process.
  [[nodiscard]] virtual int size() const        = 0;
  [[nodiscard]] virtual Backend backend() const = 0;
  /// The ranks this process drives, ascending; partitioned calls take one shard per local rank,
  /// in this order.
  [[nodiscard]] virtual std::span<const int> local_ranks() const = 0;
  /// Makes a local rank's device current on the calling thread (cudaSetDevice); the rank's memory
  /// is allocated and its work queued after this. Nothing on the CPU.
  virtual void activate(int rank) const = 0;
  /// The stream a local rank's work runs on (nullptr on the CPU).
  [[nodiscard]] virtual Stream stream(int rank) const = 0;
  /// Waits for the work queued on a local rank's stream.
  virtual void synchronize(int rank) const = 0;

  /// Every rank's send counts, on every process: `local[i]` is what local rank i sends to each of
  /// the size() ranks. Synchronizes the local ranks' streams.
  [[nodiscard]] virtual CountMatrix exchange_counts(
      std::span<const std::vector<std::size_t>> local) = 0;
  /// The all-to-all of elements of `element_bytes` bytes: rank r sends counts(r, d) elements from
  /// its send buffer to every rank d, each rank's elements land grouped by source rank. buffers[i]
  /// belongs to local rank i. Queued on the ranks' streams after the work already there; does not
  /// synchronize them.
  virtual void all_to_all_async(const CountMatrix& counts,
                                std::span<const AllToAllBuffers> buffers,
                                std::size_t element_bytes) = 0;

  /// "2 emulated partitions (CPU)", "NCCL 2.28.9 over 2 GPUs: ...".
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// G partitions in host memory for the CPU backend; the all-to-all copies between them.
/// Throws InvalidInput unless 1 <= parts <= 1024.
[[nodiscard]] std::unique_ptr<Communicator> make_emulated_communicator(int parts);

/// True when the library was built with NCCL (and CUDA).
[[nodiscard]] bool nccl_available();
/// "voxhash was built without NCCL (...)" or empty when available.
[[nodiscard]] std::string nccl_unavailable_reason();

/// One process driving the CUDA devices `devices` (rank i on devices[i]) through NCCL
/// (ncclCommInitAll, NVLink multicast off: NCCL_NVLS_ENABLE=0 is set before init). Each rank gets
/// a non-blocking stream of its own. Throws InvalidInput when NCCL is not built in, a device does
/// not exist or appears twice, and Error naming NCCL's message when its initialization fails.
[[nodiscard]] std::unique_ptr<Communicator> make_nccl_communicator(std::span<const int> devices);

/// The communicator for `parts` partitions on `backend`: NCCL over devices 0..parts-1 on Cuda
/// (InvalidInput, in one line, when NCCL is missing or fewer devices exist), emulated on Cpu.
[[nodiscard]] std::unique_ptr<Communicator> make_communicator(Backend backend, int parts);

/// Usable CUDA devices (0 in a build without CUDA or on a machine without a GPU).
[[nodiscard]] int cuda_device_count();

}  // namespace voxhash
