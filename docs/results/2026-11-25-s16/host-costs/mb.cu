// Host-side costs on the device: launch rate from one and two threads, a sync read's round trip
// (pageable vs pinned), chains of short kernels.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <cub/cub.cuh>
__global__ void empty_k(unsigned* p) { if (p && threadIdx.x == 9999) *p = 1; }
__global__ void spin_k(unsigned* p, int n) {
  unsigned v = threadIdx.x; for (int i = 0; i < n; ++i) v = v * 1664525u + 1013904223u;
  if (v == 7) *p = v;
}
static double now() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
struct R { double us; };
static double launches(cudaStream_t s, int n, unsigned* d) {
  cudaStreamSynchronize(s); double t = now();
  for (int i = 0; i < n; ++i) empty_k<<<1, 32, 0, s>>>(d);
  double sub = now() - t; cudaStreamSynchronize(s); return sub / n;
}
static double launches_big(cudaStream_t s, int n, unsigned* d) {
  cudaStreamSynchronize(s); double t = now();
  for (int i = 0; i < n; ++i) empty_k<<<1000, 256, 0, s>>>(d);
  cudaStreamSynchronize(s); return (now() - t) / n;
}
static double roundtrip(cudaStream_t s, int n, unsigned* d, unsigned* host) {
  cudaStreamSynchronize(s); double t = now();
  for (int i = 0; i < n; ++i) { empty_k<<<1, 32, 0, s>>>(d); cudaMemcpyAsync(host, d, 4, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); }
  return (now() - t) / n;
}
static double chain(cudaStream_t s, int n, unsigned* d, int spin) {
  cudaStreamSynchronize(s); double t = now();
  for (int i = 0; i < n; ++i) spin_k<<<132, 256, 0, s>>>(d, spin);
  cudaStreamSynchronize(s); return (now() - t) / n;
}
int main() {
  cudaStream_t s[2]; unsigned* d; cudaMalloc(&d, 64);
  for (auto& x : s) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  unsigned* pinned; cudaMallocHost(&pinned, 64); unsigned pageable[16];
  launches(s[0], 1000, d);
  printf("one thread: submit per tiny launch %.2f us\n", launches(s[0], 20000, d));
  printf("one thread: wall per 1000-block empty launch %.2f us\n", launches_big(s[0], 20000, d));
  printf("one thread: launch+4B read+sync pageable %.2f us\n", roundtrip(s[0], 5000, d, pageable));
  printf("one thread: launch+4B read+sync pinned   %.2f us\n", roundtrip(s[0], 5000, d, pinned));
  for (int spin : {0, 200, 500, 1000, 2000}) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    cudaEventRecord(a, s[0]); for (int i = 0; i < 200; ++i) spin_k<<<132, 256, 0, s[0]>>>(d, spin); cudaEventRecord(b, s[0]);
    cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b);
    printf("chain spin=%d: wall per kernel %.2f us (gpu per kernel when queued ahead %.2f us)\n", spin, chain(s[0], 2000, d, spin), ms * 1000 / 200);
  }
  for (int mode = 0; mode < 3; ++mode) {
    double r[2];
    unsigned* hosts[2] = {pinned, pinned + 8};
    std::vector<std::thread> th;
    for (int i = 0; i < 2; ++i) th.emplace_back([&, i] {
      r[i] = mode == 0 ? launches(s[i], 20000, d + i) : mode == 1 ? roundtrip(s[i], 5000, d + i, hosts[i]) : chain(s[i], 2000, d + i, 500);
    });
    for (auto& t : th) t.join();
    printf("two threads mode %s: %.2f / %.2f us\n", mode == 0 ? "submit" : mode == 1 ? "roundtrip pinned" : "chain spin=500", r[0], r[1]);
  }
  
  {
    cudaEvent_t et, en; cudaEventCreate(&et); cudaEventCreateWithFlags(&en, cudaEventDisableTiming);
    auto per = [&](auto f, int n) { cudaStreamSynchronize(s[0]); double t = now(); for (int i = 0; i < n; ++i) f(); double r = (now() - t) / n; cudaStreamSynchronize(s[0]); return r; };
    printf("event record timing %.2f us\n", per([&] { cudaEventRecord(et, s[0]); }, 20000));
    printf("event record no-timing %.2f us\n", per([&] { cudaEventRecord(en, s[0]); }, 20000));
    printf("stream wait event %.2f us\n", per([&] { cudaStreamWaitEvent(s[1], en, 0); }, 20000));
    printf("memset 4B async %.2f us\n", per([&] { cudaMemsetAsync(d, 0, 4, s[0]); }, 20000));
    printf("H2D 4B pageable async %.2f us\n", per([&] { cudaMemcpyAsync(d, pageable, 4, cudaMemcpyHostToDevice, s[0]); }, 20000));
    printf("D2D 4B async %.2f us\n", per([&] { cudaMemcpyAsync(d + 4, d, 4, cudaMemcpyDeviceToDevice, s[0]); }, 20000));
    printf("getlasterror %.3f us\n", per([&] { (void)cudaGetLastError(); }, 20000));
    unsigned *in, *out; cudaMalloc(&in, 1 << 24); cudaMalloc(&out, 1 << 24); void* tmp; cudaMalloc(&tmp, 1 << 24);
    size_t bytes = 0;
    printf("cub scan size query %.2f us\n", per([&] { cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, 200000, s[0]); }, 5000));
    printf("cub scan 200k full call %.2f us\n", per([&] { size_t b = 1 << 24; cub::DeviceScan::ExclusiveSum(tmp, b, in, out, 200000, s[0]); }, 5000));
    printf("empty launch with 256B args %.2f us\n", per([&] { struct Big { unsigned x[64]; } big{}; void* args[] = {&big}; (void)args; empty_k<<<1,32,0,s[0]>>>(d); }, 20000));
    // a graph of 50 tiny kernels
    cudaGraph_t g; cudaGraphExec_t ge; cudaStreamBeginCapture(s[0], cudaStreamCaptureModeThreadLocal);
    for (int i = 0; i < 50; ++i) empty_k<<<1, 32, 0, s[0]>>>(d);
    cudaStreamEndCapture(s[0], &g); cudaGraphInstantiate(&ge, g, 0);
    cudaStreamSynchronize(s[0]); double t = now(); for (int i = 0; i < 200; ++i) cudaGraphLaunch(ge, s[0]); double sub = (now() - t) / 200; cudaStreamSynchronize(s[0]);
    printf("graph of 50 tiny kernels: submit %.2f us, wall per graph %.2f us\n", sub, (now() - t) / 200);
    t = now(); for (int i = 0; i < 200; ++i) { cudaStreamBeginCapture(s[0], cudaStreamCaptureModeThreadLocal); for (int j = 0; j < 50; ++j) empty_k<<<1, 32, 0, s[0]>>>(d); cudaGraph_t g2; cudaStreamEndCapture(s[0], &g2); cudaGraphExecUpdateResultInfo info; cudaGraphExecUpdate(ge, g2, &info); cudaGraphDestroy(g2); cudaGraphLaunch(ge, s[0]); }
    cudaStreamSynchronize(s[0]);
    printf("capture+update+launch of 50 kernels: %.2f us per graph\n", (now() - t) / 200);
  }
  return 0;
}
