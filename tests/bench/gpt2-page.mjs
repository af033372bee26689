// Run by gpt2.mjs in a cross-origin-isolated page: the GPT-2 checkpoint its file picker
// (#checkpoint) holds, opened in the engine's Worker and in onnxruntime-web's with the same threads,
// and the same shape in BF16 (#checkpoint-bf16) in a second engine Worker that keeps it in 16 bits.
// First the two runners' logits are compared on a few tokens, so that the times below are of the
// same computation; then the runners take turns (A B, B A, …), each with a prefill and several
// decoded tokens, after a round that only warms them up. Returns everything as measured.
import { startWorker } from './workers.mjs';

const RUNNER_URLS = {
  engine: new URL('./gpt2-worker.mjs', import.meta.url),
  ort: new URL('./peers/ort-gpt2-worker.mjs', import.meta.url),
  'engine-bf16': new URL('./gpt2-worker.mjs?bf16', import.meta.url),  // its own URL: its own memory figure
};
const TOLERANCE = 1e-3;
// lets a runner's threads go idle (some spin after a call) before the other one starts
const PAUSE_MS = 50;

const log = (line) => {
  document.querySelector('#log').textContent += `${line}\n`;
  console.info(line);
};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** the largest difference between two logit vectors over the largest logit's size */
function relativeDifference(actual, expected) {
  let difference = 0, size = 0;
  for (let i = 0; i < expected.length; i++) {
    difference = Math.max(difference, Math.abs(actual[i] - expected[i]));
    size = Math.max(size, Math.abs(expected[i]));
  }
  return difference / size;
}

/** onnxruntime-web's logits against the engine's, after the prompt and each greedy token */
async function checkLogits({ engine, ort }, prompt, steps) {
  const expected = await engine.call('check', { prompt, steps });
  const actual = await ort.call('check', { prompt, next: expected.next });
  const difference = Math.max(...expected.logits.map((logits, i) => relativeDifference(actual[i], logits)));
  log(`logits checked on ${prompt.length} tokens and ${steps} more: largest relative difference ${difference.toExponential(1)}`);
  if (!(difference <= TOLERANCE)) throw new Error(`onnxruntime-web's logits differ from the engine's by ${difference}: a wrong graph`);
  return { tokens: prompt.length, steps, relativeDifference: difference };
}

/** each runner Worker's memory (WebAssembly memory, which never shrinks, and JavaScript heap) as
 * performance.measureUserAgentSpecificMemory() attributes it, by runner name */
async function workerBytes(names) {
  const { breakdown } = await performance.measureUserAgentSpecificMemory();
  return Object.fromEntries(names.map((name) => [name,
    breakdown.filter((entry) => entry.attribution.some((a) => a.url === RUNNER_URLS[name].href)).reduce((sum, entry) => sum + entry.bytes, 0)]));
}

window.runGpt2 = async ({ config, threads, withOrt, prompt, checkPrompt, checkSteps, steps, rounds }) => {
  const file = document.querySelector('#checkpoint').files[0], bf16 = document.querySelector('#checkpoint-bf16').files[0];
  log(`${file.name}: ${file.size} bytes; ${bf16.name}: ${bf16.size} bytes`);
  const names = withOrt ? ['engine', 'ort', 'engine-bf16'] : ['engine', 'engine-bf16'];
  const runners = Object.fromEntries(names.map((name) => [name, startWorker(RUNNER_URLS[name], { type: 'module' })]));
  const loads = {};
  for (const name of names) {
    const kept = name === 'engine-bf16' ? { file: bf16, weightStorage: 'as-stored' } : { file };
    loads[name] = await runners[name].call('load', { config, threads, ...kept });
    log(`${loads[name].runtime}: loaded in ${(loads[name].loadMs / 1000).toFixed(1)} s`);
  }
  const check = withOrt ? await checkLogits(runners, checkPrompt, checkSteps) : undefined;
  const copyBytesPerSecond = await runners.engine.call('bandwidth');
  log(`copy bandwidth in the engine's Worker: ${(copyBytesPerSecond / 1e9).toFixed(1)} GB/s`);

  const samples = Object.fromEntries(names.map((name) => [name, { prefillMs: [], decodeMs: [] }]));
  for (let round = 0; round <= rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      await pause(PAUSE_MS);
      const prefillMs = await runners[name].call('prefill', { tokens: prompt });
      const decodeMs = await runners[name].call('decode', { steps });
      log(`${round === 0 ? 'warm-up' : `round ${round}/${rounds}`} ${name}: prefill ${prefillMs.toFixed(0)} ms, decode ${decodeMs.map((ms) => ms.toFixed(0)).join(' ')} ms`);
      if (round === 0) continue;
      samples[name].prefillMs.push(prefillMs);
      samples[name].decodeMs.push(...decodeMs);
    }
  }
  const heapPeaks = { engine: await runners.engine.call('peakBytes'), 'engine-bf16': await runners['engine-bf16'].call('peakBytes') };
  const memory = await workerBytes(names);
  Object.values(runners).forEach((runner) => runner.terminate());
  return { loads, check, copyBytesPerSecond, samples, heapPeaks, workerBytes: memory };
};
