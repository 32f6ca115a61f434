"""verl: Hydra configs and `verl.trainer.main_ppo` overrides."""

# The config sections the rules name (light constants: importing the front end costs start-up time).
ACTOR = "actor_rollout_ref.actor"
ROLLOUT = "actor_rollout_ref.rollout"
REF = "actor_rollout_ref.ref"
