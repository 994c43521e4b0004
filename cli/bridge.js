// `mcp-cancel bridge`: a cancellation-correct MCP bridge on the relay (createRelay) and the
// official MCP SDK transports.
//
//   mcp-cancel bridge --http <url>          stdio in (this process), Streamable HTTP out
//   mcp-cancel bridge --stdio "<command>"   Streamable HTTP in (any number of clients, 2025-era
//                                           in sessions and 2026-07-28 without), one child
//                                           process out, shared by all of them; with
//                                           --child-per-session one per session
//                                           (cli/children.js)
//
// Each side keeps its revision's cancellation rules: a stdio client's notifications/cancelled
// reaches a 2026-07-28 HTTP server as a closed request stream, ids of many HTTP clients never
// collide on the shared child, late answers are dropped, a client that goes away has its
// requests cancelled upstream. Diagnostics go to stderr; stdout belongs to MCP in --http mode.
//
// This file is the command: it reads its configuration (cli/config.js), wires one mode from
// the parts, and decides the exit status. The parts of --stdio: the HTTP endpoint and its
// sessions (cli/endpoint.js), each request's response stream (cli/streams.js), the checks a
// request passes first (cli/gate.js), resumable streams (cli/resume.js), and the server side,
// the shared child below or a child per session (cli/children.js).

import { createRelay } from "mcp-cancel";

import { SessionChildren } from "./children.js";
import { readConfig, USAGE } from "./config.js";
import { Endpoint } from "./endpoint.js";
import { TOKEN_VARIABLE } from "./gate.js";

/** Exit statuses. */
const OK = 0;
const FAILED = 1;
const USAGE_ERROR = 2;

/**
 * Runs the bridge until its client side ends (stdin closes, or SIGINT/SIGTERM) or its server
 * side fails.
 *
 * @param {string[]} args the command line after `bridge`
 * @returns {Promise<number>} the exit status: 0, 1 (the server side failed or ended), 2 (usage)
 */
export async function main(args) {
  const config = readConfig(args);
  if (config.problem !== undefined) return usage(config.problem);
  if (config.help) {
    process.stdout.write(USAGE);
    return OK;
  }
  const relayOptions = { ...config.relayOptions };
  if (config.verbose) relayOptions.onEvent = (event) => process.stderr.write(`${JSON.stringify(event)}\n`);
  relayOptions.onError = (error) => say(`error: ${error.message}`);
  return config.mode === "http" ? httpOut(config, relayOptions) : stdioOut(config, relayOptions);
}

function usage(problem) {
  process.stderr.write(`mcp-cancel bridge: ${problem}\n\n${USAGE}`);
  return USAGE_ERROR;
}

function say(text) {
  process.stderr.write(`mcp-cancel bridge: ${text}\n`);
}

/** stdio in, Streamable HTTP out. */
async function httpOut({ url, headers }, relayOptions) {
  // The SDK 2.x client transport: per-request streams, so a cancel on a 2026-07-28 server
  // is closing the request's stream; it speaks the 2025 revisions too.
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const upstream = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const { relay, finished, done } = relayTo(upstream, relayOptions, `the connection to ${url.href} closed`);
  await relay.start();
  const downstream = new StdioServerTransport();
  relay.connect(downstream);
  await downstream.start();
  say(`relaying stdio ↔ ${url.href}`);
  // The client side ends with stdin: its requests in flight are cancelled upstream.
  process.stdin.once("end", () => done(OK));
  process.stdin.once("close", () => done(OK));
  const status = await Promise.race([finished, clientSideSignal()]);
  await relay.close().catch(() => {});
  return status;
}

/**
 * Streamable HTTP in, a child process's stdio out: one child shared by every HTTP client, or
 * one per session with --child-per-session (cli/children.js).
 */
async function stdioOut({ command, perSession, endpoint: settings }, relayOptions) {
  const spawn = await childTransports(command);
  const servers = perSession ? new SessionChildren({ spawn, relayOptions, resumeGrace: settings.resumeGrace, say }) : sharedChild(spawn(), relayOptions);
  try {
    await servers.start();
  } catch (error) {
    say(`could not start "${command}": ${error.message}`);
    return FAILED;
  }
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const endpoint = new Endpoint({ settings, servers, Transport: StreamableHTTPServerTransport, say });
  if (!(await endpoint.listen())) {
    await servers.close();
    return FAILED;
  }
  endpoint.announce(command, perSession);
  const status = await Promise.race([servers.finished, clientSideSignal()]);
  await endpoint.close();
  await servers.close();
  return status;
}

/**
 * A maker of stdio client transports for `command`, run as a shell would run it (quotes,
 * arguments), as `npx` users write it. The child gets this process's environment, as a
 * command run from this shell would; not the bridge's own token.
 */
async function childTransports(command) {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const shell = process.platform === "win32" ? { command: "cmd.exe", args: ["/d", "/s", "/c", command] } : { command: "/bin/sh", args: ["-c", `exec ${command}`] };
  const env = { ...process.env };
  delete env[TOKEN_VARIABLE];
  return () => new StdioClientTransport({ ...shell, env, stderr: "inherit" });
}

/**
 * The server side of `bridge --stdio` without --child-per-session: one child and its relay,
 * every session and every 2026-07-28 request a client of it; the child's end is the bridge's
 * (`finished`). cli/children.js is the same interface with a child per session.
 */
function sharedChild(upstream, relayOptions) {
  /** The session id of each client of the relay (its `link`), for the events. */
  const sessionOfLink = new Map();
  const onEvent = relayOptions.onEvent;
  const withSession =
    onEvent === undefined ? relayOptions : { ...relayOptions, onEvent: (event) => onEvent(event.link === undefined ? event : { ...event, session: sessionOfLink.get(event.link) }) };
  const { relay, finished } = relayTo(upstream, withSession, "the server process ended");
  return {
    finished,
    start: () => relay.start(),
    classify: (request) => relay.classifyHttp(request),
    ending: () => 0,
    open: async (session, connectOptions) => {
      session.client = relay.connect(session.transport, connectOptions);
    },
    named: (session, id) => sessionOfLink.set(session.client.link, id),
    opened: () => {},
    closed: (session) => sessionOfLink.delete(session.client.link),
    lost: () => {},
    modern: async () => relay,
    close: () => relay.close().catch(() => {}),
  };
}

/**
 * A relay to `upstream`; `finished` resolves with FAILED when the upstream ends (`ended` says
 * how, on stderr), or with what `done` is given.
 */
function relayTo(upstream, relayOptions, ended) {
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const relay = createRelay({
    upstream,
    ...relayOptions,
    onUpstreamClose: () => {
      say(`${ended}: every request in flight was answered with an error`);
      done(FAILED);
    },
  });
  return { relay, finished, done };
}

/** Resolves with OK at SIGINT/SIGTERM. */
function clientSideSignal() {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve(OK));
    process.once("SIGTERM", () => resolve(OK));
  });
}
