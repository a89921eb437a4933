"""``python -m services.cli``: the same as the ``truc`` command."""
from services.cli import main

main()
