"""The projector: RQ workers that fold each match's events into the read models.

The work is the read side's (:mod:`shared.readmodels`); this service runs it. ``jobs``
holds the RQ entry points, ``lanes.drain`` catches up the matches the API filed in a
catch-up lane (:mod:`shared.catchup`), ``worker`` runs a worker that also sweeps for
matches whose job was lost and rescues jobs of dead workers (``orphans``).
``python -m services.projector`` starts one.
"""
