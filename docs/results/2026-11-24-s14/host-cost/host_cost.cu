// Host time per CUDA call the frame makes, one thread and two threads at once (each its stream).
#include <cub/cub.cuh>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <functional>
#include <algorithm>
#include <string>
using clk = std::chrono::steady_clock;
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
__global__ void touch(unsigned n, unsigned* p) { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1; }
struct Ctx {
  cudaStream_t s; unsigned *keys, *out, *cnt, *pin; void* temp; size_t temp_bytes = 64 << 20; cudaEvent_t ev, evn;
  unsigned n = 1 << 20;
  Ctx() {
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc(&keys, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&cnt, 64)); CK(cudaMalloc(&temp, temp_bytes));
    CK(cudaHostAlloc(&pin, 64, 0)); CK(cudaEventCreate(&ev)); CK(cudaEventCreateWithFlags(&evn, cudaEventDisableTiming));
    std::vector<unsigned> h(n); for (unsigned i = 0; i < n; ++i) h[i] = (i * 2654435761u) & ((1u << 27) - 1);
    CK(cudaMemcpy(keys, h.data(), n * 4, cudaMemcpyHostToDevice));
  }
};
struct NE { __device__ bool operator()(unsigned k) const { return k != 0xFFFFFFFFu; } };
static std::vector<std::pair<std::string, std::function<void(Ctx&)>>> ops() {
  return {
    {"kernel launch (1M)", [](Ctx& c) { touch<<<(c.n + 255) / 256, 256, 0, c.s>>>(c.n, c.out); }},
    {"cudaEventRecord timing", [](Ctx& c) { CK(cudaEventRecord(c.ev, c.s)); }},
    {"cudaEventRecord no-timing", [](Ctx& c) { CK(cudaEventRecord(c.evn, c.s)); }},
    {"cudaStreamWaitEvent", [](Ctx& c) { CK(cudaStreamWaitEvent(c.s, c.evn, 0)); }},
    {"cudaMemsetAsync 4B", [](Ctx& c) { CK(cudaMemsetAsync(c.cnt, 0, 4, c.s)); }},
    {"SortKeys query", [](Ctx& c) { size_t b = 0; CK(cub::DeviceRadixSort::SortKeys(nullptr, b, c.keys, c.out, c.n, 0, 27, c.s)); }},
    {"SortKeys run (1M, 27 bits)", [](Ctx& c) { size_t b = c.temp_bytes; CK(cub::DeviceRadixSort::SortKeys(c.temp, b, c.keys, c.out, c.n, 0, 27, c.s)); }},
    {"Select::If query", [](Ctx& c) { size_t b = 0; CK(cub::DeviceSelect::If(nullptr, b, c.keys, c.out, c.cnt, c.n, NE{}, c.s)); }},
    {"Select::If run (1M)", [](Ctx& c) { size_t b = c.temp_bytes; CK(cub::DeviceSelect::If(c.temp, b, c.keys, c.out, c.cnt, c.n, NE{}, c.s)); }},
    {"Select::Unique run (1M)", [](Ctx& c) { size_t b = c.temp_bytes; CK(cub::DeviceSelect::Unique(c.temp, b, c.keys, c.out, c.cnt, c.n, c.s)); }},
    {"ExclusiveSum query", [](Ctx& c) { size_t b = 0; CK(cub::DeviceScan::ExclusiveSum(nullptr, b, c.keys, c.out, c.n, c.s)); }},
    {"ExclusiveSum run (1M)", [](Ctx& c) { size_t b = c.temp_bytes; CK(cub::DeviceScan::ExclusiveSum(c.temp, b, c.keys, c.out, c.n, c.s)); }},
    {"read 4B pageable (idle stream)", [](Ctx& c) { unsigned v; CK(cudaMemcpyAsync(&v, c.cnt, 4, cudaMemcpyDeviceToHost, c.s)); CK(cudaStreamSynchronize(c.s)); }},
    {"read 4B pinned (idle stream)", [](Ctx& c) { CK(cudaMemcpyAsync(c.pin, c.cnt, 4, cudaMemcpyDeviceToHost, c.s)); CK(cudaStreamSynchronize(c.s)); }},
    {"sync idle stream", [](Ctx& c) { CK(cudaStreamSynchronize(c.s)); }},
    {"launch + read 4B pageable", [](Ctx& c) { touch<<<1, 32, 0, c.s>>>(32, c.out); unsigned v; CK(cudaMemcpyAsync(&v, c.cnt, 4, cudaMemcpyDeviceToHost, c.s)); CK(cudaStreamSynchronize(c.s)); }},
  };
}
static double time_op(Ctx& c, const std::function<void(Ctx&)>& f, int iters) {
  std::vector<double> t;
  for (int i = 0; i < iters; ++i) {
    if (i % 8 == 0) CK(cudaStreamSynchronize(c.s));
    auto a = clk::now(); f(c); auto b = clk::now();
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  CK(cudaStreamSynchronize(c.s));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
int main() {
  Ctx a, b;
  auto list = ops();
  for (auto& [name, f] : list) { time_op(a, f, 50); time_op(b, f, 50); }  // warm
  printf("%-34s %10s %10s %10s\n", "call", "1 thread", "2 thr: t0", "t1");
  for (auto& [name, f] : list) {
    double one = time_op(a, f, 400);
    double t0 = 0, t1 = 0;
    std::thread th([&] { t1 = time_op(b, f, 400); });
    t0 = time_op(a, f, 400);
    th.join();
    printf("%-34s %10.2f %10.2f %10.2f  (median us)\n", name.c_str(), one, t0, t1);
  }
}
