"""ModelScope ms-swift: `swift rlhf --rlhf_type grpo`, its YAML/JSON config files and args.json."""
