// What the NCCL entry points do in a build without NCCL (no CUDA, or no nccl.h / libnccl found at
// configure time): say so. Compiled instead of nccl_communicator.cpp.
#include <voxhash/communicator.hpp>
#include <voxhash/error.hpp>

#include <string>

namespace voxhash {

bool nccl_available() {
  return false;
}

std::string nccl_unavailable_reason() {
  return VOXHASH_NO_NCCL_REASON;
}

std::unique_ptr<Communicator> make_nccl_communicator(std::span<const int>) {
  throw InvalidInput(nccl_unavailable_reason());
}

}  // namespace voxhash
