"""Ratings: Glicko-2 and its fold over rated results (pure; the projector keeps the read model)."""
