// node scripts/gpt2-tokenizer.mjs OUT: writes GPT-2's tokenizer as a Hugging Face tokenizer.json,
// derived from the ranks js-tiktoken ships (js-tiktoken/ranks/gpt2, MIT).
//
// tiktoken keeps one rank per token (its byte string) and merges, in a pre-token, the adjacent
// pair whose joined bytes have the lowest rank. Hugging Face's BPE keeps merges instead. The
// vocabulary is each token's bytes in GPT-2's byte alphabet, with its rank as id; each token of two
// or more bytes gets the merge that makes it, in rank order: the two parts tiktoken's own
// algorithm leaves when it runs on the token's bytes with only the lower ranks.
import { writeFileSync } from 'node:fs';
import gpt2 from 'js-tiktoken/ranks/gpt2';

const out = process.argv[2];
if (!out) throw new Error('usage: node scripts/gpt2-tokenizer.mjs OUT');

// GPT-2's byte alphabet: printable Latin-1 bytes stand for themselves, the rest for U+0100 onwards
const byteChar = [];
for (let b = 0, next = 0x100; b < 256; b++) {
  const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
  byteChar.push(String.fromCodePoint(printable ? b : next++));
}
const asText = (bytes) => Array.from(bytes, (b) => byteChar[b]).join('');

// the compressed ranks: lines of "<name> <first rank> <base64 token> …", consecutive ranks
const byRank = [];
for (const line of gpt2.bpe_ranks.split('\n').filter(Boolean)) {
  const [, first, ...tokens] = line.split(' ');
  tokens.forEach((token, i) => { byRank[Number(first) + i] = Buffer.from(token, 'base64'); });
}
const rankOf = new Map(byRank.map((bytes, rank) => [bytes.toString('latin1'), rank]));

// the parts tiktoken's merging leaves of bytes using only ranks below maxRank
function tiktokenParts(bytes, maxRank) {
  let parts = Array.from(bytes, (b) => Buffer.from([b]));
  for (;;) {
    let best = -1;
    let bestRank = maxRank;
    for (let i = 0; i + 1 < parts.length; i++) {
      const rank = rankOf.get(Buffer.concat([parts[i], parts[i + 1]]).toString('latin1'));
      if (rank !== undefined && rank < bestRank) [best, bestRank] = [i, rank];
    }
    if (best < 0) return parts;
    parts = [...parts.slice(0, best), Buffer.concat([parts[best], parts[best + 1]]), ...parts.slice(best + 2)];
  }
}

const vocab = {};
const merges = [];
byRank.forEach((bytes, rank) => {
  vocab[asText(bytes)] = rank;
  if (bytes.length < 2) return;
  const parts = tiktokenParts(bytes, rank);
  if (parts.length !== 2) throw new Error(`token ${rank} is not the merge of two lower-ranked tokens`);
  merges.push(parts.map(asText));
});

const specials = Object.entries(gpt2.special_tokens);
const tokenizer = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: specials.map(([content, id]) => (
    { id, content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true })),
  normalizer: null,
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
  post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
  decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
  model: {
    type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
    fuse_unk: false, byte_fallback: false, vocab: { ...vocab, ...Object.fromEntries(specials) }, merges,
  },
};
if (Object.keys(tokenizer.model.vocab).length !== gpt2.explicit_n_vocab) {
  throw new Error(`expected ${gpt2.explicit_n_vocab} tokens, made ${Object.keys(tokenizer.model.vocab).length}`);
}
writeFileSync(out, JSON.stringify(tokenizer));
