import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const glue = await import("/work/main/pkg/web/mcp_cancel.js");
glue.initSync({ module: readFileSync("/work/main/pkg/web/mcp_cancel_bg.wasm") });
const { SessionCore } = glue;
const f = () => {};
const core = new SessionCore(0, NaN, NaN, NaN, NaN, NaN, undefined, undefined, undefined, f, undefined, undefined, undefined, 12345, f, f, f, f, f, f, f);
const floor = createRequire(import.meta.url)("/tmp/floor-pkg/floor.js");
const wf = new floor.WindowFloor();
const mem = new Uint8Array(floor.wasm_memory().buffer, floor.scratch_ptr(), 1024);
const id = "req-123"; for (let i = 0; i < 7; i++) mem[i] = id.charCodeAt(i);
const w0 = 0x2d716572, w1 = 0x333231; // "req-" "123"
const code = JSON.parse(SessionCore.constantsJson()).methods.indexOf("tools/call") + 1;
const N = 2_000_000;
function ours() { const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) { core.trackWords(7, w0, w1, 0, code); if ((core.responseWords(7, w0, w1, 0) & 0xff) !== 0) throw new Error("x"); } return Number(process.hrtime.bigint() - t) / N; }
function fl() { const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) { wf.track_scratch(7, 7); if (wf.complete_scratch(7) !== 0) throw new Error("y"); } return Number(process.hrtime.bigint() - t) / N; }
function oursNum() { const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) { core.trackNumber(5, code); if ((core.responseNumber(5) & 0xff) !== 0) throw new Error("x"); } return Number(process.hrtime.bigint() - t) / N; }
function flNum() { const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) { wf.track(5, 7); if (wf.complete(5) !== 0) throw new Error("y"); } return Number(process.hrtime.bigint() - t) / N; }
for (let r = 0; r < 5; r++) console.log(`ours words ${ours().toFixed(1)}  floor scratch ${fl().toFixed(1)}  ours number ${oursNum().toFixed(1)}  floor number ${flNum().toFixed(1)}`);
