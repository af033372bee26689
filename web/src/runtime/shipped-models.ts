// The trained models the page ships (web/public/models/<name>/: model.safetensors, config.json,
// vocab.json, and for induction the curves of its run, training.json; see README, "Training and
// the demo models"). Read by the page and by the build that
// puts them inside the offline file.
export const SHIPPED_MODELS = ['coreference', 'sort', 'fortunes', 'reverse-seq2seq', 'induction', 'english'] as const;
export type ShippedModel = (typeof SHIPPED_MODELS)[number];

export const isShippedModel = (name: string): name is ShippedModel => (SHIPPED_MODELS as readonly string[]).includes(name);
