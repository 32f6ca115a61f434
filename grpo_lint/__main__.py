from grpo_lint.cli import entry

entry()
