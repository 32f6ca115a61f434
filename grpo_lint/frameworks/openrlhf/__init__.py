"""OpenRLHF: `openrlhf.cli.train_ppo_ray` command lines."""
