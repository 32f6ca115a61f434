#!/usr/bin/env bash
# The same GRPO run for OpenRLHF <= 0.10.1 (flat flags), on 3 actor GPUs, with the batch mistake
# behind "32 != 1 * 10 * 3": lint it with --target openrlhf==0.10.1.
python3 -m openrlhf.cli.train_ppo_ray \
   --actor_num_nodes 1 \
   --actor_num_gpus_per_node 3 \
   --ref_num_gpus_per_node 3 \
   --colocate_actor_ref \
   --vllm_num_engines 1 \
   --vllm_tensor_parallel_size 1 \
   --advantage_estimator group_norm \
   --pretrain Qwen/Qwen2.5-1.5B-Instruct \
   --remote_rm_url http://localhost:5000/get_reward \
   --n_samples_per_prompt 8 \
   --rollout_batch_size 32 \
   --micro_rollout_batch_size 8 \
   --train_batch_size 32 \
   --micro_train_batch_size 1 \
   --prompt_data openai/gsm8k \
   --input_key question
