"""The frozen golden corpus: recorded matches of every event schema ever written, and the events' fingerprints."""
