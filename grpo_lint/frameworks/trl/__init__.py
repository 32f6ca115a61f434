"""Hugging Face TRL: `trl grpo --config`, TrlParser YAML/JSON and GRPOConfig."""
