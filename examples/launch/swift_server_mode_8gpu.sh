#!/bin/bash
# ms-swift server mode on one 8-GPU machine: 2 GPUs serve vLLM, 6 train.
# Modelled on ms-swift examples/train/grpo/external/grpo_7b.sh.
MODEL=Qwen/Qwen2.5-7B-Instruct

CUDA_VISIBLE_DEVICES=6,7 swift rollout \
    --model $MODEL \
    --vllm_tensor_parallel_size 1 \
    --vllm_data_parallel_size 2 &

CUDA_VISIBLE_DEVICES=0,1,2,3,4,5 NPROC_PER_NODE=6 swift rlhf \
    --rlhf_type grpo \
    --model $MODEL \
    --reward_funcs accuracy \
    --use_vllm true \
    --vllm_mode server \
    --vllm_server_host 127.0.0.1 \
    --vllm_server_port 8000 \
    --tuner_type full \
    --torch_dtype bfloat16 \
    --dataset AI-MO/NuminaMath-TIR#1000 \
    --split_dataset_ratio 0 \
    --max_completion_length 2048 \
    --per_device_train_batch_size 2 \
    --gradient_accumulation_steps 2 \
    --num_generations 8 \
    --temperature 1.0 \
    --top_p 0.9 \
    --top_k 50 \
    --deepspeed zero2 \
    --log_completions true \
    --beta 0.04
