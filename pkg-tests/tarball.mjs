// The packed npm package, installed the way users install it: `npm pack` of the repository,
// then `npm install <tarball>` in a tiny project of its own. Shared by the tests that run the
// package from its tarball (packaging, workers, hosts).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const repo = fileURLToPath(new URL("..", import.meta.url));

/**
 * Packs the repository into `dir`.
 * @returns {Promise<{ packed: any, tarball: string }>} npm pack --json's entry, and the tarball's path
 */
export async function packTarball(dir) {
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: repo, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout);
  return { packed, tarball: path.join(dir, packed.filename) };
}

/**
 * Packs the commands' package (cli/, npm `mcp-cancel-cli`) into `dir`.
 * @returns {Promise<{ packed: any, tarball: string }>} npm pack --json's entry, and the tarball's path
 */
export async function packCliTarball(dir) {
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: path.join(repo, "cli"), maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout);
  return { packed, tarball: path.join(dir, packed.filename) };
}

/**
 * Installs `tarball` (and `also`, e.g. "@modelcontextprotocol/sdk@1.32.2") into the project
 * at `proj`, made with a package.json of its own when it has none. From npm's cache when it
 * can (--prefer-offline): the repository's own install put every package there.
 */
export async function installTarball(proj, tarball, also = []) {
  await mkdir(proj, { recursive: true });
  await writeFile(path.join(proj, "package.json"), JSON.stringify({ name: path.basename(proj), private: true }), { flag: "wx" }).catch((error) => {
    if (error.code !== "EEXIST") throw error;
  });
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--no-save", tarball, ...also], { cwd: proj, maxBuffer: 16 * 1024 * 1024 });
}

/**
 * `name@version` of the package `name` as the repository has it installed (its top-level
 * node_modules; not every package exports its package.json), to install the same elsewhere.
 */
export function sameAsRepo(name) {
  const { version } = JSON.parse(readFileSync(path.join(repo, "node_modules", name, "package.json"), "utf8"));
  return `${name}@${version}`;
}
