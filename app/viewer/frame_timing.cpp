// TimingLog: per-frame lines and median summary on stdout.
#include "viewer/frame_timing.hpp"

#include <algorithm>
#include <cstdio>

namespace voxhash::viewer {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + values.size() / 2;
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace

TimingLog::TimingLog(std::string path_name, int frames) : m_name(std::move(path_name)) {
  m_times.reserve(frames);
  m_draw.reserve(frames);
}

void TimingLog::record(int frame, const TransferTimes& t, double draw_ms) {
  m_times.push_back(t);
  m_draw.push_back(draw_ms);
  std::printf(
      "timing [%s] frame %d: map %.3f ms, pipeline %.3f ms, instances %.3f ms, unmap %.3f ms, "
      "upload %.3f ms, draw %.3f ms\n",
      m_name.c_str(),
      frame,
      t.map,
      t.pipeline,
      t.instances,
      t.unmap,
      t.upload,
      draw_ms);
}

void TimingLog::print_summary() const {
  auto column = [&](auto of_frame) {
    std::vector<double> values;
    values.reserve(m_times.size());
    for (const TransferTimes& t : m_times)
      values.push_back(of_frame(t));
    return median(std::move(values));
  };
  auto field = [&](double TransferTimes::*member) {
    return column([member](const TransferTimes& t) { return t.*member; });
  };
  std::printf(
      "timing [%s] median of %zu frames: map %.3f ms, pipeline %.3f ms, instances %.3f ms, unmap "
      "%.3f ms, upload %.3f ms, draw %.3f ms; map + unmap %.3f ms\n",
      m_name.c_str(),
      m_times.size(),
      field(&TransferTimes::map),
      field(&TransferTimes::pipeline),
      field(&TransferTimes::instances),
      field(&TransferTimes::unmap),
      field(&TransferTimes::upload),
      median(m_draw),
      column([](const TransferTimes& t) { return t.map + t.unmap; }));
  std::fflush(stdout);
}

}  // namespace voxhash::viewer
