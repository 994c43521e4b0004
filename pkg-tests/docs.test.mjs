// The documents a user reads: the README's relative links resolve in the packed tarball (where
// most users read it: npm shows the README, and a link into the repository is dead there), the
// guides' links resolve in the repository, every `#anchor` names a heading of its target, and the
// README, BENCHMARKS.md and the CHANGELOG's newest entry keep the length a reader gets through.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings, numbered as GitHub numbers repeated ones. */
export function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const line of withoutCode(markdown).split("\n")) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The text with fenced code blocks blanked, so that a `# comment` in a shell block is no heading. */
function withoutCode(markdown) {
  return markdown.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ""));
}

/** Every link target of a Markdown text: `[text](target)`, `![alt](target)`, `<a href="target">`. */
export function links(markdown) {
  const text = withoutCode(markdown).replace(/`[^`\n]*`/g, "");
  const out = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
  for (const m of text.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)) out.push(m[1]);
  return out;
}

const isRelative = (target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("//");

/**
 * Checks every relative link of `doc` (a path from the root): its file is one of `files` (paths from
 * the root) or, when `files` is undefined, exists in the repository; an anchor names a heading.
 * Returns the problems found, one line each.
 */
async function brokenLinks(doc, files) {
  const text = await readFile(path.join(root, doc), "utf8");
  const problems = [];
  for (const target of links(text).filter(isRelative)) {
    const [file, anchor] = target.split("#");
    const resolved = file === "" ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), decodeURI(file)));
    const exists = files
      ? files.includes(resolved) || files.some((f) => f.startsWith(`${resolved.replace(/\/$/, "")}/`))
      : existsSync(path.join(root, resolved));
    if (!exists || resolved.startsWith("..")) {
      problems.push(`${doc}: ${target} → ${resolved} is not ${files ? "in the packed tarball" : "in the repository"}`);
      continue;
    }
    if (anchor && resolved.endsWith(".md") && statSync(path.join(root, resolved)).isFile()) {
      const heads = anchors(await readFile(path.join(root, resolved), "utf8"));
      if (!heads.has(anchor)) problems.push(`${doc}: ${target} → no heading #${anchor} in ${resolved}`);
    }
  }
  return problems;
}

/** The files of the packed tarball, as `npm pack --dry-run` lists them (paths from the root). */
async function packedFiles() {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout)[0].files.map((f) => f.path);
}

async function guides() {
  return (await readdir(path.join(root, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
}

describe("the documents", () => {
  test("the link checker finds a dead link and a wrong anchor, and passes good ones", () => {
    assert.deepEqual(links("see [a](docs/x.md#y), ![c](bench/chart.svg), `[no](code.md)` and <a href=\"z.md\">z</a>"), ["docs/x.md#y", "bench/chart.svg", "z.md"]);
    assert.equal(slug("Use it with `guardTransport()` — SDK 2.x, Node"), "use-it-with-guardtransport--sdk-2x-node");
    assert.deepEqual([...anchors("# A\n## A\n```sh\n# not a heading\n```\n### B: c")], ["a", "a-1", "b-c"]);
  });

  test("every relative link of the README resolves in the packed tarball, and its anchors in their files", async () => {
    const files = await packedFiles();
    assert.ok(files.includes("README.md"), "the tarball has the README");
    assert.deepEqual(await brokenLinks("README.md", files), []);
  });

  test("every relative link of the guides, CONTRIBUTING, CHANGELOG and BENCHMARKS resolves in the repository", async () => {
    const docs = [...(await guides()), "CONTRIBUTING.md", "CHANGELOG.md", "BENCHMARKS.md"].filter((d) => existsSync(path.join(root, d)));
    const problems = [];
    for (const doc of docs) problems.push(...(await brokenLinks(doc)));
    assert.deepEqual(problems, []);
  });

  test("the packed tarball ships every guide the README links to, and the commands' README links only to shipped guides", async () => {
    const files = await packedFiles();
    for (const guide of await guides()) assert.ok(files.includes(guide), `${guide} is in the tarball`);
    const cli = await readFile(path.join(root, "cli/README.md"), "utf8");
    assert.deepEqual(links(cli).filter(isRelative), [], "cli/README.md has no relative link (its tarball ships no guide)");
    for (const [, file] of cli.matchAll(/https:\/\/cdn\.jsdelivr\.net\/npm\/mcp-cancel@\d+\/([^)#\s]+)/g)) {
      assert.ok(files.includes(file), `cli/README.md links to ${file}, which the library's tarball ships`);
    }
  });

  test("the README is a first screen: at most 300 lines, its first example by line 60", async () => {
    const lines = (await readFile(path.join(root, "README.md"), "utf8")).split("\n");
    assert.ok(lines.length <= 300, `README.md has ${lines.length} lines`);
    const first = lines.findIndex((l) => /^```(js|ts)$/.test(l));
    assert.ok(first >= 0 && first < 60, `the README's first example starts at line ${first + 1}`);
  });

  test("BENCHMARKS.md has at most 300 lines, and the CHANGELOG's newest release at most 150", async () => {
    const bench = (await readFile(path.join(root, "BENCHMARKS.md"), "utf8")).split("\n");
    assert.ok(bench.length <= 300, `BENCHMARKS.md has ${bench.length} lines`);
    const changelog = await readFile(path.join(root, "CHANGELOG.md"), "utf8");
    const releases = [...changelog.matchAll(/^## \[\d+\.\d+\.\d+[^\]]*\][^\n]*$/gm)];
    assert.ok(releases.length >= 1, "the CHANGELOG has a release");
    assert.match(releases[0][0], /— \d{4}-\d{2}-\d{2}$/, "the newest release is dated");
    const entry = changelog.slice(releases[0].index, releases[1]?.index ?? changelog.length).split("\n");
    assert.ok(entry.length <= 150, `the newest release's entry has ${entry.length} lines`);
  });
});
