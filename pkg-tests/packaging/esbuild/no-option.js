// The same app built by esbuild with no option but --bundle, calling `init()` with no
// argument: esbuild emits no .wasm and leaves `import.meta` empty in its default (iife)
// output, so `init()` rejects. ../packaging.test.mjs checks that it still does: the day
// esbuild handles `new URL(…, import.meta.url)`, the README's esbuild note can go.
import * as api from "mcp-cancel";

const out = document.getElementById("result");
api.init().then(
  () => {
    out.textContent = JSON.stringify({ ok: true });
  },
  (error) => {
    out.textContent = JSON.stringify({ ok: false, error: `${error?.name}: ${error?.message}` });
  },
);
