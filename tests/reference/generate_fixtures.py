#!/usr/bin/python3
"""Reference values from PyTorch for the engine's tests.

Run with Debian's interpreter and python3-torch:  /usr/bin/python3 tests/reference/generate_fixtures.py
Writes tests/reference/fixtures/attention.json (attention layers), layers.json (norms,
activations, encoder/decoder layers, a 2-layer decoder-only model), training.json (a 2-layer
model's loss and every parameter gradient from autograd, in float64), rnn.json (a tanh RNN's
states and autograd gradients, in float64) and patches.json (images cut into patches by F.unfold
and embedded), and hf/<name>/ (Hugging Face checkpoints of GPT-2 and Llama layout in F32, F16 and
BF16, one of them sharded, written by hand as config.json and safetensors, with expected.json: the
logits, every layer's attention weights and a 20-token greedy continuation from a reference that
follows Hugging Face's modeling code). The tests read those files and never need torch.
Weights are stored in the engine's layout: y = x·W + b, c_attn columns [W_Q | W_K | W_V].
"""
import json
import math
import pathlib
import shutil
import struct

import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent / "fixtures"


def tensor(t):
    t = t.detach().to(torch.float32).contiguous()
    return {"shape": list(t.shape), "data": [float(f"{v:.9g}") for v in t.flatten().tolist()]}


def torch_mha_case(name, d, h, n, causal=False, m=None, key_padding=None):
    """torch.nn.MultiheadAttention: self-attention when m is None, else cross-attention."""
    mha = torch.nn.MultiheadAttention(d, h, batch_first=True, bias=True)
    with torch.no_grad():
        mha.in_proj_bias.normal_(0, 0.5)
        mha.out_proj.bias.normal_(0, 0.5)
    x = torch.randn(1, n, d)
    memory = x if m is None else torch.randn(1, m, d)
    mask = torch.triu(torch.ones(n, memory.shape[1], dtype=torch.bool), 1) if causal else None
    padding = None if key_padding is None else torch.tensor([key_padding], dtype=torch.bool)
    out, weights = mha(x, memory, memory, attn_mask=mask, key_padding_mask=padding,
                       need_weights=True, average_attn_weights=False)
    case = {
        "name": name, "kind": "self" if m is None else "cross",
        "d_model": d, "n_heads": h, "n_kv_heads": h, "causal": causal,
        "key_padding": key_padding or [],
        "tensors": {
            "x": tensor(x[0]),
            "c_attn_weight": tensor(mha.in_proj_weight.T),
            "c_attn_bias": tensor(mha.in_proj_bias),
            "c_proj_weight": tensor(mha.out_proj.weight.T),
            "c_proj_bias": tensor(mha.out_proj.bias),
            "weights": tensor(weights[0]),
            "output": tensor(out[0]),
        },
    }
    if m is not None:
        case["tensors"]["memory"] = tensor(memory[0])
    return case


def grouped_query_case(name, d, h, g, n, causal):
    """GQA/MQA written out in torch: kv head j serves query heads j·h/g … (j+1)·h/g − 1."""
    dk = d // h
    w_attn = torch.randn(d, d + 2 * g * dk) / math.sqrt(d)
    b_attn = torch.randn(d + 2 * g * dk) * 0.5
    w_proj = torch.randn(d, d) / math.sqrt(d)
    b_proj = torch.randn(d) * 0.5
    x = torch.randn(n, d)
    qkv = x @ w_attn + b_attn
    q = qkv[:, :d].reshape(n, h, dk).transpose(0, 1)
    k = qkv[:, d:d + g * dk].reshape(n, g, dk).transpose(0, 1).repeat_interleave(h // g, dim=0)
    v = qkv[:, d + g * dk:].reshape(n, g, dk).transpose(0, 1).repeat_interleave(h // g, dim=0)
    scores = q @ k.transpose(1, 2) / math.sqrt(dk)
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    weights = F.softmax(scores, dim=-1)
    out = (weights @ v).transpose(0, 1).reshape(n, d) @ w_proj + b_proj
    return {
        "name": name, "kind": "self", "d_model": d, "n_heads": h, "n_kv_heads": g,
        "causal": causal, "key_padding": [],
        "tensors": {
            "x": tensor(x), "c_attn_weight": tensor(w_attn), "c_attn_bias": tensor(b_attn),
            "c_proj_weight": tensor(w_proj), "c_proj_bias": tensor(b_proj),
            "weights": tensor(weights), "output": tensor(out),
        },
    }


def linear_params(prefix, linear):
    """nn.Linear stores (out, in) for y = x·Wᵀ + b; the engine stores W transposed: y = x·W + b."""
    return {f"{prefix}.weight": tensor(linear.weight.T), f"{prefix}.bias": tensor(linear.bias)}


def attention_params(prefix, mha):
    return {f"{prefix}.c_attn.weight": tensor(mha.in_proj_weight.T),
            f"{prefix}.c_attn.bias": tensor(mha.in_proj_bias),
            f"{prefix}.c_proj.weight": tensor(mha.out_proj.weight.T),
            f"{prefix}.c_proj.bias": tensor(mha.out_proj.bias)}


def norm_params(prefix, norm):
    return {f"{prefix}.weight": tensor(norm.weight), f"{prefix}.bias": tensor(norm.bias)}


def randomise(module):
    """Default initialisations leave biases and norm gains at 0 and 1; make every one count."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("bias"):
                p.normal_(0, 0.3)
            elif "norm" in name or "ln" in name:
                p.normal_(1, 0.3)


def encoder_layer_case(norm_first, activation):
    d, h, d_ff, n = 8, 2, 16, 5
    layer = torch.nn.TransformerEncoderLayer(d, h, d_ff, dropout=0.0, activation=activation,
                                             batch_first=True, norm_first=norm_first).eval()
    randomise(layer)
    x = torch.randn(1, n, d)
    with torch.no_grad():
        y = layer(x)
    tensors = {"x": tensor(x[0]), "y": tensor(y[0])}
    tensors.update(norm_params("ln_1", layer.norm1))
    tensors.update(attention_params("attn", layer.self_attn))
    tensors.update(norm_params("ln_2", layer.norm2))
    tensors.update(linear_params("mlp.c_fc", layer.linear1))
    tensors.update(linear_params("mlp.c_proj", layer.linear2))
    return {"name": f"encoder_layer_{'pre' if norm_first else 'post'}_{activation}", "kind": "encoder_layer",
            "d_model": d, "n_heads": h, "d_ff": d_ff, "pre_norm": norm_first, "activation": activation,
            "tensors": tensors}


def decoder_layer_case(norm_first):
    d, h, d_ff, n, m = 8, 4, 12, 4, 6
    layer = torch.nn.TransformerDecoderLayer(d, h, d_ff, dropout=0.0, activation="relu",
                                             batch_first=True, norm_first=norm_first).eval()
    randomise(layer)
    x, memory = torch.randn(1, n, d), torch.randn(1, m, d)
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    with torch.no_grad():
        y = layer(x, memory, tgt_mask=causal)
    tensors = {"x": tensor(x[0]), "memory": tensor(memory[0]), "y": tensor(y[0])}
    tensors.update(norm_params("ln_1", layer.norm1))
    tensors.update(attention_params("attn", layer.self_attn))
    tensors.update(norm_params("ln_cross_attn", layer.norm2))
    tensors.update(attention_params("crossattention", layer.multihead_attn))
    tensors.update(norm_params("ln_2", layer.norm3))
    tensors.update(linear_params("mlp.c_fc", layer.linear1))
    tensors.update(linear_params("mlp.c_proj", layer.linear2))
    return {"name": f"decoder_layer_{'pre' if norm_first else 'post'}", "kind": "decoder_layer",
            "d_model": d, "n_heads": h, "d_ff": d_ff, "pre_norm": norm_first, "activation": "relu",
            "tensors": tensors}


def decoder_only_model_case():
    """A GPT-2-shaped model: learned positions, two pre-LN blocks, tanh-GELU, ln_f, tied head."""
    vocab, n_ctx, d, h, d_ff, layers = 11, 16, 8, 2, 32, 2
    wte = torch.randn(vocab, d) * 0.5
    wpe = torch.randn(n_ctx, d) * 0.2
    gelu_tanh = lambda t: F.gelu(t, approximate="tanh")  # noqa: E731
    blocks = [torch.nn.TransformerEncoderLayer(d, h, d_ff, dropout=0.0, activation=gelu_tanh,
                                               batch_first=True, norm_first=True).eval()
              for _ in range(layers)]
    ln_f = torch.nn.LayerNorm(d)
    for module in blocks + [ln_f]:
        randomise(module)
    tokens = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    n = len(tokens)
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    with torch.no_grad():
        x = (wte[tokens] + wpe[:n]).unsqueeze(0)
        for block in blocks:
            x = block(x, src_mask=causal)
        logits = ln_f(x)[0] @ wte.T
    tensors = {"wte.weight": tensor(wte), "wpe.weight": tensor(wpe), "logits": tensor(logits)}
    for i, block in enumerate(blocks):
        tensors.update(norm_params(f"h.{i}.ln_1", block.norm1))
        tensors.update(attention_params(f"h.{i}.attn", block.self_attn))
        tensors.update(norm_params(f"h.{i}.ln_2", block.norm2))
        tensors.update(linear_params(f"h.{i}.mlp.c_fc", block.linear1))
        tensors.update(linear_params(f"h.{i}.mlp.c_proj", block.linear2))
    tensors.update(norm_params("ln_f", ln_f))
    return {"name": "gpt_2layer", "kind": "decoder_only_model", "vocab_size": vocab, "n_ctx": n_ctx,
            "d_model": d, "n_heads": h, "d_ff": d_ff, "n_layers": layers, "activation": "gelu_tanh",
            "tokens": tokens, "tensors": tensors}


def tensor64(t):
    t = t.detach().to(torch.float64).contiguous()
    return {"shape": list(t.shape), "data": [float(repr(v)) for v in t.flatten().tolist()]}


def training_case():
    """Autograd of a GPT-2-shaped model in float64: mean cross-entropy over the positions that have
    a target (−1 = none), its value and the gradient of every parameter under GPT-2 names."""
    vocab, n_ctx, d, h, d_ff, layers = 13, 12, 8, 2, 16, 2
    wte = (torch.randn(vocab, d, dtype=torch.float64) * 0.5).requires_grad_()
    wpe = (torch.randn(n_ctx, d, dtype=torch.float64) * 0.2).requires_grad_()
    gelu_tanh = lambda t: F.gelu(t, approximate="tanh")  # noqa: E731
    blocks = [torch.nn.TransformerEncoderLayer(d, h, d_ff, dropout=0.0, activation=gelu_tanh, batch_first=True,
                                               norm_first=True, dtype=torch.float64).train()
              for _ in range(layers)]
    ln_f = torch.nn.LayerNorm(d, dtype=torch.float64)
    for module in blocks + [ln_f]:
        randomise(module)
    tokens = [2, 7, 7, 1, 12, 5, 0, 9, 3]
    targets = [7, 7, 1, -1, 5, 0, -1, 3, 11]
    n = len(tokens)
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    x = (wte[tokens] + wpe[:n]).unsqueeze(0)
    for block in blocks:
        x = block(x, src_mask=causal)
    logits = ln_f(x)[0] @ wte.T
    loss = F.cross_entropy(logits, torch.tensor(targets), ignore_index=-1)
    loss.backward()
    params = {"wte.weight": wte, "wpe.weight": wpe}
    for i, block in enumerate(blocks):
        params.update({f"h.{i}.ln_1.weight": block.norm1.weight, f"h.{i}.ln_1.bias": block.norm1.bias,
                       f"h.{i}.attn.c_attn.weight": block.self_attn.in_proj_weight,
                       f"h.{i}.attn.c_attn.bias": block.self_attn.in_proj_bias,
                       f"h.{i}.attn.c_proj.weight": block.self_attn.out_proj.weight,
                       f"h.{i}.attn.c_proj.bias": block.self_attn.out_proj.bias,
                       f"h.{i}.ln_2.weight": block.norm2.weight, f"h.{i}.ln_2.bias": block.norm2.bias,
                       f"h.{i}.mlp.c_fc.weight": block.linear1.weight, f"h.{i}.mlp.c_fc.bias": block.linear1.bias,
                       f"h.{i}.mlp.c_proj.weight": block.linear2.weight,
                       f"h.{i}.mlp.c_proj.bias": block.linear2.bias})
    params.update({"ln_f.weight": ln_f.weight, "ln_f.bias": ln_f.bias})
    tensors = {}
    for name, p in params.items():
        # nn.Linear keeps (out, in); the engine keeps W transposed (y = x·W + b)
        transpose = p.dim() == 2 and name not in ("wte.weight", "wpe.weight")
        tensors[name] = tensor64(p.T if transpose else p)
        tensors["grad." + name] = tensor64(p.grad.T if transpose else p.grad)
    return {"name": "gpt_2layer_training", "kind": "training", "vocab_size": vocab, "n_ctx": n_ctx,
            "d_model": d, "n_heads": h, "d_ff": d_ff, "n_layers": layers, "activation": "gelu_tanh",
            "tokens": tokens, "targets": targets, "loss": loss.item(), "tensors": tensors}


def adamw_case():
    """torch.optim.AdamW over three steps with changing learning rates: a matrix with weight decay,
    a vector without (the engine decays matrices only)."""
    w = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    initial = {"w": tensor64(w), "b": tensor64(b)}
    optimizer = torch.optim.AdamW([{"params": [w], "weight_decay": 0.01}, {"params": [b], "weight_decay": 0.0}],
                                  lr=1e-2, betas=(0.9, 0.99), eps=1e-8)
    tensors = dict(initial)
    rates = [1e-2, 5e-3, 2e-3]
    for step, rate in enumerate(rates):
        w.grad = torch.randn(3, 4, dtype=torch.float64)
        b.grad = torch.randn(4, dtype=torch.float64)
        tensors[f"grad{step}.w"], tensors[f"grad{step}.b"] = tensor64(w.grad), tensor64(b.grad)
        for group in optimizer.param_groups:
            group["lr"] = rate
        optimizer.step()
        tensors[f"step{step}.w"], tensors[f"step{step}.b"] = tensor64(w), tensor64(b)
    return {"name": "adamw", "kind": "adamw", "learning_rates": rates, "beta1": 0.9, "beta2": 0.99,
            "epsilon": 1e-8, "weight_decay": 0.01, "tensors": tensors}


def pointwise_cases():
    x = torch.randn(6, 9) * 2
    ln = torch.nn.LayerNorm(9)
    randomise(ln)
    weight = torch.randn(9) * 0.3 + 1
    rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * weight
    with torch.no_grad():
        return [{"name": "pointwise", "kind": "pointwise", "tensors": {
            "x": tensor(x), "layer_norm.weight": tensor(ln.weight), "layer_norm.bias": tensor(ln.bias),
            "layer_norm": tensor(ln(x)), "rms_norm.weight": tensor(weight), "rms_norm": tensor(rms),
            "gelu": tensor(F.gelu(x)), "gelu_tanh": tensor(F.gelu(x, approximate="tanh")),
            "relu": tensor(F.relu(x)), "silu": tensor(F.silu(x)), **pointwise_derivatives(x)}}]


def pointwise_derivatives(x):
    """σ′(x) of each activation by autograd (the gradient of Σσ(x))."""
    derivatives = {}
    for name, f in [("relu", F.relu), ("gelu", F.gelu), ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")),
                    ("silu", F.silu)]:
        with torch.enable_grad():
            t = x.clone().requires_grad_()
            f(t).sum().backward()
        derivatives[name + ".derivative"] = tensor(t.grad)
    return derivatives


def patches_case(name, height, width, patch, d):
    """A grey image cut into patches by F.unfold and embedded by a random E."""
    image = torch.rand(height, width)
    embedding = torch.randn(patch * patch, d) / patch
    patches = F.unfold(image[None, None], patch, stride=patch)[0].T
    return {"name": name, "kind": "patches", "patch": patch, "tensors": {
        "image": tensor(image), "embedding": tensor(embedding), "patches": tensor(patches),
        "embedded": tensor(patches @ embedding)}}


def rnn_case(name, d, h, t):
    """torch.nn.RNN(nonlinearity='tanh') from a random h_0, in float64: the states h_1 … h_T, and
    autograd's gradients of L = ½‖h_T‖² with respect to x, h_0, W_hh, W_xh and b = b_ih + b_hh."""
    rnn = torch.nn.RNN(d, h, nonlinearity="tanh", batch_first=True, dtype=torch.float64)
    x = torch.randn(1, t, d, dtype=torch.float64, requires_grad=True)
    h0 = (torch.randn(1, 1, h, dtype=torch.float64) * 0.5).requires_grad_()
    states, _ = rnn(x, h0)
    loss = 0.5 * states[0, -1].pow(2).sum()
    loss.backward()
    b = rnn.bias_ih_l0 + rnn.bias_hh_l0
    return {"name": name, "kind": "rnn", "tensors": {
        "x": tensor64(x[0]), "h0": tensor64(h0[0, 0]), "w_hh": tensor64(rnn.weight_hh_l0),
        "w_xh": tensor64(rnn.weight_ih_l0), "b": tensor64(b), "states": tensor64(states[0]),
        "grad.x": tensor64(x.grad[0]), "grad.h0": tensor64(h0.grad[0, 0]),
        "grad.w_hh": tensor64(rnn.weight_hh_l0.grad), "grad.w_xh": tensor64(rnn.weight_ih_l0.grad),
        # b_ih and b_hh enter the sum alike: each has the gradient of b
        "grad.b": tensor64(rnn.bias_ih_l0.grad)}}


# --- Hugging Face checkpoints -------------------------------------------------------------------

SAFETENSORS_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def write_safetensors(path, tensors):
    """The safetensors format by hand: u64 header length, JSON header, little-endian data."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


GPT2_ACTIVATIONS = {"gelu_new": gelu_new, "gelu": F.gelu, "relu": F.relu}


def causal_softmax(scores):
    """softmax over keys with future positions at finfo.min, as both models mask (heads, n, n)."""
    n = scores.shape[-1]
    future = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    return torch.softmax(scores.masked_fill(future, torch.finfo(scores.dtype).min), dim=-1)


def gpt2_forward(cfg, w, ids):
    """GPT2LMHeadModel's forward (modeling_gpt2.py): Conv1D y = x·W + b, pre-LN blocks, ln_f."""
    d, h = cfg["n_embd"], cfg["n_head"]
    dk, eps = d // h, cfg.get("layer_norm_epsilon", 1e-5)
    act = GPT2_ACTIVATIONS[cfg.get("activation_function", "gelu_new")]
    n = len(ids)
    x = w["wte.weight"][ids] + w["wpe.weight"][:n]
    attentions = []
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        a = F.layer_norm(x, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        q, k, v = (a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]).split(d, dim=-1)
        q, k, v = (t.view(n, h, dk).transpose(0, 1) for t in (q, k, v))
        weights = causal_softmax(q @ k.transpose(-1, -2) / math.sqrt(dk))
        attentions.append(weights)
        merged = (weights @ v).transpose(0, 1).reshape(n, d)
        x = x + merged @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = F.layer_norm(x, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        x = x + act(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] \
            + w[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (d,), w["ln_f.weight"], w["ln_f.bias"], eps)
    head = w["wte.weight"] if cfg.get("tie_word_embeddings", True) else w["lm_head.weight"]
    return x @ head.T, attentions


def rms_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def llama_forward(cfg, w, ids):
    """LlamaForCausalLM's forward (modeling_llama.py): RMSNorm, rotate-half RoPE with rope_theta,
    K/V heads repeated for grouped queries, SwiGLU, nn.Linear y = x·Wᵀ (+ b)."""
    d, h = cfg["hidden_size"], cfg["num_attention_heads"]
    g, dk = cfg["num_key_value_heads"], d // h
    eps, theta = cfg["rms_norm_eps"], cfg["rope_theta"]
    n = len(ids)

    def linear(x, name, bias):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if bias else y

    inv_freq = 1.0 / (theta ** (torch.arange(0, dk, 2, dtype=torch.int64).float() / dk))
    freqs = torch.arange(n).float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    x = w["model.embed_tokens.weight"][ids]
    attentions = []
    ab, mb = cfg.get("attention_bias", False), cfg.get("mlp_bias", False)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = linear(a, p + "self_attn.q_proj", ab).view(n, h, dk).transpose(0, 1)
        k = linear(a, p + "self_attn.k_proj", ab).view(n, g, dk).transpose(0, 1)
        v = linear(a, p + "self_attn.v_proj", ab).view(n, g, dk).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(h // g, dim=0), v.repeat_interleave(h // g, dim=0)
        weights = causal_softmax(q @ k.transpose(-1, -2) / math.sqrt(dk))
        attentions.append(weights)
        x = x + linear((weights @ v).transpose(0, 1).reshape(n, d), p + "self_attn.o_proj", ab)
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + linear(F.silu(linear(m, p + "mlp.gate_proj", mb)) * linear(m, p + "mlp.up_proj", mb),
                       p + "mlp.down_proj", mb)
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else w["lm_head.weight"]
    return x @ head.T, attentions


def gpt2_weights(cfg):
    d, ff, vocab = cfg["n_embd"], cfg.get("n_inner") or 4 * cfg["n_embd"], cfg["vocab_size"]
    w = {"wte.weight": torch.randn(vocab, d) * 0.5, "wpe.weight": torch.randn(cfg["n_positions"], d) * 0.3}
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        w.update({p + "ln_1.weight": 1 + 0.2 * torch.randn(d), p + "ln_1.bias": 0.1 * torch.randn(d),
                  p + "attn.c_attn.weight": torch.randn(d, 3 * d) * 0.4, p + "attn.c_attn.bias": 0.1 * torch.randn(3 * d),
                  p + "attn.c_proj.weight": torch.randn(d, d) * 0.3, p + "attn.c_proj.bias": 0.1 * torch.randn(d),
                  p + "ln_2.weight": 1 + 0.2 * torch.randn(d), p + "ln_2.bias": 0.1 * torch.randn(d),
                  p + "mlp.c_fc.weight": torch.randn(d, ff) * 0.3, p + "mlp.c_fc.bias": 0.1 * torch.randn(ff),
                  p + "mlp.c_proj.weight": torch.randn(ff, d) * 0.2, p + "mlp.c_proj.bias": 0.1 * torch.randn(d)})
    w.update({"ln_f.weight": 1 + 0.2 * torch.randn(d), "ln_f.bias": 0.1 * torch.randn(d)})
    if not cfg.get("tie_word_embeddings", True):
        w["lm_head.weight"] = torch.randn(vocab, d) * 0.5
    return w


def llama_weights(cfg):
    d, ff, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    kv = cfg["num_key_value_heads"] * d // cfg["num_attention_heads"]
    ab, mb = cfg.get("attention_bias", False), cfg.get("mlp_bias", False)
    w = {"model.embed_tokens.weight": torch.randn(vocab, d) * 0.5}
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes = {"self_attn.q_proj": (d, d), "self_attn.k_proj": (kv, d), "self_attn.v_proj": (kv, d),
                  "self_attn.o_proj": (d, d), "mlp.gate_proj": (ff, d), "mlp.up_proj": (ff, d), "mlp.down_proj": (d, ff)}
        for name, (rows, cols) in shapes.items():
            w[p + name + ".weight"] = torch.randn(rows, cols) * (0.4 if "attn" in name else 0.25)
            if (ab and "attn" in name) or (mb and "mlp" in name):
                w[p + name + ".bias"] = 0.1 * torch.randn(rows)
        w[p + "input_layernorm.weight"] = 1 + 0.2 * torch.randn(d)
        w[p + "post_attention_layernorm.weight"] = 1 + 0.2 * torch.randn(d)
    w["model.norm.weight"] = 1 + 0.2 * torch.randn(d)
    if not cfg.get("tie_word_embeddings", False):
        w["lm_head.weight"] = torch.randn(vocab, d) * 0.5
    return w


def greedy(forward, cfg, w, prompt, steps):
    """20 greedy tokens, each from a full forward pass; the smallest gap between the best two
    logits is returned so a fixture whose argmax float rounding could flip is never written."""
    ids, gap = list(prompt), float("inf")
    for _ in range(steps):
        with torch.no_grad():
            logits, _ = forward(cfg, w, ids)
        top = torch.topk(logits[-1], 2).values
        gap = min(gap, float(top[0] - top[1]))
        ids.append(int(torch.argmax(logits[-1])))
    return ids[len(prompt):], gap


def hf_checkpoint_case(name, family, cfg, dtype, prompt, store=None, shards=1):
    """One checkpoint folder under fixtures/hf/: config.json, safetensors (or shards and their
    index) in dtype, and expected.json computed from the stored values widened to float32."""
    w = gpt2_weights(cfg) if family == "gpt2" else llama_weights(cfg)
    w = {k: v.to(dtype).to(torch.float32) for k, v in w.items()}  # the reference sees what the file holds
    forward = gpt2_forward if family == "gpt2" else llama_forward
    with torch.no_grad():
        logits, attentions = forward(cfg, w, prompt)
    continuation, gap = greedy(forward, cfg, w, prompt, 20)
    assert gap > 1e-3, f"{name}: greedy decoding is too close to a tie ({gap})"
    stored = store(w) if store else w
    stored = {k: v.to(dtype) for k, v in stored.items()}
    folder = OUT / "hf" / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": family, **cfg}, indent=2) + "\n")
    names = sorted(stored)
    if shards == 1:
        write_safetensors(folder / "model.safetensors", {k: stored[k] for k in names})
    else:
        weight_map = {}
        for s in range(shards):
            file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
            part = names[s::shards]
            write_safetensors(folder / file, {k: stored[k] for k in part})
            weight_map.update({k: file for k in part})
        index = {"metadata": {"total_size": sum(t.numel() * t.element_size() for t in stored.values())},
                 "weight_map": dict(sorted(weight_map.items()))}
        (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    expected = {"generator": "tests/reference/generate_fixtures.py", "torch": torch.__version__,
                "family": family, "dtype": SAFETENSORS_DTYPES[dtype], "prompt": prompt, "logits": tensor(logits),
                "attention": [tensor(a) for a in attentions], "continuation": continuation}
    (folder / "expected.json").write_text(json.dumps(expected, separators=(",", ":")) + "\n")
    print(f"wrote {folder}")


def hf_checkpoint_cases():
    gpt2 = {"vocab_size": 64, "n_positions": 32, "n_embd": 16, "n_head": 4, "n_layer": 2,
            "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "bos_token_id": 63, "eos_token_id": 63,
            "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1, "embd_pdrop": 0.1, "resid_pdrop": 0.1,
            "initializer_range": 0.02, "summary_type": "cls_index", "use_cache": True}
    causal_mask = lambda w: {**w, **{f"h.{i}.attn.bias": torch.tril(torch.ones(32, 32)).view(1, 1, 32, 32)  # noqa: E731
                                     for i in range(2)}}
    prefixed = lambda w: {("" if k == "lm_head.weight" else "transformer.") + k: v for k, v in w.items()}  # noqa: E731
    tied_copy = lambda w: {**w, "lm_head.weight": w["wte.weight"]}  # noqa: E731
    prompt = [5, 17, 42, 8, 33, 1, 60, 12]
    hf_checkpoint_case("gpt2-f32", "gpt2", gpt2, torch.float32, prompt, store=causal_mask)
    hf_checkpoint_case("gpt2-f16-untied", "gpt2", {**gpt2, "activation_function": "gelu", "n_inner": 40,
                                                   "tie_word_embeddings": False}, torch.float16, prompt, store=prefixed)
    hf_checkpoint_case("gpt2-bf16", "gpt2", {**gpt2, "activation_function": "relu"}, torch.bfloat16, prompt,
                       store=tied_copy)
    llama = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "hidden_act": "silu",
             "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 500.0, "tie_word_embeddings": False,
             "attention_bias": False, "mlp_bias": False, "rope_scaling": None, "bos_token_id": 1, "eos_token_id": 2,
             "architectures": ["LlamaForCausalLM"], "attention_dropout": 0.0, "pretraining_tp": 1,
             "initializer_range": 0.02, "torch_dtype": "float32", "use_cache": True}
    hf_checkpoint_case("llama-f32", "llama", llama, torch.float32, prompt)
    hf_checkpoint_case("llama-f16-mqa", "llama", {**llama, "num_key_value_heads": 1, "tie_word_embeddings": True,
                                                  "rope_theta": 10000.0}, torch.float16, prompt)
    hf_checkpoint_case("llama-bf16-sharded", "llama", {**llama, "attention_bias": True, "mlp_bias": True,
                                                       "tie_word_embeddings": True}, torch.bfloat16, prompt, shards=2)


def write(name, cases):
    OUT.mkdir(exist_ok=True)
    doc = {"generator": "tests/reference/generate_fixtures.py", "torch": torch.__version__, "cases": cases}
    (OUT / name).write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {len(cases)} cases to {OUT / name}")


def main():
    torch.manual_seed(20261121)
    cases = []
    for d, h, n in [(5, 1, 4), (8, 1, 3), (6, 2, 5), (8, 2, 6), (12, 4, 7), (16, 4, 4),
                    (16, 8, 5), (24, 8, 8)]:
        for causal in (False, True):
            cases.append(torch_mha_case(f"mha_d{d}_h{h}_n{n}{'_causal' if causal else ''}",
                                        d, h, n, causal))
    cases.append(torch_mha_case("cross_d8_h2_n3_m5", 8, 2, 3, m=5))
    cases.append(torch_mha_case("key_padding_d6_h2_n4", 6, 2, 4, key_padding=[0, 0, 1, 1]))
    cases.append(grouped_query_case("gqa_d8_h4_g2_n5", 8, 4, 2, 5, causal=False))
    cases.append(grouped_query_case("gqa_d16_h8_g2_n6_causal", 16, 8, 2, 6, causal=True))
    cases.append(grouped_query_case("mqa_d8_h4_g1_n5", 8, 4, 1, 5, causal=False))
    write("attention.json", cases)

    torch.manual_seed(20261122)
    layers = pointwise_cases()
    layers += [encoder_layer_case(norm_first, act) for norm_first in (False, True) for act in ("relu", "gelu")]
    layers += [decoder_layer_case(norm_first) for norm_first in (False, True)]
    layers.append(decoder_only_model_case())
    write("layers.json", layers)

    torch.manual_seed(20261123)
    write("training.json", [training_case(), adamw_case()])

    torch.manual_seed(20261124)
    write("rnn.json", [rnn_case("rnn_d5_h4_t6", 5, 4, 6), rnn_case("rnn_d3_h7_t9", 3, 7, 9)])

    torch.manual_seed(20261125)
    write("patches.json", [patches_case("patches_6x8_p2_d5", 6, 8, 2, 5), patches_case("patches_12x12_p4_d7", 12, 12, 4, 7)])

    torch.manual_seed(20261127)
    hf_checkpoint_cases()


if __name__ == "__main__":
    main()
