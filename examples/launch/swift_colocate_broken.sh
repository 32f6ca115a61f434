#!/bin/bash
# Colocated vLLM on 4 GPUs, with three launch mistakes grpo-lint reports.
export NNODES=1
GPUS=4

# GRPO502: 4 GPUs for 2 processes -> device_map, which GRPO with vLLM rejects.
CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=$((GPUS/2)) swift rlhf \
    --rlhf_type grpo \
    --model Qwen/Qwen2.5-7B-Instruct \
    --use_vllm true \
    --vllm_mode colocate \
    --vllm_tensor_parallel_size 2 \
    --per_device_train_batch_size 3 \
    --num_generations 8 \
    # --deepspeed zero3_offload \
    --temperature 1.0 \
    --output_dir runs/colocate
