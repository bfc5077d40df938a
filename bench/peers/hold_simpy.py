"""Hold model on SimPy 2.3 (Debian's python3-simpy), for bench/peers/run.

PENDING processes each hold an exponential gap (mean 1 s) in a loop, so PENDING events are always
pending. Prints events/s for EVENTS events fired after a warm-up of PENDING events.
Usage: python3 hold_simpy.py PENDING EVENTS
"""
import random
import sys
import time

from SimPy.Simulation import Process, activate, hold, initialize, simulate, stopSimulation

pending = int(sys.argv[1])
events = int(sys.argv[2])
limit = pending + events
state = {"fired": 0, "t0": 0.0, "t1": 0.0}
rng = random.Random(42)


class Holder(Process):
    def run(self):
        while True:
            yield hold, self, rng.expovariate(1.0)
            state["fired"] += 1
            if state["fired"] == pending:
                state["t0"] = time.process_time()
            elif state["fired"] == limit:
                state["t1"] = time.process_time()
                stopSimulation()


initialize()
for _ in range(pending):
    p = Holder()
    activate(p, p.run())
simulate(until=1e18)
print("%.0f" % (events / (state["t1"] - state["t0"])))
