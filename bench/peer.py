"""What bench/compare_with_pytorch.py and bench/compare_llama_with_pytorch.py share: the
peer's fair allocator settings, which BLAS torch multiplies with, the machine, timing.

Import it after setting OPENBLAS_NUM_THREADS and the like: torch is imported by the
functions that need it, after the caller has set what OpenBLAS reads at load time.
"""
import ctypes
import json
import os
import re
import statistics
import subprocess
import time

# glibc keeps freed memory mapped and reuses it: no large block goes back to the kernel.
FAIR_PEER_ENV = {"MALLOC_MMAP_THRESHOLD_": "17179869184", "MALLOC_TRIM_THRESHOLD_": "17179869184",
                 "MALLOC_TOP_PAD_": "1073741824"}
# At two or more threads torch runs its own loops on OpenMP's threads and its products on
# OpenBLAS's, and by default an OpenMP thread spins on its core after its work, taking it
# from OpenBLAS's (measured 2026-11-28 on 2 cores: the seed documents' MHA at T = 256 took
# 22.0 ms at 2 threads, 13.3 ms at 1, 8.6 ms at 2 with OpenMP's threads sleeping). Sleeping
# costs a wake-up each call instead (the book's 6-token example: 44 -> 168 us), so the fair
# peer is timed both ways and each workload gets its faster time.
SLEEPING_THREADS = {"OMP_WAIT_POLICY": "PASSIVE"}


def fair_peer_envs(threads):
    """What the fair peer's runs add to the environment: glibc keeping its memory, and at
    two or more threads once with OpenMP's idle threads spinning (its default), once sleeping."""
    return [dict(FAIR_PEER_ENV)] + ([dict(FAIR_PEER_ENV, **SLEEPING_THREADS)] if threads > 1 else [])


def peer_base_env():
    """The environment without anything fair_peer_envs sets: PyTorch as usually run."""
    return {k: v for k, v in os.environ.items() if k not in FAIR_PEER_ENV and k not in SLEEPING_THREADS}


def peer_run_times(command, threads, fair=True):
    """The peer's times, {name: seconds}, printed as JSON by `command` in child processes:
    the fair peer (each workload's fastest over fair_peer_envs), or as usually run."""
    runs = [json.loads(subprocess.run(command, env=dict(peer_base_env(), **extra), capture_output=True, text=True,
                                      check=True).stdout)
            for extra in (fair_peer_envs(threads) if fair else [{}])]
    return {name: min(run[name] for run in runs) for name in runs[0]}


def fair_peer_description(threads):
    text = "glibc keeps its freed memory (" + " ".join(f"{k}={v}" for k, v in FAIR_PEER_ENV.items()) + ")"
    if threads > 1:
        text += ("; timed with OpenMP's idle threads spinning and sleeping (OMP_WAIT_POLICY=PASSIVE), "
                 "each workload's faster time")
    return text


def engine_run(command, env, min_time=1.0):
    """Runs a Google Benchmark program of attnscope's (`command`: its path and filter) as
    median_seconds times the peer: warmed up first, then the median of three repetitions
    of at least min_time seconds each. Without the warm-up a forward of a second or more
    was timed once, cold (GPT-2 small at T = 1024 faulted in its 1.1 GB while the peer's
    fastest warm run was kept). Returns ({run name: seconds}, {run name: counters}, the
    report's context)."""
    flags = ["--benchmark_format=json", f"--benchmark_min_time={min_time}", "--benchmark_min_warmup_time=0.1",
             "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true"]
    report = json.loads(subprocess.run(command + flags, env=env, capture_output=True, text=True, check=True).stdout)
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    medians = [b for b in report["benchmarks"] if b.get("aggregate_name") == "median"]
    return ({b["run_name"]: b["real_time"] * unit[b["time_unit"]] for b in medians},
            {b["run_name"]: b for b in medians}, report["context"])


OPTIMISED_BLAS = re.compile(r"openblas|mkl|blis", re.IGNORECASE)


class DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def blas_in_use():
    """The file that holds the sgemm torch's products call. Which libraries are mapped
    does not say it: with Debian's reference libblas.so.3 selected, OpenBLAS is still
    loaded (through liblapack.so.3) while torch's sgemm_ binds to the reference one."""
    import torch
    torch.rand(64, 64) @ torch.rand(64, 64)
    with open("/proc/self/maps") as maps:
        torch_cpu = re.search(r"(/\S*libtorch_cpu\.so\S*)", maps.read()).group(1)
    # dlsym on libtorch_cpu's handle searches it and its dependencies, as its own binding did.
    sgemm = ctypes.cast(ctypes.CDLL(torch_cpu).sgemm_, ctypes.c_void_p)
    info = DlInfo()
    libc = ctypes.CDLL("libc.so.6")
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    if not libc.dladdr(sgemm, ctypes.byref(info)):
        return "?"
    return os.path.realpath(info.dli_fname.decode())


def cpu_description():
    with open("/proc/cpuinfo") as f:
        info = f.read()
    model = re.search(r"model name\s*:\s*(.*)", info).group(1).strip()
    flags = set(re.search(r"flags\s*:\s*(.*)", info).group(1).split())
    width = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
    return f"{model}, {os.cpu_count()} cores, widest vectors: {width}"


def median_seconds(fn, min_time=1.0, min_runs=3):
    fn()  # warm-up
    times, start = [], time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_time:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def fmt(seconds):
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"
