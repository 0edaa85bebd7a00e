// --timing: one line per frame with the transfer path's step times and the draw, then medians,
// so that one device run reports CUDA-GL interop (map / unmap) beside plain device buffers.
#pragma once

#include "viewer/buffer_bridge.hpp"

#include <string>
#include <vector>

namespace voxhash::viewer {

class TimingLog {
 public:
  TimingLog(std::string path_name, int frames);

  /// Prints the frame's line to stdout and keeps it for the summary.
  void record(int frame, const TransferTimes& times, double draw_ms);
  /// Prints the medians over the recorded frames.
  void print_summary() const;

 private:
  std::string m_name;
  std::vector<TransferTimes> m_times;
  std::vector<double> m_draw;
};

}  // namespace voxhash::viewer
