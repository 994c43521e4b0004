// The measurements of bench/run.mjs that only use the package's public API, as one JSON
// document on stdout (progress on stderr). bench/compare.sh runs it against the package as
// built at another commit, for the before/after table of BENCHMARKS.md.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { runOps } from "./ops.mjs";
import { runSdk } from "./sdk.mjs";
import { sizes, startup } from "./size.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const log = (s) => console.error(s);

const ops = await runOps({ rounds: 2, log });
const sdk = await runSdk({ log });
const mem = spawnSync(process.execPath, ["--expose-gc", `${root}/bench/memory.mjs`], { cwd: root, encoding: "utf8", maxBuffer: 1 << 24 });
if (mem.status !== 0) throw new Error(`bench/memory.mjs failed: ${mem.stderr}`);
const memory = JSON.parse(mem.stdout.trim().split("\n").pop());
const files = sizes();
const start = startup(20);
console.log(JSON.stringify({ date: new Date().toISOString(), ops, sdk, memory, files, startup: start }, null, 2));
