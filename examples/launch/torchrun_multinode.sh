#!/bin/bash
# Two nodes of 8 GPUs with torchrun; the group size does not fit the 16 processes.
NODES=2
torchrun --nnodes $NODES --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:29500 \
    trl/scripts/grpo.py \
    --model_name_or_path Qwen/Qwen2.5-0.5B-Instruct \
    --dataset_name trl-lib/tldr \
    --per_device_train_batch_size 3 \
    --num_generations 32 \
    --output_dir runs/tldr
