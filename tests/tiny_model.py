"""The tiny model of the trainer tests: a 2-layer Qwen2 built from a config and a word-level tokenizer
built in memory, saved to a folder; nothing is downloaded.

Plain Python with its imports inside: tests/test_differential_trainer.py imports it, and
tests/test_differential_trainer_old.py sends its text to another interpreter (older transformers).
"""


def save_tiny_model(folder):
    """Save the model and tokenizer to `folder`; return the tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast, Qwen2Config

    vocab = {word: i for i, word in enumerate(["<pad>", "<eos>", *(f"w{i}" for i in range(60))])}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="<eos>")
    tokenizer.save_pretrained(folder)
    config = Qwen2Config(
        vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, max_position_embeddings=64, pad_token_id=0, eos_token_id=1, bos_token_id=1,
        tie_word_embeddings=True,
    )  # fmt: skip
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(config).save_pretrained(folder)
    return tokenizer
