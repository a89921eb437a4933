"""Parking: a match stopped on the event the fold refuses (``poison``). The registry of parked
matches, which the API's health reads too, is :mod:`shared.readmodels.parked`."""
