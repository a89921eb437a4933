import multiprocessing, time, subprocess, os
from concurrent.futures import ProcessPoolExecutor
from bench.stack import Stack
from bench import cpu
from bench.throughput import play_matches
PYSPY = "/tmp/pyspy/x/py_spy-0.4.3.data/scripts/py-spy"
ctx = multiprocessing.get_context("fork")
with Stack(workers=2) as stack, ProcessPoolExecutor(4, mp_context=ctx) as pool:
    api = cpu.children(stack.pids()["api"][0])
    proj = stack.pids()["projector"]
    fs = [pool.submit(play_matches, stack.api_port, 7 + i, time.time() + 0.5, 2.0) for i in range(4)]
    [f.result() for f in fs]
    start_at = time.time() + 1
    fs = [pool.submit(play_matches, stack.api_port, 100 + i, start_at, 17.0) for i in range(4)]
    time.sleep(1.5)
    spies = [subprocess.Popen([PYSPY, "record", "-p", str(p), "-d", "15", "-r", "200", "--nonblocking", "--gil", "-f", "raw", "-o", f"/tmp/prof_{role}_{p}.txt"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for role, ps in (("api", api), ("proj", proj)) for p in ps]
    print(sum(f.result()["commands"] for f in fs))
    for s in spies: s.wait()
