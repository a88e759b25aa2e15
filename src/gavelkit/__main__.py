"""Allow `python -m gavelkit`."""

from gavelkit.cli.main import run

run()
