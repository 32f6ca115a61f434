from grpo_lint.cli import console

console()
