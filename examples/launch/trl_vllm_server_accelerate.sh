#!/usr/bin/env bash
# TRL server mode, open-r1 layout: GPU 0 serves vLLM, GPUs 1-7 train with accelerate + a recipe.
set -euo pipefail

CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen2.5-1.5B-Instruct --tensor_parallel_size 1 &

CUDA_VISIBLE_DEVICES=1,2,3,4,5,6,7 accelerate launch \
    --config_file accelerate_zero2.yaml \
    --num_processes 7 \
    -m trl.scripts.grpo \
    --config trl_recipe.yaml \
    --vllm_mode server
