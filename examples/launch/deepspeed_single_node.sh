#!/bin/bash
# DeepSpeed launcher on 4 GPUs running a user script that takes GRPOConfig flags.
deepspeed --num_gpus 4 train_grpo.py \
    --deepspeed ds_zero2.json \
    --per_device_train_batch_size 4 \
    --gradient_accumulation_steps 4 \
    --num_generations 16 \
    --temperature 0.7
