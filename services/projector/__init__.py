"""The projector: RQ workers that fold each match's events into the read models.

``jobs.catch_up`` is the job; ``queue.enqueue_catch_up`` is how the API asks for it;
``python -m services.projector.worker`` runs a worker that also sweeps for matches
whose job was lost.
"""
