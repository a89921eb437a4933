import time, subprocess, tempfile, cProfile, pstats
import redis
from services.embedded_redis import free_port, redis_server_binary
from services.projector.jobs import ProjectorContext, catch_up
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.projector_support import random_match
port=free_port(); d=tempfile.mkdtemp()
p=subprocess.Popen([redis_server_binary(),'--port',str(port),'--save','','--dir',d],stdout=subprocess.DEVNULL)
time.sleep(0.3)
r=redis.Redis(port=port); store=RedisEventStore(r); ctx=ProjectorContext(store, ReadModels(r))
matches=[random_match(s, f"m{s}") for s in range(40)]
def run():
    n=0; t=time.process_time()
    for i, ev in enumerate(matches):
        mid=f"m{i}"
        v=0
        for k in range(0, len(ev), 2):
            chunk=ev[k:k+2]
            store.append(mid, [encode(e) for e in chunk], v); v+=len(chunk)
            t0=time.process_time(); catch_up(mid, ctx); n+=1; run.cpu+=time.process_time()-t0
    return n
run.cpu=0.0
n=run()
print(f"{n} catch-ups, {1e3*run.cpu/n:.3f} ms CPU each")
pr=cProfile.Profile(); run.cpu=0.0
matches=[random_match(s, f"x{s}") for s in range(100,120)]
matches_ids=None
pr.enable(); 
for i, ev in enumerate(matches):
    mid=f"x{i}"; v=0
    for k in range(0,len(ev),2):
        chunk=ev[k:k+2]; store.append(mid,[encode(e) for e in chunk],v); v+=len(chunk); catch_up(mid,ctx)
pr.disable()
pstats.Stats(pr).sort_stats('cumulative').print_stats(35)
p.kill()
