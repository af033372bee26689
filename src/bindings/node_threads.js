// Linked into the Node builds (--post-js). Node keeps a process alive while a worker thread is
// referenced; the engine's pthread workers wait for work forever, so they are unreferenced
// and the process can exit when the caller is done.
Module['unrefThreads'] = function () {
  if (typeof PThread === 'undefined') return;
  PThread.unusedWorkers.concat(PThread.runningWorkers).forEach(function (worker) {
    if (worker.unref) worker.unref();
  });
};
