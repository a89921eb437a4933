"""Writing a folded match's read models: ``publish`` (the crash-safe order, one generation or
the live ones) and ``guarded`` (what a failure to write means to the catch-up)."""
