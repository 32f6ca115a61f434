from grpo_lint.cli import main

main()
