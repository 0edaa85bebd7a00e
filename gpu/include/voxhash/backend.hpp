// Backend selection: CUDA when a device exists (and the library was built with CUDA), CPU otherwise
// or on request. The CPU backend runs the same per-element logic in multithreaded loops.
#pragma once

#include <cstddef>
#include <optional>
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

/// Memory a piece of work needs at its peak: in the backend's memory, and in host memory besides
/// (for Backend::Cpu both are host memory).
struct MemoryEstimate {
  std::size_t backend_bytes = 0;
  std::size_t host_bytes    = 0;

  MemoryEstimate& operator+=(const MemoryEstimate& other) {
    backend_bytes += other.backend_bytes;
    host_bytes += other.host_bytes;
    return *this;
  }
};

/// Headroom require_memory leaves free beyond an estimate (runtime, scratch not estimated).
inline constexpr std::size_t kMemoryHeadroom = std::size_t{256} << 20;

/// Checks an estimate against free_memory() before the work starts: throws OutOfMemory, one line
/// naming `what`, the bytes needed and the bytes available ("a frame of ... needs 93.4 GiB of host
/// memory; 20.1 GiB is available"), when it does not fit with kMemoryHeadroom to spare.
void require_memory(Backend backend, const MemoryEstimate& need, std::string_view what);

/// A byte count for people: "512 B", "1.50 KiB", "93.4 GiB" (binary units, 3 significant digits).
[[nodiscard]] std::string format_bytes(std::size_t bytes);

/// A byte count from people: an integer with an optional unit, any case: B; K/KiB, M/MiB, G/GiB,
/// T/TiB (binary: 2^10, 2^20, ...); KB, MB, GB, TB (decimal, SI: 10^3, 10^6, ...), e.g. "512MiB",
/// "2GiB", "64M", "2GB" (2 * 10^9), "4096". std::nullopt when malformed or too large. What the
/// front ends' --gpu-budget and scene files' "gpu_budget" read.
[[nodiscard]] std::optional<std::size_t> parse_bytes(std::string_view text);

/// "CUDA driver 13.0, runtime 13.0", or "none (CPU backend)".
[[nodiscard]] std::string driver_version(Backend backend);

/// Waits for all work queued on the backend's device (every stream).
void synchronize(Backend backend);

}  // namespace voxhash
