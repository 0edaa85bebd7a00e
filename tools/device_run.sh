#!/usr/bin/env bash
# One device-machine call's worth of GPU work (see ../shared/device/README.md): the gpu-labelled
# tests, then the benchmarks, logs and JSON under $OUT. Run from the repo root on the GPU machine
# with build/ (built here for sm_90) and .gl/ (tools/prepare_device.sh) carried:
# `tools/device_run.sh [tests] [tables] [paged] [frame] [frame64] [bigscene] [join] [joinpaged] [profile] [quick] [sweeps] [render]
# [sanitize] [clash] [clashcost] [multi] [oom] [soak]` (default: tests tables frame). paged runs the Starfish
# table 4x a 2 GiB budget and within it, at page spaces 1.25 and 1.1 (VOXHASH_GPU_BUDGET to change
# the budget); frame runs `bench frame --all-algos --join` at two sizes, frame64 at 4096^3 (64-bit
# keys), bigscene the scene of 2 x 200M points at 8192 under a 1 GiB budget (assets/paged_clouds.json);
# join runs `bench join`, joinpaged the same over a GPU budget (VOXHASH_JOIN_BUDGET, default
# 608MiB) so the build tables are joined over pages;
# multi the partitioned tables and join (`--gpus`, VOXHASH_GPUS, default 1); render times the
# viewer's frame offscreen at 1920x1080 (EGL, GL and CUDA drawing); sanitize runs the gpu test
# binaries under compute-sanitizer memcheck and racecheck (VOXHASH_SANITIZE_FILTER: a gtest filter
# to keep it inside one call); clash writes the demo's report per algorithm; clashcost times the
# clash report beside the frame (bench frame --clash); oom shows the two
# out-of-memory errors on the GPU (a run refused up front, an allocation failing inside a frame);
# soak runs frames for VOXHASH_SOAK_MINUTES (default 8, inside one call's 10 minutes) and samples
# host RSS and GPU memory (docs/RELIABILITY.md).
set -uo pipefail
final=${OUT:-/tmp/voxhash-out}
out=$final/results  # packed into $final/results.tar.gz at the end (the tool returns <= 8 files)
mkdir -p "$out"
[ -f .gl/setup.sh ] && source .gl/setup.sh
# Binaries packed by tools/pack_device.sh, when build/ itself was not carried.
if [ ! -x build/app/voxhash ] && [ -f .carry/build.tar.xz ]; then tar xJf .carry/build.tar.xz; fi
# Debian libraries the GPU machine lacks beyond the GL runtime (oneTBB, assimp), copied here.
[ -d .gl/lib ] && export LD_LIBRARY_PATH=$PWD/.gl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# OpenCASCADE (STEP) is not carried: its libraries are 64 MB (18 MB xz) beside voxhash's own.
if [ -x build/app/voxhash ] && ldd build/app/voxhash | grep -q 'libTK.*not found'; then
  echo "device_run: build/ links OpenCASCADE, which this machine lacks: configure the device" \
    "build with -DVOXHASH_STEP=OFF" >&2
  exit 1
fi
nvidia-smi -L | tee "$out/device.txt"
steps=${*:-tests tables frame}
for step in $steps; do
  case $step in
    tests)
      (cd build && ctest -L gpu --output-on-failure -j 1 2>&1) | tee "$out/gpu-tests.log" | tail -n 25 ;;
    tables)
      ./build/app/voxhash bench tables --json "$out/tables.json" >"$out/tables.txt" 2>"$out/tables.err" ;;
    paged)
      ./build/app/voxhash bench tables --paged --gpu-budget "${VOXHASH_GPU_BUDGET:-2GiB}" \
        --json "$out/paged.json" >"$out/paged.txt" 2>"$out/paged.err"
      ./build/app/voxhash bench tables --paged --gpu-budget "${VOXHASH_GPU_BUDGET:-2GiB}" \
        --page-space 1.1 --json "$out/paged-1.1.json" >"$out/paged-1.1.txt" 2>"$out/paged-1.1.err" ;;
    frame)
      ./build/app/voxhash bench frame --all-algos --points 8M --res 1024 --frames 60 --join \
        --json "$out/frame-8M-1024.json" >"$out/frame-8M-1024.txt" 2>&1
      ./build/app/voxhash bench frame --all-algos --points 1M --res 512 --frames 100 --join \
        --json "$out/frame-1M-512.json" >"$out/frame-1M-512.txt" 2>&1 ;;
    frame64)
      # 64-bit voxel keys: the same scene on a 4096^3 grid (issue 13 item 1).
      ./build/app/voxhash bench frame --all-algos --points 8M --res 4096 --frames 30 \
        --json "$out/frame64-8M-4096.json" >"$out/frame64-8M-4096.txt" 2>&1 ;;
    bigscene)
      # Tables beyond the GPU budget: paged (issue 13 item 3).
      ./build/app/voxhash bench frame --scene assets/paged_clouds.json --frames 3 --warmup 1 \
        --json "$out/bigscene.json" >"$out/bigscene.txt" 2>&1
      # The same scene with a budget its tables fit (flat tables): what paging costs.
      ./build/app/voxhash bench frame --scene assets/paged_clouds.json --frames 3 --warmup 1 \
        --gpu-budget 64GiB --json "$out/bigscene-flat.json" >"$out/bigscene-flat.txt" 2>&1 ;;
    join)
      ./build/app/voxhash bench join --json "$out/join.json" >"$out/join.txt" 2>"$out/join.err" ;;
    joinpaged)
      # The same joins with the build tables over a budget: joined over Starfish pages.
      ./build/app/voxhash bench join --gpu-budget "${VOXHASH_JOIN_BUDGET:-608MiB}" \
        --json "$out/join-paged.json" >"$out/join-paged.txt" 2>"$out/join-paged.err" ;;
    profile)
      # One 2 x 8M / 1024^3 cuckoo frame's kernels under Nsight Compute (caches and clocks left
      # alone), summed by name (tools/ncu_frame_kernels.py).
      ncu --cache-control none --clock-control none --metrics \
        gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
        --csv --print-units base --launch-count 800 ./build/app/voxhash bench frame --points 8M \
        --res 1024 --frames 4 --warmup 1 --algo cuckoo >"$out/ncu-8M.csv" 2>&1
      python3 tools/ncu_frame_kernels.py "$out/ncu-8M.csv" >"$out/ncu-8M.txt" ;;
    quick)
      ./build/app/voxhash bench frame --all-algos --quick \
        --json "$out/frame-quick.json" >"$out/frame-quick.txt" 2>&1 ;;
    sweeps)
      ./build/app/voxhash bench tables --sweep load --sweep multiplicity --sweep size \
        --sweep misses --json "$out/sweeps.json" >"$out/sweeps.txt" 2>"$out/sweeps.err" ;;
    render)
      # The viewer's frame offscreen at 1920x1080 at both sizes, drawn by GL and by CUDA (--cuda-draw).
      for size in "1M 512" "8M 1024"; do
        set -- $size
        for draw in gl cuda; do
          flag=(); [ $draw = cuda ] && flag=(--cuda-draw)
          log=$out/render-$1-$draw.log
          ./build/app/voxhash view --offscreen --backend cuda "${flag[@]}" --frames 60 --timing \
            --width 1920 --height 1080 --no-panel --points "$1" --res "$2" --screenshot "$out/offscreen-$1-$draw.png" >"$log" 2>&1
          echo "== $1 $2 $draw: $(grep -E "median|error" "$log" | tr '\n' ' ')"
        done
      done | tee "$out/render-summary.txt" ;;
    multi)
      # The partitioned tables and join on this machine's GPUs (NCCL; one GPU: G = 1, routing and
      # the communicator's own copies only). VOXHASH_GPUS to change G.
      ./build/app/voxhash bench tables --gpus "${VOXHASH_GPUS:-1}" --json "$out/multi-tables.json" \
        >"$out/multi-tables.txt" 2>"$out/multi-tables.err"
      ./build/app/voxhash bench join --gpus "${VOXHASH_GPUS:-1}" --json "$out/multi-join.json" \
        >"$out/multi-join.txt" 2>"$out/multi-join.err" ;;
    clashcost)
      # What the clash report adds to a frame: the 2 x 8M / 1024^3 and 2 x 1M / 512^3 frames with
      # each frame's report timed apart (bench frame --clash), cuckoo.
      ./build/app/voxhash bench frame --points 8M --res 1024 --frames 30 --clash \
        --json "$out/clash-8M-1024.json" >"$out/clash-8M-1024.txt" 2>&1
      ./build/app/voxhash bench frame --points 1M --res 512 --frames 30 --clash \
        --json "$out/clash-1M-512.json" >"$out/clash-1M-512.txt" 2>&1 ;;
    clash)
      # The clash report of the bundled demo at 1024³ on the GPU, each algorithm (they must agree).
      for algo in cuckoo hashgraph-v1 hashgraph-v2 bcht; do
        ./build/app/voxhash clash --backend cuda --res 1024 --points 4M --algo $algo \
          --json "$out/clash-$algo.json" >"$out/clash-$algo.txt" 2>&1
        echo "$algo: exit $? report (less line 1) md5 $(tail -n +2 "$out/clash-$algo.txt" | md5sum | cut -c1-8)"
      done | tee "$out/clash-summary.txt" ;;
    sanitize)
      sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
      for tool in memcheck racecheck; do
        extra=()
        [ $tool = memcheck ] && extra=(--leak-check full)
        for test in build/tests/test_*_gpu; do
          log=$out/sanitize-$tool-$(basename "$test").log
          "$sanitizer" --tool $tool --error-exitcode 3 "${extra[@]}" "$test" \
            --gtest_filter="${VOXHASH_SANITIZE_FILTER:-*}" >"$log" 2>&1
          code=$?
          echo "$tool $(basename "$test"): exit $code;" \
            "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$log" | tail -n 2 | tr '\n' ' ')" \
            "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
        done
      done | tee "$out/sanitize-summary.txt" ;;
    oom)
      {
        ./build/app/voxhash bench frame --backend cuda --points 2^30 --res 1024
        echo "exit $? (refused up front)"
        VOXHASH_ALLOC_BUDGET=56M ./build/app/voxhash bench frame --backend cuda --points 1M \
          --res 512 --frames 2
        echo "exit $? (budget: the models fit, the frame's keys do not)"
      } 2>&1 | grep -E "error|exit" | tee "$out/oom.txt" ;;
    soak)
      ./build/app/voxhash bench frame --backend cuda --points 8M --res 1024 --frames 100 \
        --soak "${VOXHASH_SOAK_MINUTES:-8}" --json "$out/soak.json" >"$out/soak.txt" 2>"$out/soak.err"
      grep -E "^\[soak\]" "$out/soak.err"; grep -E "growth" "$out/soak.txt" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
for f in "$out"/*.txt; do echo "== $f"; grep -E "join|insert|find-hit|find-miss|build|probe-|total|identical|join|speedup|exchange|read8_dram|exch8_dram|sort_pairs" "$f" | cut -c1-110 | head -40; done
[ -f "$out/gpu-tests.log" ] && cp "$out/gpu-tests.log" "$final/"
[ -f "$out/sanitize-summary.txt" ] && cp "$out/sanitize-summary.txt" "$final/"
[ -f "$out/soak.txt" ] && cp "$out/soak.txt" "$final/"
tar czf "$final/results.tar.gz" -C "$final" results && rm -rf "$out"
