// The floors' crossing of a string id through their scratch buffer (bench/floor/entry.js and
// bench/floor-rules/scenarios.js bundle it): the id's bytes written into `view`, one per
// UTF-16 unit while it is ASCII, else all of it by `TextEncoder.encodeInto`.
const encoder = new TextEncoder();

/** Writes `id` into `view` (a view of the floor's scratch buffer); returns its length in bytes. */
export function writeId(id, view) {
  const n = id.length;
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i);
    if (c > 0x7f) return encoder.encodeInto(id, view).written;
    view[i] = c;
  }
  return n;
}
