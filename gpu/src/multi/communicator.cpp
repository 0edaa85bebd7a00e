// The CountMatrix's sums and offsets, the emulated communicator of the CPU backend (G partitions
// in host memory, the all-to-all as copies between them) and the choice of communicator by
// backend. The NCCL communicator is nccl_communicator.cpp (no_nccl.cpp where NCCL is missing).
#include <voxhash/communicator.hpp>
#include <voxhash/error.hpp>

#include <cstring>
#include <numeric>
#include <string>

namespace voxhash {

std::size_t CountMatrix::sent_by(int from) const {
  std::size_t sum = 0;
  for (int to = 0; to < m_size; ++to)
    sum += at(from, to);
  return sum;
}

std::size_t CountMatrix::received_by(int to) const {
  std::size_t sum = 0;
  for (int from = 0; from < m_size; ++from)
    sum += at(from, to);
  return sum;
}

std::size_t CountMatrix::send_offset(int from, int to) const {
  std::size_t sum = 0;
  for (int d = 0; d < to; ++d)
    sum += at(from, d);
  return sum;
}

std::size_t CountMatrix::receive_offset(int to, int from) const {
  std::size_t sum = 0;
  for (int s = 0; s < from; ++s)
    sum += at(s, to);
  return sum;
}

std::size_t CountMatrix::crossing() const {
  std::size_t sum = 0;
  for (int from = 0; from < m_size; ++from) {
    for (int to = 0; to < m_size; ++to)
      sum += from == to ? 0 : at(from, to);
  }
  return sum;
}

CountMatrix CountMatrix::transposed() const {
  CountMatrix t(m_size);
  for (int from = 0; from < m_size; ++from) {
    for (int to = 0; to < m_size; ++to)
      t.at(to, from) = at(from, to);
  }
  return t;
}

namespace {

class EmulatedCommunicator final : public Communicator {
 public:
  explicit EmulatedCommunicator(int parts) : m_ranks(static_cast<std::size_t>(parts)) {
    std::iota(m_ranks.begin(), m_ranks.end(), 0);
  }

  [[nodiscard]] int size() const override { return static_cast<int>(m_ranks.size()); }
  [[nodiscard]] Backend backend() const override { return Backend::Cpu; }
  [[nodiscard]] std::span<const int> local_ranks() const override { return m_ranks; }
  void activate(int) const override {}
  [[nodiscard]] Stream stream(int) const override { return nullptr; }
  void synchronize(int) const override {}

  CountMatrix exchange_counts(std::span<const std::vector<std::size_t>> local) override {
    CountMatrix counts(size());
    for (int from = 0; from < size(); ++from) {
      for (int to = 0; to < size(); ++to)
        counts.at(from, to) =
            local[static_cast<std::size_t>(from)].at(static_cast<std::size_t>(to));
    }
    return counts;
  }

  /// Rank r's run for rank d copied from r's send buffer into d's receive buffer.
  void all_to_all_async(const CountMatrix& counts,
                        std::span<const AllToAllBuffers> buffers,
                        std::size_t element_bytes) override {
    for (int from = 0; from < size(); ++from) {
      for (int to = 0; to < size(); ++to) {
        const std::size_t bytes = counts.at(from, to) * element_bytes;
        if (bytes == 0) continue;
        const auto* src =
            static_cast<const std::byte*>(buffers[static_cast<std::size_t>(from)].send);
        auto* dst = static_cast<std::byte*>(buffers[static_cast<std::size_t>(to)].receive);
        std::memcpy(dst + counts.receive_offset(to, from) * element_bytes,
                    src + counts.send_offset(from, to) * element_bytes,
                    bytes);
      }
    }
  }

  [[nodiscard]] std::string describe() const override {
    return std::to_string(size()) + " emulated partitions in host memory (CPU)";
  }

 private:
  std::vector<int> m_ranks;
};

}  // namespace

std::unique_ptr<Communicator> make_emulated_communicator(int parts) {
  if (parts < 1 || parts > 1024) {
    throw InvalidInput("partitions must be 1 to 1024, not " + std::to_string(parts));
  }
  return std::make_unique<EmulatedCommunicator>(parts);
}

std::unique_ptr<Communicator> make_communicator(Backend backend, int parts) {
  if (backend == Backend::Cpu) return make_emulated_communicator(parts);
  if (!nccl_available()) {
    throw InvalidInput(std::to_string(parts) + " GPUs need NCCL: " + nccl_unavailable_reason());
  }
  const int devices = cuda_device_count();
  if (parts < 1 || parts > devices) {
    throw InvalidInput(std::to_string(parts) + " GPUs asked for, " + std::to_string(devices) +
                       " CUDA device" + (devices == 1 ? "" : "s") + " present");
  }
  std::vector<int> ids(static_cast<std::size_t>(parts));
  std::iota(ids.begin(), ids.end(), 0);
  return make_nccl_communicator(ids);
}

}  // namespace voxhash
