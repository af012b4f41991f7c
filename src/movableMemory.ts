// Memory that postMessage may move to another thread instead of copying: the ArrayBuffers of
// views that span the whole of theirs. A Buffer cut from Node's shared pool (small ones are)
// or a view over a SharedArrayBuffer must not be in a transfer list; those are copied or
// shared as usual.

/** The transfer list for the views: each one's ArrayBuffer where the view owns all of it. */
export function movableMemory(views: readonly (ArrayBufferView | null)[]): ArrayBuffer[] {
  const movable: ArrayBuffer[] = [];
  for (const view of views) {
    if (view !== null && view.buffer instanceof ArrayBuffer && view.byteOffset === 0 && view.byteLength === view.buffer.byteLength) movable.push(view.buffer);
  }
  return movable;
}
