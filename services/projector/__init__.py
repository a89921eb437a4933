"""The projector: RQ workers that fold each match's events into the read models.

The projector owns the read side's writing: ``catchup`` (a match's catch-up and the one
failure policy), ``parking`` (the poison event), ``publishing`` (writing the read models in
the crash-safe order), ``rebuild`` (every generation from the streams). The read-model
store it writes, and the API reads, is :mod:`shared.readmodels`. ``jobs`` holds the RQ
entry points and ``job_table`` the names the queues hold (:mod:`shared.job_names`);
``drain`` catches up the matches the API filed in a catch-up lane (``lanes``,
(:mod:`shared.catch_up_lanes`); ``worker`` runs a worker that also sweeps for matches whose
job was lost and rescues jobs of dead workers (``orphans``); ``operations`` is what an
operator's tool (the ``truc`` CLI) runs in its own process.
``python -m services.projector`` starts one.
"""
