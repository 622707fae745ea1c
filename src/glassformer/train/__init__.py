"""Training: a loop that knows nothing about GPT beyond "ids in, logits out"."""
