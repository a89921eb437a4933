"""Code shared by the services: the rules engine and the event store."""
