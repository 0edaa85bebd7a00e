// Backend selection: CUDA when a device exists (and the library was built with CUDA), CPU otherwise
// or on request. The CPU backend runs the same per-element logic in multithreaded loops.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace voxhash {

enum class Backend { Cpu, Cuda };

/// True when the library was compiled with CUDA and at least one device is usable.
[[nodiscard]] bool cuda_available();

/// Why CUDA is unavailable ("built without CUDA", "no CUDA device: ..."); empty when available.
[[nodiscard]] std::string cuda_unavailable_reason();

/// Cuda if available, else Cpu.
[[nodiscard]] Backend default_backend();

/// Parses "cpu", "cuda" or "auto". Throws InvalidInput on anything else, and on "cuda" when CUDA is
/// not available (with the reason).
[[nodiscard]] Backend parse_backend(std::string_view name);

[[nodiscard]] std::string_view to_string(Backend backend);

/// One line describing the device that `backend` runs on (GPU name and memory, or CPU threads).
[[nodiscard]] std::string describe_device(Backend backend);

/// Bytes that can still be allocated (cudaMemGetInfo, or the host's available memory).
[[nodiscard]] std::size_t free_memory(Backend backend);

/// "CUDA driver 13.0, runtime 13.0", or "none (CPU backend)".
[[nodiscard]] std::string driver_version(Backend backend);

/// Waits for all work queued on the backend's device (every stream).
void synchronize(Backend backend);

}  // namespace voxhash
