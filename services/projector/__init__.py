"""The projector: RQ workers that fold each match's events into the read models.

``jobs.catch_up`` catches one match up; the API asks for it through a catch-up lane
(``lanes.CatchUpLanes.request``), whose ``lanes.drain`` job catches up many matches;
``python -m services.projector.worker`` runs a worker that also sweeps for matches
whose job was lost.
"""
