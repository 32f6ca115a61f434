#!/usr/bin/env bash
# GRPO (group_norm) with OpenRLHF >= 0.10.2 (dotted flags): 8 GPUs shared by the actor, the
# reference model and 4 vLLM engines of 2 GPUs (hybrid engine). Shape of OpenRLHF's
# train_grpo_ray_hybrid_engine.sh example.
set -x

ray job submit --address="http://127.0.0.1:8265" \
   --runtime-env-json='{"working_dir": "/openrlhf"}' \
   -- python3 -m openrlhf.cli.train_ppo_ray \
   --ref.num_nodes 1 \
   --ref.num_gpus_per_node 8 \
   --actor.num_nodes 1 \
   --actor.num_gpus_per_node 8 \
   --vllm.num_engines 4 \
   --vllm.tensor_parallel_size 2 \
   --vllm.gpu_memory_utilization 0.6 \
   --train.colocate_all \
   --algo.advantage.estimator group_norm \
   --algo.kl.init_coef 1e-3 \
   --algo.kl.use_loss \
   --algo.kl.estimator k3 \
   --actor.model_name_or_path OpenRLHF/Llama-3-8b-sft-mixture \
   --reward.remote_url http://localhost:5000/get_reward \
   --rollout.n_samples_per_prompt 8 \
   --rollout.batch_size 128 \
   --rollout.micro_batch_size 16 \
   --rollout.temperature 1.0 \
   --train.batch_size 128 \
   --train.micro_batch_size 8 \
   --train.max_epochs 1 \
   --data.prompt_dataset OpenRLHF/prompt-collection-v0.1 \
   --data.input_key context_messages \
   --data.apply_chat_template \
   --ds.zero_stage 3 \
   --ds.packing_samples
