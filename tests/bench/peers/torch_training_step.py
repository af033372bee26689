"""One training step of the coreference demo model in PyTorch on the CPU, timed: the figure that
index.mjs sets beside the engine's trainer.step() (createTrainer({task: 'coreference', batchSize: 32}))
at the same thread count. Prints one JSON line.

What is the same: the model (web/public/models/coreference/config.json, the shape that
src/train/tasks.cpp trains: encoder-only, d_model 64 in 4 heads, d_ff 128, 2 pre-LN layers with
a final LayerNorm (eps 1e-5), exact GELU, learned positions over 16 places, embeddings tied to the
output over a vocabulary of 76, biases everywhere); the batch of 32 sentences of 9-12 tokens, as
often as the task's 12 templates give each length, with one target per sentence (at "it");
logits at every position, cross-entropy averaged over the targets; clipping of the gradients'
global norm to 1; AdamW with beta (0.9, 0.99), eps 1e-8 and weight decay 0.01 on matrices only;
float32; a fresh batch every step, its making counted in the step; the number of threads.

What differs: the engine runs each sentence at its own length (in 8 parts spread over its
threads) and PyTorch pads the batch to its longest sentence and masks the padded keys, so it
computes about a fifth more positions (batched matrices instead of many small ones); the tokens
here are random ids instead of sentences of the language (the cost does not depend on them); the
engine is WebAssembly (SIMD) in Node, PyTorch native x86 code with its own kernels and autograd.
PyTorch's threads are OpenMP's, left at their defaults: they spin while they wait for each other,
so on a machine busy with other work its 2-thread figure suffers most (the engine's threads sleep).
"""

import argparse
import json
import random
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

VOCAB = 76
CONTEXT = 16
D_MODEL = 64
HEADS = 4
D_FF = 128
LAYERS = 2
# sentence lengths of the task's 12 templates, in words
TEMPLATE_LENGTHS = [10, 10, 11, 9, 12, 9, 9, 10, 10, 11, 10, 9]
# "it" is followed by "was" and the adjective, or "was too" and the adjective
PRONOUN_FROM_END = 3


class CoreferenceModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, D_MODEL)
        self.positions = nn.Embedding(CONTEXT, D_MODEL)
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, D_FF, dropout=0.0, activation="gelu",
                                           layer_norm_eps=1e-5, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, LAYERS, norm=nn.LayerNorm(D_MODEL, eps=1e-5),
                                            enable_nested_tensor=False)

    def forward(self, tokens, padding):
        places = torch.arange(tokens.shape[1])
        hidden = self.blocks(self.tokens(tokens) + self.positions(places), src_key_padding_mask=padding)
        return hidden @ self.tokens.weight.T


def batch(size, rng):
    lengths = [rng.choice(TEMPLATE_LENGTHS) for _ in range(size)]
    longest = max(lengths)
    tokens = torch.randint(VOCAB, (size, longest))
    padding = torch.arange(longest)[None, :] >= torch.tensor(lengths)[:, None]
    targets = torch.full((size, longest), -100)
    for row, length in enumerate(lengths):
        targets[row, length - PRONOUN_FROM_END] = rng.randrange(VOCAB)
    return tokens, padding, targets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--warm-up", type=int, default=10)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(7)
    rng = random.Random(7)
    model = CoreferenceModel()
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": matrices, "weight_decay": 0.01},
                                   {"params": vectors, "weight_decay": 0.0}],
                                  lr=2e-3, betas=(0.9, 0.99), eps=1e-8)

    def step():
        tokens, padding, targets = batch(args.batch, rng)
        logits = model(tokens, padding)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-100)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    for _ in range(args.warm_up):
        step()
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1000)
    print(json.dumps({
        "threads": torch.get_num_threads(),
        "batch": args.batch,
        "medianMs": statistics.median(times),
        "steps": args.steps,
        "parameters": sum(p.numel() for p in model.parameters()),
        "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
