// The models the reader trained on this page (the training slide), for the widgets that can use one
// beside the shipped model of the same task: the explorer offers a coreference model trained here.
// Each task keeps its latest model, a copy of the weights in the engine worker; a newer one replaces
// (and frees) the older. Listeners hear "change" on `trainedModels`, with `detail.show` when the
// reader asked to look at the model now (the training slide's link to the explorer).
import type { RemoteModel } from './engine';

export type TrainedTask = 'copy' | 'reverse' | 'sort' | 'coreference';

export interface TrainedModel {
  model: RemoteModel;
  /** what it is, for a label: "demo size, seed 7, 300 of 1500 steps" */
  about: string;
  /** optimiser steps taken */
  steps: number;
}

export const trainedModels = new EventTarget();
const latest = new Map<TrainedTask, TrainedModel>();

/** the latest model trained here for `task`, if any */
export function trainedModel(task: TrainedTask): TrainedModel | undefined {
  return latest.get(task);
}

/** Keeps `trained` as the task's model trained here (the registry owns it from now on). */
export function registerTrainedModel(task: TrainedTask, trained: TrainedModel, options: { show?: boolean } = {}): void {
  const previous = latest.get(task);
  latest.set(task, trained);
  trainedModels.dispatchEvent(new CustomEvent('change', { detail: { task, show: options.show ?? false } }));
  if (previous && previous.model !== trained.model) previous.model.dispose().catch(() => undefined);
}

/** Asks the widgets that offer the task's model trained here to show it now. */
export function showTrainedModel(task: TrainedTask): void {
  if (latest.has(task)) trainedModels.dispatchEvent(new CustomEvent('change', { detail: { task, show: true } }));
}
