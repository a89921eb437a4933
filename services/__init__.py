"""The deployable services: command API, projector and their helpers."""
