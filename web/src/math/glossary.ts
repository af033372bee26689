// The deck's glossary: every technical term its slides and widgets mark (data-term="key"), with a
// definition of one to three sentences and the slide that shows it live. DOM-free: the deck's
// glossary slide is written from it when the page is built (glossaryMarkup), and the popups of
// marked terms read it in the page (primitives/glossary.ts). In a definition, $…$ is TeX.

export interface GlossaryEntry {
  /** what data-term names: lowercase words joined by hyphens */
  readonly key: string;
  /** the term as the glossary lists it */
  readonly term: string;
  /** one to three sentences; $…$ is typeset by KaTeX */
  readonly definition: string;
  /** the id of the slide that shows it */
  readonly slide: string;
}

export const GLOSSARY: readonly GlossaryEntry[] = [
  // the input
  { key: 'token', term: 'token', slide: 'components',
    definition: 'A piece of the input the model reads as one unit: a word, part of a word, a character or an image patch. The model sees only its index in the vocabulary, which the embedding turns into a vector.' },
  { key: 'embedding', term: 'embedding', slide: 'components',
    definition: 'The vector a token starts as: row $E[t]$ of a learned matrix $E \\in \\mathbb{R}^{V \\times d}$ for token index $t$ of a vocabulary of $V$. Positions are added to it before the first layer: $x_i = E[t_i] + p_i$.' },
  { key: 'tensor', term: 'tensor', slide: 'architecture',
    definition: 'An array of numbers with a shape, such as $n \\times d$ for the vectors of $n$ tokens of width $d$. The architecture diagram labels each arrow with the shape of the tensor a real forward pass sends along it.' },
  { key: 'forward-pass', term: 'forward pass', slide: 'architecture',
    definition: 'Running the model from its input tokens to its outputs. The engine keeps every intermediate result of it (its trace), which is what the widgets draw.' },
  // before attention
  { key: 'rnn', term: 'recurrent network (RNN)', slide: 'sequential-bottleneck',
    definition: 'A network that reads a sequence one step at a time, each state computed from the previous one: $h_t = \\tanh(W_{hh}h_{t-1} + W_{xh}x_t + b)$. Its steps cannot run in parallel, and the first token reaches the last only through $n - 1$ of them.' },
  { key: 'vanishing-gradient', term: 'vanishing gradient', slide: 'sequential-bottleneck',
    definition: 'A gradient that shrinks as it passes back through many steps or layers, because each multiplies it by a Jacobian that scales it down, so the earliest ones barely learn. Attention\'s direct paths and residual connections avoid it.' },
  { key: 'gradient', term: 'gradient', slide: 'residuals',
    definition: 'The vector of partial derivatives of the loss with respect to every parameter (or activation): the direction in which a small change raises the loss fastest. Training moves the parameters against it.' },
  { key: 'backpropagation', term: 'backpropagation', slide: 'training',
    definition: 'The chain rule applied from the loss back to the input, layer by layer: each layer turns the gradient of its output into the gradients of its input and of its parameters. The engine computes it exactly when it trains.' },
  { key: 'jacobian', term: 'Jacobian', slide: 'norms',
    definition: 'The matrix $J_{ij} = \\partial y_i / \\partial x_j$ of a function\'s partial derivatives. A gradient passes backwards through a layer as a product with the layer\'s Jacobian.' },
  // attention
  { key: 'attention', term: 'attention', slide: 'self-attention',
    definition: 'A weighted average of value vectors whose weights say how well a query matches each key: $\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}(QK^\\top/\\sqrt{d_k})\\,V$. Each output row takes information from every position in one step.' },
  { key: 'self-attention', term: 'self-attention', slide: 'self-attention',
    definition: 'Attention whose queries, keys and values all come from the same sequence, $Q = XW^Q$, $K = XW^K$, $V = XW^V$, so that each token gathers information from the others.' },
  { key: 'query', term: 'query', slide: 'self-attention',
    definition: 'The vector $q_i = x_i W^Q$ with which position $i$ looks for information: its dot product with every key gives that position\'s attention scores.' },
  { key: 'key', term: 'key', slide: 'self-attention',
    definition: 'The vector $k_j = x_j W^K$ by which position $j$ is found: query $i$ scores it with the dot product $q_i \\cdot k_j$.' },
  { key: 'value', term: 'value', slide: 'self-attention',
    definition: 'The vector $v_j = x_j W^V$ that position $j$ contributes: attention returns $\\sum_j \\alpha_{ij} v_j$, the values averaged under query $i$\'s weights.' },
  { key: 'attention-score', term: 'attention score', slide: 'self-attention',
    definition: 'The scaled dot product $e_{ij} = q_i \\cdot k_j / \\sqrt{d_k}$ of query $i$ and key $j$ before the softmax, plus $-\\infty$ where a mask hides the key.' },
  { key: 'attention-weights', term: 'attention weights', slide: 'explorer',
    definition: 'The scores of one query after the softmax, $\\alpha_{ij} = e^{e_{ij}} / \\sum_k e^{e_{ik}}$: non-negative and summing to 1 over the keys.' },
  { key: 'attention-map', term: 'attention map', slide: 'explorer',
    definition: 'A heatmap of one head\'s attention weights: row $i$ shows where query $i$ looks, and a dark cell in column $j$ a large weight on key $j$.' },
  { key: 'softmax', term: 'softmax', slide: 'why-sqrt-dk',
    definition: 'Turns real scores into probabilities: $\\mathrm{softmax}(z)_i = e^{z_i} / \\sum_j e^{z_j}$. The engine subtracts the row\'s maximum first, which leaves the result unchanged and keeps $e^{z}$ from overflowing; a score of $-\\infty$ gets weight 0.' },
  { key: 'scaled-dot-product', term: 'scaled dot-product attention', slide: 'worked-example',
    definition: 'Attention that scores a query and a key by their dot product divided by $\\sqrt{d_k}$: $\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})\\,V$. The division keeps the scores\' variance at 1 when the components have variance 1, whatever $d_k$.' },
  { key: 'head-dimension', term: 'dₖ (head dimension)', slide: 'multi-head',
    definition: 'The length of each head\'s query and key vectors, usually $d_k = d_{\\text{model}}/h$, so that $h$ heads cost as much as one of full width. Scores are divided by $\\sqrt{d_k}$.' },
  { key: 'saturated-softmax', term: 'saturated softmax', slide: 'why-sqrt-dk',
    definition: 'A softmax whose largest score exceeds the others by so much that one weight is almost 1 and the rest almost 0. Its Jacobian $\\alpha_i(\\delta_{ij} - \\alpha_j)$ is then almost 0, so the gradient vanishes: what unscaled scores do at large $d_k$.' },
  { key: 'hard-attention', term: 'hard attention', slide: 'why-sqrt-dk',
    definition: 'Attention that picks one key (one-hot weights) instead of averaging. It passes no gradient to the keys it did not pick; softmax attention is its smooth version and tends to it as the temperature goes to 0.' },
  { key: 'temperature', term: 'temperature', slide: 'generation',
    definition: 'A divisor $T$ of the scores or logits before the softmax, $p_i = e^{z_i/T} / \\sum_j e^{z_j/T}$: below 1 it sharpens the distribution, above 1 it flattens it, and as $T \\to 0$ it becomes the argmax.' },
  { key: 'multi-head-attention', term: 'multi-head attention', slide: 'multi-head',
    definition: '$h$ attention heads side by side on the same input, each with its own projections; their outputs are concatenated and projected back, $\\mathrm{Concat}(\\mathrm{head}_1, \\dots, \\mathrm{head}_h)\\,W^O$. Different heads can look at different things.' },
  { key: 'attention-head', term: 'attention head', slide: 'multi-head',
    definition: 'One attention computation with its own $W^Q_i$, $W^K_i$, $W^V_i$ of width $d_k$, giving one attention map. A layer has several, run in parallel.' },
  { key: 'output-projection', term: 'output projection Wᴼ', slide: 'multi-head',
    definition: 'The matrix $W^O \\in \\mathbb{R}^{h d_v \\times d_{\\text{model}}}$ that maps the concatenated heads back to the model\'s width; through it the heads\' outputs are summed.' },
  // families
  { key: 'encoder', term: 'encoder', slide: 'families',
    definition: 'A stack of blocks whose self-attention is not masked, so that every token sees the whole input. It turns the input into vectors in context; BERT is an encoder alone.' },
  { key: 'decoder', term: 'decoder', slide: 'families',
    definition: 'A stack of blocks whose self-attention is causally masked, trained to predict each next token from the ones before it. GPT models are a decoder alone; in an encoder-decoder the decoder also reads the encoder through cross-attention.' },
  { key: 'encoder-decoder', term: 'encoder-decoder', slide: 'families',
    definition: 'The original Transformer: an encoder reads the source, and a decoder writes the target one token at a time, reading the encoder\'s output through cross-attention. Made for translation and other sequence-to-sequence tasks.' },
  { key: 'cross-attention', term: 'cross-attention', slide: 'families',
    definition: 'Attention whose queries come from one sequence and whose keys and values come from another: $\\mathrm{softmax}(Q_{\\text{dec}} K_{\\text{enc}}^\\top / \\sqrt{d_k})\\,V_{\\text{enc}}$. It is how a decoder reads its encoder.' },
  { key: 'bert', term: 'BERT', slide: 'families',
    definition: 'An encoder-only Transformer (Devlin et al., 2019) with learned positions, trained to fill in masked words from both sides. Made for understanding text rather than generating it.' },
  { key: 'gpt-2', term: 'GPT-2', slide: 'generation',
    definition: 'A decoder-only language model (Radford et al., 2019) with learned positions, pre-LN blocks and the tanh form of GELU; the smallest has 12 layers of 12 heads and $d_{\\text{model}} = 768$. The deck opens its checkpoint with “Open a model…”.' },
  { key: 'llama', term: 'LLaMA', slide: 'ffn',
    definition: 'Meta\'s decoder-only models (2023 on), with RMSNorm, RoPE, SwiGLU and, in the larger ones, grouped-query attention. SmolLM2, which the deck can open, is built the same way.' },
  { key: 'causal-mask', term: 'causal mask', slide: 'causal-mask',
    definition: 'The matrix added to the scores so that position $i$ sees only positions $j \\le i$: $M_{ij} = 0$ for $j \\le i$ and $-\\infty$ for $j > i$. After the softmax the future has weight exactly 0.' },
  { key: 'autoregressive', term: 'autoregressive', slide: 'generation',
    definition: 'Generating a sequence one token at a time, each drawn from $p(x_t \\mid x_{<t})$ and fed back as input for the next. A decoder trained with a causal mask models exactly these conditionals.' },
  // positions
  { key: 'positional-encoding', term: 'positional encoding', slide: 'positions',
    definition: 'What tells attention, which by itself ignores order, where each token is: a vector added to the token (sinusoidal, learned), a rotation of queries and keys (RoPE) or a penalty on the scores (ALiBi).' },
  { key: 'sinusoidal-encoding', term: 'sinusoidal positional encoding', slide: 'positions',
    definition: 'The original Transformer\'s fixed positions: $PE_{(pos,2i)} = \\sin(pos\\,\\omega_i)$ and $PE_{(pos,2i+1)} = \\cos(pos\\,\\omega_i)$ with $\\omega_i = 10000^{-2i/d}$. A shift by $k$ positions is one fixed rotation $T_k$ of every pair.' },
  { key: 'learned-positions', term: 'learned positions', slide: 'positions',
    definition: 'One trained vector per position (GPT-2\'s wpe), added to the token\'s embedding. A model has none for positions past the table\'s length.' },
  { key: 'rope', term: 'RoPE (rotary position embedding)', slide: 'rope',
    definition: 'Rotates each pair of dimensions of a query at position $m$ by $m\\theta_i$ and of a key at position $n$ by $n\\theta_i$, with $\\theta_i = 10000^{-2i/d}$. Since $(R_m q)^\\top (R_n k) = q^\\top R_{n-m}\\,k$, a score depends only on the offset $n - m$.' },
  { key: 'relative-position', term: 'relative position', slide: 'rope',
    definition: 'Where one token is from another, the offset $n - m$, rather than where each is in the sequence. With RoPE or ALiBi the scores depend on it alone.' },
  { key: 'alibi', term: 'ALiBi', slide: 'positions',
    definition: 'Attention with Linear Biases: no position vectors at all; each head adds $-m\\,|i - j|$ to the score of query $i$ and key $j$, with its own slope $m$ ($2^{-8h/H}$ for head $h$ of $H$, a power of two). Distant keys lose weight linearly.' },
  { key: 'permutation-equivariance', term: 'permutation equivariance', slide: 'permutation',
    definition: 'Attention without positions satisfies $\\mathrm{Attn}(PX) = P\\,\\mathrm{Attn}(X)$ for every permutation matrix $P$: shuffling the tokens shuffles the outputs the same way and changes nothing else. Positions break the symmetry.' },
  // the block
  { key: 'layernorm', term: 'LayerNorm', slide: 'norms',
    definition: 'Normalises each token\'s vector over its $d$ features, then scales and shifts it: $\\mathrm{LN}(x) = \\gamma \\odot (x - \\mu)/\\sqrt{\\sigma^2 + \\varepsilon} + \\beta$, with $\\mu$ and $\\sigma^2$ the mean and variance (divided by $d$) of $x$. The engine takes $\\varepsilon = 10^{-5}$ unless a model\'s config says otherwise.' },
  { key: 'rmsnorm', term: 'RMSNorm', slide: 'norms',
    definition: 'LayerNorm without the centring and the shift: $\\mathrm{RMS}(x) = \\gamma \\odot x / \\sqrt{\\tfrac{1}{d}\\sum_i x_i^2 + \\varepsilon}$. LLaMA uses it; it is one reduction cheaper per token.' },
  { key: 'residual-connection', term: 'residual connection', slide: 'residuals',
    definition: 'A sub-layer\'s output added to its input, $y = x + f(x)$, so that the backward pass always has the identity path: $\\partial\\mathcal{L}/\\partial x = \\partial\\mathcal{L}/\\partial y\\,(I + \\partial f/\\partial x)$. It lets the gradient reach the first layers of a deep stack.' },
  { key: 'pre-ln', term: 'pre-LN', slide: 'residuals',
    definition: 'The norm inside the residual branch, before the sub-layer: $x + f(\\mathrm{LN}(x))$, as in GPT-2 and most recent models. The skip path stays a clean identity from the output to the input.' },
  { key: 'post-ln', term: 'post-LN', slide: 'residuals',
    definition: 'The original Transformer\'s order, the norm after the residual sum: $\\mathrm{LN}(x + f(x))$. Every layer\'s gradient then passes through a norm, and deep post-LN stacks are hard to train without warm-up.' },
  { key: 'ffn', term: 'feed-forward network (FFN)', slide: 'ffn',
    definition: 'The two-layer network each token passes through alone after attention: $\\mathrm{FFN}(x) = \\sigma(xW_1 + b_1)\\,W_2 + b_2$, widened to $d_{ff}$ (usually $4d$) and back. With $d_{ff} = 4d$ it holds two thirds of a block\'s weights.' },
  { key: 'relu', term: 'ReLU', slide: 'ffn',
    definition: '$\\mathrm{ReLU}(x) = \\max(0, x)$, the original Transformer\'s non-linearity: slope 0 for negative inputs and 1 for positive ones.' },
  { key: 'gelu', term: 'GELU', slide: 'ffn',
    definition: '$\\mathrm{GELU}(x) = x\\,\\Phi(x) = \\tfrac{x}{2}\\bigl(1 + \\mathrm{erf}(x/\\sqrt{2})\\bigr)$: the input weighted by the standard normal CDF, a smooth ReLU. GPT-2 uses the approximation $\\tfrac{x}{2}\\bigl(1 + \\tanh(\\sqrt{2/\\pi}\\,(x + 0.044715\\,x^3))\\bigr)$; the engine has both.' },
  { key: 'swiglu', term: 'SwiGLU', slide: 'ffn',
    definition: 'A gated FFN, $(\\mathrm{Swish}(xW_g) \\odot xW_1)\\,W_2$ with $\\mathrm{Swish}(z) = z\\,\\sigma(z)$: one matrix more than the plain FFN. LLaMA uses it.' },
  // generating
  { key: 'logits', term: 'logits', slide: 'generation',
    definition: 'The unnormalised scores the last layer gives every token of the vocabulary; $\\mathrm{softmax}(z)$ turns them into next-token probabilities. Only their differences matter.' },
  { key: 'greedy-decoding', term: 'greedy decoding', slide: 'generation',
    definition: 'Generating by always taking the most likely next token, $\\arg\\max_i p_i$ (temperature 0). It is deterministic and prone to repeating itself.' },
  { key: 'sampling', term: 'sampling', slide: 'generation',
    definition: 'Generating by drawing the next token at random from the model\'s distribution, after temperature, top-k or top-p have reshaped it. The engine draws from a seeded random stream, so one seed gives one text.' },
  { key: 'top-k', term: 'top-k', slide: 'generation',
    definition: 'Sampling from the $k$ most likely tokens only: the others get probability 0 and the $k$ are renormalised.' },
  { key: 'top-p', term: 'top-p (nucleus sampling)', slide: 'generation',
    definition: 'Sampling from the fewest most likely tokens whose probabilities sum to at least $p$, renormalised. The set adapts: a few tokens where the model is sure, many where it is not.' },
  { key: 'kv-cache', term: 'KV cache', slide: 'kv-cache',
    definition: 'The keys and values of the tokens already decoded, kept per layer so that each new token projects only itself: a step costs $O(n\\,d)$ instead of $O(n^2 d)$. It holds $2 \\cdot L \\cdot n \\cdot g \\cdot d_k$ numbers for $L$ layers of $g$ key/value heads.' },
  { key: 'multi-query-attention', term: 'multi-query attention (MQA)', slide: 'gqa',
    definition: 'All $h$ query heads share one key head and one value head, which makes the KV cache $h$ times smaller. The queries stay per head.' },
  { key: 'grouped-query-attention', term: 'grouped-query attention (GQA)', slide: 'gqa',
    definition: 'Between multi-head and multi-query attention: $g$ key/value heads, each shared by $h/g$ query heads, and a KV cache $h/g$ times smaller than multi-head attention\'s.' },
  // other modalities
  { key: 'vit', term: 'ViT (Vision Transformer)', slide: 'applications',
    definition: 'A Transformer encoder over an image cut into $P \\times P$ patches, each flattened and embedded as one token (Dosovitskiy et al., 2021). Attention then runs over patches as over words.' },
  { key: 'patch-embedding', term: 'patch embedding', slide: 'applications',
    definition: 'A patch\'s $P^2$ pixels as one row, times a learned matrix: $x_{\\text{patch}} = \\mathrm{Flatten}(\\text{patch})\\,E$ is its token vector.' },
  // cost
  { key: 'quadratic-cost', term: 'quadratic cost', slide: 'complexity',
    definition: 'Attention compares every query with every key: $n^2$ scores of $d$ multiply-adds each, time $O(n^2 d)$ and, stored whole, memory $O(n^2)$. The projections and the FFN cost $O(n\\,d^2)$, linear in $n$.' },
  { key: 'log-log-plot', term: 'log-log plot', slide: 'complexity',
    definition: 'Both axes logarithmic, so that a power law $y = c\\,x^k$ is a straight line of slope $k$: $\\log y = \\log c + k \\log x$. The slope of a measured cost reads off its exponent.' },
  { key: 'webassembly', term: 'WebAssembly', slide: 'complexity',
    definition: 'A binary instruction format that browsers compile to machine code. The engine is C++ compiled to it, with 128-bit SIMD and, where the page allows, threads; every number in the deck comes from it.' },
  { key: 'flash-attention', term: 'flash attention', slide: 'flash-attention',
    definition: 'Exact attention computed tile by tile with an online softmax, so that the $n \\times n$ weights never exist all at once (Dao et al., 2022): extra memory $O(n)$ instead of $O(n^2)$, the same result up to rounding.' },
  { key: 'online-softmax', term: 'online softmax', slide: 'flash-attention',
    definition: 'A softmax computed in one pass over the scores, keeping a running maximum $m$ and sum $\\ell$; when a larger maximum $m\'$ arrives, what came before is rescaled by $e^{m - m\'}$.' },
  // training
  { key: 'cross-entropy', term: 'cross-entropy', slide: 'training',
    definition: 'The loss of predicting token $t$ from logits $z$: $-\\log \\mathrm{softmax}(z)_t$, averaged over the positions. It is 0 only when the model gives the right token probability 1.' },
  { key: 'adamw', term: 'AdamW', slide: 'training',
    definition: 'The optimiser the engine trains with: each parameter steps by $\\eta\\,\\hat{m}/(\\sqrt{\\hat{v}} + \\epsilon)$, from running means $\\hat m$ of its gradient and $\\hat v$ of its square, and weight decay shrinks the weights directly rather than through the gradient (Loshchilov and Hutter, 2019).' },
  { key: 'learning-rate-schedule', term: 'warm-up and cosine decay', slide: 'training',
    definition: 'The learning rate rises linearly for the first $t_w$ steps, then falls along half a cosine to $\\eta_{\\min}$: $\\eta_t = \\eta_{\\min} + \\tfrac12(\\eta_{\\max} - \\eta_{\\min})\\bigl(1 + \\cos(\\pi\\,\\tfrac{t - t_w}{T - t_w})\\bigr)$.' },
  { key: 'gradient-clipping', term: 'gradient clipping', slide: 'training',
    definition: 'When the norm $\\lVert g \\rVert$ of all the gradients together exceeds a limit $c$, every gradient is scaled by $c/\\lVert g \\rVert$, so that one bad batch cannot throw the weights far. The engine clips before every AdamW step.' },
  { key: 'scaling-law', term: 'scaling law', slide: 'scaling-laws',
    definition: 'A power law of the loss in parameters $N$, data $D$ or compute $C$ when the other two do not limit it, such as $L(N) \\propto N^{-0.076}$ (Kaplan et al., 2020). On log-log axes it is a straight line.' },
  // what heads do
  { key: 'previous-token-head', term: 'previous-token head', slide: 'head-finder',
    definition: 'A head in which every query puts its weight on the position just before it. It hands an induction head the token that came before.' },
  { key: 'first-token-head', term: 'first-token head', slide: 'head-finder',
    definition: 'A head that parks most of its weight on the first token whatever the text: somewhere to put weight when nothing else fits, since a query\'s weights must sum to 1.' },
  { key: 'induction-head', term: 'induction head', slide: 'in-context-learning',
    definition: 'A head that looks from a token to the token that followed its earlier occurrence, and copies it: after “A B … A” it predicts “B”. It needs a previous-token head in an earlier layer (Olsson et al., 2022).' },
  { key: 'in-context-learning', term: 'in-context learning', slide: 'in-context-learning',
    definition: 'Doing a task from examples given in the prompt, with no change to the weights: the fixed network reads the examples and continues the pattern. It emerges from pretraining on next-token prediction.' },
  { key: 'phase-change', term: 'phase change', slide: 'in-context-learning',
    definition: 'A short stretch of training in which an ability appears abruptly: Olsson et al. (2022) saw induction heads form and in-context learning improve at the same time, as a bump in the loss curve.' },
  // what Transformers can compute
  { key: 'universality', term: 'universality', slide: 'universality',
    definition: 'With enough precision, layers and positions, a Transformer can simulate any Turing machine (Pérez et al., 2019, with hard attention): the architecture is computationally universal. It says what the architecture can express, not what training finds.' },
  { key: 'turing-complete', term: 'Turing complete', slide: 'universality',
    definition: 'Able to compute whatever a Turing machine can, given enough time and memory. A Transformer needs unbounded precision, or outputs that grow to serve as its tape.' },
  { key: 'rasp', term: 'RASP', slide: 'universality',
    definition: 'Restricted Access Sequence Processing (Weiss, Goldberg and Yahav, 2021): a programming language whose operations map onto Transformer layers, element-wise maps onto the FFN and select with aggregate onto attention. A RASP program bounds the layers and heads a task needs.' },
  { key: 'select', term: 'select (RASP)', slide: 'universality',
    definition: 'RASP\'s attention pattern: a boolean matrix made by comparing every query position\'s value with every key position\'s, such as $k < q$. It stands for the attention weights before the averaging.' },
  { key: 'aggregate', term: 'aggregate (RASP)', slide: 'universality',
    definition: 'RASP\'s averaging: each position takes the mean of a sequence\'s values over the positions its row of a select marks, as attention averages values under its weights.' },
  // numbers
  { key: 'numerical-overflow', term: 'numerical overflow', slide: 'mistakes',
    definition: 'A result too large for its number format: in float32 $e^x$ is $+\\infty$ for $x > 88.7$, and a softmax computed naively then divides $\\infty$ by $\\infty$ and returns NaN. Subtracting the maximum first avoids it.' },
  { key: 'log-sum-exp', term: 'log-sum-exp trick (max subtraction)', slide: 'mistakes',
    definition: 'Computing $\\log \\sum_i e^{z_i}$ as $m + \\log \\sum_i e^{z_i - m}$ with $m = \\max_i z_i$, so that no exponent is above 0 and nothing overflows. The softmax is unchanged by the shift: $\\mathrm{softmax}(z - m) = \\mathrm{softmax}(z)$.' },
];

const BY_KEY = new Map(GLOSSARY.map((entry) => [entry.key, entry]));

/** the entry a data-term names, or undefined */
export function glossaryEntry(key: string): GlossaryEntry | undefined {
  return BY_KEY.get(key);
}

/** the entries in the glossary's order: alphabetical by term, ignoring case */
export function alphabetical(entries: readonly GlossaryEntry[] = GLOSSARY): GlossaryEntry[] {
  return [...entries].sort((a, b) => a.term.localeCompare(b.term, 'en', { sensitivity: 'base' }));
}

/** a definition cut into its text and its formulas ($…$), in order */
export function definitionParts(definition: string): { text: string; tex: boolean }[] {
  return definition.split('$').map((text, i) => ({ text, tex: i % 2 === 1 })).filter((part) => part.text !== '');
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The glossary slide's list as HTML, every formula as <tex>…</tex> for the build to typeset (TeX as
 * written: the build reads it before any HTML parser does); an entry links to its slide when
 * `slides` (the deck's slide ids) has it. */
export function glossaryMarkup(slides: ReadonlySet<string>): string {
  const item = ({ key, term, definition, slide }: GlossaryEntry) => {
    const text = definitionParts(definition).map(({ text, tex }) => (tex ? `<tex>${text}</tex>` : escapeHtml(text))).join('');
    const link = slides.has(slide) ? ` <a href="#${slide}">see it live →</a>` : '';
    return `<div class="glossary-entry" id="glossary-${key}" data-entry="${key}" data-arrives-late><dt><dfn>${escapeHtml(term)}</dfn></dt>`
      + `<dd><span class="definition">${text}</span>${link}</dd></div>`;
  };
  return `<dl class="glossary-list">${alphabetical().map(item).join('')}</dl>`;
}
