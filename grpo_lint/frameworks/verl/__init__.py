"""verl: Hydra configs and `verl.trainer.main_ppo` overrides."""
