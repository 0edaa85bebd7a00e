// Room for a count the host learns only when the frame's sizes are read: buffers and launches are
// sized by the room and the loops read the count on the device (Counted), so nothing waits for it.
// Once it is read, Room::fits() says whether the pass was whole and sets the room for the next
// pass or frame.
#pragma once

#include <voxhash/detail/host_device.hpp>

#include <algorithm>
#include <cstdint>

namespace voxhash::pipeline {

/// n with a sixteenth and `floor` more: the room a count of n gets.
inline std::uint32_t room_for(std::uint32_t n, std::uint32_t floor) {
  const std::uint64_t r = std::uint64_t{n} + n / 16 + floor;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(r, 0xFFFFFFFEu));
}

/// A count's room: grown to half as much again as the count when it did not fit, shrunk when it
/// used less than a quarter (a count that moves from frame to frame, as an animated scene's
/// regions and barrier voxels do, should seldom outgrow it: each time costs the steps it sizes
/// twice).
struct Room {
  explicit Room(std::uint32_t floor) : floor(floor), size(room_for(0, floor)) {}

  /// Whether `count` fitted; sets the room for the next pass.
  bool fits(std::uint32_t count) {
    const bool fit = count <= size;
    if (!fit || count < size / 4) {
      const std::uint64_t half_again = std::uint64_t{count} + count / 2;
      size = room_for(static_cast<std::uint32_t>(std::min<std::uint64_t>(half_again, 0xFFFFFFFEu)),
                      floor);
    }
    return fit;
  }

  std::uint32_t floor;
  std::uint32_t size;
};

/// A count the loops read on the device (null: the room is the count) and the room bounding it:
/// a loop launches `room` threads and those beyond() the count return.
struct Counted {
  std::uint32_t room         = 0;
  const std::uint32_t* count = nullptr;

  VOXHASH_HD bool beyond(std::uint32_t i) const { return i >= room || (count && i >= *count); }
};

}  // namespace voxhash::pipeline
