"""gavelkit: deterministic gates for agent workflows (award runs and benchmark tasks)."""

__version__ = "0.1.0"
