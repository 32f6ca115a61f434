"""grpo-lint: a static validator for GRPO training configurations."""

__version__ = "0.1.0"
