// Work that can wait runs when the page is idle (or after `timeout` ms at the latest).
export function whenIdle(task: () => void, timeout = 2000): void {
  if ('requestIdleCallback' in globalThis) requestIdleCallback(() => task(), { timeout });
  else setTimeout(task, 50);
}
