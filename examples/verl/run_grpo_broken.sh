#!/usr/bin/env bash
# A verl GRPO launch with four mistakes grpo-lint finds before Ray starts:
# one response per prompt (no group), a misspelled key, `+` on an existing key, and a rollout
# tensor-parallel size that does not divide the 6 GPUs.
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=96 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-3B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=24 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=1 \
    actor_rollout_ref.rollout.temprature=0.8 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=4 \
    +actor_rollout_ref.rollout.gpu_memory_utilization=0.5 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    trainer.n_gpus_per_node=6 \
    trainer.nnodes=1
