"""Overhead of the Python binding: an encrypted 16-bit add called from Python (`a + b`)
against the same add called from Rust (`Server::add`, timed inside Rust), same process,
same keys and thread pool, interleaved rounds. A benchmark, not a test.

    python crates/py/bench/overhead.py [--rounds 10] [--iters 5] [--threads N]
"""

import argparse
import os
import statistics
import time

import encint

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--rounds", type=int, default=10)
p.add_argument("--iters", type=int, default=5, help="adds per round and side")
p.add_argument("--threads", type=int, default=0, help="global pool size (0: rayon default)")
args = p.parse_args()
if args.threads:
    encint.set_threads(args.threads)

ck = encint.ClientKey.generate()
encint.set_server_key(ck.server_key())
a, b = ck.encrypt(12345, 16), ck.encrypt(-23456, 16)
assert ck.decrypt(a + b) == 12345 - 23456  # warm-up and check

py_times, rs_times = [], []
for _ in range(args.rounds):
    for _ in range(args.iters):
        t = time.perf_counter()
        a + b
        py_times.append(time.perf_counter() - t)
    rs_times.extend(encint._encint._bench_rust_add(a, b, args.iters))

py_med, rs_med = statistics.median(py_times), statistics.median(rs_times)
py_mean, rs_mean = statistics.fmean(py_times), statistics.fmean(rs_times)
print(f"threads={args.threads or os.cpu_count()} (rayon default = cores), 16-digit EncInt add, "
      f"{len(py_times)} calls per side, parameters {encint.PARAMETERS}")
print(f"python a + b : median {py_med * 1e3:8.2f} ms  mean {py_mean * 1e3:8.2f} ms")
print(f"rust add     : median {rs_med * 1e3:8.2f} ms  mean {rs_mean * 1e3:8.2f} ms")
print(f"ratio python/rust: median {py_med / rs_med:.4f}  mean {py_mean / rs_mean:.4f}")
